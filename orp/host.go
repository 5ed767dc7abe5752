package orp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"time"

	"frontdesk/internal/clock"
	"frontdesk/internal/outbound"
	"frontdesk/internal/random"
	"frontdesk/internal/session"
	"frontdesk/orp/schema"
	"frontdesk/store"
)

// Version is the one ORP version this host speaks.
const Version = "0.3"

// Fixed protocol constants.
const (
	clockSkew     = 15 * time.Minute   // E6
	idemKeep      = 8 * 24 * time.Hour // E7 asks for at least 7 days
	escalationTTL = 7 * 24 * time.Hour // H5
	outcomeEvery  = 7 * 24 * time.Hour // §14.1: at least weekly
	maxRounds     = 20                 // §9.4
	repeatWindow  = 5 * time.Second    // T5
)

// Options configure a Host. Store, Clock, Rand and Origin are required.
type Options struct {
	Store  store.Records
	Clock  clock.Clock
	Rand   io.Reader
	Logger *slog.Logger
	// Origin is the public origin, such as "https://hub.example". The host
	// id, party ids and every URL the host hands out derive from it.
	Origin      string
	Name        string
	Description string
	TermsURL    string // absolute URLs of pages the server serves
	PrivacyURL  string
	// Levels are the conformance levels the discovery document claims.
	// cmd/frontdesk passes only the levels whose suites pass.
	Levels []string
	// MCP says the MCP binding is served at /orp/mcp.
	MCP bool
	// MessagesPerMinute and OpenDeals are an unclaimed party's limits.
	MessagesPerMinute int
	OpenDeals         int
	// AddressPerMinute limits join and suggest by network address (§9.3).
	AddressPerMinute int
	// Sites are the owner's own domains (subdomains included): any deal's
	// tracked links may send browsers there. BlockedDomains never may
	// (§18; see destination.go).
	Sites          []string
	BlockedDomains []string
	// MaxReport is the largest amount_minor one conversion may carry;
	// 0 means DefaultMaxReport.
	MaxReport int64
	// ClickPerMinute limits tracked-link requests by network address; a
	// limited request still redirects and counts nothing (§18).
	ClickPerMinute int
	// ClickJournal, when set, makes each click durable in files on the
	// local disk (OpenClickJournal) instead of a store commit, and the
	// host owns it from then on. Nil keeps the click log in the store, as
	// a PostgreSQL deployment must: its database outlives any one
	// instance's disk.
	ClickJournal *ClickJournal
	// Signer signs the host's deal, consent, receipt, payout and
	// reputation messages, and its keys are the discovery document's keys
	// (§4.1, §18). Nil signs nothing and publishes no keys.
	Signer *Signer
	// Outbound is the address rule of every page the host fetches: proof
	// pages, platform checks, claims pages and space locators. Its zero
	// value admits public addresses only; Loopback is for development
	// and tests (outbound.allow_private).
	Outbound outbound.Rule
	// FetchDial, when set, replaces the dialer of proof and claims page
	// reads: tests route a site's name to a page served on loopback.
	FetchDial func(ctx context.Context, network, addr string) (net.Conn, error)
	// Witnesses are the parties this host names as verifiers: each may
	// report a finding about an obligation whose proof lists witness.
	Witnesses []string
	// Claims is the claims check: ClaimsReal, ClaimsStub or ClaimsNone
	// (the default), stated in capabilities.checks.claims (§6).
	Claims string
	// MessageSigner signs the host's receipt, payout, dispute resolution
	// and reputation messages (§18); nil sends them unsigned.
	MessageSigner MessageSigner
	// Fetcher reads public pages for space verification (§9.1); nil is
	// NewFetcher(Outbound).
	Fetcher Fetcher
	// ProviderSecrets are the webhook signing secrets by payment
	// provider, such as "stripe" (see provider.go).
	ProviderSecrets map[string]string
	// Attestation accepts ORP 0.4 attest messages from consumer seats
	// (§20.7); off, attest is answered unknown_type.
	Attestation bool
	// ResolverToken authenticates the dispute resolver named in
	// policies.terms (§15.2): the host's operator. Empty: no resolver
	// can sign in, and disputes stay open.
	ResolverToken string
}

// MessageSigner signs a host message: it returns msg with sig set, a
// detached compact JWS (§5) over the JCS form of msg without sig, made
// with a key of the host's discovery keys.
type MessageSigner interface {
	Sign(msg []byte) ([]byte, error)
}

