package location

import (
	"encoding/json"
	"testing"
)

func TestRoomsJSONIsEncodingJSONs(t *testing.T) {
	total := json.Number("395.38")
	bad := json.Number("NaN")
	for _, r := range []Rooms{
		{},
		{Property: "riverside", Name: "Riverside Inn", Phone: "+1 303 555 0111", Rooms: []Room{}},
		{Property: "riverside", Rooms: []Room{
			{RoomType: "double", Free: 2, Bookable: true, Total: &total, Currency: "USD", FormURL: "https://example.com/book/riverside?roomtype=double&checkin=2027-01-05"},
			{RoomType: "suite", Note: "Sold out."},
		}},
		{Rooms: []Room{{Total: &bad}}},
	} {
		want, wantErr := json.Marshal(r)
		got, err := r.AppendJSON(nil)
		if (err != nil) != (wantErr != nil) || err == nil && string(got) != string(want) {
			t.Errorf("%+v:\n AppendJSON %s (%v)\njson.Marshal %s (%v)", r, got, err, want, wantErr)
		}
	}
}
