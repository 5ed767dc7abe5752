package channel

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"frontdesk/business"
	"frontdesk/forget"
	"frontdesk/internal/civil"
	"frontdesk/internal/clock"
	"frontdesk/internal/random"
	"frontdesk/message"
	"frontdesk/reservation"
	"frontdesk/store"
)

// The record kinds of the channel sync. None holds a guest's data: a
// feed's state, a staff-added feed, a block's dates and UID, an export's
// token.
const (
	KindFeed   = "channel-feed"   // key: feed name → feedState
	KindSource = "channel-source" // key: feed name → Feed added on the staff screen
	KindBlock  = "channel-block"  // key: feed name "/" hash of the block's key → blockRecord
	KindExport = "channel-export" // key: location "/" unit "/" listing → exportRecord
)

// Kinds are every record kind the package keeps.
func Kinds() []string { return []string{KindFeed, KindSource, KindBlock, KindExport} }

// RecordKinds are the registrations of the channel sync's kinds. None
// holds a guest's data; forgetting searches them all the same, so a
// record that ever named a guest goes. Blocks that ended go with their
// holds at retention (Service.Purge).
func RecordKinds() []forget.Kind {
	return []forget.Kind{
		{Name: KindFeed, Keeps: "a feed's state: its last fetch and its ETag", Forget: forget.Search},
		{Name: KindSource, Keeps: "a feed staff added on the staff screen", Forget: forget.Search},
		{Name: KindBlock, Keeps: "an imported block's dates, UID and channel", Forget: forget.Search},
		{Name: KindExport, Keeps: "a listing's export token", Forget: forget.Search},
	}
}

// Options tune a Service; zeros take the defaults.
type Options struct {
	Every    time.Duration // between fetches of one feed; 15 minutes
	Horizon  int           // days ahead that blocks and exports cover; 730
	Parallel int           // feeds fetched at once in a pass; 4
	Fetcher  *Fetcher
	// Mail tells staff of conflicts, from From to Staff; nil sends none
	// (the screen still shows them).
	Mail        message.Sender
	From, Staff string
	// Conflicted counts a block newly in conflict, by feed, in a metric.
	Conflicted func(feed string)
	Logger     *slog.Logger
}

// Service syncs the feeds of a business with its reservation desk.
type Service struct {
	st    store.Store
	desk  *reservation.Desk
	locs  []business.Location
	feeds []Feed // from the config file
	clock clock.Clock
	rand  io.Reader
	o     Options
	log   *slog.Logger
	randM sync.Mutex
}

