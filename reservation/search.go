package reservation

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	"frontdesk/store"
)

// Search: staff find a reservation by its reference (or its start), the
// guest's name or email (any word of them, or its start), or the phone's
// digits (the whole number or its last digits). Each reservation is kept
// in an index of terms beside its row (store.Reservation.Terms), written
// with every write of the row, so a search reads only its matches in any
// amount of history, and redacting a guest removes them from it.

// phoneMark starts the term of a phone number: its digits reversed, so a
// search by the last digits reads a range of the index like any prefix.
const phoneMark = "~"

// referenceMark starts the terms of a reference: the whole reference and
// its code after the location's prefix ("RIV-0CD8…" is found by "0cd8…").
// A query is read as a reference only from minReference characters on,
// so "riv" finds guests named Rivera, not every stay at Riverside.
const referenceMark = "#"

// minReference is how many characters a query needs to be read as a
// reference.
const minReference = 6

// minPhoneDigits is how many digits a query needs to be read as a phone
// number.
const minPhoneDigits = 4

// terms are the words r is found by.
func (r Reservation) terms() []string {
	ref := strings.ToLower(r.Reference)
	out := []string{referenceMark + ref}
	if i := strings.LastIndexByte(ref, '-'); i >= 0 && i+1 < len(ref) {
		out = append(out, referenceMark+ref[i+1:])
	}
	out = append(out, words(r.Contact.Name)...)
	if e := strings.ToLower(strings.TrimSpace(r.Contact.Email)); e != "" {
		out = append(out, e)
		out = append(out, words(e)...)
	}
	if d := digits(r.Contact.Phone); len(d) >= minPhoneDigits {
		out = append(out, phoneMark+reverse(d))
	}
	slices.Sort(out)
	out = slices.Compact(out)
	// A name of dozens of words is kept searchable by its first ones.
	if len(out) > 48 {
		out = out[:48]
	}
	return out
}

// words are the lowercase words of s: each run of non-space characters,
// and each run of letters and digits within it, so "Mary-Jane" is found
// by "mary-jane", "mary" and "jane".
func words(s string) []string {
	var out []string
	for _, f := range strings.Fields(strings.ToLower(s)) {
		out = append(out, f)
		parts := strings.FieldsFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		if len(parts) > 1 || len(parts) == 1 && parts[0] != f {
			out = append(out, parts...)
		}
	}
	return out
}

func digits(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func reverse(s string) string {
	b := []byte(s)
	slices.Reverse(b)
	return string(b)
}

// ErrEmptySearch is a query with nothing to search by.
var ErrEmptySearch = errors.New("search: the query has no words")

// query reads a staff search into the alternatives of a store search:
// every word as the start of a term; the query without its spaces as the
// start of a reference (read aloud in groups of four, say); and its digits
// as a phone number when it is one.
func query(q string) ([][]string, error) {
	q = strings.ToLower(strings.TrimSpace(q))
	ws := strings.Fields(q)
	if len(ws) == 0 {
		return nil, ErrEmptySearch
	}
	if len(ws) > 8 {
		ws = ws[:8]
	}
	alts := [][]string{ws}
	if joined := strings.Join(strings.Fields(q), ""); len(joined) >= minReference {
		alts = append(alts, []string{referenceMark + joined})
	}
	phone := strings.TrimFunc(q, func(r rune) bool { return strings.ContainsRune("0123456789 +-().", r) }) == ""
	if d := digits(q); phone && len(d) >= minPhoneDigits {
		alts = append(alts, []string{phoneMark + reverse(d)})
	}
	return alts, nil
}

// Search returns up to limit reservations that q finds, at location (all
// of them when ""), nearest to near first: those not ended by near in
// order of arrival, then the ones that ended, latest first.
func Search(ctx context.Context, st store.Reservations, q, location, near string, limit int) ([]Reservation, error) {
	alts, err := query(q)
	if err != nil {
		return nil, err
	}
	return fromRows(st.SearchReservations(ctx, store.ReservationSearch{Any: alts, Location: location, Near: near, Limit: limit}))
}

// termsIndexed is the record that says every reservation stored before
// the index of terms existed has been given its terms.
var termsIndexed = store.Key{Kind: "reservation-terms", Key: "indexed"}

// IndexTerms gives every reservation written before the index of terms
// existed its terms, once per store, leaving each row and its version
// (a USP booking's revision) as they are, and then records that it is
// done. A row changed meanwhile is read again. It is safe to run from
// several processes at once.
func IndexTerms(ctx context.Context, st store.Store, now time.Time) error {
	if _, err := st.Get(ctx, termsIndexed.Kind, termsIndexed.Key); err == nil {
		return nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("index terms: %w", err)
	}
	const page = 200
	conflicts := 0
	for after := (store.ReservationCursor{}); ; {
		rows, err := st.ListReservations(ctx, store.ReservationFilter{After: after, Limit: page})
		if err != nil {
			return fmt.Errorf("index terms: %w", err)
		}
		writes := make([]store.Write, 0, len(rows))
		for _, row := range rows {
			r, err := FromRow(row)
			if err != nil {
				return fmt.Errorf("index terms: %w", err)
			}
			writes = append(writes, indexWrite(r, row))
		}
		if len(writes) > 0 {
			if _, err := st.Apply(ctx, writes); err != nil {
				if (errors.Is(err, store.ErrConflict) || errors.Is(err, store.ErrNotFound)) && conflicts < 100 {
					conflicts++
					continue // a row changed meanwhile, and its write indexed it: read the page again
				}
				return fmt.Errorf("index terms: %w", err)
			}
		}
		if len(rows) < page {
			break
		}
		after = rows[len(rows)-1].Cursor()
	}
	_, err := st.Apply(ctx, []store.Write{{Op: store.OpCreate, Record: store.Record{Kind: termsIndexed.Kind, Key: termsIndexed.Key, Value: []byte("{}"), UpdatedAt: now}}})
	if err != nil && !errors.Is(err, store.ErrExists) {
		return fmt.Errorf("index terms: %w", err)
	}
	return nil
}

// indexWrite is the write that indexes row, read as r, by its terms.
func indexWrite(r Reservation, row store.Reservation) store.Write {
	return store.Write{Op: store.OpIndexReservation, Reservation: &store.Reservation{Reference: row.Reference, Version: row.Version, Terms: r.terms()}}
}
