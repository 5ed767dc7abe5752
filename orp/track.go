package orp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
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
// the browser to (T3, T8). It never fails: an unknown token goes to the
// host's home page, and a store fault still redirects, counting nothing.
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
	h.clicks.add(clickEvent{token: token, class: class, at: now, source: referringDomain(c.Header.Get("Referer")), id: clickID})
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
	u, err := url.Parse(ref)
	if err != nil || u.Hostname() == "" {
		return "other"
	}
	host := strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
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

// batcher writes clicks in groups so a redirect never waits for a disk
// flush (group commit), and flushes everything on Close. A redirect only
// appends to the queue under a lock: waking the writer for every click
// cost the redirect more than the write did, so the writer wakes on its
// own every batchEvery, or early when a batch is full.
type batcher struct {
	h *Host
	// writing is held while a batch is taken and written, so Flush
	// returns only once every click queued before it is stored, even one
	// the writer took a moment earlier.
	writing sync.Mutex
	mu      sync.Mutex
	taken   *sync.Cond // the writer took the queue, or Close began
	queue   []clickEvent
	full    chan struct{} // one token: the queue reached batchMax
	stop    chan struct{}
	flushed chan struct{}
	closed  bool
	running bool
	seq     atomic.Uint64 // names pages and conversions uniquely
}

const (
	batchMax   = 1024
	batchEvery = 50 * time.Millisecond
	// queueMax bounds the clicks waiting for a writer that cannot keep
	// up, such as one on a failing disk; a redirect then waits rather
	// than drop a click it has answered.
	queueMax = 1 << 16
)

func newBatcher(h *Host) *batcher {
	b := &batcher{h: h, full: make(chan struct{}, 1), stop: make(chan struct{}), flushed: make(chan struct{})}
	b.taken = sync.NewCond(&b.mu)
	return b
}

// add queues one click.
func (b *batcher) add(e clickEvent) {
	b.mu.Lock()
	for !b.closed && len(b.queue) >= queueMax {
		b.taken.Wait()
	}
	if b.closed {
		b.mu.Unlock()
		// After Close the server no longer serves; write synchronously so
		// nothing is lost.
		b.h.writeClicks(context.Background(), []clickEvent{e})
		return
	}
	b.queue = append(b.queue, e)
	n := len(b.queue)
	b.mu.Unlock()
	if n == batchMax {
		select {
		case b.full <- struct{}{}:
		default:
		}
	}
}

// take empties the queue.
func (b *batcher) take() []clickEvent {
	b.mu.Lock()
	q := b.queue
	b.queue = nil
	b.taken.Broadcast()
	b.mu.Unlock()
	return q
}

// Start runs the click writer until Close.
func (h *Host) Start() {
	b := h.clicks
	b.mu.Lock()
	if b.running || b.closed {
		b.mu.Unlock()
		return
	}
	b.running = true
	b.mu.Unlock()
	go b.run()
}

func (b *batcher) run() {
	defer close(b.flushed)
	tick := time.NewTicker(batchEvery)
	defer tick.Stop()
	for {
		select {
		case <-b.stop:
			b.drain(context.Background())
			return
		case <-tick.C:
		case <-b.full:
		}
		b.drain(context.Background())
	}
}

// Close stops the click writer after writing every queued click.
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
		return
	}
	b.drain(context.Background())
}

// Flush writes every queued click now, and waits for a batch the writer
// is storing; tests and the sweep use it.
func (h *Host) Flush(ctx context.Context) {
	h.clicks.drain(ctx)
}

// drain takes the queue and writes it.
func (b *batcher) drain(ctx context.Context) {
	b.writing.Lock()
	defer b.writing.Unlock()
	b.h.writeClicks(ctx, b.take())
}

// writeClicks stores one batch: its click pages and each link's running
// state, in one Apply. A human click less than 5 seconds after the
// previous counted click on the same link is stored as repeat; a clock
// that moved backward counts. The first human clicks that reach a link's
// target verify its obligation (T7).
func (h *Host) writeClicks(ctx context.Context, batch []clickEvent) {
	if len(batch) == 0 {
		return
	}
	var verified map[string]time.Time
	err := h.retry(ctx, func() error {
		var err error
		verified, err = h.tryWriteClicks(ctx, batch)
		return err
	})
	if err != nil {
		h.log.Error("write clicks", "clicks", len(batch), "err", err)
		return
	}
	for token, at := range verified {
		if err := h.verifyByLink(ctx, token, at); err != nil {
			// The sweep retries from the stored link state.
			h.log.Warn("verify by link", "err", err)
		}
	}
}

func (h *Host) tryWriteClicks(ctx context.Context, batch []clickEvent) (map[string]time.Time, error) {
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
	_, err := h.store.Apply(ctx, writes)
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
