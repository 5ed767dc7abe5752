package orp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"frontdesk/store"
)

// linkRecord is one tracking entry (§10), keyed by its token.
type linkRecord struct {
	Token          string     `json:"token"`
	Deal           string     `json:"deal"`
	Obligation     string     `json:"obligation"`
	Destination    string     `json:"destination"`
	Param          string     `json:"param"`
	Alias          string     `json:"alias,omitempty"`
	Code           string     `json:"code,omitempty"`
	Link           bool       `json:"link"`
	Status         string     `json:"status"`
	PlainAt        *time.Time `json:"plain_at,omitempty"`
	Target         int        `json:"target"`           // human clicks that verify the obligation (T7)
	VerifiesByLink bool       `json:"verifies_by_link"` // a place obligation whose proof lists link
}

// live reports whether the link counts clicks at now (T8).
func (l *linkRecord) live(now time.Time) bool {
	return l.Status == "live" && (l.PlainAt == nil || now.Before(*l.PlainAt))
}

func (l *linkRecord) entry(h *Host, now time.Time) trackEntry {
	e := trackEntry{Obligation: l.Obligation, Code: l.Code, Destination: l.Destination, Status: "plain", Param: l.Param, Alias: l.Alias}
	if l.Link {
		e.Link = h.url("/go/" + l.Token)
	}
	if l.live(now) {
		e.Status = "live"
	}
	return e
}

func (h *Host) loadLink(ctx context.Context, token string) (*linkRecord, error) {
	var l linkRecord
	if _, err := h.get(ctx, kindLink, token, &l); err != nil {
		return nil, fmt.Errorf("read link: %w", err)
	}
	return &l, nil
}

// linkCache keeps link records briefly so a redirect rarely reads the
// store. The host forgets an entry when it changes it; other instances see
// the change within linkTTL.
type linkCache struct {
	mu sync.Mutex
	m  map[string]cachedLink
}

type cachedLink struct {
	l        *linkRecord // nil: unknown token
	fetched  time.Time
	redirect []string // the destination with the click id, split where it goes
}

const linkTTL = 2 * time.Second

func newLinkCache() *linkCache { return &linkCache{m: map[string]cachedLink{}} }

func (c *linkCache) forget(token string) {
	c.mu.Lock()
	delete(c.m, token)
	c.mu.Unlock()
}

func (h *Host) cachedLink(ctx context.Context, token string, now time.Time) (cachedLink, error) {
	h.links.mu.Lock()
	c, ok := h.links.m[token]
	h.links.mu.Unlock()
	if ok && now.Sub(c.fetched) < linkTTL && !now.Before(c.fetched) {
		return c, nil
	}
	var l linkRecord
	_, err := h.get(ctx, kindLink, token, &l)
	c = cachedLink{fetched: now}
	switch {
	case err == nil && h.blocked(l.Destination):
		// A destination the owner blocked after the link was minted, or
		// one minted before the destination rules: send browsers home.
		l.Destination, l.Link = h.url("/"), false
		c.l = &l
	case err == nil:
		c.l, c.redirect = &l, splitDestination(l.Destination, l.Param, l.Alias)
	case !errors.Is(err, store.ErrNotFound):
		return cachedLink{}, err
	}
	h.links.mu.Lock()
	if len(h.links.m) > 50000 {
		clear(h.links.m)
	}
	h.links.m[token] = c
	h.links.mu.Unlock()
	return c, nil
}

