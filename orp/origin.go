package orp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"frontdesk/store"
)

// kindHostMeta keys what the host remembers about itself.
const kindHostMeta = "orp.meta"

type originRecord struct {
	Origin string `json:"origin"`
}

// RecordOrigin stores the origin this host's party ids carry, so that
// work started without one, such as `frontdesk sweep`, uses the same
// origin instead of addressing parties of another host.
func (h *Host) RecordOrigin(ctx context.Context) error {
	now := h.clock.Now()
	var cur originRecord
	r, err := h.get(ctx, kindHostMeta, "origin", &cur)
	switch {
	case errors.Is(err, store.ErrNotFound):
		_, err = h.store.Create(ctx, store.Record{Kind: kindHostMeta, Key: "origin", Value: mustJSON(originRecord{Origin: h.opts.Origin}), UpdatedAt: now})
	case err == nil && cur.Origin != h.opts.Origin:
		r.Value, r.UpdatedAt = mustJSON(originRecord{Origin: h.opts.Origin}), now
		_, err = h.store.Swap(ctx, r)
	}
	if err != nil {
		return fmt.Errorf("record origin: %w", err)
	}
	return nil
}

// StoredOrigin is the origin a host last recorded in st, or "" when none
// did.
func StoredOrigin(ctx context.Context, st store.Records) (string, error) {
	r, err := st.Get(ctx, kindHostMeta, "origin")
	if errors.Is(err, store.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("stored origin: %w", err)
	}
	var o originRecord
	if err := json.Unmarshal(r.Value, &o); err != nil {
		return "", fmt.Errorf("stored origin: %w", err)
	}
	return o.Origin, nil
}
