package direct

import (
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"frontdesk/internal/secretring"
	"frontdesk/reservation"
	"frontdesk/store"
)

// The operational secret (direct-booking.md §4, §9) has versions: the
// newest keys every value written, and every live version is tried when
// one is checked, so a rotation blinds no rule. A rotation adds a
// version; once every instance has read it (ringRefresh, with margin),
// the sweep's re-key pass rewrites the keyed values the location's own
// reservations hold under the newest version, and the older versions
// retire when the pass has read to the end.
const (
	ringKey         = "ring"          // the versions, in the kindSecret kind
	legacySecretKey = "hmac"          // the single secret of earlier releases, version 1
	ringRefresh     = time.Minute     // how long an instance keeps the versions it read
	rekeyDelay      = 3 * ringRefresh // from a rotation to the start of its pass
	rekeyPage       = 200             // reservations read per step of the pass
	rekeyPages      = 25              // steps of the pass per sweep
)

// SecretVersion is one version of the operational secret.
type SecretVersion struct {
	N     int       `json:"n"`
	Key   []byte    `json:"key"`
	Added time.Time `json:"added"`
}

// secretRing is what the store keeps of the secret: the versions it
// holds, oldest first (none when the environment holds them all), the
// highest retired version, and the re-key pass toward the newest live
// one.
type secretRing struct {
	Versions []SecretVersion `json:"versions"`
	Retired  int             `json:"retired,omitempty"`
	Pass     rekeyPass       `json:"pass"`
}

// rekeyPass is how far the re-key pass toward version To, known since
// Since, has read.
type rekeyPass struct {
	To        int                     `json:"to,omitempty"`
	Since     time.Time               `json:"since"`
	After     store.ReservationCursor `json:"after"`
	Read      int                     `json:"read"`
	Rewritten int                     `json:"rewritten"`
}

func newest(live []SecretVersion) SecretVersion { return live[len(live)-1] }

// EnvSecrets names the environment variable (or, with _FILE, the file)
// that holds the secret's versions outside the store: entries "N:HEX",
// one a line or comma-separated, each key at least 32 bytes in hex.
const EnvSecrets = "FRONTDESK_BOOKING_SECRETS"

// external reads the versions the environment holds; none when it
// holds none.
func (s *Service) external() ([]SecretVersion, error) {
	if s.getenv == nil {
		return nil, nil
	}
	text, file := s.getenv(EnvSecrets), s.getenv(EnvSecrets+"_FILE")
	if text != "" && file != "" {
		return nil, fmt.Errorf("%s and %s_FILE are both set; set one", EnvSecrets, EnvSecrets)
	}
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("%s_FILE: %w", EnvSecrets, err)
		}
		text = string(b)
	}
	ring, err := secretring.Parse(text)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", EnvSecrets, err)
	}
	vs := make([]SecretVersion, len(ring))
	for i, v := range ring {
		vs[i] = SecretVersion{N: v.N, Key: v.Key}
	}
	return vs, nil
}

// live is the versions that key and check: those the store holds and
// those the environment holds, without the retired ones, oldest first.
func (s *Service) live(stored secretRing) ([]SecretVersion, error) {
	ext, err := s.external()
	if err != nil {
		return nil, err
	}
	vs := slices.DeleteFunc(slices.Concat(stored.Versions, ext), func(v SecretVersion) bool { return v.N <= stored.Retired })
	slices.SortStableFunc(vs, func(a, b SecretVersion) int { return a.N - b.N })
	for i := 1; i < len(vs); i++ {
		if vs[i].N == vs[i-1].N {
			return nil, fmt.Errorf("version %d of the operational secret is given twice", vs[i].N)
		}
	}
	if len(vs) == 0 {
		return nil, errors.New("no live version of the operational secret")
	}
	return vs, nil
}

// secretCache keeps the versions one instance read, for ringRefresh.
type secretCache struct {
	mu   sync.Mutex
	live []SecretVersion
	read time.Time
}

// ring is the live versions, read again once ringRefresh has passed.
func (s *Service) ring(ctx context.Context, now time.Time) ([]SecretVersion, error) {
	c := &s.secrets
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.live) > 0 && now.Sub(c.read) < ringRefresh && !now.Before(c.read) {
		return c.live, nil
	}
	stored, _, err := s.loadRing(ctx, now)
	if err != nil {
		return nil, err
	}
	live, err := s.live(stored)
	if err != nil {
		return nil, err
	}
	c.live, c.read = live, now
	return live, nil
}