// splitDestination is the destination with param (and alias) added as
// the click id's names, split where the click id goes, so a redirect only
// joins strings. The destination's own query is kept byte for byte (T3):
// its order, bare flags, its encoding; only a pair already named param
// or alias is dropped, so the click id replaces it instead of arriving
// twice. The click id is appended after the query and before any
// fragment. It is nil when the destination does not parse.
func splitDestination(destination, param, alias string) []string {
	if _, err := url.Parse(destination); err != nil {
		return nil
	}
	base, fragment, hasFragment := strings.Cut(destination, "#")
	path, query, _ := strings.Cut(base, "?")
	var kept []string
	for _, pair := range strings.Split(query, "&") {
		key, _, _ := strings.Cut(pair, "=")
		if name, err := url.QueryUnescape(key); pair == "" || err == nil && (name == param || alias != "" && name == alias) {
			continue
		}
		kept = append(kept, pair)
	}
	head := path + "?"
	if len(kept) > 0 {
		head += strings.Join(kept, "&") + "&"
	}
	parts := []string{head + url.QueryEscape(param) + "="}
	if alias != "" && alias != param {
		parts = append(parts, "&"+url.QueryEscape(alias)+"=")
	}
	tail := ""
	if hasFragment {
		tail = "#" + fragment
	}
	return append(parts, tail)
}

// Click is what the host reads from a tracked-link request. It keeps none
// of it beyond the class, the time and the referring domain.
type Click struct {
	Method  string
	Query   url.Values
	Header  http.Header
	Address string // for the in-memory rate limit only
}

// Click classes (T5).
const (
	classHuman   = "human"
	classRepeat  = "repeat"
	classBot     = "bot"
	classPreview = "preview"
	classTest    = "test"
)

// Redirect answers one request for a tracked link with the URL to send
// the browser to (T3, T8), once the click it counts is stored. It never
// fails: an unknown token goes to the host's home page, and a store fault
// still redirects, plain and counting nothing.
func (h *Host) Redirect(ctx context.Context, token string, c Click) string {
	now := h.clock.Now()
	if len(token) < 8 || len(token) > 64 {
		return h.url("/")
	}
	cached, err := h.cachedLink(ctx, token, now)
	if err != nil {
		h.log.ErrorContext(ctx, "read tracked link", "err", err)
		return h.url("/")
	}
	l := cached.l
	if l == nil {
		return h.url("/")
	}
	if cached.redirect == nil {
		return l.Destination // not a URL a click id can be added to
	}
	if !l.Link || !l.live(now) || h.clickLimit.allow("click "+addressKey(c.Address), now) > 0 {
		return l.Destination // plain: no click id, nothing counted (T8, §18)
	}
	class := classify(c, h.bots.isBot)
	clickID := h.clickID(now)
	batch := h.clicks.add(clickEvent{token: token, class: class, at: now, source: referringDomain(c.Header.Get("Referer")), id: clickID})
	// The click id goes out only once its click is logged; a click the
	// store did not take in time redirects plain, as a store fault does.
	select {
	case <-batch.done:
	case <-ctx.Done():
		return l.Destination
	}
	if batch.err != nil {
		return l.Destination
	}
	return strings.Join(cached.redirect, clickID)
}

// clickID is a new click id for a click at now (T3; see newClickID).
func (h *Host) clickID(now time.Time) string {
	var b [16]byte
	h.randMu.Lock()
	_, err := io.ReadFull(h.rand, b[:])
	h.randMu.Unlock()
	if err != nil {
		panic(fmt.Sprintf("orp: random source failed: %v", err))
	}
	return newClickID(now, b[:])
}

// classify puts a request in test, bot, preview or human (T5); repeat is
// decided when the click is counted.
func classify(c Click, isBot func(ua string) bool) string {
	if c.Query.Get("orp_test") == "1" {
		return classTest
	}
	if isBot(c.Header.Get("User-Agent")) {
		return classBot
	}
	if c.Method == http.MethodHead {
		return classPreview
	}
	// The names are canonical, so the header map is read directly.
	for _, name := range [...]string{"Sec-Fetch-Purpose", "Sec-Purpose", "Purpose", "X-Moz", "X-Purpose"} {
		for _, v := range c.Header[name] {
			v = strings.ToLower(v)
			if strings.Contains(v, "prefetch") || strings.Contains(v, "prerender") || strings.Contains(v, "preview") {
				return classPreview
			}
		}
	}
	return classHuman
}

