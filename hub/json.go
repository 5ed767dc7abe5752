package hub

import "frontdesk/internal/jsonappend"

// AppendJSON appends s as json.Marshal writes it: find_rooms answers with
// one on every call (TestSearchJSONIsEncodingJSONs).
func (s Search) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"checkin":`...)
	b = jsonappend.String(b, s.Checkin)
	b = append(b, `,"checkout":`...)
	b = jsonappend.String(b, s.Checkout)
	b = append(b, `,"nights":`...)
	b = jsonappend.Int(b, s.Nights)
	b = append(b, `,"properties":`...)
	if s.Properties == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, p := range s.Properties {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = p.AppendJSON(b); err != nil {
				return b, err
			}
		}
		b = append(b, ']')
	}
	if len(s.Unread) > 0 {
		b = append(b, `,"unread_properties":[`...)
		for i, u := range s.Unread {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"property":`...)
			b = jsonappend.String(b, u.Property)
			b = append(b, `,"name":`...)
			b = jsonappend.String(b, u.Name)
			b = append(b, `,"phone":`...)
			b = jsonappend.String(b, u.Phone)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	// The embedded Page's fields, where it is embedded: last.
	b = append(b, `,"total_properties":`...)
	b = jsonappend.Int(b, s.Total)
	b = append(b, `,"page":`...)
	b = jsonappend.Int(b, s.Number)
	b = append(b, `,"pages":`...)
	b = jsonappend.Int(b, s.Pages)
	if s.NextPage != 0 {
		b = append(b, `,"next_page":`...)
		b = jsonappend.Int(b, s.NextPage)
	}
	return append(b, '}'), nil
}