// forgetRing makes the next keyed value read the versions again.
func (s *Service) forgetRing() {
	s.secrets.mu.Lock()
	s.secrets.live = nil
	s.secrets.mu.Unlock()
}

// loadRing reads what the store keeps of the secret, with its record's
// version. On a store without it the secret of earlier releases becomes
// version 1, drawn first when there is none and the environment holds
// no versions, so every instance on one store shares it.
func (s *Service) loadRing(ctx context.Context, now time.Time) (secretRing, int64, error) {
	ring, version, err := getJSON[secretRing](ctx, s.st, kindSecret, ringKey)
	if !errors.Is(err, store.ErrNotFound) {
		return ring, version, err
	}
	ext, err := s.external()
	if err != nil {
		return ring, 0, err
	}
	legacy, err := s.legacySecret(ctx, now, len(ext) == 0)
	if err != nil {
		return ring, 0, err
	}
	ring = secretRing{}
	if legacy != nil {
		ring.Versions = []SecretVersion{{N: 1, Key: legacy, Added: now}}
	}
	if _, err := s.st.Create(ctx, record(kindSecret, ringKey, ring, 0, now)); err != nil && !errors.Is(err, store.ErrExists) {
		return ring, 0, err
	}
	ring, version, err = getJSON[secretRing](ctx, s.st, kindSecret, ringKey)
	return ring, version, err
}

// legacySecret is the single secret earlier releases kept, created when
// absent and draw is set; it stays for a rollback to read.
func (s *Service) legacySecret(ctx context.Context, now time.Time, draw bool) ([]byte, error) {
	r, err := s.st.Get(ctx, kindSecret, legacySecretKey)
	if err == nil {
		return r.Value, nil
	}
	if !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	if !draw {
		return nil, nil
	}
	key, err := s.newSecret()
	if err != nil {
		return nil, err
	}
	if _, err := s.st.Create(ctx, store.Record{Kind: kindSecret, Key: legacySecretKey, Value: key, UpdatedAt: now}); err != nil && !errors.Is(err, store.ErrExists) {
		return nil, err
	}
	r, err = s.st.Get(ctx, kindSecret, legacySecretKey)
	return r.Value, err
}

func (s *Service) dropLegacySecret(ctx context.Context) error {
	r, err := s.st.Get(ctx, kindSecret, legacySecretKey)
	if err == nil {
		err = s.st.Delete(ctx, kindSecret, legacySecretKey, r.Version)
	}
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	return err
}

func (s *Service) newSecret() ([]byte, error) {
	key := make([]byte, 32)
	_, err := io.ReadFull(s.rand, key)
	return key, err
}

// keyWith derives a pseudonymous key from private text under one version.
func keyWith(v SecretVersion, purpose, text string) string {
	m := hmac.New(sha256.New, v.Key)
	m.Write([]byte(purpose + "\x00" + text))
	return hex.EncodeToString(m.Sum(nil))[:40]
}

// keyed derives a pseudonymous key from private text under the newest
// version: the store keeps mailbox grouping and proofs without keeping
// the address or the code.
func (s *Service) keyed(ctx context.Context, now time.Time, purpose, text string) (string, error) {
	live, err := s.ring(ctx, now)
	if err != nil {
		return "", err
	}
	return keyWith(newest(live), purpose, text), nil
}

// keyedAll is text's key under every live version, the newest first: a
// keyed lookup reads under each, so values written before a rotation
// are found until the re-key pass rewrote them.
func (s *Service) keyedAll(ctx context.Context, now time.Time, purpose, text string) ([]string, error) {
	live, err := s.ring(ctx, now)
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(live))
	for i := len(live) - 1; i >= 0; i-- {
		keys = append(keys, keyWith(live[i], purpose, text))
	}
	return keys, nil
}

// provedBy reports whether stored is text's key under a live version:
// a proof made before a rotation holds until its version retires.
func (s *Service) provedBy(ctx context.Context, now time.Time, stored, purpose, text string) (bool, error) {
	keys, err := s.keyedAll(ctx, now, purpose, text)
	if err != nil {
		return false, err
	}
	for _, k := range keys {
		if sameDigest(stored, k) {
			return true, nil
		}
	}
	return false, nil
}

