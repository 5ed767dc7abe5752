package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"frontdesk/store"
)

// reservationColumns are the columns of a reservation row in the order
// every statement here reads and writes them.
const reservationColumns = `reference, location, unit, first_slot, last_slot, state, source, contact_key, value, version, updated_at`

// The reservation statements both engines run.
const (
	GetReservationSQL    = `SELECT ` + reservationColumns + ` FROM reservations WHERE reference = $1`
	InsertReservationSQL = `INSERT INTO reservations (` + reservationColumns + `, span)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 1, $10, $11)`
	SwapReservationSQL = `UPDATE reservations
		SET location = $1, unit = $2, first_slot = $3, last_slot = $4, state = $5, source = $6,
			contact_key = $7, value = $8, version = version + 1, updated_at = $9, span = $10
		WHERE reference = $11 AND version = $12`
	ReservationExistsSQL  = `SELECT 1 FROM reservations WHERE reference = $1`
	ReservationVersionSQL = `SELECT version FROM reservations WHERE reference = $1`
	LongestSpanSQL        = `SELECT COALESCE(MAX(span), 0) FROM reservations`
	TermsSQL              = `SELECT term FROM reservation_terms WHERE reference = $1 ORDER BY term`
	DeleteTermsSQL        = `DELETE FROM reservation_terms WHERE reference = $1`
)

// Limits of one search: alternatives, prefixes in each, and the terms one
// reservation is indexed by.
const (
	MaxSearchAlternatives = 4
	MaxSearchPrefixes     = 8
	MaxTerms              = 64
)

// unknownSpan stands for the span of slots that are not dates, so a
// window read still finds such a row (by reading further back).
const unknownSpan = 1 << 20

// Span is how many days lastSlot's day lies after firstSlot's day: 0 for a
// reservation within one day.
func Span(firstSlot, lastSlot string) int64 {
	first, err1 := slotDay(firstSlot)
	last, err2 := slotDay(lastSlot)
	if err1 != nil || err2 != nil {
		return unknownSpan
	}
	return max(0, int64(last.Sub(first).Hours()/24))
}

// slotDay is the day a slot ("2026-12-01" or "2026-12-01T10:00") falls on.
func slotDay(slot string) (time.Time, error) {
	if len(slot) < 10 {
		return time.Time{}, fmt.Errorf("slot %q is not a date", slot)
	}
	return time.Parse(time.DateOnly, slot[:10])
}

// windowStart is the least first slot a reservation overlapping a window
// that starts at from can have, when no stored reservation spans more
// than longest days; "" when from is not a date.
func windowStart(from string, longest int64) string {
	day, err := slotDay(from)
	if err != nil || longest >= unknownSpan {
		return ""
	}
	return day.AddDate(0, 0, -int(longest)).Format(time.DateOnly)
}

// GetReservation reads the reservation with this reference through q, or
// returns store.ErrNotFound.
func GetReservation(ctx context.Context, q Querier, reference string) (store.Reservation, error) {
	rs, err := reservations(ctx, q, GetReservationSQL, []any{reference})
	if err != nil {
		return store.Reservation{}, err
	}
	if len(rs) == 0 {
		return store.Reservation{}, store.ErrNotFound
	}
	return rs[0], nil
}

// ListReservations returns up to f.Limit reservations matching f, in order
// of first slot then reference, after f.After, read through q.
func ListReservations(ctx context.Context, q Querier, f store.ReservationFilter) ([]store.Reservation, error) {
	if f.Limit < 1 || f.Limit > MaxList {
		return nil, fmt.Errorf("limit %d must be from 1 to %d", f.Limit, MaxList)
	}
	var longest int64
	if f.From != "" {
		if _, err := q.QueryRow(ctx, LongestSpanSQL, nil, &longest); err != nil {
			return nil, err
		}
	}
	query, args := ListQuery(f, longest)
	return reservations(ctx, q, query, args)
}

