package channel

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"frontdesk/business"
	"frontdesk/internal/outbound"
	"frontdesk/reservation"
)

// Feed is one channel's calendar of one listing, imported into the
// inventory.
type Feed struct {
	// Name names the channel's listing, such as "airbnb-garden"; its
	// blocks' source is "ical:" and the name. Unique across the business.
	Name     string `json:"name"`
	URL      string `json:"url"`
	Location string `json:"location"` // a location's slug
	Unit     string `json:"unit"`     // a night unit type of it
	// Listing is which physical unit of the type (1 to its count) the
	// channel's listing is: that unit's export feed, given to the
	// channel, leaves out the blocks this feed brought.
	Listing int `json:"listing"`
	// Staff is set for a feed added on the staff screen rather than in
	// the config file; only those are removed there.
	Staff bool `json:"staff,omitempty"`
	// AddedBy and AddedAt say who added a staff feed, and when.
	AddedBy string    `json:"added_by,omitempty"`
	AddedAt time.Time `json:"added_at,omitzero"`
}

// SourcePrefix starts the source of every imported block.
const SourcePrefix = "ical:"

// Source is the reservation source of the feed's blocks.
func (f Feed) Source() reservation.Source { return reservation.Source(SourcePrefix + f.Name) }

// IsImported reports whether a reservation's source is a channel's
// block, and names the channel.
func IsImported(s reservation.Source) (name string, ok bool) {
	name, ok = strings.CutPrefix(string(s), SourcePrefix)
	if !ok || name == "" {
		return "", false
	}
	return name, true
}

var feedName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,39}$`)

// ValidName reports whether s may name a feed: 1 to 40 lowercase letters,
// digits and dashes, starting with a letter or digit.
func ValidName(s string) bool { return feedName.MatchString(s) }

// FieldError is a problem with one field of a feed, named as the config
// file and the staff screen name it.
type FieldError struct {
	Field   string // name, url, location, unit or listing
	Message string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Message }

// Check lists what is wrong with f among the locations, under the rule
// outbound fetches obey: every problem, each naming its field.
func (f Feed) Check(locs []business.Location, rule outbound.Rule) []*FieldError {
	var out []*FieldError
	if !ValidName(f.Name) {
		out = append(out, &FieldError{"name", fmt.Sprintf("%q must be 1 to 40 lowercase letters, digits and dashes, such as \"airbnb-garden\"", f.Name)})
	}
	if err := rule.CheckURL(f.URL); err != nil {
		out = append(out, &FieldError{"url", "the feed's address is refused: " + err.Error()})
	}
	var loc *business.Location
	for i := range locs {
		if locs[i].Slug == f.Location {
			loc = &locs[i]
		}
	}
	if loc == nil {
		return append(out, &FieldError{"location", fmt.Sprintf("%q is no location's slug", f.Location)})
	}
	u, ok := loc.Unit(f.Unit)
	switch {
	case !ok:
		out = append(out, &FieldError{"unit", fmt.Sprintf("%q is no unit type of location %q", f.Unit, f.Location)})
	case u.Kind == business.KindTimed:
		out = append(out, &FieldError{"unit", fmt.Sprintf("%q is sold by the slot; channel feeds block nights", f.Unit)})
	case f.Listing < 1 || f.Listing > u.Count:
		out = append(out, &FieldError{"listing", fmt.Sprintf("%d must be one of the %d units of %q (1 to %d)", f.Listing, u.Count, f.Unit, u.Count)})
	}
	return out
}

// CheckAll lists the problems of every feed, and of names used twice.
func CheckAll(feeds []Feed, locs []business.Location, rule outbound.Rule) error {
	var errs []error
	seen := map[string]bool{}
	for i, f := range feeds {
		for _, p := range f.Check(locs, rule) {
			errs = append(errs, fmt.Errorf("feed %d (%s): %w", i+1, f.Name, p))
		}
		if seen[f.Name] {
			errs = append(errs, fmt.Errorf("feed %d (%s): %w", i+1, f.Name, &FieldError{"name", "is used by another feed"}))
		}
		seen[f.Name] = true
	}
	return errors.Join(errs...)
}

func encode(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("channel: encode: %v", err)) // our own types always encode
	}
	return b
}