// RotateSecret adds a new version of the operational secret: values are
// keyed under it from the next read of the versions on, and the sweep's
// re-key pass starts once every instance has had time to read it. When
// the environment holds the versions, a new one is added there instead.
func (s *Service) RotateSecret(ctx context.Context) (SecretStatus, error) {
	now := s.clock.Now()
	if ext, err := s.external(); err != nil || len(ext) > 0 {
		return SecretStatus{}, cmp.Or(err, fmt.Errorf("the versions are held in %s: add an entry with the next version and a new key there", EnvSecrets))
	}
	key, err := s.newSecret()
	if err != nil {
		return SecretStatus{}, err
	}
	var status SecretStatus
	err = store.Retry(ctx, func() error {
		ring, version, err := s.loadRing(ctx, now)
		if err != nil {
			return store.Final(err)
		}
		live, err := s.live(ring)
		if err != nil {
			return store.Final(err)
		}
		n := newest(live).N + 1
		ring.Versions = append(ring.Versions, SecretVersion{N: n, Key: key, Added: now})
		ring.Pass = rekeyPass{To: n, Since: now}
		if _, err := s.st.Swap(ctx, record(kindSecret, ringKey, ring, version, now)); err != nil {
			return err // a rotation that raced another reads the ring again
		}
		s.forgetRing()
		status = statusOf(ring, append(live, ring.Versions[len(ring.Versions)-1]))
		return nil
	})
	if err != nil {
		return SecretStatus{}, fmt.Errorf("rotate the secret: %w", err)
	}
	return status, nil
}

// SecretStatus is what `frontdesk secrets status` shows: the live
// versions and the re-key pass toward the newest.
type SecretStatus struct {
	Versions []SecretVersionStatus
	// Rekeying is true while older versions live; Read and Rewritten
	// count the reservations the pass read and rewrote so far, and
	// Starts is when it may begin.
	Rekeying        bool
	Read, Rewritten int
	Starts          time.Time
}

// SecretVersionStatus is one live version, without its key.
type SecretVersionStatus struct {
	N     int
	Added time.Time
}

func statusOf(ring secretRing, live []SecretVersion) SecretStatus {
	st := SecretStatus{Rekeying: len(live) > 1, Read: ring.Pass.Read, Rewritten: ring.Pass.Rewritten}
	for _, v := range live {
		st.Versions = append(st.Versions, SecretVersionStatus{N: v.N, Added: v.Added})
	}
	if st.Rekeying && ring.Pass.To == newest(live).N {
		st.Starts = ring.Pass.Since.Add(rekeyDelay)
	}
	return st
}

// SecretStatus reads the versions and the re-key pass's progress.
func (s *Service) SecretStatus(ctx context.Context) (SecretStatus, error) {
	now := s.clock.Now()
	ring, _, err := s.loadRing(ctx, now)
	if err != nil {
		return SecretStatus{}, err
	}
	live, err := s.live(ring)
	if err != nil {
		return SecretStatus{}, err
	}
	return statusOf(ring, live), nil
}