// ListQuery is the statement that lists f when no stored reservation
// spans more than longest days, for ListReservations and for the
// engines' tests of its plan. A window's start is bounded on both
// columns, so the index of first slots is read from the window less the
// longest stay, not from the oldest reservation kept.
func ListQuery(f store.ReservationFilter, longest int64) (string, []any) {
	var where []string
	var args []any
	// param adds v as the next argument and returns its placeholder.
	param := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	if f.Location != "" {
		where = append(where, `location = `+param(f.Location))
	}
	if f.From != "" {
		where = append(where, `last_slot >= `+param(f.From))
		if lo := windowStart(f.From, longest); lo != "" {
			where = append(where, `first_slot >= `+param(lo))
		}
	}
	if f.To != "" {
		where = append(where, `first_slot < `+param(f.To))
	}
	if len(f.States) > 0 {
		ps := make([]string, len(f.States))
		for i, s := range f.States {
			ps[i] = param(s)
		}
		where = append(where, `state IN (`+strings.Join(ps, `, `)+`)`)
	}
	if f.Source != "" {
		where = append(where, `source = `+param(f.Source))
	}
	if f.ContactKey != "" {
		where = append(where, `contact_key = `+param(f.ContactKey))
	}
	if f.After != (store.ReservationCursor{}) {
		// A row comparison, which both engines read as one range of the
		// (first_slot, reference) order.
		where = append(where, `(first_slot, reference) > (`+param(f.After.FirstSlot)+`, `+param(f.After.Reference)+`)`)
	}
	query := `SELECT ` + reservationColumns + ` FROM reservations`
	if len(where) > 0 {
		query += ` WHERE ` + strings.Join(where, ` AND `)
	}
	query += ` ORDER BY first_slot, reference LIMIT ` + param(f.Limit)
	return query, args
}

func reservations(ctx context.Context, q Querier, query string, args []any) ([]store.Reservation, error) {
	return collect(ctx, q, query, args, func(scan func(...any) error) (store.Reservation, error) {
		var r store.Reservation
		var at int64
		err := scan(&r.Reference, &r.Location, &r.Unit, &r.FirstSlot, &r.LastSlot, &r.State,
			&r.Source, &r.ContactKey, &r.Value, &r.Version, &at)
		r.Value = NonNil(r.Value)
		r.UpdatedAt = Instant(at)
		return r, err
	})
}

// PutReservation creates or swaps one reservation row through q inside an
// Apply, returning the refusal sentinels unwrapped.
func (d *Dialect) PutReservation(ctx context.Context, q Querier, op store.Op, r *store.Reservation) error {
	if r == nil {
		return fmt.Errorf("op %d without a reservation", op)
	}
	if r.Reference == "" {
		return errors.New("reservation without a reference")
	}
	at, err := Nanos(r.UpdatedAt)
	if err != nil {
		return err
	}
	terms, err := Terms(r.Terms)
	if err != nil {
		return err
	}
	value := NonNil(r.Value)
	span := Span(r.FirstSlot, r.LastSlot)
	if op == store.OpCreateReservation {
		_, err := q.Exec(ctx, InsertReservationSQL, r.Reference, r.Location, r.Unit, r.FirstSlot, r.LastSlot,
			r.State, r.Source, r.ContactKey, value, at, span)
		if d.IsUnique(err) {
			return store.ErrExists
		}
		if err != nil {
			return err
		}
		return insertTerms(ctx, q, r.Reference, terms)
	}
	n, err := q.Exec(ctx, SwapReservationSQL, r.Location, r.Unit, r.FirstSlot, r.LastSlot, r.State, r.Source,
		r.ContactKey, value, at, span, r.Reference, r.Version)
	if err != nil {
		return err
	}
	if n == 1 {
		return replaceTerms(ctx, q, r.Reference, terms)
	}
	var one int
	found, err := q.QueryRow(ctx, ReservationExistsSQL, []any{r.Reference}, &one)
	if err != nil {
		return err
	}
	if !found {
		return store.ErrNotFound
	}
	return store.ErrConflict
}

// IndexReservation replaces the terms of reservation r.Reference through
// q, if r.Version is its current version.
func IndexReservation(ctx context.Context, q Querier, r *store.Reservation) error {
	if r == nil || r.Reference == "" {
		return errors.New("index a reservation without a reference")
	}
	terms, err := Terms(r.Terms)
	if err != nil {
		return err
	}
	var version int64
	found, err := q.QueryRow(ctx, ReservationVersionSQL, []any{r.Reference}, &version)
	switch {
	case err != nil:
		return err
	case !found:
		return store.ErrNotFound
	case version != r.Version:
		return store.ErrConflict
	}
	return replaceTerms(ctx, q, r.Reference, terms)
}

