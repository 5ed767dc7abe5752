// Package session keeps the signed-in browsers of the people who work a
// door: staff at the staff screen and party owners at the ORP host. It
// owns every mechanic both share, so a fix to one is a fix to both: the
// session record (stored under the hash of its token, so a copy of the
// store opens nothing), a fresh token on every sign-in, the idle and
// absolute ends, the CSRF token bound to the session and its
// constant-time check, signing out one browser or every browser of a
// person, and the cookie that carries the token (HttpOnly, SameSite, and
// Secure whenever the request came over HTTPS, directly or through a
// trusted proxy).
//
// What a door adds (who may sign in, how, and what a session lets them
// do) stays in the door. It imports store, internal/clock and
// internal/clientip.
package session

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"frontdesk/internal/clock"
	"frontdesk/store"
)

// ErrSignedOut is the answer for a token that opens no live session:
// unknown, forged, ended, idle too long or past its lifetime.
var ErrSignedOut = errors.New("session: signed out")

// Session is one signed-in browser as it is stored.
//
// Records written before this package kept each door's own shape; they
// carry no subject and read as signed out, so a browser from before
// signs in again once.
type Session struct {
	Subject   string    `json:"subject"`          // who: a staff username, an owner id
	CSRF      string    `json:"csrf"`             // the token every form of this session posts back
	CreatedAt time.Time `json:"created_at"`       // the sign-in
	LastSeen  time.Time `json:"last_seen"`        // the last noted activity
	Expires   time.Time `json:"expires"`          // absolute end, whatever the activity
	Detail    string    `json:"detail,omitempty"` // a word the door keeps with it (an owner's assurance)
}

// Policy is how a door's sessions are stored and how long they live.
type Policy struct {
	Kind     string        // the record kind, e.g. "staff.session"
	Lifetime time.Duration // absolute lifetime from sign-in
	// Idle ends a session with no activity for this long; zero means
	// only Lifetime ends it.
	Idle time.Duration
}

// Options are the parts a door or test replaces; nil means defaults.
type Options struct {
	Clock  clock.Clock // default clock.System
	Random io.Reader   // default crypto/rand
	// Token and CSRF make a session's token and its CSRF token; each
	// defaults to 256 random bits from Random, URL-safe. A door with its
	// own token spelling passes them.
	Token, CSRF func() (string, error)
	// Locate, when set, spells each session token from its random part,
	// as business.Location.Token does: a split deployment's location
	// names itself in its sessions, so the hub routes them to it. The
	// CSRF token is not wrapped.
	Locate func(random string) string
}

// Store keeps one door's sessions in records.
type Store struct {
	records store.Records
	policy  Policy
	clock   clock.Clock
	token   func() (string, error)
	csrf    func() (string, error)
}

// New returns the sessions of policy p in records.
func New(records store.Records, p Policy, o Options) *Store {
	s := &Store{records: records, policy: p, clock: o.Clock, token: o.Token, csrf: o.CSRF}
	if s.clock == nil {
		s.clock = clock.System{}
	}
	random := o.Random
	if random == nil {
		random = rand.Reader
	}
	if s.token == nil {
		s.token = func() (string, error) { return randomToken(random) }
	}
	if s.csrf == nil {
		s.csrf = s.token
	}
	if o.Locate != nil {
		random := s.token
		s.token = func() (string, error) {
			t, err := random()
			return o.Locate(t), err
		}
	}
	return s
}

// Lifetime is the absolute lifetime of a session, for the cookie.
func (s *Store) Lifetime() time.Duration { return s.policy.Lifetime }

// Opened is a new session: the token the browser keeps (only its hash
// is stored) and the session.
type Opened struct {
	Token   string
	Session Session
}

// Open makes a new session for subject at now, with a fresh token, and
// returns the write that stores it, for a door that stores it in one
// batch with its own records. Every sign-in opens a new one, so a token
// known before the sign-in never becomes signed in.
func (s *Store) Open(subject, detail string, now time.Time) (Opened, store.Write, error) {
	token, err := s.token()
	if err != nil {
		return Opened{}, store.Write{}, fmt.Errorf("session token: %w", err)
	}
	csrf, err := s.csrf()
	if err != nil {
		return Opened{}, store.Write{}, fmt.Errorf("csrf token: %w", err)
	}
	ses := Session{Subject: subject, CSRF: csrf, CreatedAt: now, LastSeen: now, Expires: now.Add(s.policy.Lifetime), Detail: detail}
	value, err := json.Marshal(ses)
	if err != nil {
		return Opened{}, store.Write{}, err
	}
	w := store.Write{Op: store.OpCreate, Record: store.Record{Kind: s.policy.Kind, Key: Key(token), Value: value, UpdatedAt: now}}
	return Opened{Token: token, Session: ses}, w, nil
}

