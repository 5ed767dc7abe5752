package relay

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"frontdesk/internal/clock"
)

// The headers a relayed call carries besides its body.
const (
	HeaderTime  = "Frontdesk-Relay-Time"  // Unix milliseconds when signed
	HeaderNonce = "Frontdesk-Relay-Nonce" // 32 hex characters, fresh per call
	HeaderMAC   = "Frontdesk-Relay-Mac"   // hex HMAC-SHA256 of the signed text
)

// Defaults of the endpoint.
const (
	// Window is how far a call's time may be from the location's clock,
	// either way. A call is refused once outside it, so the seen-set
	// needs to keep a MAC only this long.
	Window = 30 * time.Second
	// MaxBody bounds a call's body and an answer's.
	MaxBody = 256 << 10
	// maxSeen bounds the seen-set; a location that would have to forget
	// a MAC still in its window refuses calls instead, until they age out.
	maxSeen = 1 << 17
	// pruneAt is the seen-set's size from which each call first drops
	// the MACs whose window has passed.
	pruneAt = 4096
)

// signed is the text the MAC covers: the method, the path, the body's
// SHA-256 and the call's time and nonce, each on its own line after a
// version label, so no field can be moved into another.
func signed(method, path string, body []byte, ms int64, nonce string) []byte {
	digest := sha256.Sum256(body)
	return []byte("frontdesk-relay-v1\n" + method + "\n" + path + "\n" + hex.EncodeToString(digest[:]) + "\n" +
		strconv.FormatInt(ms, 10) + "\n" + nonce)
}

func macOf(key []byte, text []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(text)
	return m.Sum(nil)
}

// Sign sets the relay headers of req for body with the newest of keys,
// at now, with nonce (32 hex characters, never reused).
func Sign(req *http.Request, body []byte, keys []Key, now time.Time, nonce string) {
	ms := now.UnixMilli()
	req.Header.Set(HeaderTime, strconv.FormatInt(ms, 10))
	req.Header.Set(HeaderNonce, nonce)
	req.Header.Set(HeaderMAC, hex.EncodeToString(macOf(keys[len(keys)-1].Key, signed(req.Method, req.URL.Path, body, ms, nonce))))
}

// Verifier checks relayed calls: the MAC under every live key, compared
// in constant time; the call's time within Window of the clock and not
// before the verifier started; and each MAC once. The seen-set lives in
// memory; a restarted location forgets it, and refusing every call
// signed before the start keeps a call from its predecessor's window
// from running twice.
type Verifier struct {
	keys    []Key
	clock   clock.Clock
	window  time.Duration
	started int64 // Unix milliseconds

	mu   sync.Mutex
	seen map[string]int64 // MAC → Unix milliseconds after which it can be forgotten
}

// NewVerifier returns a Verifier of keys (oldest first, as ParseKeys
// gives them) that starts now; window 0 means Window.
func NewVerifier(keys []Key, c clock.Clock, window time.Duration) *Verifier {
	if window <= 0 {
		window = Window
	}
	return &Verifier{keys: keys, clock: c, window: window, started: c.Now().UnixMilli(), seen: map[string]int64{}}
}

// Verify reads req's body, at most MaxBody bytes, and returns it when
// the call is authentic, fresh and new. Its errors are *fault.Error with
// CodeForged, CodeStale, CodeReplayed, CodeTooLarge or CodeBusy.
func (v *Verifier) Verify(req *http.Request) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(req.Body, MaxBody+1))
	if err != nil {
		return nil, failure(CodeForged, err)
	}
	if len(body) > MaxBody {
		return nil, failure(CodeTooLarge, nil)
	}
	ms, err := strconv.ParseInt(req.Header.Get(HeaderTime), 10, 64)
	nonce := req.Header.Get(HeaderNonce)
	got, macErr := hex.DecodeString(req.Header.Get(HeaderMAC))
	if err != nil || macErr != nil || len(nonce) != 32 || len(got) != sha256.Size {
		return nil, failure(CodeForged, nil)
	}
	text := signed(req.Method, req.URL.Path, body, ms, nonce)
	matched := false
	for _, k := range v.keys {
		// Every key is tried, so the time taken does not say which matched.
		if hmac.Equal(got, macOf(k.Key, text)) {
			matched = true
		}
	}
	if !matched {
		return nil, failure(CodeForged, nil)
	}
	now := v.clock.Now().UnixMilli()
	w := v.window.Milliseconds()
	if ms < now-w || ms > now+w || ms < v.started {
		return nil, failure(CodeStale, nil)
	}
	return body, v.remember(hex.EncodeToString(got), ms+w, now)
}

// remember records mac until forget (Unix milliseconds), refusing one
// already seen; it drops the MACs whose window has passed first.
func (v *Verifier) remember(mac string, forget, now int64) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if _, dup := v.seen[mac]; dup {
		return failure(CodeReplayed, nil)
	}
	if len(v.seen) >= pruneAt {
		for m, until := range v.seen {
			if until < now {
				delete(v.seen, m)
			}
		}
		if len(v.seen) >= maxSeen {
			return failure(CodeBusy, nil)
		}
	}
	v.seen[mac] = forget
	return nil
}