// Terms returns a reservation's terms as the index keeps them: sorted,
// without duplicates or empty terms, and at most MaxTerms of them.
func Terms(terms []string) ([]string, error) {
	out := slices.DeleteFunc(slices.Clone(terms), func(t string) bool { return t == "" })
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) > MaxTerms {
		return nil, fmt.Errorf("reservation with %d search terms; at most %d", len(out), MaxTerms)
	}
	if out == nil {
		out = []string{}
	}
	return out, nil
}

// insertTerms indexes a new reservation's terms in one statement.
func insertTerms(ctx context.Context, q Querier, reference string, terms []string) error {
	if len(terms) == 0 {
		return nil
	}
	args := []any{reference}
	values := make([]string, len(terms))
	for i, t := range terms {
		args = append(args, t)
		values[i] = fmt.Sprintf("($%d, $1)", i+2)
	}
	_, err := q.Exec(ctx, `INSERT INTO reservation_terms (term, reference) VALUES `+strings.Join(values, ", "), args...)
	return err
}

// replaceTerms gives a swapped reservation its terms. Most swaps change
// the state alone, so the terms are compared first and left as they are
// when they did not change.
func replaceTerms(ctx context.Context, q Querier, reference string, terms []string) error {
	have, err := collect(ctx, q, TermsSQL, []any{reference}, func(scan func(...any) error) (string, error) {
		var t string
		return t, scan(&t)
	})
	if err != nil {
		return err
	}
	if slices.Equal(have, terms) {
		return nil
	}
	if _, err := q.Exec(ctx, DeleteTermsSQL, reference); err != nil {
		return err
	}
	return insertTerms(ctx, q, reference, terms)
}

// SearchReservations returns up to s.Limit reservations matching s,
// nearest first, read through q.
func (d *Dialect) SearchReservations(ctx context.Context, q Querier, s store.ReservationSearch) ([]store.Reservation, error) {
	query, args, err := d.SearchQuery(s)
	if err != nil {
		return nil, err
	}
	return reservations(ctx, q, query, args)
}

// SearchQuery is the statement of search s, for SearchReservations and
// for the engines' tests of its plan: each prefix reads one range of the
// index of terms.
func (d *Dialect) SearchQuery(s store.ReservationSearch) (string, []any, error) {
	if s.Limit < 1 || s.Limit > MaxList {
		return "", nil, fmt.Errorf("limit %d must be from 1 to %d", s.Limit, MaxList)
	}
	if len(s.Any) < 1 || len(s.Any) > MaxSearchAlternatives {
		return "", nil, fmt.Errorf("%d alternatives; a search has 1 to %d", len(s.Any), MaxSearchAlternatives)
	}
	var args []any
	param := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	alternatives := make([]string, len(s.Any))
	for i, prefixes := range s.Any {
		if len(prefixes) < 1 || len(prefixes) > MaxSearchPrefixes {
			return "", nil, fmt.Errorf("%d prefixes in one alternative; it has 1 to %d", len(prefixes), MaxSearchPrefixes)
		}
		selects := make([]string, len(prefixes))
		for j, p := range prefixes {
			if p == "" {
				return "", nil, errors.New("an empty search prefix")
			}
			sel := `SELECT reference FROM reservation_terms WHERE term >= ` + param(p)
			if end, ok := d.PrefixEnd(p); ok {
				sel += ` AND term < ` + param(end)
			}
			selects[j] = sel
		}
		// Each alternative is a subquery of its own: SQLite reads
		// compound selects left to right, with no parentheses.
		alternatives[i] = fmt.Sprintf(`SELECT reference FROM (%s) AS a%d`, strings.Join(selects, ` INTERSECT `), i)
	}
	// One IN over the union, not an OR of INs, which PostgreSQL answers
	// by scanning every reservation.
	query := `SELECT ` + reservationColumns + ` FROM reservations WHERE reference IN (` + strings.Join(alternatives, ` UNION `) + `)`
	if s.Location != "" {
		query += ` AND location = ` + param(s.Location)
	}
	near := param(s.Near)
	query += ` ORDER BY CASE WHEN last_slot >= ` + near + ` THEN 0 ELSE 1 END,
		CASE WHEN last_slot >= ` + near + ` THEN first_slot END, first_slot DESC, reference LIMIT ` + param(s.Limit)
	return query, args, nil
}