// Start opens and stores a session for subject.
func (s *Store) Start(ctx context.Context, subject, detail string) (Opened, error) {
	o, w, err := s.Open(subject, detail, s.clock.Now())
	if err != nil {
		return Opened{}, err
	}
	if _, err := s.records.Create(ctx, w.Record); err != nil {
		return Opened{}, fmt.Errorf("create session: %w", err)
	}
	return o, nil
}

// Get returns the live session of token and notes the activity. A
// session past its lifetime or idle too long is deleted and answers
// ErrSignedOut, as does any token that opens nothing.
func (s *Store) Get(ctx context.Context, token string) (Session, error) {
	now := s.clock.Now()
	if token == "" || len(token) > 100 {
		return Session{}, ErrSignedOut
	}
	r, err := s.records.Get(ctx, s.policy.Kind, Key(token))
	if errors.Is(err, store.ErrNotFound) {
		return Session{}, ErrSignedOut
	}
	if err != nil {
		return Session{}, fmt.Errorf("read session: %w", err)
	}
	ses, ok := s.decode(r, now)
	if !ok {
		_ = s.records.Delete(ctx, s.policy.Kind, r.Key, r.Version)
		return Session{}, ErrSignedOut
	}
	// Activity is written at most once a minute, so page loads do not
	// each cost a write; a lost race only skips one update.
	if s.policy.Idle > 0 && now.Sub(ses.LastSeen) >= time.Minute {
		ses.LastSeen = now
		r.Value, _ = json.Marshal(ses)
		r.UpdatedAt = now
		_, _ = s.records.Swap(ctx, r)
	}
	return ses, nil
}

// decode reads a stored session and reports whether it is live at now.
func (s *Store) decode(r store.Record, now time.Time) (Session, bool) {
	var ses Session
	if json.Unmarshal(r.Value, &ses) != nil || ses.Subject == "" {
		return Session{}, false
	}
	return ses, s.live(ses, now)
}

// live reports whether ses is still open at now.
func (s *Store) live(ses Session, now time.Time) bool {
	return now.Before(ses.Expires) && (s.policy.Idle == 0 || now.Sub(ses.LastSeen) < s.policy.Idle)
}

// End signs the session of token out; ending it twice is not an error.
func (s *Store) End(ctx context.Context, token string) error {
	return store.Remove(ctx, s.records, s.policy.Kind, Key(token))
}

// EndAll signs every session of subject out, in every browser, and
// returns how many it ended.
func (s *Store) EndAll(ctx context.Context, subject string) (int, error) {
	return s.sweep(ctx, func(ses Session, live bool) bool { return ses.Subject == subject && live })
}

// Purge deletes ended sessions, so the kind does not grow with history.
// It returns how many records it removed.
func (s *Store) Purge(ctx context.Context) (int, error) {
	return s.sweep(ctx, func(_ Session, live bool) bool { return !live })
}

// sweep deletes every stored session for which drop is true.
func (s *Store) sweep(ctx context.Context, drop func(ses Session, live bool) bool) (int, error) {
	now := s.clock.Now()
	removed, after := 0, ""
	for {
		page, err := s.records.List(ctx, s.policy.Kind, "", after, 200)
		if err != nil {
			return removed, fmt.Errorf("list sessions: %w", err)
		}
		for _, r := range page {
			ses, live := s.decode(r, now)
			if drop(ses, live) && s.records.Delete(ctx, s.policy.Kind, r.Key, r.Version) == nil {
				removed++
			}
		}
		if len(page) < 200 {
			return removed, nil
		}
		after = page[len(page)-1].Key
	}
}

// CheckCSRF reports whether a posted form's token is the session's,
// comparing in constant time.
func CheckCSRF(ses Session, posted string) bool {
	return ses.CSRF != "" && posted != "" && subtle.ConstantTimeCompare([]byte(ses.CSRF), []byte(posted)) == 1
}

// Key is the stored key of a token: its SHA-256, so a copy of the store
// does not open sessions.
func Key(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// randomToken is 256 random bits, URL-safe.
func randomToken(random io.Reader) (string, error) {
	b := make([]byte, 32)
	if _, err := io.ReadFull(random, b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}