// New returns the service of feeds (from the config file; staff add
// others, kept in the store) over the desk and its store.
func New(st store.Store, desk *reservation.Desk, locs []business.Location, feeds []Feed, clk clock.Clock, rnd io.Reader, o Options) *Service {
	if o.Every <= 0 {
		o.Every = 15 * time.Minute
	}
	if o.Horizon <= 0 {
		o.Horizon = 730
	}
	if o.Parallel <= 0 {
		o.Parallel = 4
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Service{st: st, desk: desk, locs: locs, feeds: feeds, clock: clk, rand: random.Locked(rnd), o: o, log: log.With("component", "channel")}
}

// feedState is what the store keeps of one feed between fetches.
type feedState struct {
	ETag         string    `json:"etag,omitempty"`
	LastModified string    `json:"last_modified,omitempty"`
	NextAt       time.Time `json:"next_at,omitzero"`
	LastAttempt  time.Time `json:"last_attempt,omitzero"`
	LastSuccess  time.Time `json:"last_success,omitzero"`
	LastError    string    `json:"last_error,omitempty"`
	Failures     int       `json:"failures,omitempty"`
	// Suspect is set when a feed that held blocks came back with none:
	// nothing is freed until staff accept it (AcceptEmpty).
	Suspect      bool      `json:"suspect,omitempty"`
	SuspectSince time.Time `json:"suspect_since,omitzero"`
	AcceptEmpty  bool      `json:"accept_empty,omitempty"`
	Blocks       int       `json:"blocks"`
}

// blockRecord is one imported block: its dates and what of them is held.
type blockRecord struct {
	Feed   string   `json:"feed"`
	UID    string   `json:"uid"`    // the block's key in the feed
	Nights []string `json:"nights"` // as the feed gives them
	Hold   string   `json:"hold,omitempty"`
	Held   []string `json:"held,omitempty"` // nights the hold takes
	// Conflict are the nights no unit was left for: the feed's block
	// that frontdesk could not hold.
	Conflict      []string  `json:"conflict,omitempty"`
	ConflictSince time.Time `json:"conflict_since,omitzero"`
	Mailed        bool      `json:"mailed,omitempty"`
}

type storedBlock struct {
	blockRecord
	key     string
	version int64
}

func blockKey(feed, uid string) string {
	sum := sha256.Sum256([]byte(uid))
	return feed + "/" + hex.EncodeToString(sum[:12])
}

// Feeds lists the config file's feeds and those staff added, by name.
func (s *Service) Feeds(ctx context.Context) ([]Feed, error) {
	out := slices.Clone(s.feeds)
	recs, err := listAll(ctx, s.st, KindSource, "")
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		var f Feed
		if err := json.Unmarshal(r.Value, &f); err != nil {
			return nil, fmt.Errorf("decode feed %s: %w", r.Key, err)
		}
		f.Staff = true
		if !slices.ContainsFunc(out, func(c Feed) bool { return c.Name == f.Name }) {
			out = append(out, f)
		}
	}
	slices.SortFunc(out, func(a, b Feed) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

func listAll(ctx context.Context, st store.Records, kind, prefix string) ([]store.Record, error) {
	var out []store.Record
	for after := ""; ; {
		page, err := st.List(ctx, kind, prefix, after, 1000)
		if err != nil {
			return nil, err
		}
		out = append(out, page...)
		if len(page) < 1000 {
			return out, nil
		}
		after = page[len(page)-1].Key
	}
}

// PassResult counts what one pass did.
type PassResult struct {
	Fetched, NotModified, Failed, Skipped int
}

// Pass fetches every feed that is due and applies what it says. On a
// store shared by several instances each feed is fetched by one of them
// per interval: an instance takes a feed by moving its next fetch time
// forward with a conditional write, which only one of them wins. A
// feed's failure is kept on its state, not returned.
func (s *Service) Pass(ctx context.Context) (PassResult, error) {
	var res PassResult
	feeds, err := s.Feeds(ctx)
	if err != nil {
		return res, err
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, s.o.Parallel)
	var errs []error
	for _, f := range feeds {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			outcome, err := s.sync(ctx, f, false)
			mu.Lock()
			defer mu.Unlock()
			switch outcome {
			case outcomeFetched:
				res.Fetched++
			case outcomeNotModified:
				res.NotModified++
			case outcomeFailed:
				res.Failed++
			default:
				res.Skipped++
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("feed %s: %w", f.Name, err))
			}
		})
	}
	wg.Wait()
	if err := s.mailConflicts(ctx); err != nil {
		errs = append(errs, err)
	}
	return res, errors.Join(errs...)
}

type outcome int

const (
	outcomeSkipped outcome = iota
	outcomeFetched
	outcomeNotModified
	outcomeFailed
)

// SyncNow fetches one feed at once, whether due or not (the staff
// screen's "fetch now").
func (s *Service) SyncNow(ctx context.Context, name string) error {
	feeds, err := s.Feeds(ctx)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(feeds, func(f Feed) bool { return f.Name == name })
	if i < 0 {
		return store.ErrNotFound
	}
	if _, err := s.sync(ctx, feeds[i], true); err != nil {
		return err
	}
	return s.mailConflicts(ctx)
}

