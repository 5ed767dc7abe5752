package direct

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

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

// secretRing is the stored versions, oldest first, and the re-key pass
// toward the newest while older ones live.
type secretRing struct {
	Versions []SecretVersion `json:"versions"`
	Pass     rekeyPass       `json:"pass"`
}

// rekeyPass is how far the re-key pass toward version To has read.
type rekeyPass struct {
	To        int                     `json:"to,omitempty"`
	After     store.ReservationCursor `json:"after"`
	Read      int                     `json:"read"`
	Rewritten int                     `json:"rewritten"`
}

func (r secretRing) newest() SecretVersion { return r.Versions[len(r.Versions)-1] }

// secretCache keeps the versions one instance read, for ringRefresh.
type secretCache struct {
	mu   sync.Mutex
	ring secretRing
	read time.Time
}

// ring is the live versions, read again once ringRefresh has passed.
func (s *Service) ring(ctx context.Context, now time.Time) (secretRing, error) {
	c := &s.secrets
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.ring.Versions) > 0 && now.Sub(c.read) < ringRefresh && !now.Before(c.read) {
		return c.ring, nil
	}
	ring, _, err := s.loadRing(ctx, now)
	if err != nil {
		return secretRing{}, err
	}
	c.ring, c.read = ring, now
	return ring, nil
}

// forgetRing makes the next keyed value read the versions again.
func (s *Service) forgetRing() {
	s.secrets.mu.Lock()
	s.secrets.ring = secretRing{}
	s.secrets.mu.Unlock()
}

// loadRing reads the stored versions with their record's version. On a
// store without them the secret of earlier releases becomes version 1,
// drawn first when there is none, so every instance on one store shares
// it.
func (s *Service) loadRing(ctx context.Context, now time.Time) (secretRing, int64, error) {
	ring, version, err := getJSON[secretRing](ctx, s.st, kindSecret, ringKey)
	if err == nil {
		if len(ring.Versions) == 0 {
			return ring, 0, fmt.Errorf("the %s record holds no secret", kindSecret)
		}
		return ring, version, nil
	}
	if !errors.Is(err, store.ErrNotFound) {
		return ring, 0, err
	}
	legacy, err := s.legacySecret(ctx, now)
	if err != nil {
		return ring, 0, err
	}
	ring = secretRing{Versions: []SecretVersion{{N: 1, Key: legacy, Added: now}}}
	if _, err := s.st.Create(ctx, record(kindSecret, ringKey, ring, 0, now)); err != nil && !errors.Is(err, store.ErrExists) {
		return ring, 0, err
	}
	ring, version, err = getJSON[secretRing](ctx, s.st, kindSecret, ringKey)
	return ring, version, err
}