// referringDomain keeps only the host of the referrer, lowercased and
// without "www.": "direct" when there is none.
func referringDomain(ref string) string {
	if ref == "" {
		return "direct"
	}
	if host, ok := plainHost(ref); ok {
		return domainOf(host)
	}
	u, err := url.Parse(ref)
	if err != nil || u.Hostname() == "" {
		return "other"
	}
	return domainOf(u.Hostname())
}

// plainHost is the host of an http or https address whose host is only
// letters, digits, dots and hyphens and whose rest url.Parse accepts for
// certain (no control character, no escape): a browser's usual Referer,
// read on every click without url.Parse's allocations. Anything else
// is url.Parse's to read.
func plainHost(ref string) (string, bool) {
	rest, ok := strings.CutPrefix(ref, "https://")
	if !ok {
		if rest, ok = strings.CutPrefix(ref, "http://"); !ok {
			return "", false
		}
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	if end == 0 {
		return "", false
	}
	for _, c := range []byte(rest[:end]) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-') {
			return "", false
		}
	}
	for _, c := range []byte(rest[end:]) {
		if c < 0x20 || c == 0x7f || c == '%' {
			return "", false
		}
	}
	return rest[:end], true
}

// domainOf is a referrer's host as reported: lowercased, without
// "www.", "other" unless it looks like a domain.
func domainOf(hostname string) string {
	host := strings.TrimPrefix(strings.ToLower(hostname), "www.")
	if !strings.Contains(host, ".") || len(host) > 253 {
		return "other"
	}
	for _, r := range host {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '-') {
			return "other"
		}
	}
	return host
}

// linkStat is the running state of one link's clicks: the previous
// counted click, for repeat (T5), and whether the link verified its
// obligation (T7).
type linkStat struct {
	LastCounted *time.Time `json:"last_counted,omitempty"`
	Human       int        `json:"human"`
	Verified    *time.Time `json:"verified,omitempty"`
}

type clickEvent struct {
	token  string
	class  string
	at     time.Time
	source string
	id     string // the click id the redirect added, for conversions (T10)
}

// batcher makes clicks durable before their redirects answer, in two
// steps. A redirect waits until its click is appended to the click log,
// one record per group of clicks that arrived together (group commit: the
// clicks that come while one append is on its way to the disk share the
// next one's flush), so a 302 with a click id is never lost to a crash.
// The log is the host's ClickJournal when it has one (journal.go), else
// records in the store. Every batchEvery the writer folds the log into
// the click pages and each link's counts, and in the same transaction
// deletes the store records it folded or stores the journal's mark, so a
// click is counted exactly once, after a crash too. Only the first click
// of a group wakes the writer; the rest append under a lock.
type batcher struct {
	h *Host
	// writing is held while the log is folded, so Flush returns only
	// once every click logged before it is counted, even one the writer
	// took a moment earlier.
	writing  sync.Mutex
	mu       sync.Mutex
	taken    *sync.Cond    // the writer took the open group, or Close began
	open     *clickBatch   // the group new clicks join; nil when none waits
	wake     chan struct{} // one token: a group waits for the appender
	stop     chan struct{}
	appended chan struct{} // closed when the appender has returned
	flushed  chan struct{}
	closed   bool
	running  bool
	seq      atomic.Uint64 // names log records, pages and conversions uniquely
	// logged counts appends since the last fold began, so an idle
	// writer reads nothing.
	logged atomic.Int64
}

// clickBatch is one group of clicks appended by one write. done closes
// when the append ended; err is its outcome.
type clickBatch struct {
	events []clickEvent
	done   chan struct{}
	err    error
}

// kindClickLog holds clicks appended but not yet folded into pages and
// counts; key: the append's time and sequence, so the log reads in order.
const kindClickLog = "orp.clicklog"

