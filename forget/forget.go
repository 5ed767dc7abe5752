// Package forget is the register of the stored record kinds: for each,
// what a record keeps, how long, and what forgetting a guest does to it.
// Every package that writes a kind declares its registrations; serve's
// retention sweep and `frontdesk forget` act on them, and a kind found in
// a store without a registration fails the tests, so no new kind escapes
// forgetting unnoticed.
package forget

import (
	"fmt"
	"slices"
)

// How is what forgetting a guest does to a record of a kind.
type How int

const (
	// Nothing: the kind holds no guest's data (configuration, keys,
	// counters, pseudonymous markers, business or partner data); its
	// records stay.
	Nothing How = iota
	// Search: every record's JSON value is searched, and one any string
	// of which names the address, however typed, is deleted.
	Search
	// SearchWaiting is Search, except that a record still in line (Kind
	// Waiting says which) makes forgetting wait instead.
	SearchWaiting
	// ByReference: keyed by a reservation reference; deleted with the
	// guest's reservations.
	ByReference
	// ByMailbox: keyed under the address's keyed mailbox; deleted with it.
	ByMailbox
	// ByDue: keyed by the Due field of a searched record that goes;
	// deleted with it.
	ByDue
)

// Lasts is how long a kind's records are kept.
type Lasts int

const (
	// Owned: as long as its owner keeps it: removed with what it
	// belongs to, by the owner's own sweep, or kept for good.
	Owned Lasts = iota
	// RetentionDays: deleted by the retention sweep once last written
	// before privacy.retention_days.
	RetentionDays
)

// Kind is one record kind's registration.
type Kind struct {
	Name   string // the store's kind
	Keeps  string // what a record holds, in a few words
	Lasts  Lasts
	Forget How
	// Waiting, for SearchWaiting only, reports a record still in line
	// and the id forgetting names it by.
	Waiting func(key string, value []byte) (id string, waiting bool)
}

// Check reports a registration that is incomplete, or a kind registered
// twice.
func Check(kinds []Kind) error {
	seen := map[string]bool{}
	for _, k := range kinds {
		switch {
		case k.Name == "" || k.Keeps == "":
			return fmt.Errorf("forget: kind %q: a registration names its kind and what it keeps", k.Name)
		case seen[k.Name]:
			return fmt.Errorf("forget: kind %q is registered twice", k.Name)
		case (k.Forget == SearchWaiting) != (k.Waiting != nil):
			return fmt.Errorf("forget: kind %q: Waiting is set for SearchWaiting, and only for it", k.Name)
		}
		seen[k.Name] = true
	}
	return nil
}

// Missing lists the kinds of stored that no registration names, sorted.
func Missing(kinds []Kind, stored []string) []string {
	var out []string
	for _, s := range stored {
		if !slices.ContainsFunc(kinds, func(k Kind) bool { return k.Name == s }) && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

// Names are the kinds forgetting treats as how, in registration order.
func Names(kinds []Kind, how ...How) []string {
	var out []string
	for _, k := range kinds {
		if slices.Contains(how, k.Forget) {
			out = append(out, k.Name)
		}
	}
	return out
}
