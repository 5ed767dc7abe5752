package booking

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"frontdesk/business"
	"frontdesk/config"
	"frontdesk/store"
)

// Settings are the values of direct-booking.md §10 and §16 that owners
// change on the staff screen: the group's chat ceilings and closures, and
// each location's chat switch, ceilings and closures.
//
// Which source wins: a scope (the group, or one location) saved on the
// staff screen is kept whole in the store and wins over the config file
// for every value of that scope, across restarts; a scope never saved
// follows the file. The core reads the store's settings at every check
// that uses them, so every instance on one store sees an edit at once.
type Settings struct {
	Group     GroupSettings
	Locations map[string]LocationSettings // by slug; every configured location
	// Edited names the scopes saved on the staff screen: "group" and
	// location slugs.
	Edited []string
}

// GroupSettings are the hub's settings of §10 and the business closures.
type GroupSettings struct {
	EmailHourly int                `json:"chatPortfolioEmailHourly"`
	EmailDaily  int                `json:"chatPortfolioEmailDaily"`
	CancelDaily int                `json:"chatPortfolioCancelDaily"`
	Pending     int                `json:"chatPortfolioPendingLimit"`
	Closures    []business.Closure `json:"closures"`
	// OfficeHours are the weekly hours in force; a group saved before
	// they could be edited here keeps the file's.
	OfficeHours business.OfficeHours `json:"officeHours,omitzero"`
}

// LocationSettings are one location's settings of §10 and §16.
type LocationSettings struct {
	BookingEnabled bool               `json:"bookingEnabled"`
	EmailHourly    int                `json:"chatEmailHourly"`
	Pending        int                `json:"chatPendingLimit"`
	Closures       []business.Closure `json:"closures"`
}

// SettingsChange is one line of the settings audit: who saved which
// scope when, and each value that changed.
type SettingsChange struct {
	At      time.Time `json:"at"`
	By      string    `json:"by"`
	Scope   string    `json:"scope"` // "group" or a location slug
	Changes []string  `json:"changes"`
}

// Record kinds of the settings.
const (
	kindSettings      = "booking-settings"       // key: "current" → the edited scopes
	kindSettingsAudit = "booking-settings-audit" // key: newest first, see auditKey
)

// ScopeGroup names the group's settings in Edited and SettingsChange.
const ScopeGroup = "group"

// EditedSettings is the stored record: only the scopes saved on the
// screen.
type EditedSettings struct {
	Group     *GroupSettings              `json:"group,omitempty"`
	Locations map[string]LocationSettings `json:"locations,omitempty"`
}

// fileSettings are the settings as the config file gives them.
func fileSettings(cfg config.Config) Settings {
	l := cfg.Limits
	set := Settings{
		Group: GroupSettings{EmailHourly: l.PortfolioEmailHourly, EmailDaily: l.PortfolioEmailDaily,
			CancelDaily: l.CancelPortfolioDaily, Pending: l.PortfolioPending, Closures: cfg.Business.Closures,
			OfficeHours: cfg.Business.OfficeHours},
		Locations: map[string]LocationSettings{},
	}
	for _, loc := range cfg.Locations {
		set.Locations[loc.Slug] = LocationSettings{BookingEnabled: !loc.BookingOff, EmailHourly: l.LocationEmailHourly,
			Pending: l.LocationPending, Closures: loc.Closures}
	}
	return set
}

// Settings returns the settings in force: the file's, with every scope
// edited on the staff screen in its place. An unreadable record is an
// error, never a reason to fall back to the file: a switched-off
// location must not come back on because the store was slow.
func (s *Service) Settings(ctx context.Context) (Settings, error) {
	r, err := s.st.Get(ctx, kindSettings, "current")
	if errors.Is(err, store.ErrNotFound) {
		return fileSettings(s.cfg), nil
	}
	if err != nil {
		return Settings{}, fmt.Errorf("read settings: %w", err)
	}
	return s.settingsFrom(r)
}