// sync takes feed f if due (or forced), fetches and applies it, and
// stores its new state. The error is the store's; the feed's own
// failure is on its state.
func (s *Service) sync(ctx context.Context, f Feed, force bool) (outcome, error) {
	now := s.clock.Now()
	rec, st, err := s.state(ctx, f.Name, now)
	if err != nil {
		return outcomeSkipped, err
	}
	if !force && now.Before(st.NextAt) {
		return outcomeSkipped, nil
	}
	st.LastAttempt = now
	st.NextAt = now.Add(s.jitter(s.o.Every))
	rec.Value = encode(st)
	rec.UpdatedAt = now
	taken, err := s.st.Swap(ctx, rec)
	if errors.Is(err, store.ErrConflict) {
		return outcomeSkipped, nil // another instance took it
	}
	if err != nil {
		return outcomeSkipped, err
	}
	var fetched Fetched
	if s.o.Fetcher == nil {
		err = &FetchError{"no fetcher"}
	} else {
		fetched, err = s.o.Fetcher.Fetch(ctx, f.URL, st.ETag, st.LastModified)
	}
	var blocks []Block
	var applyErr error
	if err == nil {
		loc, _ := s.location(f.Location)
		today := civil.Of(now, loc.Zone())
		if fetched.NotModified {
			blocks, err = s.recorded(ctx, f.Name)
		} else {
			blocks, err = Parse(fetched.Body, ParseOptions{Zone: loc.Zone(), From: today, Until: today.AddDays(s.o.Horizon)})
			if err != nil {
				err = &FetchError{err.Error()}
			}
		}
		if err == nil {
			applyErr = s.apply(ctx, f, blocks, &st, now)
		}
	}
	out := outcomeFetched
	switch {
	case err != nil || applyErr != nil:
		out = outcomeFailed
		st.Failures++
		if err != nil {
			st.LastError = err.Error()
		} else {
			st.LastError = "the inventory could not be updated; retrying"
		}
		st.NextAt = now.Add(s.backoff(st.Failures))
		s.log.WarnContext(ctx, "channel feed failed", "feed", f.Name, "failures", st.Failures, "err", firstErr(err, applyErr))
	default:
		switch {
		case fetched.NotModified:
			out = outcomeNotModified
		case st.Suspect:
			// The records still hold what the feed no longer lists: the
			// next fetch must read the feed whole, not be told 304.
			st.ETag, st.LastModified = "", ""
		default:
			st.ETag, st.LastModified = fetched.ETag, fetched.LastModified
		}
		st.LastSuccess, st.LastError, st.Failures = now, "", 0
	}
	if err := s.saveState(ctx, taken, st, now); err != nil {
		return out, err
	}
	if _, ok := errors.AsType[*FetchError](err); ok || err == nil {
		return out, applyErr
	}
	return out, err
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// state reads (or first creates) a feed's state record.
func (s *Service) state(ctx context.Context, name string, now time.Time) (store.Record, feedState, error) {
	rec, err := store.Ensure(ctx, s.st, KindFeed, name, now, func() ([]byte, error) { return encode(feedState{}), nil })
	if err != nil {
		return rec, feedState{}, err
	}
	var st feedState
	if err := json.Unmarshal(rec.Value, &st); err != nil {
		return rec, st, fmt.Errorf("decode feed state %s: %w", name, err)
	}
	return rec, st, nil
}

// saveState stores a feed's state after its fetch; a change staff made
// meanwhile (an acceptance) is kept.
func (s *Service) saveState(ctx context.Context, rec store.Record, st feedState, now time.Time) error {
	first := true
	return store.Retrier{Attempts: 3}.Run(ctx, func() error {
		if !first {
			fresh, cur, err := s.state(ctx, rec.Key, now)
			if err != nil {
				return err
			}
			st.AcceptEmpty = cur.AcceptEmpty && st.Suspect
			rec = fresh
		}
		first = false
		rec.Value, rec.UpdatedAt = encode(st), now
		_, err := s.st.Swap(ctx, rec)
		return err
	})
}

// jitter spreads d by up to a fifth either way, from the injected
// randomness, so feeds and instances do not fetch in step.
func (s *Service) jitter(d time.Duration) time.Duration {
	var b [2]byte
	s.randM.Lock()
	_, err := io.ReadFull(s.rand, b[:])
	s.randM.Unlock()
	if err != nil {
		return d
	}
	f := float64(binary.BigEndian.Uint16(b[:]))/65535*0.4 - 0.2
	return d + time.Duration(float64(d)*f)
}

// backoff is the wait after the n-th failure in a row: one minute,
// doubling, at most six hours.
func (s *Service) backoff(n int) time.Duration {
	d := time.Minute
	for i := 1; i < n && d < 6*time.Hour; i++ {
		d *= 2
	}
	return s.jitter(min(d, 6*time.Hour))
}

func (s *Service) location(slug string) (business.Location, bool) {
	for _, l := range s.locs {
		if l.Slug == slug {
			return l, true
		}
	}
	return business.Location{}, false
}

// blocks reads every block record of a feed.
func (s *Service) blocks(ctx context.Context, feed string) ([]storedBlock, error) {
	recs, err := listAll(ctx, s.st, KindBlock, feed+"/")
	if err != nil {
		return nil, err
	}
	out := make([]storedBlock, 0, len(recs))
	for _, r := range recs {
		var b blockRecord
		if err := json.Unmarshal(r.Value, &b); err != nil {
			return nil, fmt.Errorf("decode block %s: %w", r.Key, err)
		}
		if b.Feed != feed {
			continue // another feed whose name starts with this one's and a slash: none can
		}
		out = append(out, storedBlock{blockRecord: b, key: r.Key, version: r.Version})
	}
	return out, nil
}

// recorded are a feed's blocks as last applied, for a feed that answered
// 304: its conflicts are tried again all the same.
func (s *Service) recorded(ctx context.Context, feed string) ([]Block, error) {
	stored, err := s.blocks(ctx, feed)
	if err != nil {
		return nil, err
	}
	out := make([]Block, 0, len(stored))
	for _, b := range stored {
		out = append(out, Block{Key: b.UID, Nights: b.Nights})
	}
	return out, nil
}

// apply makes the desk hold what the feed's blocks say: new blocks held,
// moved ones moved, gone ones released, in a transaction each with the
// block's record. A feed that held blocks and now lists none is suspect:
// nothing is released until staff accept it.
func (s *Service) apply(ctx context.Context, f Feed, blocks []Block, st *feedState, now time.Time) error {
	loc, ok := s.location(f.Location)
	if !ok {
		return fmt.Errorf("location %q is not configured", f.Location)
	}
	u, ok := loc.Unit(f.Unit)
	if !ok {
		return fmt.Errorf("unit %q is not configured", f.Unit)
	}
	today := civil.Of(now, loc.Zone()).String()
	stored, err := s.blocks(ctx, f.Name)
	if err != nil {
		return err
	}
	current := 0
	for _, b := range blocks {
		if b.Nights[len(b.Nights)-1] >= today {
			current++
		}
	}
	had := 0
	for _, b := range stored {
		if len(b.Nights) > 0 && b.Nights[len(b.Nights)-1] >= today && (b.Hold != "" || len(b.Conflict) > 0) {
			had++
		}
	}
	if current == 0 && had > 0 && !st.AcceptEmpty {
		if !st.Suspect {
			st.Suspect, st.SuspectSince = true, now
			s.log.WarnContext(ctx, "channel feed emptied; held until staff accept", "feed", f.Name, "blocks", had)
		}
		return nil
	}
	st.Suspect, st.SuspectSince, st.AcceptEmpty = false, time.Time{}, false
	byKey := map[string]storedBlock{}
	for _, b := range stored {
		byKey[b.key] = b
	}
	unit := reservation.Unit{Location: loc.Slug, Type: u.Type, Capacity: u.Count}
	var errs []error
	wanted := map[string]bool{}
	for _, b := range blocks {
		key := blockKey(f.Name, b.Key)
		wanted[key] = true
		prev, had := byKey[key]
		var p *storedBlock
		if had {
			p = &prev
		}
		if err := s.place(ctx, f, loc, unit, key, p, b, now); err != nil {
			errs = append(errs, err)
		}
	}
	for _, b := range stored {
		if wanted[b.key] {
			continue
		}
		if err := s.remove(ctx, f, b, now); err != nil {
			errs = append(errs, err)
		}
	}
	st.Blocks = len(blocks)
	return errors.Join(errs...)
}

// place holds block b (whose record is prev, nil when new): all its
// nights, or when some have no unit left, those that have, keeping the
// rest as a conflict. A conflict holds no unit beyond those that exist.
func (s *Service) place(ctx context.Context, f Feed, loc business.Location, unit reservation.Unit, key string, prev *storedBlock, b Block, now time.Time) error {
	if prev != nil && slices.Equal(prev.Nights, b.Nights) && len(prev.Conflict) == 0 && slices.Equal(prev.Held, b.Nights) {
		return nil
	}
	err := store.Retrier{Attempts: 4}.Run(ctx, func() error {
		err := s.hold(ctx, f, loc, unit, key, prev, b, b.Nights, now)
		if reservation.ErrorCode(err) == reservation.CodeUnitTaken {
			var free []string
			if free, err = s.freeNights(ctx, unit, b.Nights, prev); err == nil {
				if prev != nil && len(prev.Conflict) > 0 && slices.Equal(prev.Nights, b.Nights) && slices.Equal(prev.Held, free) {
					return nil // the same conflict as before
				}
				err = s.hold(ctx, f, loc, unit, key, prev, b, free, now)
			}
		}
		if reservation.ErrorCode(err) != reservation.CodeConflict && reservation.ErrorCode(err) != reservation.CodeUnitTaken {
			return store.Final(err)
		}
		// Another write came first (another door took a night meanwhile,
		// or the record moved): read again and retry.
		fresh, ferr := s.st.Get(ctx, KindBlock, key)
		switch {
		case errors.Is(ferr, store.ErrNotFound):
			prev = nil
		case ferr != nil:
			return store.Final(ferr)
		default:
			var r blockRecord
			if err := json.Unmarshal(fresh.Value, &r); err != nil {
				return store.Final(err)
			}
			prev = &storedBlock{blockRecord: r, key: key, version: fresh.Version}
		}
		return errBlockMoved
	})
	if errors.As(err, new(*store.LostRaces)) {
		return fmt.Errorf("block of %s: %w", f.Name, store.ErrConflict)
	}
	return err
}

// errBlockMoved asks place to hold a block again on its record read
// afresh: a night or the record changed meanwhile.
var errBlockMoved = fmt.Errorf("channel: block moved meanwhile: %w", store.ErrConflict)

// freeNights are the nights of all that have a unit left, counting the
// units the block's own hold already takes as its own.
func (s *Service) freeNights(ctx context.Context, unit reservation.Unit, all []string, prev *storedBlock) ([]string, error) {
	last, err := civil.Parse(all[len(all)-1])
	if err != nil {
		return nil, err
	}
	counts, err := s.st.Counts(ctx, unit.Location, all[0], last.AddDays(1).String())
	if err != nil {
		return nil, err
	}
	held := map[string]int{}
	for _, c := range counts {
		if c.Unit == unit.Type {
			held[c.Slot] = c.Held
		}
	}
	if prev != nil {
		for _, n := range prev.Held {
			held[n]--
		}
	}
	var free []string
	for _, n := range all {
		if held[n] < unit.Capacity {
			free = append(free, n)
		}
	}
	return free, nil
}

// hold makes the desk hold nights (a part of b.Nights, or all) for block
// b, committing its record with it.
func (s *Service) hold(ctx context.Context, f Feed, loc business.Location, unit reservation.Unit, key string, prev *storedBlock, b Block, nights []string, now time.Time) error {
	next := blockRecord{Feed: f.Name, UID: b.Key, Nights: b.Nights, Held: nights}
	if prev != nil {
		next.Hold, next.ConflictSince, next.Mailed = prev.Hold, prev.ConflictSince, prev.Mailed
	}
	for _, n := range b.Nights {
		if !slices.Contains(nights, n) {
			next.Conflict = append(next.Conflict, n)
		}
	}
	newConflict := len(next.Conflict) > 0 && (prev == nil || !slices.Equal(prev.Conflict, next.Conflict))
	if newConflict {
		next.ConflictSince, next.Mailed = now, false
	}
	if len(next.Conflict) == 0 {
		next.ConflictSince, next.Mailed = time.Time{}, false
	}
	write := func(r blockRecord) reservation.Addition {
		return reservation.Addition{Build: func(reservation.Reservation) []store.Write {
			return []store.Write{recordWrite(key, prev, r, now)}
		}, Refused: store.ErrConflict}
	}
	by := "channel " + f.Name
	var err error
	switch {
	case len(nights) > 0 && next.Hold == "":
		var ref string
		if ref, err = s.reference(loc); err != nil {
			return err
		}
		next.Hold = ref
		_, err = s.desk.Create(ctx, reservation.New{
			Kind: reservation.KindHold, Reference: ref, Unit: unit, Slots: nights, Units: 1, Guests: 1,
			Source: f.Source(), Expires: expiry(nights), By: by, What: "held by " + string(f.Source()), At: now,
			Also: []reservation.Addition{write(next)},
		})
	case len(nights) > 0:
		var r reservation.Reservation
		r, err = reservation.Get(ctx, s.st, next.Hold)
		switch {
		case err != nil && !errors.Is(err, store.ErrNotFound):
			return err
		case err != nil || r.State != reservation.OnHold:
			// The hold ended some other way: hold the block afresh.
			p := prev
			if p != nil {
				c := *p
				c.Hold = ""
				p = &c
			}
			return s.hold(ctx, f, loc, unit, key, p, b, nights, now)
		case slices.Equal(r.Slots, nights):
			_, err = s.st.Apply(ctx, []store.Write{recordWrite(key, prev, next, now)})
			if err != nil {
				err = &reservation.Error{Code: reservation.CodeConflict, Err: err}
			}
		default:
			_, err = s.desk.MoveHold(ctx, reservation.Reschedule{
				Change: reservation.Change{Read: r, By: by, At: now, Unit: unit, Units: 1, Note: "moved in the channel's feed", Also: []reservation.Addition{write(next)}},
				Slots:  nights,
			}, expiry(nights))
		}
	case next.Hold != "":
		next.Hold = ""
		err = s.release(ctx, prev.Hold, by, "no night of the block is free", now, write(next))
	default:
		_, err = s.st.Apply(ctx, []store.Write{recordWrite(key, prev, next, now)})
		if err != nil {
			err = &reservation.Error{Code: reservation.CodeConflict, Err: err}
		}
	}
	if err == nil && newConflict {
		s.log.WarnContext(ctx, "channel block in conflict", "feed", f.Name, "nights", len(next.Conflict))
		if s.o.Conflicted != nil {
			s.o.Conflicted(f.Name)
		}
	}
	return err
}

// release gives back hold ref with the writes of also.
func (s *Service) release(ctx context.Context, ref, by, note string, now time.Time, also reservation.Addition) error {
	r, err := reservation.Get(ctx, s.st, ref)
	if err == nil && r.State == reservation.OnHold {
		_, err = s.desk.Release(ctx, reservation.Change{Read: r, By: by, Note: note, At: now, Also: []reservation.Addition{also}})
		return err
	}
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	// Already ended: only the record changes.
	_, err = s.st.Apply(ctx, also.Build(reservation.Reservation{}))
	if err != nil {
		return &reservation.Error{Code: reservation.CodeConflict, Err: err}
	}
	return nil
}

// remove releases a block gone from its feed and deletes its record.
func (s *Service) remove(ctx context.Context, f Feed, b storedBlock, now time.Time) error {
	del := reservation.Records(store.ErrConflict, store.Write{Op: store.OpDelete, Record: store.Record{Kind: KindBlock, Key: b.key, Version: b.version}})
	if b.Hold == "" {
		_, err := s.st.Apply(ctx, del.Build(reservation.Reservation{}))
		return err
	}
	return s.release(ctx, b.Hold, "channel "+f.Name, "gone from the channel's feed", now, del)
}

func recordWrite(key string, prev *storedBlock, r blockRecord, now time.Time) store.Write {
	rec := store.Record{Kind: KindBlock, Key: key, Value: encode(r), UpdatedAt: now}
	if prev == nil {
		return store.Write{Op: store.OpCreate, Record: rec}
	}
	rec.Version = prev.version
	return store.Write{Op: store.OpSwap, Record: rec}
}

// expiry is when a block's hold lapses in the desk's terms: the day after
// its last night. Nothing expires it then; the feed releases it.
func expiry(nights []string) time.Time {
	d, err := civil.Parse(nights[len(nights)-1])
	if err != nil {
		return time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	return d.AddDays(2).At(0, 0, time.UTC)
}

// reference draws a hold's reference in the location's shape.
func (s *Service) reference(l business.Location) (string, error) {
	var b [8]byte
	s.randM.Lock()
	_, err := io.ReadFull(s.rand, b[:])
	s.randM.Unlock()
	if err != nil {
		return "", fmt.Errorf("draw reference: %w", err)
	}
	return l.Prefix + "-" + strings.ToUpper(hex.EncodeToString(b[:])), nil
}