// Host is one ORP host. It is safe for concurrent use.
type Host struct {
	store   store.Records
	clock   clock.Clock
	rand    io.Reader
	randMu  sync.Mutex
	log     *slog.Logger
	schemas *schema.Set
	opts    Options

	hostport string // "hub.example" or "127.0.0.1:8080"
	id       string // "orp:<hostport>/host"

	partyLimit *limiter
	addrLimit  *limiter
	clickLimit *limiter
	links      *linkCache
	bots       *botCache
	clicks     *batcher
	journal    *ClickJournal
	fetcher    *pageFetcher
	// owners are the owners' signed-in browsers (owner.go).
	owners *session.Store
}

// New checks the options and builds a host. Call Start to run the click
// writer, and Close to flush it.
func New(o Options) (*Host, error) {
	if o.Store == nil || o.Clock == nil || o.Rand == nil {
		return nil, errors.New("orp: store, clock and rand are required")
	}
	u, err := url.Parse(o.Origin)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("orp: origin %q is not an http or https origin", o.Origin)
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.MessagesPerMinute == 0 {
		o.MessagesPerMinute = 30
	}
	if o.OpenDeals == 0 {
		o.OpenDeals = 5
	}
	if o.AddressPerMinute == 0 {
		o.AddressPerMinute = 30
	}
	if o.ClickPerMinute == 0 {
		o.ClickPerMinute = 120
	}
	if o.MaxReport == 0 {
		o.MaxReport = DefaultMaxReport
	}
	if o.Name == "" {
		o.Name = "frontdesk"
	}
	switch o.Claims {
	case "", ClaimsReal, ClaimsStub, ClaimsNone:
	default:
		return nil, fmt.Errorf("orp: claims check %q is not real, stub or none", o.Claims)
	}
	if o.MessageSigner == nil && o.Signer != nil {
		o.MessageSigner = o.Signer
	}
	if o.Fetcher == nil {
		o.Fetcher = NewFetcher(o.Outbound)
	}
	s, err := schema.New()
	if err != nil {
		return nil, err
	}
	o.Origin = strings.TrimSuffix(o.Origin, "/")
	h := &Host{
		store: o.Store, clock: o.Clock, rand: random.Locked(o.Rand), log: o.Logger.With("component", "orp"),
		schemas: s, opts: o, hostport: strings.ToLower(u.Host),
	}
	h.id = "orp:" + h.hostport + "/host"
	h.owners = h.ownerSessions()
	h.partyLimit = newLimiter(o.MessagesPerMinute)
	h.addrLimit = newLimiter(o.AddressPerMinute)
	h.clickLimit = newLimiter(o.ClickPerMinute)
	h.links = newLinkCache()
	h.bots = newBotCache()
	h.clicks = newBatcher(h)
	h.journal = o.ClickJournal
	h.fetcher = newPageFetcher(o.Outbound, o.FetchDial)
	return h, nil
}

// Origin is the host's public origin, such as "https://hub.example".
func (h *Host) Origin() string { return h.opts.Origin }

// Now is the host's clock.
func (h *Host) Now() time.Time { return h.clock.Now() }

// PartyID is the party id of an opaque part on this host.
func (h *Host) PartyID(opaque string) string { return h.partyID(opaque) }

// ID is the host's own party id.
func (h *Host) ID() string { return h.id }

// Schemas are the compiled schemas the host validates with.
func (h *Host) Schemas() *schema.Set { return h.schemas }

func (h *Host) url(path string) string { return h.opts.Origin + path }

func (h *Host) partyID(opaque string) string { return "orp:" + h.hostport + "/" + opaque }

// opaqueOf returns the opaque part of a party id on this host, or "".
func (h *Host) opaqueOf(id string) string {
	rest, ok := strings.CutPrefix(id, "orp:"+h.hostport+"/")
	if !ok || rest == "host" {
		return ""
	}
	return rest
}

const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// randomString draws n characters of alphabet from the injected source
// without modulo bias.
func (h *Host) randomString(n int, chars string) string {
	h.randMu.Lock()
	defer h.randMu.Unlock()
	out := make([]byte, 0, n)
	buf := make([]byte, 1)
	limit := 256 - 256%len(chars)
	for len(out) < n {
		if _, err := io.ReadFull(h.rand, buf); err != nil {
			panic(fmt.Sprintf("orp: random source failed: %v", err)) // crypto/rand never fails
		}
		if int(buf[0]) < limit {
			out = append(out, chars[int(buf[0])%len(chars)])
		}
	}
	return string(out)
}

func (h *Host) newID(prefix string, n int) string { return prefix + h.randomString(n, alphabet) }

// stamp formats a time as the RFC 3339 UTC timestamps ORP uses.
func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