// OfficeHours returns the office hours in force: the file's, or those
// an owner saved on the staff screen.
func (s *Service) OfficeHours(ctx context.Context) (business.OfficeHours, error) {
	set, err := s.Settings(ctx)
	if err != nil {
		return business.OfficeHours{}, err
	}
	return set.Group.OfficeHours, nil
}

// settingsFrom is the settings in force given the edited settings record
// as read, version 0 when there is none.
func (s *Service) settingsFrom(r store.Record) (Settings, error) {
	set := fileSettings(s.cfg)
	if r.Version == 0 {
		return set, nil
	}
	var e EditedSettings
	if err := jsonValue(r, &e); err != nil {
		return Settings{}, fmt.Errorf("read settings: %w", err)
	}
	if e.Group != nil {
		hours := set.Group.OfficeHours
		set.Group = *e.Group
		if set.Group.OfficeHours == (business.OfficeHours{}) {
			set.Group.OfficeHours = hours
		}
		set.Edited = append(set.Edited, ScopeGroup)
	}
	for _, loc := range s.cfg.Locations {
		if v, ok := e.Locations[loc.Slug]; ok {
			set.Locations[loc.Slug] = v
			set.Edited = append(set.Edited, loc.Slug)
		}
	}
	return set, nil
}

// officeOpen is config.OfficeOpen with the office hours and closures in
// force.
func (set Settings) officeOpen(cfg config.Config, now time.Time, l business.Location) bool {
	cfg.Business.OfficeHours = set.Group.OfficeHours
	cfg.Business.Closures = set.Group.Closures
	l.Closures = set.Locations[l.Slug].Closures
	return cfg.OfficeOpen(now, l)
}

// SaveSettings writes the scope that edit changes, on behalf of by, and
// the audit line of what edit reports changed, together; a concurrent
// save of another scope makes it read again, never overwrite.
func (s *Service) SaveSettings(ctx context.Context, by, scope string, edit func(*EditedSettings, Settings) []string) error {
	now := s.clock.Now()
	saved := false
	_, err := store.UpdateWith(ctx, s.st, kindSettings, "current", now, func(e *EditedSettings, read store.Record) ([]store.Write, error) {
		saved = false
		cur, err := s.Settings(ctx)
		if err != nil {
			return nil, err
		}
		what := edit(e, cur)
		if len(what) == 0 && slices.Contains(cur.Edited, scope) {
			return nil, store.ErrNoChange
		}
		if len(what) == 0 {
			what = []string{"kept the file's values"}
		}
		saved = true
		line := SettingsChange{At: now, By: by, Scope: scope, Changes: what}
		return []store.Write{{Op: store.OpCreate, Record: record(kindSettingsAudit, auditKey(now, scope, read.Version+1), line, 0, now)}}, nil
	})
	if err != nil {
		return fmt.Errorf("save settings: %w", err)
	}
	if saved {
		s.log.InfoContext(ctx, "settings saved", "scope", scope)
	}
	return nil
}

// SettingsAudit returns up to limit lines of the settings audit, newest
// first, after the line whose Key is after ("" for the newest).
func (s *Service) SettingsAudit(ctx context.Context, after string, limit int) ([]SettingsChange, string, error) {
	rows, err := s.st.List(ctx, kindSettingsAudit, "", after, limit)
	if err != nil {
		return nil, "", fmt.Errorf("list settings audit: %w", err)
	}
	out := make([]SettingsChange, 0, len(rows))
	next := ""
	for _, r := range rows {
		var c SettingsChange
		if err := json.Unmarshal(r.Value, &c); err != nil {
			return nil, "", fmt.Errorf("decode settings audit: %w", err)
		}
		out = append(out, c)
		next = r.Key
	}
	if len(rows) < limit {
		next = ""
	}
	return out, next, nil
}

// auditKey sorts newest first: the time counted down from the largest
// instant, then the scope and the settings version it wrote, which is
// unique.
func auditKey(now time.Time, scope string, version int64) string {
	return fmt.Sprintf("%019d/%s/%d", math.MaxInt64-now.UnixNano(), scope, version)
}
