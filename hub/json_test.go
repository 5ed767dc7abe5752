package hub

import (
	"encoding/json"
	"testing"

	"frontdesk/location"
)

// sameJSON fails unless v writes itself exactly as json.Marshal writes
// it, or both fail.
func sameJSON(t *testing.T, v interface{ AppendJSON([]byte) ([]byte, error) }) {
	t.Helper()
	want, wantErr := json.Marshal(v)
	got, err := v.AppendJSON([]byte("prefix"))
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("%+v: AppendJSON error %v, json.Marshal error %v", v, err, wantErr)
	}
	if err == nil && string(got) != "prefix"+string(want) {
		t.Fatalf("%+v:\n AppendJSON %s\njson.Marshal %s", v, got[len("prefix"):], want)
	}
}

func num(s string) *json.Number { n := json.Number(s); return &n }

func TestSearchJSONIsEncodingJSONs(t *testing.T) {
	rooms := location.Rooms{Property: "riverside", Name: "Riverside Inn", Phone: "+1 303 555 0111", Rooms: []location.Room{
		{RoomType: "double", Free: 2, Bookable: true, Total: num("395.38"), Currency: "USD", FormURL: "https://example.com/book/riverside?roomtype=double&checkin=2027-01-05"},
		{RoomType: "suite", Free: 0, Note: "Sold out <for> these \"dates\".", FormURL: ""},
		{RoomType: "twin", Total: num("")},
	}}
	for _, s := range []Search{
		{},
		{Checkin: "2027-01-05", Checkout: "2027-01-08", Nights: 3, Properties: []location.Rooms{}, Page: Page{Total: 3, Number: 1, Pages: 1}},
		{Checkin: "2027-01-05", Checkout: "2027-02-04", Nights: 30, Properties: []location.Rooms{rooms, {Property: "oldtown"}, {Rooms: []location.Room{}}},
			Unread: []Unread{{Property: "airport", Name: "Airport Suites", Phone: "+1 303 555 0199"}}, Page: Page{Total: 40, Number: 2, Pages: 4, NextPage: 3}},
		{Unread: []Unread{}, Page: Page{NextPage: -1}},
		{Properties: []location.Rooms{{Rooms: []location.Room{{Total: num("1e400")}}}}},
		{Properties: []location.Rooms{{Rooms: []location.Room{{Total: num("12,5")}}}}},
		{Checkin: "caf\u00e9 \u2028 \xff & \x01"},
	} {
		sameJSON(t, s)
	}
}

func FuzzSearchJSON(f *testing.F) {
	f.Add("2027-01-05", "Riverside Inn", "395.38", "Sold out.", 3, 2, true, 0)
	f.Add("<&>\u2028\xff\"", "", "", "", -1, 0, false, 7)
	f.Fuzz(func(t *testing.T, s, name, total, note string, nights, free int, bookable bool, shape int) {
		room := location.Room{RoomType: s, Free: free, Bookable: bookable, Currency: name, Note: note, FormURL: s + name}
		if shape&1 != 0 {
			room.Total = num(total)
		}
		rooms := location.Rooms{Property: s, Name: name, Phone: note, Rooms: []location.Room{room, {}}}
		if shape&2 != 0 {
			rooms.Rooms = nil
		}
		search := Search{Checkin: s, Checkout: note, Nights: nights, Properties: []location.Rooms{rooms}, Page: Page{Total: free, Number: nights, Pages: shape, NextPage: shape & 4}}
		if shape&8 != 0 {
			search.Unread = []Unread{{Property: s, Name: name, Phone: total}}
		}
		if shape&16 != 0 {
			search.Properties = nil
		}
		sameJSON(t, search)
		sameJSON(t, rooms)
		sameJSON(t, room)
	})
}

func BenchmarkSearchJSON(b *testing.B) {
	room := func(t string) location.Room {
		return location.Room{RoomType: t, Free: 2, Bookable: true, Total: num("395.38"), Currency: "USD", FormURL: "https://example.com/book/riverside?roomtype=" + t + "&checkin=2027-01-05&checkout=2027-01-08"}
	}
	s := Search{Checkin: "2027-01-05", Checkout: "2027-01-08", Nights: 3, Page: Page{Total: 1, Number: 1, Pages: 1},
		Properties: []location.Rooms{{Property: "riverside", Name: "Riverside Inn", Phone: "+1 303 555 0111", Rooms: []location.Room{room("single"), room("double"), room("suite")}}}}
	b.Run("encoding/json", func(b *testing.B) {
		for b.Loop() {
			_, _ = json.Marshal(s)
		}
	})
	b.Run("AppendJSON", func(b *testing.B) {
		for b.Loop() {
			_, _ = s.AppendJSON(make([]byte, 0, 1024))
		}
	})
}