// stampMilli keeps sub-second precision where order matters.
func stampMilli(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func tokenHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// Record kinds. Every key the host writes lives under one of these.
const (
	kindParty    = "orp.party"
	kindToken    = "orp.token"
	kindMessage  = "orp.msg"
	kindDeal     = "orp.deal"
	kindOffer    = "orp.offer"
	kindSpace    = "orp.space"
	kindEscalate = "orp.esc"
	kindInbox    = "orp.inbox"
	kindLink     = "orp.link"
	kindLinkStat = "orp.linkstat"
	kindCode     = "orp.code"
	kindConv     = "orp.conv"
	kindConvKey  = "orp.convkey"
	kindClaim    = "orp.claim"
	kindRequest  = "orp.request"
	kindPayout   = "orp.payout"
	kindSale     = "orp.sale"
	kindRep      = "orp.rep"
	kindEvent    = "orp.event" // provider events already applied
)

func (h *Host) get(ctx context.Context, kind, key string, v any) (store.Record, error) {
	r, err := h.store.Get(ctx, kind, key)
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(r.Value, v); err != nil {
		return r, fmt.Errorf("decode %s %s: %w", kind, key, err)
	}
	return r, nil
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("orp: encode %T: %v", v, err)) // only plain structs are encoded
	}
	return b
}

func create(kind, key string, v any, now time.Time) store.Write {
	return store.Write{Op: store.OpCreate, Record: store.Record{Kind: kind, Key: key, Value: mustJSON(v), UpdatedAt: now}}
}

func swap(r store.Record, v any, now time.Time) store.Write {
	return store.Write{Op: store.OpSwap, Record: store.Record{Kind: r.Kind, Key: r.Key, Value: mustJSON(v), Version: r.Version, UpdatedAt: now}}
}

// limiter counts events per key in fixed one-minute windows. It is in
// memory: limits are abuse protection, not accounting. It holds at most
// maxKeys windows. A window is dropped only once its minute ended, so a
// flood of new keys cannot wipe the limit of a key already counted: while
// the table is full, every key it does not hold shares one overflow
// window, and the flood limits itself.
type limiter struct {
	mu      sync.Mutex
	max     int
	maxKeys int
	window  map[string]windowCount
	order   []windowStart // windows by start, oldest first; stale entries skipped
	head    int
}

type windowCount struct {
	start time.Time
	n     int
}

type windowStart struct {
	key   string
	start time.Time
}

// limiterKeys bounds the keys one limiter remembers.
const limiterKeys = 100000

// overflowKey counts the keys a full limiter does not hold. No caller's
// key is empty: each carries a prefix or an address.
const overflowKey = ""

func newLimiter(max int) *limiter {
	return &limiter{max: max, maxKeys: limiterKeys, window: map[string]windowCount{}}
}

// allow counts one event for key and returns 0, or the seconds until
// another is allowed.
func (l *limiter) allow(key string, now time.Time) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	w, ok := l.window[key]
	if !ok || now.Sub(w.start) >= time.Minute || now.Before(w.start) {
		l.evict(now)
		if !ok && len(l.window) >= l.maxKeys {
			key = overflowKey
			w, ok = l.window[key]
		}
		if !ok || now.Sub(w.start) >= time.Minute || now.Before(w.start) {
			w = windowCount{start: now}
			l.order = append(l.order, windowStart{key: key, start: now})
			l.window[key] = w
		}
	}
	if w.n >= l.max {
		return int(w.start.Add(time.Minute).Sub(now)/time.Second) + 1
	}
	w.n++
	l.window[key] = w
	return 0
}

// evict drops the windows whose minute ended, oldest first. The caller
// holds mu.
func (l *limiter) evict(now time.Time) {
	for l.head < len(l.order) {
		e := l.order[l.head]
		cur, ok := l.window[e.key]
		switch {
		case !ok || !cur.start.Equal(e.start):
			// Stale: the key started a newer window or was dropped.
		case now.Sub(e.start) >= time.Minute || now.Before(e.start):
			delete(l.window, e.key)
		default:
			l.compact()
			return
		}
		l.head++
	}
	l.compact()
}

// compact reclaims the dropped front of order once it is half the slice.
func (l *limiter) compact() {
	if l.head > 1024 && l.head*2 > len(l.order) {
		l.order = append(l.order[:0], l.order[l.head:]...)
		l.head = 0
	}
}

// addressKey is the limiter key of a network address: an IPv6 client is
// keyed by its /64, the block one subscriber usually holds, so rotating
// through its own addresses does not escape the limit. IPv4 (mapped
// forms included) is keyed by the address.
func addressKey(addr string) string {
	ip, err := netip.ParseAddr(addr)
	if err != nil {
		return addr
	}
	ip = ip.Unmap()
	if ip.Is4() {
		return ip.String()
	}
	p, err := ip.WithZone("").Prefix(64)
	if err != nil {
		return addr
	}
	return p.String()
}
