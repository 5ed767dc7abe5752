package channel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"frontdesk/internal/outbound"
	"frontdesk/reservation"
	"frontdesk/store"
)

// Health is one feed as the staff screen shows it.
type Health struct {
	Feed
	LastSuccess  time.Time
	LastAttempt  time.Time
	NextAt       time.Time
	LastError    string
	Failures     int
	Suspect      bool
	SuspectSince time.Time
	AcceptEmpty  bool
	Blocks       int // blocks in the feed at the last success
	Held         int // of them holding units
	Conflicts    int // of them in conflict
}

// Healths lists every feed with its state.
func (s *Service) Healths(ctx context.Context) ([]Health, error) {
	feeds, err := s.Feeds(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Health, 0, len(feeds))
	for _, f := range feeds {
		h := Health{Feed: f}
		rec, err := s.st.Get(ctx, KindFeed, f.Name)
		switch {
		case errors.Is(err, store.ErrNotFound):
		case err != nil:
			return nil, err
		default:
			var st feedState
			if err := json.Unmarshal(rec.Value, &st); err != nil {
				return nil, fmt.Errorf("decode feed state %s: %w", f.Name, err)
			}
			h.LastSuccess, h.LastAttempt, h.NextAt, h.LastError, h.Failures = st.LastSuccess, st.LastAttempt, st.NextAt, st.LastError, st.Failures
			h.Suspect, h.SuspectSince, h.AcceptEmpty, h.Blocks = st.Suspect, st.SuspectSince, st.AcceptEmpty, st.Blocks
		}
		blocks, err := s.blocks(ctx, f.Name)
		if err != nil {
			return nil, err
		}
		for _, b := range blocks {
			if b.Hold != "" {
				h.Held++
			}
			if len(b.Conflict) > 0 {
				h.Conflicts++
			}
		}
		out = append(out, h)
	}
	return out, nil
}

// AcceptEmpty is staff accepting that a suspect feed really emptied: its
// blocks are released by the fetch that follows at once. A feed that is
// not suspect is left alone.
func (s *Service) AcceptEmpty(ctx context.Context, name, by string) error {
	now := s.clock.Now()
	rec, st, err := s.state(ctx, name, now)
	if err != nil {
		return err
	}
	if !st.Suspect {
		return nil
	}
	st.AcceptEmpty = true
	rec.Value, rec.UpdatedAt = encode(st), now
	if _, err := s.st.Swap(ctx, rec); err != nil {
		return err
	}
	s.log.InfoContext(ctx, "channel feed emptied, accepted by staff", "feed", name, "by", by)
	return s.SyncNow(ctx, name)
}

// ErrFeed is a staff feed refused; the *FieldError it wraps names the
// field.
var ErrFeed = errors.New("channel: feed refused")

// AddFeed adds a feed from the staff screen, checked like the config
// file's under rule; a name already used is refused.
func (s *Service) AddFeed(ctx context.Context, f Feed, rule outbound.Rule, by string) error {
	f.Staff, f.AddedBy, f.AddedAt = true, by, s.clock.Now()
	if problems := f.Check(s.locs, rule); len(problems) > 0 {
		return fmt.Errorf("%w: %w", ErrFeed, problems[0])
	}
	feeds, err := s.Feeds(ctx)
	if err != nil {
		return err
	}
	if slices.ContainsFunc(feeds, func(c Feed) bool { return c.Name == f.Name }) {
		return fmt.Errorf("%w: %w", ErrFeed, &FieldError{"name", fmt.Sprintf("%q is used by another feed", f.Name)})
	}
	_, err = s.st.Create(ctx, store.Record{Kind: KindSource, Key: f.Name, Value: encode(f), UpdatedAt: f.AddedAt})
	if errors.Is(err, store.ErrExists) {
		return fmt.Errorf("%w: %w", ErrFeed, &FieldError{"name", fmt.Sprintf("%q is used by another feed", f.Name)})
	}
	return err
}

// RemoveFeed removes a feed staff added, releasing its blocks first; a
// feed of the config file is removed there.
func (s *Service) RemoveFeed(ctx context.Context, name, by string) error {
	rec, err := s.st.Get(ctx, KindSource, name)
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("%w: %w", ErrFeed, &FieldError{"name", fmt.Sprintf("%q is not a feed added on this screen", name)})
	}
	if err != nil {
		return err
	}
	var f Feed
	if err := json.Unmarshal(rec.Value, &f); err != nil {
		return err
	}
	if err := s.ReleaseAll(ctx, f, "feed removed by "+by); err != nil {
		return err
	}
	if err := s.st.Delete(ctx, KindSource, name, rec.Version); err != nil {
		return err
	}
	if st, err := s.st.Get(ctx, KindFeed, name); err == nil {
		_ = s.st.Delete(ctx, KindFeed, name, st.Version) // a state left behind is recreated empty
	}
	return nil
}

