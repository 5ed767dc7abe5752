package orp

import (
	"context"
	"encoding/json"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// defaultKMin is the fewest audience members behind a region bucket the
// host shows, and the least k_min may be (§7.2).
const defaultKMin = 50

// verification is one way the host verified a space (§8.1).
type verification struct {
	Method string `json:"method"`
	At     string `json:"at"`
}

// wellKnownParty is the file on a space's domain that names the party
// that owns it, one party id per line.
const wellKnownParty = "/.well-known/orp-party.txt"

var metaParty = regexp.MustCompile(`(?is)<meta\s[^>]*>`)
var metaAttr = regexp.MustCompile(`(?is)(name|content)\s*=\s*("([^"]*)"|'([^']*)')`)

// locatorRefused reports a locator that cannot be checked at all: its
// host fails the outbound address rule, the one every fetch obeys
// (127.0.0.1, 127.1, 0x7f000001, 2130706433, localhost and localhost.
// alike; loopback only in development).
func (h *Host) locatorRefused(locator string) bool {
	u, err := url.Parse(locator)
	if err != nil {
		return true
	}
	return h.opts.Outbound.CheckHost(u.Hostname()) != nil
}

// verifyDomain checks that the space's domain names the party: the
// well-known file on the locator's origin lists its party id, or the
// locator page carries <meta name="orp-party" content="<party id>">.
// Only the host sets verified (§9.1); a failed fetch leaves it unset.
// The id is compared without case, so a fetcher that lowercases the page
// serves too.
func (h *Host) verifyDomain(ctx context.Context, locator, party string) bool {
	u, err := url.Parse(locator)
	if err != nil {
		return false
	}
	origin := u.Scheme + "://" + u.Host
	if b, err := h.opts.Fetcher.Fetch(ctx, origin+wellKnownParty); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if strings.EqualFold(strings.TrimSpace(line), party) {
				return true
			}
		}
	}
	b, err := h.opts.Fetcher.Fetch(ctx, locator)
	if err != nil {
		return false
	}
	for _, tag := range metaParty.FindAllString(string(b), 200) {
		attrs := map[string]string{}
		for _, m := range metaAttr.FindAllStringSubmatch(tag, -1) {
			attrs[strings.ToLower(m[1])] = m[3] + m[4]
		}
		if strings.EqualFold(attrs["name"], "orp-party") && strings.EqualFold(strings.TrimSpace(attrs["content"]), party) {
			return true
		}
	}
	return false
}

// audienceFloor is the fewest members a bucket like "10k-100k" or
// "100k+" says there are.
func audienceFloor(size string) int64 {
	low, _, _ := strings.Cut(strings.TrimSuffix(size, "+"), "-")
	mult := int64(1)
	switch {
	case strings.HasSuffix(low, "k"):
		mult, low = 1000, strings.TrimSuffix(low, "k")
	case strings.HasSuffix(low, "M"):
		mult, low = 1000000, strings.TrimSuffix(low, "M")
	}
	n, err := strconv.ParseInt(low, 10, 64)
	if err != nil {
		return 0
	}
	return n * mult
}

// publicSpace is a space as another party sees it (§7.2, §9.1): no
// locator, and only the region buckets at least k_min members stand
// behind, judged from the low ends of the size and share buckets.
func publicSpace(raw json.RawMessage) map[string]any {
	var sp map[string]any
	_ = json.Unmarshal(raw, &sp) // checked or written by this code already; what does not decode reads as empty
	delete(sp, "locator")
	aud, ok := sp["audience"].(map[string]any)
	if !ok {
		return sp
	}
	kmin := int64(defaultKMin)
	if k, ok := aud["k_min"].(float64); ok && int64(k) > kmin {
		kmin = int64(k)
	}
	size, _ := aud["size"].(string)
	floor := audienceFloor(size)
	regions, _ := aud["regions"].([]any)
	var shown []any
	for _, r := range regions {
		rm, _ := r.(map[string]any)
		share, _ := rm["share"].(string)
		low, _, _ := strings.Cut(strings.TrimSuffix(share, "%"), "-")
		pct, err := strconv.ParseInt(low, 10, 64)
		if err == nil && floor*pct/100 >= kmin {
			shown = append(shown, r)
		}
	}
	if len(shown) > 0 {
		aud["regions"] = shown
	} else {
		delete(aud, "regions")
	}
	return sp
}

// withAudienceDefaults sets k_min to its default when an audience has
// none, so what is stored and shown says the rule that applies.
func withAudienceDefaults(raw json.RawMessage) json.RawMessage {
	var sp map[string]json.RawMessage
	if json.Unmarshal(raw, &sp) != nil || sp["audience"] == nil {
		return raw
	}
	var aud map[string]json.RawMessage
	if json.Unmarshal(sp["audience"], &aud) != nil || aud["k_min"] != nil {
		return raw
	}
	aud["k_min"] = json.RawMessage(strconv.Itoa(defaultKMin))
	sp["audience"] = mustJSON(aud)
	return mustJSON(sp)
}

// withVerified is a space's JSON with the host's verifications.
func withVerified(raw json.RawMessage, v []verification) json.RawMessage {
	if len(v) == 0 {
		return raw
	}
	var sp map[string]json.RawMessage
	if json.Unmarshal(raw, &sp) != nil {
		return raw
	}
	sp["verified"] = mustJSON(v)
	return mustJSON(sp)
}