// loggedClick is one click as the log stores it.
type loggedClick struct {
	Token  string    `json:"t"`
	Class  string    `json:"c"`
	At     time.Time `json:"a"`
	Source string    `json:"s,omitempty"`
	ID     string    `json:"i"`
}

const (
	batchEvery = 50 * time.Millisecond
	// foldMax is the most log records one fold reads.
	foldMax = 100
	// queueMax bounds the clicks of one group waiting for an appender
	// that cannot keep up, such as one on a failing disk; a redirect then
	// waits rather than drop a click.
	queueMax = 1 << 16
)

func newBatcher(h *Host) *batcher {
	b := &batcher{h: h, wake: make(chan struct{}, 1), stop: make(chan struct{}), appended: make(chan struct{}), flushed: make(chan struct{})}
	b.taken = sync.NewCond(&b.mu)
	return b
}

// add queues one click and returns the group that will log it. Without a
// running writer (before Start or after Close) the click is logged at
// once and the group returned is already done.
func (b *batcher) add(e clickEvent) *clickBatch {
	b.mu.Lock()
	for !b.closed && b.open != nil && len(b.open.events) >= queueMax {
		b.taken.Wait()
	}
	if b.closed || !b.running {
		b.mu.Unlock()
		one := &clickBatch{events: []clickEvent{e}, done: make(chan struct{})}
		b.append(context.Background(), one)
		return one
	}
	if b.open == nil {
		b.open = &clickBatch{done: make(chan struct{})}
		select {
		case b.wake <- struct{}{}:
		default:
		}
	}
	group := b.open
	group.events = append(group.events, e)
	b.mu.Unlock()
	return group
}

// take hands over the open group, or nil.
func (b *batcher) take() *clickBatch {
	b.mu.Lock()
	group := b.open
	b.open = nil
	b.taken.Broadcast()
	b.mu.Unlock()
	return group
}

// append logs a group in one record, in the journal when the host has
// one, else in the store, and tells its redirects the outcome.
func (b *batcher) append(ctx context.Context, group *clickBatch) {
	var err error
	if j := b.h.journal; j != nil {
		err = j.append(group.events)
	} else {
		now := b.h.clock.Now()
		key := fmt.Sprintf("%019d-%06d", now.UnixNano(), b.seq.Add(1)%1000000)
		logged := make([]loggedClick, len(group.events))
		for i, e := range group.events {
			logged[i] = loggedClick{Token: e.token, Class: e.class, At: e.at, Source: e.source, ID: e.id}
		}
		_, err = b.h.store.Create(ctx, store.Record{Kind: kindClickLog, Key: key, Value: mustJSON(logged), UpdatedAt: now})
	}
	if err != nil {
		b.h.log.Error("log clicks", "clicks", len(group.events), "err", err)
	} else {
		b.logged.Add(1)
	}
	group.err = err
	close(group.done)
}

// Start runs the click writer until Close. Its first fold counts what a
// crash left in the log (the journal's and the store's).
func (h *Host) Start() {
	b := h.clicks
	b.mu.Lock()
	if b.running || b.closed {
		b.mu.Unlock()
		return
	}
	b.running = true
	b.mu.Unlock()
	go b.appender()
	go b.run()
}

// appender logs each group as soon as it forms.
func (b *batcher) appender() {
	defer close(b.appended)
	for {
		select {
		case <-b.stop:
			return
		case <-b.wake:
		}
		// Redirects already running join this group before it is
		// taken: one sync then serves the clicks a moment from joining.
		runtime.Gosched()
		if group := b.take(); group != nil {
			b.append(context.Background(), group)
		}
	}
}

func (b *batcher) run() {
	defer close(b.flushed)
	tick := time.NewTicker(batchEvery)
	defer tick.Stop()
	if b.h.journal != nil {
		// What a run that logged clicks in the store left there.
		b.h.foldLog(context.Background())
	}
	b.drain(context.Background())
	for {
		select {
		case <-b.stop:
			<-b.appended
			b.drain(context.Background())
			return
		case <-tick.C:
		}
		if b.logged.Load() > 0 {
			b.drain(context.Background())
		}
	}
}

