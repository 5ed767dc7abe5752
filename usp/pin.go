package usp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"frontdesk/store"
)

// kindPinnedProfile records the platform profiles the owner pinned, by
// URI.
const kindPinnedProfile = "usp-pinned-profile"

// Pin is a platform profile the owner registered ahead of any call: the
// document as it was fetched once (or read from a file) when pinned. A
// call naming its URI is verified against it without a fetch, so the
// platform's host being down changes nothing, and a platform needs no
// https server of its own to try the business out.
type Pin struct {
	URI      string          `json:"uri"`
	Document json.RawMessage `json:"document"`
	// Source says where the document came from: "fetched" or "file".
	Source   string    `json:"source"`
	PinnedAt time.Time `json:"pinned_at"`
}

// PinProfile pins doc as the profile at uri, replacing an earlier pin of
// it. The document must pass the checks a fetched profile passes, and the
// URI must be one a caller could present (absolute https).
func PinProfile(ctx context.Context, st store.Records, uri string, doc []byte, source string, now time.Time) error {
	if !isHTTPSURL(uri) {
		return fail(CodeInvalidProfileURL, "The profile URI must be an absolute https URL.")
	}
	if _, perr := parsePlatformProfile(doc); perr != nil {
		return perr
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, doc); err != nil {
		return fail(CodeProfileMalformed, "The platform profile is not JSON.")
	}
	pin := Pin{URI: uri, Document: compact.Bytes(), Source: source, PinnedAt: now.UTC()}
	_, err := store.Update(ctx, st, kindPinnedProfile, uri, now, func(p *Pin, _ bool) error {
		*p = pin
		return nil
	})
	if err != nil {
		return fmt.Errorf("pin profile: %w", err)
	}
	return nil
}

// UnpinProfile removes the pin of uri; false when there was none.
func UnpinProfile(ctx context.Context, st store.Records, uri string) (bool, error) {
	rec, err := st.Get(ctx, kindPinnedProfile, uri)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := st.Delete(ctx, kindPinnedProfile, uri, rec.Version); err != nil {
		return false, err
	}
	return true, nil
}

// PinnedProfiles lists the pins, by URI.
func PinnedProfiles(ctx context.Context, st store.Records) ([]Pin, error) {
	var out []Pin
	after := ""
	for {
		recs, err := st.List(ctx, kindPinnedProfile, "", after, 100)
		if err != nil {
			return nil, err
		}
		for _, r := range recs {
			var p Pin
			if err := json.Unmarshal(r.Value, &p); err != nil {
				return nil, fmt.Errorf("decode pinned profile %s: %w", r.Key, err)
			}
			out = append(out, p)
		}
		if len(recs) < 100 {
			break
		}
		after = recs[len(recs)-1].Key
	}
	slices.SortFunc(out, func(a, b Pin) int { return strings.Compare(a.URI, b.URI) })
	return out, nil
}
