package pop

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	"frontdesk/store"
)

// KindJTI is the record kind of the replay cache.
const KindJTI = "usp-pop-jti"

// StoreReplay is the replay cache on the store's records, so every
// instance sharing a PostgreSQL store shares it. A seen proof is one
// record created conditionally: a second create of the same key is the
// replay.
//
// The key starts with the record's expiry, zero-padded so keys sort by
// time, which lets Sweep delete the expired ones in one ordered scan. It
// ends with a hash of the thumbprint and the jti, scoping a jti to the
// key that signed it. A resent proof carries the same signed iat, so it
// lands on the same key.
type StoreReplay struct {
	Records store.Records
}

var _ ReplayCache = StoreReplay{}

// jtiKey returns the record key for a proof.
func jtiKey(jkt, jti string, until time.Time) string {
	sum := sha256.Sum256([]byte(jkt + "\x00" + jti))
	return fmt.Sprintf("%012d/%s", until.Unix(), base64.RawURLEncoding.EncodeToString(sum[:]))
}

// Remember records the proof, or returns ErrReplayed.
func (s StoreReplay) Remember(ctx context.Context, jkt, jti string, iat, until, now time.Time) error {
	_, err := s.Records.Create(ctx, store.Record{Kind: KindJTI, Key: jtiKey(jkt, jti, until), Value: []byte("{}"), UpdatedAt: now})
	if errors.Is(err, store.ErrExists) {
		return ErrReplayed
	}
	if err != nil {
		return fmt.Errorf("remember jti: %w", err)
	}
	return nil
}

// sweepPage is how many records one List of Sweep reads.
const sweepPage = 500

// Sweep deletes the records that expired before now and returns how many
// it deleted. Records that another instance deleted first are skipped.
func (s StoreReplay) Sweep(ctx context.Context, now time.Time) (int, error) {
	deleted, after := 0, ""
	bound := fmt.Sprintf("%012d/", now.Unix())
	for {
		page, err := s.Records.List(ctx, KindJTI, "", after, sweepPage)
		if err != nil {
			return deleted, fmt.Errorf("sweep jti: %w", err)
		}
		for _, r := range page {
			if r.Key >= bound {
				return deleted, nil
			}
			after = r.Key
			err := s.Records.Delete(ctx, KindJTI, r.Key, r.Version)
			if err != nil && !errors.Is(err, store.ErrNotFound) && !errors.Is(err, store.ErrConflict) {
				return deleted, fmt.Errorf("sweep jti: %w", err)
			}
			if err == nil {
				deleted++
			}
		}
		if len(page) < sweepPage {
			return deleted, nil
		}
	}
}
