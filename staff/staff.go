package staff

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/go-webauthn/webauthn/webauthn"

	"frontdesk/business"
	"frontdesk/internal/clock"
	"frontdesk/internal/session"
	"frontdesk/quota"
	"frontdesk/store"
)

// Role is what a user may do.
type Role string

// The roles. An owner sees and acts on every location and changes
// settings; a clerk works only at the locations listed for them.
const (
	Owner Role = "owner"
	Clerk Role = "clerk"
)

// User is one staff login.
type User struct {
	Username  string    `json:"username"`
	Role      Role      `json:"role"`
	Locations []string  `json:"locations,omitempty"` // a clerk's scope; empty for owners
	Hash      string    `json:"password_hash"`       // argon2id, PHC string
	CreatedAt time.Time `json:"created_at"`
	// Disabled logins cannot sign in, and their sessions end.
	Disabled bool `json:"disabled,omitempty"`
	// PasswordSet is when the password was last reset; sessions opened
	// before it end.
	PasswordSet time.Time `json:"password_set,omitzero"`
	// Handle is the login's WebAuthn user handle, made with its first
	// passkey; Passkeys are the passkeys it signs in with (passkey.go).
	Handle   []byte                `json:"passkey_handle,omitempty"`
	Passkeys []webauthn.Credential `json:"passkeys,omitempty"`
}

// CanSee reports whether u may open and act on location slug's
// reservations and settings.
func (u User) CanSee(slug string) bool {
	return u.Role == Owner || slices.Contains(u.Locations, slug)
}

// Session is one signed-in browser; its Subject is the username. The
// sessions themselves (tokens, expiry, CSRF, sign-out) are kept by
// internal/session, the same way as the ORP owners'.
type Session = session.Session

// Limits of signing in. Each attempt is claimed before its password is
// checked, so parallel guesses cannot check more passwords than a budget
// allows; a successful one is given back, so only failures count.
const (
	SessionLifetime   = 12 * time.Hour
	SessionIdle       = 2 * time.Hour
	AttemptWindow     = 15 * time.Minute
	AttemptsPerClient = 10 // one login from one device, or from one address
	AttemptsPerAddr   = 30
	// AttemptsPerUserUnknown bounds the guesses at one login from all
	// unknown devices together; a known device is never held by it.
	AttemptsPerUserUnknown = 100
	MinPasswordLength      = 12
	MaxPasswordLength      = 256
)

// Record kinds.
const (
	kindUser     = "staff.user"
	kindSession  = "staff.session"
	kindAttempts = "staff.attempts"
)

var usernamePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{1,39}$`)

// Records is what the service needs of the store: records for users
// and sessions, counters for the sign-in budgets.
type Records interface {
	store.Records
	store.Counters
}

// Service keeps staff logins and sessions in the store.
type Service struct {
	records Records
	cfg     business.Portfolio
	clock   clock.Clock
	random  io.Reader
	hashing Hashing
	gate    *hashGate
	// dummy is a hash checked for an unknown username, so a wrong name
	// costs the same time as a wrong password.
	dummy string
	// zone is the property's time zone, for the times sign-in messages
	// name.
	zone     *time.Location
	sessions *session.Store
	keyMu    sync.Mutex
	devKey   []byte // read or made on first use
}

// Options are the parts a test replaces; nil and zero mean defaults.
type Options struct {
	Clock   clock.Clock // default clock.System
	Random  io.Reader   // default crypto/rand
	Hashing Hashing     // default DefaultHashing
	// HashMemory is the KiB all concurrent password checks may use;
	// default DefaultHashMemory. A sign-in that finds none free within
	// a moment is refused before hashing.
	HashMemory uint32
	// Location, when set, is the one location of a split deployment's
	// process: its session tokens name it (business.Location.Token), so
	// the hub forwards a signed-in request to it.
	Location *business.Location
}

// New returns a Service on records for the business cfg.
func New(records Records, cfg business.Portfolio, o Options) (*Service, error) {
	s := &Service{records: records, cfg: cfg, clock: o.Clock, random: o.Random, hashing: o.Hashing}
	if s.clock == nil {
		s.clock = clock.System{}
	}
	if s.random == nil {
		s.random = rand.Reader
	}
	if s.hashing == (Hashing{}) {
		s.hashing = DefaultHashing()
	}
	if o.HashMemory == 0 {
		o.HashMemory = DefaultHashMemory
	}
	s.gate = newHashGate(o.HashMemory, s.hashing)
	s.sessions = session.New(records, session.Policy{Kind: kindSession, Lifetime: SessionLifetime, Idle: SessionIdle},
		session.Options{Clock: s.clock, Random: s.random, Locate: locate(o.Location)})
	s.zone = propertyZone(cfg)
	dummy, err := hashPassword("no such user", s.hashing, s.random)
	if err != nil {
		return nil, err
	}
	s.dummy = dummy
	return s, nil
}

func invalid(format string, args ...any) error {
	return &Error{Code: CodeInvalid, Message: fmt.Sprintf(format, args...)}
}

// AddUser creates a login. It refuses a taken username and never
// overwrites one.
func (s *Service) AddUser(ctx context.Context, username, password string, role Role, locations []string) (User, error) {
	if !usernamePattern.MatchString(username) {
		return User{}, invalid("username must be 2 to 40 lowercase letters, digits, dots, dashes or underscores, starting with a letter or digit")
	}
	if n := utf8.RuneCountInString(password); n < MinPasswordLength || n > MaxPasswordLength {
		return User{}, invalid("password must be %d to %d characters", MinPasswordLength, MaxPasswordLength)
	}
	scope, err := s.checkScope(role, locations)
	if err != nil {
		return User{}, err
	}
	hash, err := hashPassword(password, s.hashing, s.random)
	if err != nil {
		return User{}, internal("hash password", err)
	}
	u := User{Username: username, Role: role, Locations: scope, Hash: hash, CreatedAt: s.clock.Now()}
	value, _ := json.Marshal(u)
	_, err = s.records.Create(ctx, store.Record{Kind: kindUser, Key: username, Value: value, UpdatedAt: u.CreatedAt})
	if errors.Is(err, store.ErrExists) {
		return User{}, &Error{Code: CodeExists, Message: fmt.Sprintf("user %q already exists", username)}
	}
	if err != nil {
		return User{}, internal("create user", err)
	}
	return u, nil
}

// User returns a login by name, or an error with CodeDenied when absent.
func (s *Service) User(ctx context.Context, username string) (User, error) {
	r, err := s.records.Get(ctx, kindUser, username)
	if errors.Is(err, store.ErrNotFound) {
		return User{}, &Error{Code: CodeDenied, Message: "no such user"}
	}
	if err != nil {
		return User{}, internal("read user", err)
	}
	var u User
	if err := json.Unmarshal(r.Value, &u); err != nil {
		return User{}, internal("decode user", err)
	}
	return u, nil
}

// SignIn checks a username and password from addr (the client's network
// address) on a device not known to sign in before; SignInFrom has the
// whole story.
func (s *Service) SignIn(ctx context.Context, username, password, addr string) (Session, string, error) {
	in, err := s.SignInFrom(ctx, Attempt{Username: username, Password: password, Addr: addr})
	return in.Session, in.Token, err
}

// Attempt is one sign-in: the login and password typed, the client's
// network address, and the device cookie the browser sent, if any.
type Attempt struct {
	Username, Password, Addr, Device string
}

// SignedIn is an opened session: the session, the token the browser
// keeps (only its hash is stored), and the device cookie to set, which
// now names this login.
type SignedIn struct {
	Session Session
	Token   string
	Device  string
}

// SignInFrom checks a sign-in and opens a session. Each attempt is
// claimed against its budgets before the password is checked, so
// parallel guesses cannot check more than the budgets allow; a successful
// sign-in gives its claims back, so only failures count.
//
// The budgets are per login and client together: a device whose cookie
// names the login has a budget of its own (AttemptsPerClient) and no
// other, so wrong passwords from anywhere else never lock it out; any
// other client spends the budget of the login at its address
// (AttemptsPerClient), its address's (AttemptsPerAddr) and the login's
// budget for unknown devices (AttemptsPerUserUnknown), which bounds
// guessing spread over many addresses. A known device also keeps a share
// of the password check's memory that unknown ones cannot take.
func (s *Service) SignInFrom(ctx context.Context, a Attempt) (SignedIn, error) {
	now := s.clock.Now()
	username := strings.ToLower(strings.TrimSpace(a.Username))
	if len(username) > 40 || len(a.Password) > MaxPasswordLength*4 {
		return SignedIn{}, &Error{Code: CodeDenied, Message: "wrong username or password"}
	}
	key, err := s.deviceKey(ctx)
	if err != nil {
		return SignedIn{}, internal("device key", err)
	}
	tokens := parseDevice(a.Device, key)
	device := knownDevice(tokens, username)
	var claims []claim
	perClient, perAddr, perUser := attemptBudgets()
	if device != "" {
		claims = []claim{{perClient, username + "/device/" + device}}
	} else {
		claims = []claim{{perClient, username + "/addr/" + a.Addr}, {perAddr, a.Addr}, {perUser, username}}
	}
	for i, c := range claims {
		if err := s.claimAttempt(ctx, c.budget, c.key, now); err != nil {
			s.giveBack(ctx, claims[:i], now)
			return SignedIn{}, err
		}
	}
	u, err := s.User(ctx, username)
	hash := u.Hash
	if err != nil {
		if ErrorCode(err) != CodeDenied {
			s.giveBack(ctx, claims, now)
			return SignedIn{}, err
		}
		hash = s.dummy
	}
	if ok, herr := s.check(ctx, hash, a.Password, device != ""); herr != nil || !ok || err != nil || u.Disabled {
		if herr != nil {
			// Not checked: the attempt costs nothing.
			s.giveBack(ctx, claims, now)
			return SignedIn{}, herr
		}
		return SignedIn{}, &Error{Code: CodeDenied, Message: "wrong username or password"}
	}
	in, err := s.openSession(ctx, u, tokens, key, now)
	if err != nil {
		return SignedIn{}, err
	}
	// A successful sign-in is never counted against anyone.
	s.giveBack(ctx, claims, now)
	return in, nil
}

// openSession opens a session for u and names u in the device cookie
// whose tokens are given.
func (s *Service) openSession(ctx context.Context, u User, tokens []deviceToken, key []byte, now time.Time) (SignedIn, error) {
	opened, w, err := s.sessions.Open(u.Username, "", now)
	if err != nil {
		return SignedIn{}, internal("open session", err)
	}
	tokens, err = s.remember(tokens, u.Username)
	if err != nil {
		return SignedIn{}, internal("device token", err)
	}
	if _, err := s.records.Create(ctx, w.Record); err != nil {
		return SignedIn{}, internal("create session", err)
	}
	return SignedIn{Session: opened.Session, Token: opened.Token, Device: formatDevice(tokens, key)}, nil
}

// claim is one use of a budget for one key.
type claim struct {
	budget quota.Budget
	key    string
}

// giveBack returns claims taken at now. A failed write leaves the use
// counted, the safe side: it ends with its window.
func (s *Service) giveBack(ctx context.Context, claims []claim, now time.Time) {
	for _, c := range claims {
		_ = c.budget.GiveBack(ctx, s.records, c.key, now, s.clock.Now())
	}
}

// check checks password against the stored hash within the hashing
// memory budget; a check that cannot have its memory soon is refused
// without hashing.
func (s *Service) check(ctx context.Context, phc, password string, known bool) (bool, error) {
	h, ok := parseHash(phc)
	if !ok {
		return false, nil
	}
	wait, cancel := context.WithTimeout(ctx, hashWait)
	defer cancel()
	if !s.gate.acquire(wait, h.Memory, known) {
		return false, &Error{Code: CodeLimited, Message: "sign-in is busy; try again in a moment"}
	}
	defer s.gate.release(h.Memory)
	return h.matches(password), nil
}

// Session returns the session and user of a browser's token, and notes
// the activity. A session past its lifetime, idle too long, or whose user
// is gone, disabled or has a newer password is signed out.
func (s *Service) Session(ctx context.Context, token string) (Session, User, error) {
	signedOut := &Error{Code: CodeSignedOut, Message: "sign in again"}
	ses, err := s.sessions.Get(ctx, token)
	if errors.Is(err, session.ErrSignedOut) {
		return Session{}, User{}, signedOut
	}
	if err != nil {
		return Session{}, User{}, internal("read session", err)
	}
	u, err := s.User(ctx, ses.Subject)
	if ErrorCode(err) == CodeDenied || err == nil && (u.Disabled || ses.CreatedAt.Before(u.PasswordSet)) {
		return Session{}, User{}, signedOut
	}
	if err != nil {
		return Session{}, User{}, err
	}
	return ses, u, nil
}

// CheckCSRF reports whether a form's token is the session's.
func CheckCSRF(ses Session, posted string) bool { return session.CheckCSRF(ses, posted) }

// SignOut ends the session of token; signing out twice is not an error.
func (s *Service) SignOut(ctx context.Context, token string) error {
	if err := s.sessions.End(ctx, token); err != nil {
		return internal("sign out", err)
	}
	return nil
}

// SignOutEverywhere ends every session of username, in every browser.
func (s *Service) SignOutEverywhere(ctx context.Context, username string) error {
	if _, err := s.sessions.EndAll(ctx, username); err != nil {
		return internal("sign out everywhere", err)
	}
	return nil
}

// attemptBudgets are the sign-in budgets per login and client, per
// address and per login from unknown devices.
func attemptBudgets() (perClient, perAddr, perUser quota.Budget) {
	return quota.Budget{Kind: kindAttempts + ".client", Limit: AttemptsPerClient, Window: AttemptWindow},
		quota.Budget{Kind: kindAttempts + ".addr", Limit: AttemptsPerAddr, Window: AttemptWindow},
		quota.Budget{Kind: kindAttempts + ".user", Limit: AttemptsPerUserUnknown, Window: AttemptWindow}
}

// claimAttempt counts one sign-in attempt against budget b for key.
func (s *Service) claimAttempt(ctx context.Context, b quota.Budget, key string, now time.Time) error {
	err := b.Claim(ctx, s.records, key, now)
	if spent, ok := errors.AsType[*quota.ErrSpent](err); ok {
		return &Error{Code: CodeLimited, Message: fmt.Sprintf("too many failed sign-ins; try again after %s", spent.Until.In(s.zone).Format("15:04 MST"))}
	}
	if err != nil {
		return internal("claim sign-in attempt", err)
	}
	return nil
}

// Purge deletes ended sessions and ended attempt windows, so neither
// grows with history. The sweep calls it; it returns how many records it
// removed.
func (s *Service) Purge(ctx context.Context) (int, error) {
	now := s.clock.Now()
	removed, err := s.sessions.Purge(ctx)
	if err != nil {
		return removed, internal("purge sessions", err)
	}
	perClient, perAddr, perUser := attemptBudgets()
	for _, b := range []quota.Budget{perClient, perAddr, perUser} {
		n, err := b.Purge(ctx, s.records, now)
		removed += n
		if err != nil {
			return removed, internal("purge sign-in attempts", err)
		}
	}
	return removed, nil
}

// propertyZone is the zone staff read times in: the business's, or the
// locations' when the business names none but they share one.
func propertyZone(cfg business.Portfolio) *time.Location {
	if z, err := time.LoadLocation(cfg.Business.TimeZone); err == nil && cfg.Business.TimeZone != "" && cfg.Business.TimeZone != "UTC" {
		return z
	}
	var zone *time.Location
	for _, l := range cfg.Locations {
		z := l.Zone()
		if z == nil || zone != nil && z.String() != zone.String() {
			return time.UTC
		}
		zone = z
	}
	if zone == nil {
		return time.UTC
	}
	return zone
}

// locate spells a session token of l's, or nil for a business in one
// process.
func locate(l *business.Location) func(string) string {
	if l == nil {
		return nil
	}
	return l.Token
}
