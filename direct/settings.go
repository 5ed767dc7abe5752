package direct

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"frontdesk/business"

	"frontdesk/reservation"
	"frontdesk/store"
)

// Record kinds of the settings.
const (
	kindSettings      = "booking-settings"       // key: "current" → the edited scopes
	kindSettingsAudit = "booking-settings-audit" // key: newest first, see auditKey
)

// fileSettings are the settings as the config file gives them.
func fileSettings(cfg Config) reservation.Settings {
	l := cfg.Limits
	set := reservation.Settings{
		Group: reservation.GroupSettings{EmailHourly: l.PortfolioEmailHourly, EmailDaily: l.PortfolioEmailDaily,
			CancelDaily: l.CancelPortfolioDaily, Pending: l.PortfolioPending, Closures: cfg.Business.Closures,
			OfficeHours: cfg.Business.OfficeHours},
		Locations: map[string]reservation.LocationSettings{},
	}
	for _, loc := range cfg.Locations {
		set.Locations[loc.Slug] = reservation.LocationSettings{BookingEnabled: !loc.BookingOff, EmailHourly: l.LocationEmailHourly,
			Pending: l.LocationPending, Closures: loc.Closures}
	}
	return set
}

// Settings returns the settings in force: the file's, with every scope
// edited on the staff screen in its place. An unreadable record is an
// error, never a reason to fall back to the file: a switched-off
// location must not come back on because the store was slow.
func (s *Service) Settings(ctx context.Context) (reservation.Settings, error) {
	r, err := s.st.Get(ctx, kindSettings, "current")
	if errors.Is(err, store.ErrNotFound) {
		return s.settingsFrom(store.Record{})
	}
	if err != nil {
		return reservation.Settings{}, fmt.Errorf("read settings: %w", err)
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
// as read, version 0 when there is none. The settings of a version are
// built once and then shared: a business of thousands of locations would
// otherwise build a map of them for every call that asks. Callers read
// them and never change them.
func (s *Service) settingsFrom(r store.Record) (reservation.Settings, error) {
	if c := s.settings.Load(); c != nil && c.version == r.Version && bytes.Equal(c.value, r.Value) {
		return c.set, nil
	}
	set, err := s.buildSettings(r)
	if err != nil {
		return reservation.Settings{}, err
	}
	s.settings.Store(&versionedSettings{version: r.Version, value: bytes.Clone(r.Value), set: set})
	return set, nil
}

// versionedSettings are the settings built from one version of the
// edited settings record.
type versionedSettings struct {
	version int64
	value   []byte
	set     reservation.Settings
}

// buildSettings builds the settings in force from the file's and the
// edited settings record r.
func (s *Service) buildSettings(r store.Record) (reservation.Settings, error) {
	set := fileSettings(s.cfg)
	if r.Version == 0 {
		return set, nil
	}
	var e reservation.EditedSettings
	if err := jsonValue(r, &e); err != nil {
		return reservation.Settings{}, fmt.Errorf("read settings: %w", err)
	}
	if e.Group != nil {
		hours := set.Group.OfficeHours
		set.Group = *e.Group
		if set.Group.OfficeHours == (business.OfficeHours{}) {
			set.Group.OfficeHours = hours
		}
		set.Edited = append(set.Edited, reservation.ScopeGroup)
	}
	for _, loc := range s.cfg.Locations {
		if v, ok := e.Locations[loc.Slug]; ok {
			set.Locations[loc.Slug] = v
			set.Edited = append(set.Edited, loc.Slug)
		}
	}
	return set, nil
}

// officeOpen is business.Portfolio.OfficeOpen with the office hours and closures in
// force.
func officeOpen(set reservation.Settings, cfg Config, now time.Time, l business.Location) bool {
	cfg.Business.OfficeHours = set.Group.OfficeHours
	cfg.Business.Closures = set.Group.Closures
	l.Closures = set.Locations[l.Slug].Closures
	return cfg.OfficeOpen(now, l)
}

// SaveSettings writes the scope that edit changes, on behalf of by, and
// the audit line of what edit reports changed, together; a concurrent
// save of another scope makes it read again, never overwrite.
func (s *Service) SaveSettings(ctx context.Context, by, scope string, edit func(*reservation.EditedSettings, reservation.Settings) []string) error {
	now := s.clock.Now()
	saved := false
	_, err := store.UpdateWith(ctx, s.st, kindSettings, "current", now, func(e *reservation.EditedSettings, read store.Record) ([]store.Write, error) {
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
		line := reservation.SettingsChange{At: now, By: by, Scope: scope, Changes: what}
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
func (s *Service) SettingsAudit(ctx context.Context, after string, limit int) ([]reservation.SettingsChange, string, error) {
	rows, err := s.st.List(ctx, kindSettingsAudit, "", after, limit)
	if err != nil {
		return nil, "", fmt.Errorf("list settings audit: %w", err)
	}
	out := make([]reservation.SettingsChange, 0, len(rows))
	next := ""
	for _, r := range rows {
		var c reservation.SettingsChange
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
