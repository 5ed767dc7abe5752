package web

import (
	"context"
	"strings"

	"frontdesk/reservation"
	"frontdesk/store"
)

// Search of the reservation list by guest name, email, phone or
// reference. The store indexes no guest text, so the search reads the
// filtered reservations in pages and matches in memory, up to a bound.

const (
	// searchScanned bounds how many reservations one search reads.
	searchScanned = 5000
	// searchShown bounds how many matches it shows.
	searchShown = 50
)

// search returns the reservations of f that match q.
func (s *StaffScreen) search(ctx context.Context, f store.ReservationFilter, q string) ([]reservation.Reservation, error) {
	m := newMatcher(q)
	f.Limit = 500
	f.After = store.ReservationCursor{}
	var out []reservation.Reservation
	for scanned := 0; scanned < searchScanned; {
		page, err := s.Core.Reservations(ctx, f)
		if err != nil {
			return nil, err
		}
		for _, r := range page {
			if m.matches(r) {
				out = append(out, r)
				if len(out) == searchShown {
					return out, nil
				}
			}
		}
		scanned += len(page)
		if len(page) < f.Limit {
			break
		}
		last := page[len(page)-1]
		f.After = store.ReservationCursor{FirstSlot: last.FirstSlot(), Reference: last.Reference}
	}
	return out, nil
}

// matcher is a search query read once: its words, and its digits when
// it has enough of them to be a phone number.
type matcher struct {
	text   string
	ref    string // the query as a reference typed with or without its groups' spaces
	words  []string
	digits string
}

func newMatcher(q string) matcher {
	m := matcher{text: strings.ToLower(strings.TrimSpace(q))}
	m.words = strings.Fields(m.text)
	m.ref = compactReference(q)
	if d := onlyDigits(q); len(d) >= 4 {
		m.digits = d
	}
	return m
}

// matches: the reference, the whole email, every word of the query in
// the guest's name or email, or the phone's digits.
func (m matcher) matches(r reservation.Reservation) bool {
	if strings.EqualFold(r.Reference, m.text) || r.Reference == m.ref || strings.Contains(strings.ToLower(r.Reference), m.text) && len(m.text) >= 6 {
		return true
	}
	hay := strings.ToLower(r.Contact.Name + " " + r.Contact.Email)
	if m.digits != "" && strings.Contains(onlyDigits(r.Contact.Phone), m.digits) {
		return true
	}
	if len(m.words) == 0 {
		return false
	}
	for _, w := range m.words {
		if !strings.Contains(hay, w) {
			return false
		}
	}
	return true
}

func onlyDigits(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}
