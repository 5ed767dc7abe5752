package reservation

import "context"

// ChangeRedacted is the audit line of a reservation whose guest was
// forgotten.
const ChangeRedacted = "redacted"

// Redact clears what identifies c.Read's guest (contact, contact key,
// notes and the door's detail), in whatever state, keeping its slots,
// units, total, state and audit, with name standing in for the guest.
// The privacy sweep and `frontdesk forget` call it. It writes the row
// alone, conditional on the version read (CodeConflict when it moved),
// takes and gives back nothing, and no subscriber hears of it: a platform
// is not sent a forgotten buyer.
func (d *Desk) Redact(ctx context.Context, c Change, name string) (Reservation, error) {
	r := c.Read
	redacted := r
	redacted.Contact = Contact{Name: name}
	redacted.ContactKey, redacted.Notes, redacted.Detail = "", "", nil
	redacted.Audit = append(append([]Entry(nil), r.Audit...), Entry{At: c.At, By: c.By, What: ChangeRedacted})
	var p plan
	p.add(partRow, nil, Save(redacted, c.At))
	if err := d.commit(ctx, p); err != nil {
		return r, err
	}
	redacted.Version, redacted.UpdatedAt = r.Version+1, c.At
	return redacted, nil
}