// Close stops the click writer after counting every logged click.
func (h *Host) Close() {
	b := h.clicks
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return
	}
	b.closed = true
	running := b.running
	b.taken.Broadcast()
	b.mu.Unlock()
	close(b.stop)
	if running {
		<-b.flushed
	} else {
		b.drain(context.Background())
	}
	if h.journal != nil {
		if err := h.journal.Close(); err != nil {
			h.log.Error("close click journal", "err", err)
		}
	}
}

// Flush logs the open group and counts every logged click now, waiting
// for a fold under way; tests and the sweep use it.
func (h *Host) Flush(ctx context.Context) {
	h.clicks.drain(ctx)
}

// drain logs the open group, then folds the whole log.
func (b *batcher) drain(ctx context.Context) {
	b.writing.Lock()
	defer b.writing.Unlock()
	if group := b.take(); group != nil {
		b.append(ctx, group)
	}
	b.logged.Store(0)
	if j := b.h.journal; j != nil {
		// The first fold may count what a failed one left; the second
		// then counts the file appends went to.
		for range 2 {
			if n, err := j.fold(ctx, b.h); err != nil || n == 0 {
				return
			}
		}
		return
	}
	b.h.foldLog(ctx)
}

// foldLog folds the store's click log until it is empty or fails.
func (h *Host) foldLog(ctx context.Context) {
	for {
		n, err := h.fold(ctx)
		if err != nil || n < foldMax {
			return
		}
	}
}

// fold counts the oldest logged clicks into the click pages and link
// counts and deletes their log records in one transaction, then verifies
// the obligations they completed. It returns how many records it read.
func (h *Host) fold(ctx context.Context) (int, error) {
	var verified map[string]time.Time
	read := 0
	err := h.retry(ctx, func() error {
		recs, err := h.store.List(ctx, kindClickLog, "", "", foldMax)
		if err != nil {
			return err
		}
		read = len(recs)
		if len(recs) == 0 {
			return nil
		}
		var batch []clickEvent
		done := make([]store.Write, 0, len(recs))
		for _, r := range recs {
			var logged []loggedClick
			if err := json.Unmarshal(r.Value, &logged); err != nil {
				return fmt.Errorf("decode click log %s: %w", r.Key, err)
			}
			for _, c := range logged {
				batch = append(batch, clickEvent{token: c.Token, class: c.Class, at: c.At, source: c.Source, id: c.ID})
			}
			done = append(done, store.Write{Op: store.OpDelete, Record: r})
		}
		verified, err = h.tryWriteClicks(ctx, batch, done)
		return err
	})
	if err != nil {
		h.log.Error("write clicks", "err", err)
		return read, err
	}
	h.verifyAll(ctx, verified)
	return read, nil
}

// verifyAll verifies the obligations a fold completed.
func (h *Host) verifyAll(ctx context.Context, verified map[string]time.Time) {
	for token, at := range verified {
		if err := h.verifyByLink(ctx, token, at); err != nil {
			// The sweep retries from the stored link state.
			h.log.Warn("verify by link", "err", err)
		}
	}
}