// ReleaseAll releases every block of feed f and deletes its records.
func (s *Service) ReleaseAll(ctx context.Context, f Feed, note string) error {
	blocks, err := s.blocks(ctx, f.Name)
	if err != nil {
		return err
	}
	now := s.clock.Now()
	var errs []error
	for _, b := range blocks {
		del := reservation.Records(store.ErrConflict, store.Write{Op: store.OpDelete, Record: store.Record{Kind: KindBlock, Key: b.key, Version: b.version}})
		if b.Hold == "" {
			if _, err := s.st.Apply(ctx, del.Build(reservation.Reservation{})); err != nil {
				errs = append(errs, err)
			}
			continue
		}
		if err := s.release(ctx, b.Hold, "channel "+f.Name, note, now, del); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Purge deletes the records of blocks whose last night is before the
// day before, releasing their holds, whatever feed brought them (one
// removed from the config file too): what retention keeps of a channel
// is nothing of a guest, and past blocks hold nothing worth keeping.
func (s *Service) Purge(ctx context.Context, before string) (int, error) {
	blocks, err := s.allBlocks(ctx)
	if err != nil {
		return 0, err
	}
	now := s.clock.Now()
	n := 0
	for _, b := range blocks {
		if len(b.Nights) == 0 || b.Nights[len(b.Nights)-1] >= before {
			continue
		}
		del := reservation.Records(store.ErrConflict, store.Write{Op: store.OpDelete, Record: store.Record{Kind: KindBlock, Key: b.key, Version: b.version}})
		if b.Hold == "" {
			_, err = s.st.Apply(ctx, del.Build(reservation.Reservation{}))
		} else {
			err = s.release(ctx, b.Hold, "retention", "past", now, del)
		}
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// allBlocks reads the block records of every feed, known or not.
func (s *Service) allBlocks(ctx context.Context) ([]storedBlock, error) {
	recs, err := listAll(ctx, s.st, KindBlock, "")
	if err != nil {
		return nil, err
	}
	out := make([]storedBlock, 0, len(recs))
	for _, r := range recs {
		var b blockRecord
		if err := json.Unmarshal(r.Value, &b); err != nil {
			return nil, fmt.Errorf("decode block %s: %w", r.Key, err)
		}
		out = append(out, storedBlock{blockRecord: b, key: r.Key, version: r.Version})
	}
	return out, nil
}

// Orphan is a feed no longer configured whose blocks still hold units:
// removed from the config file, or renamed. Nothing releases them until
// staff do (ReleaseOrphan), as for a feed that emptied.
type Orphan struct {
	Feed   string
	Blocks int
}

// Orphans lists the feeds no longer configured that still have blocks.
func (s *Service) Orphans(ctx context.Context) ([]Orphan, error) {
	feeds, err := s.Feeds(ctx)
	if err != nil {
		return nil, err
	}
	blocks, err := s.allBlocks(ctx)
	if err != nil {
		return nil, err
	}
	var out []Orphan
	for _, b := range blocks {
		if slices.ContainsFunc(feeds, func(f Feed) bool { return f.Name == b.Feed }) {
			continue
		}
		if len(out) == 0 || out[len(out)-1].Feed != b.Feed {
			out = append(out, Orphan{Feed: b.Feed})
		}
		out[len(out)-1].Blocks++
	}
	return out, nil
}

// ReleaseOrphan releases every block of a feed no longer configured; a
// feed still configured is refused (staff remove it first).
func (s *Service) ReleaseOrphan(ctx context.Context, name, by string) error {
	feeds, err := s.Feeds(ctx)
	if err != nil {
		return err
	}
	if slices.ContainsFunc(feeds, func(f Feed) bool { return f.Name == name }) {
		return fmt.Errorf("%w: %w", ErrFeed, &FieldError{"name", fmt.Sprintf("%q is still configured", name)})
	}
	return s.ReleaseAll(ctx, Feed{Name: name}, "feed no longer configured, released by "+by)
}