// rekey runs up to pages steps of the re-key pass, each reading a page
// of the location's reservations from where the last step stopped and
// rewriting the contact key of those keyed under an older version; the
// cursor is kept after each step, so an interrupted pass resumes. When
// the pass reads to the end, the older versions retire. It reports
// whether a pass is still under way.
func (s *Service) rekey(ctx context.Context, now time.Time, pages, page int) (bool, error) {
	for range pages {
		// A store whose secret was never drawn has nothing to re-key.
		ring, version, err := getJSON[secretRing](ctx, s.st, kindSecret, ringKey)
		if errors.Is(err, store.ErrNotFound) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		live, err := s.live(ring)
		if err != nil || len(live) < 2 {
			return false, err
		}
		to := newest(live)
		if ring.Pass.To != to.N {
			// A version the environment added: the pass waits from now.
			ring.Pass = rekeyPass{To: to.N, Since: now}
			_, err := s.st.Swap(ctx, record(kindSecret, ringKey, ring, version, now))
			return true, err
		}
		if now.Before(ring.Pass.Since.Add(rekeyDelay)) {
			return true, nil // an instance may still key under an older version
		}
		rows, err := s.st.ListReservations(ctx, store.ReservationFilter{After: ring.Pass.After, Limit: page})
		if err != nil {
			return true, err
		}
		for _, row := range rows {
			rewritten, err := s.rekeyRow(ctx, row, to)
			if err != nil {
				return true, err
			}
			if rewritten {
				ring.Pass.Rewritten++
			}
		}
		ring.Pass.Read += len(rows)
		if len(rows) > 0 {
			ring.Pass.After = rows[len(rows)-1].Cursor()
		}
		done := len(rows) < page
		if done {
			// Read to the end: only the newest version is live.
			ring.Versions = slices.DeleteFunc(ring.Versions, func(v SecretVersion) bool { return v.N != to.N })
			ring.Retired, ring.Pass = to.N-1, rekeyPass{To: to.N}
		}
		if _, err := s.st.Swap(ctx, record(kindSecret, ringKey, ring, version, now)); err != nil {
			// A rotation meanwhile restarts the pass toward its version;
			// the rows rewritten stay rewritten.
			return true, err
		}
		if done {
			// The secret of earlier releases was version 1: it leaves the
			// store with the versions it retired.
			if err := s.dropLegacySecret(ctx); err != nil {
				return false, err
			}
			s.forgetRing()
			s.log.InfoContext(ctx, "secret versions retired", "version", to.N)
			return false, nil
		}
	}
	return true, nil
}

// rekeyRow rewrites a reservation's contact key under v when it was
// keyed under another version, keeping its time; a row another write
// moved on is read again.
func (s *Service) rekeyRow(ctx context.Context, row store.Reservation, v SecretVersion) (bool, error) {
	rewrote, reread := false, false
	err := store.Retry(ctx, func() error {
		if reread { // the reservation changed since it was read
			var err error
			if row, err = s.st.GetReservation(ctx, row.Reference); err != nil {
				return store.Final(err)
			}
		}
		reread = true
		if row.ContactKey == "" {
			return nil
		}
		r, err := reservation.FromRow(row)
		if err != nil {
			return store.Final(err)
		}
		email, ok := reservation.ParseEmail(r.Contact.Email)
		if !ok {
			return nil
		}
		key := keyWith(v, "mailbox", email.Normalized)
		if key == r.ContactKey {
			return nil
		}
		if err := s.desk.Rekey(ctx, r, key); err != nil {
			return err // a write the reservation's change refused reads it again
		}
		rewrote = true
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("re-key %s: %w", row.Reference, err)
	}
	return rewrote, nil
}

// PrintSecretStatus writes st as `frontdesk secrets status` shows it.
func PrintSecretStatus(w io.Writer, st SecretStatus) error {
	var b strings.Builder
	for i, v := range st.Versions {
		role := "checks only"
		if i == len(st.Versions)-1 {
			role = "writes and checks"
		}
		added := "held in " + EnvSecrets
		if !v.Added.IsZero() {
			added = "added " + v.Added.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(&b, "version %d  %s  %s\n", v.N, added, role)
	}
	switch {
	case !st.Rekeying:
		b.WriteString("re-key pass: none under way; one version is live\n")
	case st.Starts.IsZero():
		b.WriteString("re-key pass: starts three minutes after the next sweep; older versions retire when it finishes\n")
	case st.Read == 0:
		fmt.Fprintf(&b, "re-key pass: starts with the first sweep from %s; older versions retire when it finishes\n", st.Starts.UTC().Format(time.RFC3339))
	default:
		fmt.Fprintf(&b, "re-key pass: %d reservations read, %d rewritten; older versions retire when it finishes\n", st.Read, st.Rewritten)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// SecretsCommand runs `frontdesk secrets` with its arguments, "rotate"
// or "status", and shows the versions as they are then.
func (s *Service) SecretsCommand(ctx context.Context, args []string, w io.Writer) error {
	if len(args) != 1 || args[0] != "rotate" && args[0] != "status" {
		return errors.New(`secrets: give "rotate" or "status"`)
	}
	st, err := s.SecretStatus(ctx)
	if args[0] == "rotate" {
		st, err = s.RotateSecret(ctx)
	}
	if err != nil {
		return fmt.Errorf("secrets %s: %w", args[0], err)
	}
	return PrintSecretStatus(w, st)
}
