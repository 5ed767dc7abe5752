package location

import "frontdesk/internal/jsonappend"

// AppendJSON appends r as json.Marshal writes it. find_rooms answers with
// the rooms of every property it reads, on every call; written here they
// skip encoding/json's walk of the types (TestRoomsJSONIsEncodingJSONs).
func (r Rooms) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"property":`...)
	b = jsonappend.String(b, r.Property)
	b = append(b, `,"name":`...)
	b = jsonappend.String(b, r.Name)
	b = append(b, `,"phone":`...)
	b = jsonappend.String(b, r.Phone)
	b = append(b, `,"rooms":`...)
	if r.Rooms == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, room := range r.Rooms {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = room.AppendJSON(b); err != nil {
				return b, err
			}
		}
		b = append(b, ']')
	}
	return append(b, '}'), nil
}

// AppendJSON appends r as json.Marshal writes it.
func (r Room) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"roomtype":`...)
	b = jsonappend.String(b, r.RoomType)
	b = append(b, `,"free":`...)
	b = jsonappend.Int(b, r.Free)
	b = append(b, `,"bookable":`...)
	b = jsonappend.Bool(b, r.Bookable)
	if r.Total != nil {
		var err error
		b = append(b, `,"total":`...)
		if b, err = jsonappend.Number(b, *r.Total); err != nil {
			return b, err
		}
	}
	if r.Currency != "" {
		b = append(b, `,"currency":`...)
		b = jsonappend.String(b, r.Currency)
	}
	if r.Note != "" {
		b = append(b, `,"note":`...)
		b = jsonappend.String(b, r.Note)
	}
	b = append(b, `,"booking_form":`...)
	b = jsonappend.String(b, r.FormURL)
	return append(b, '}'), nil
}