// tryWriteClicks stores batch: its click pages and each link's running
// state, with also, in one Apply. A human click less than 5 seconds after
// the previous counted click on the same link is stored as repeat; a
// clock that moved backward counts. It returns the links whose first
// human clicks reached their target, which verifies their obligation (T7).
func (h *Host) tryWriteClicks(ctx context.Context, batch []clickEvent, also []store.Write) (map[string]time.Time, error) {
	type state struct {
		rec    store.Record
		exists bool
		stat   linkStat
		target int
		byLink bool
	}
	states := map[string]*state{}
	var order []string
	p := newPages()
	verified := map[string]time.Time{}
	for _, e := range batch {
		s := states[e.token]
		if s == nil {
			s = &state{}
			r, err := h.get(ctx, kindLinkStat, e.token, &s.stat)
			switch {
			case err == nil:
				s.rec, s.exists = r, true
			case !errors.Is(err, store.ErrNotFound):
				return nil, err
			}
			l, err := h.loadLink(ctx, e.token)
			if err != nil {
				return nil, err
			}
			s.target, s.byLink = l.Target, l.VerifiesByLink
			states[e.token] = s
			order = append(order, e.token)
		}
		class := e.class
		if class == classHuman {
			if last := s.stat.LastCounted; last != nil && e.at.After(*last) && e.at.Sub(*last) < repeatWindow || last != nil && e.at.Equal(*last) {
				class = classRepeat
			} else {
				at := e.at
				s.stat.LastCounted = &at
				s.stat.Human++
				if s.byLink && s.stat.Verified == nil && s.stat.Human >= s.target {
					s.stat.Verified = &at
					verified[e.token] = at
				}
			}
		}
		p.add(e.token, StoredClick{Class: class, At: e.at, Source: e.source, ID: e.id})
	}
	now := h.clock.Now()
	page := fmt.Sprintf("%019d-%06d", now.UnixNano(), h.clicks.seq.Add(1)%1000000)
	writes := p.writes(page, now)
	for _, token := range order {
		s := states[token]
		if s.exists {
			writes = append(writes, swap(s.rec, s.stat, now))
		} else {
			writes = append(writes, create(kindLinkStat, token, s.stat, now))
		}
	}
	_, err := h.store.Apply(ctx, append(writes, also...))
	return verified, err
}

// verifyByLink marks a place obligation verified by its link's human
// clicks and sends both parties a link receipt and the new snapshot (T7).
// It is idempotent: a verified obligation is left alone.
func (h *Host) verifyByLink(ctx context.Context, token string, at time.Time) error {
	l, err := h.loadLink(ctx, token)
	if err != nil {
		return err
	}
	return h.retry(ctx, func() error {
		d, r, err := h.loadDeal(ctx, l.Deal)
		if err != nil {
			return err
		}
		ob := d.obligation(l.Obligation)
		if ob == nil || ob.State != obPending && ob.State != obClaimed || !d.running() {
			return nil
		}
		o := &op{h: h, now: h.clock.Now()}
		rb := receiptBody{Result: "verified", Method: "link", At: stampMilli(at), Found: map[string]any{"link": true, "clicks": l.Target}}
		if err := o.hostReceipt(d, l.Obligation, rb); err != nil {
			return err
		}
		if err := o.payDue(ctx, d); err != nil {
			return err
		}
		if err := h.maybeComplete(ctx, o, d); err != nil {
			return err
		}
		o.saveDeal(d, r, false)
		if err := o.publish(ctx, d, nil); err != nil {
			return err
		}
		return o.commit(ctx, nil)
	})
}

// maybeComplete completes a deal whose obligations are all verified or
// waived and whose kept work had its final check, when no pay per click
// or conversion keeps it running (§12): pay per deal or placement is
// verified once its payouts are paid. Its links turn plain (T8).
func (h *Host) maybeComplete(ctx context.Context, o *op, d *dealRecord) error {
	if d.State != stateActive {
		return nil
	}
	for _, p := range d.payTerms() {
		if p.per == "click" || p.per == "conversion" {
			return nil
		}
	}
	for _, s := range d.Obligations {
		if s.State != obVerified && s.State != obWaived {
			return nil
		}
	}
	for _, ps := range d.Proofs {
		if ps.NextCheck != nil {
			return nil // kept work is checked until keep ends (P6)
		}
	}
	endDeal(d, stateCompleted, o.now)
	o.repCompletedDeal(d)
	return o.plainLinks(ctx, d, "", o.now)
}
