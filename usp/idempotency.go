package usp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"frontdesk/store"
)

// IdempotencyKeep is how long an idempotency key and its result are kept
// (§9.1.1: at least 24 hours).
const IdempotencyKeep = 24 * time.Hour

// kindIdempotency records, per caller, method and key, the digest of the
// parameters and the result sent (key: a digest of the three).
const kindIdempotency = "usp-idempotency"

type idemRecord struct {
	Params  string          `json:"params"`
	Done    bool            `json:"done"`
	Result  json.RawMessage `json:"result,omitempty"`
	Expires time.Time       `json:"expires"`
}

func hexDigest(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// keeper gives the write that records res as the answer to the call's
// idempotency key, for the operation to commit with its own writes, so
// the change and the answer a retry gets are saved together. Without a
// key it gives nothing.
type keeper[T any] func(res *T) []store.Write

// once runs a state-changing operation at most once per idempotency key
// (§9.1.1): the same key with the same parameters answers the stored
// result without running again, and without re-checking a precondition;
// the same key with other parameters is idempotency_conflict. Keys belong
// to the caller, so two platforms never share one. The operation commits
// keep's write with its own; an answer with nothing to write (a business
// outcome) is recorded after it, and when that record cannot be written
// (a full disk) the call answers service_unavailable instead, so no
// answer is final that a retry would not find. A protocol error is not a
// result: it is not kept, and a retry runs again. Without a key the operation simply
// runs.
func once[T any](ctx context.Context, b *Business, call Call, p Principal, method string, params any, run func(keep keeper[T]) (*T, error)) (*T, error) {
	if call.IdempotencyKey == "" || b.st == nil {
		return run(func(*T) []store.Write { return nil })
	}
	body, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("idempotency: %w", err)
	}
	who := p.ID
	if p.Staff != "" {
		who = "staff:" + p.Staff
	}
	key := hexDigest(who, method, call.IdempotencyKey)
	digest := hexDigest(string(body))
	var out *T
	err = store.Retrier{Attempts: maxAttempts}.Run(ctx, func() error {
		now := b.clock.Now()
		rec, err := b.st.Get(ctx, kindIdempotency, key)
		switch {
		case err == nil:
			var stored idemRecord
			if err := json.Unmarshal(rec.Value, &stored); err != nil {
				return fmt.Errorf("idempotency: %w", err)
			}
			if !now.Before(stored.Expires) {
				// Expired: forget it and take the key afresh.
				if err := b.st.Delete(ctx, kindIdempotency, key, rec.Version); err != nil && !errors.Is(err, store.ErrConflict) && !errors.Is(err, store.ErrNotFound) {
					return fmt.Errorf("idempotency: %w", err)
				}
				return errKeyAgain
			}
			if stored.Params != digest {
				return fail(CodeIdempotencyConflict, "This Idempotency-Key was used for a request with other parameters; use a new key.")
			}
			out = new(T)
			if err := json.Unmarshal(stored.Result, out); err != nil {
				return fmt.Errorf("idempotency: %w", err)
			}
			return nil
		case !errors.Is(err, store.ErrNotFound):
			return fmt.Errorf("idempotency: %w", err)
		}
		record := func(res *T) (store.Write, error) {
			result, err := json.Marshal(res)
			if err != nil {
				return store.Write{}, err
			}
			value, _ := json.Marshal(idemRecord{Params: digest, Done: true, Result: result, Expires: now.Add(IdempotencyKeep)})
			return store.Write{Op: store.OpCreate, Record: store.Record{Kind: kindIdempotency, Key: key, Value: value, UpdatedAt: now}}, nil
		}
		// An operation returns exactly the answer it gave keep when it
		// committed keep's write with its own.
		var kept *T
		res, err := run(func(res *T) []store.Write {
			w, err := record(res)
			if err != nil {
				return nil // an answer that does not encode is recorded by nobody
			}
			kept = res
			return []store.Write{w}
		})
		if err != nil {
			if kept != nil && errors.Is(err, store.ErrExists) {
				return errKeyAgain // a parallel request with this key committed first: answer as it did
			}
			return store.Final(err)
		}
		if res == kept {
			out = res
			return nil
		}
		w, err := record(res)
		if err != nil {
			return fmt.Errorf("idempotency: %w", err)
		}
		if _, err := b.st.Apply(context.WithoutCancel(ctx), []store.Write{w}); err != nil {
			if errors.Is(err, store.ErrExists) {
				return errKeyAgain
			}
			// An answer a retry could not find again is not final: the
			// operation wrote nothing (it would have committed the record
			// with its writes), so the retry runs it again and, once the
			// store takes writes, keeps what it answers.
			return &Error{Code: CodeServiceUnavailable, RetryAfter: RetryAfter, Err: fmt.Errorf("keep idempotency result: %w", err),
				Message: "The business could not keep this answer for a retry. Retry after a few seconds with the same idempotency key."}
		}
		out = res
		return nil
	})
	switch _, lost := errors.AsType[*store.LostRaces](err); {
	case lost:
		return nil, fmt.Errorf("idempotency: %w", store.ErrConflict)
	case err != nil && err == ctx.Err():
		// It ended between passes, as the next pass's read would have.
		return nil, fmt.Errorf("idempotency: %w", err)
	case err != nil:
		return nil, err
	}
	return out, nil
}

// errKeyAgain asks once to read the key again: another request took,
// kept or forgot it meanwhile.
var errKeyAgain = fmt.Errorf("idempotency: key changed meanwhile: %w", store.ErrConflict)

// PurgeIdempotency removes idempotency records past their keep, for the
// sweep; it returns how many went.
func (b *Business) PurgeIdempotency(ctx context.Context) (int, error) {
	if b.st == nil {
		return 0, nil
	}
	now := b.clock.Now()
	n, after := 0, ""
	for {
		recs, err := b.st.List(ctx, kindIdempotency, "", after, 500)
		if err != nil {
			return n, err
		}
		for _, r := range recs {
			var stored idemRecord
			if json.Unmarshal(r.Value, &stored) == nil && now.Before(stored.Expires) {
				continue
			}
			if err := b.st.Delete(ctx, kindIdempotency, r.Key, r.Version); err == nil {
				n++
			}
		}
		if len(recs) < 500 {
			return n, nil
		}
		after = recs[len(recs)-1].Key
	}
}