// legacySecret is the single secret earlier releases kept, created when
// absent; it stays for a rollback to read.
func (s *Service) legacySecret(ctx context.Context, now time.Time) ([]byte, error) {
	r, err := s.st.Get(ctx, kindSecret, legacySecretKey)
	if err == nil {
		return r.Value, nil
	}
	if !errors.Is(err, store.ErrNotFound) {
		return nil, err
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
	ring, err := s.ring(ctx, now)
	if err != nil {
		return "", err
	}
	return keyWith(ring.newest(), purpose, text), nil
}

// keyedAll is text's key under every live version, the newest first: a
// keyed lookup reads under each, so values written before a rotation
// are found until the re-key pass rewrote them.
func (s *Service) keyedAll(ctx context.Context, now time.Time, purpose, text string) ([]string, error) {
	ring, err := s.ring(ctx, now)
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(ring.Versions))
	for i := len(ring.Versions) - 1; i >= 0; i-- {
		keys = append(keys, keyWith(ring.Versions[i], purpose, text))
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
// re-key pass starts once every instance has had time to read it.
func (s *Service) RotateSecret(ctx context.Context) (SecretStatus, error) {
	now := s.clock.Now()
	key, err := s.newSecret()
	if err != nil {
		return SecretStatus{}, err
	}
	for range maxCASAttempts {
		ring, version, err := s.loadRing(ctx, now)
		if err != nil {
			return SecretStatus{}, err
		}
		n := ring.newest().N + 1
		ring.Versions = append(ring.Versions, SecretVersion{N: n, Key: key, Added: now})
		ring.Pass = rekeyPass{To: n}
		_, err = s.st.Swap(ctx, record(kindSecret, ringKey, ring, version, now))
		if errors.Is(err, store.ErrConflict) {
			continue
		}
		if err != nil {
			return SecretStatus{}, err
		}
		s.forgetRing()
		return statusOf(ring, now), nil
	}
	return SecretStatus{}, fmt.Errorf("rotate the secret: %w", store.ErrConflict)
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

func statusOf(ring secretRing, now time.Time) SecretStatus {
	st := SecretStatus{Rekeying: len(ring.Versions) > 1, Read: ring.Pass.Read, Rewritten: ring.Pass.Rewritten}
	for _, v := range ring.Versions {
		st.Versions = append(st.Versions, SecretVersionStatus{N: v.N, Added: v.Added})
	}
	if st.Rekeying {
		st.Starts = ring.newest().Added.Add(rekeyDelay)
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
	return statusOf(ring, now), nil
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
		if len(ring.Versions) < 2 {
			return false, nil
		}
		if now.Before(ring.newest().Added.Add(rekeyDelay)) {
			return true, nil // an instance may still key under an older version
		}
		rows, err := s.st.ListReservations(ctx, store.ReservationFilter{After: ring.Pass.After, Limit: page})
		if err != nil {
			return true, err
		}
		newest := ring.newest()
		for _, row := range rows {
			rewritten, err := s.rekeyRow(ctx, row, newest)
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
		if len(rows) < page {
			// Read to the end: only the newest version is live.
			ring.Versions = []SecretVersion{newest}
			ring.Pass = rekeyPass{}
		}
		if _, err := s.st.Swap(ctx, record(kindSecret, ringKey, ring, version, now)); err != nil {
			// A rotation meanwhile restarts the pass toward its version;
			// the rows rewritten stay rewritten.
			return true, err
		}
		if len(ring.Versions) == 1 {
			s.forgetRing()
			s.log.InfoContext(ctx, "secret versions retired", "version", newest.N)
			return false, nil
		}
	}
	return true, nil
}

// rekeyRow rewrites a reservation's contact key under v when it was
// keyed under another version, keeping its time; a row another write
// moved on is read again.
func (s *Service) rekeyRow(ctx context.Context, row store.Reservation, v SecretVersion) (bool, error) {
	for range maxCASAttempts {
		if row.ContactKey == "" {
			return false, nil
		}
		r, err := reservation.FromRow(row)
		if err != nil {
			return false, err
		}
		email, ok := reservation.ParseEmail(r.Contact.Email)
		if !ok {
			return false, nil
		}
		key := keyWith(v, "mailbox", email.Normalized)
		if key == r.ContactKey {
			return false, nil
		}
		err = s.desk.Rekey(ctx, r, key)
		if _, moved := errors.AsType[*store.WriteError](err); !moved {
			return err == nil, err
		}
		if row, err = s.st.GetReservation(ctx, row.Reference); err != nil {
			return false, err
		}
	}
	return false, fmt.Errorf("re-key %s: %w", row.Reference, store.ErrConflict)
}

// PrintSecretStatus writes st as `frontdesk secrets status` shows it.
func PrintSecretStatus(w io.Writer, st SecretStatus) error {
	var b strings.Builder
	for i, v := range st.Versions {
		role := "checks only"
		if i == len(st.Versions)-1 {
			role = "writes and checks"
		}
		fmt.Fprintf(&b, "version %d  added %s  %s\n", v.N, v.Added.UTC().Format(time.RFC3339), role)
	}
	switch {
	case !st.Rekeying:
		b.WriteString("re-key pass: none under way; one version is live\n")
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
