package direct

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"frontdesk/store"
)

// Record kinds this package keeps in the store.
const (
	kindIntent      = "booking-intent"      // key: booking_id
	kindFingerprint = "booking-fingerprint" // key: keyed fingerprint → booking_id of a sending or open intent
	kindMailbox     = "booking-mailbox"     // key: keyed mailbox/location → open booking_ids
	kindAdmission   = "booking-admission"   // names the mail budgets' counters; its records are the places kept before them
	kindCancel      = "booking-cancel"      // key: cancel_id
	kindCancelOpen  = "booking-cancel-open" // key: reference → open cancel_id
	kindLookups     = "booking-lookups"     // names the lookup tries' counters; its records are the tries kept before them
	kindNotice      = "booking-notice"      // key: stable notice id
	kindSecret      = "booking-secret"      // key: "hmac"
)

// maxCASAttempts bounds a read-modify-write loop under contention.
const maxCASAttempts = 400

// passesEnded words how a store.Retry of a guest's request ended when no
// pass answered: contention that outlasted every pass is refused with
// lost, and a context that ended between passes with unread, as the next
// pass's read would have answered. It is nil for any other ending.
func passesEnded(ctx context.Context, err error, lost, unread Code, rt route) error {
	if _, ok := errors.AsType[*store.LostRaces](err); ok {
		return refuse(lost, rt)
	}
	if err != nil && err == ctx.Err() {
		return because(refuse(unread, rt), err)
	}
	return nil
}

// getJSON reads a record and decodes its value.
func getJSON[T any](ctx context.Context, st store.Records, kind, key string) (T, int64, error) {
	v, r, err := store.GetJSON[T](ctx, st, kind, key)
	return v, r.Version, err
}

// jsonValue decodes a record's value into v.
func jsonValue(r store.Record, v any) error {
	if err := json.Unmarshal(r.Value, v); err != nil {
		return fmt.Errorf("decode %s: %w", r.Kind, err)
	}
	return nil
}

func record(kind, key string, v any, version int64, now time.Time) store.Record {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("booking: encode %s: %v", kind, err)) // our own types always encode
	}
	return store.Record{Kind: kind, Key: key, Value: b, Version: version, UpdatedAt: now}
}

// errStop ends an update without writing, for the caller to answer.
var errStop = errors.New("booking: no change")
