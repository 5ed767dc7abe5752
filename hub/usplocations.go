package hub

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"

	"frontdesk/business"
)

// A split hub's USP answers that are a location's come from that
// location through the proxy, on the hub's own account: one call sent
// to its owner, or, for an answer spanning the locations, one read of
// each in parallel, each bounded by SpanRead. A location that does not
// answer is *Unreachable, worded for the platform.

// maxUSPAnswer is the largest answer the hub keeps of a location's to a
// USP call: the largest page of a list is far smaller.
const maxUSPAnswer = 4 << 20

// USPLocations are the proxied locations, in config order: those a call
// spanning every property asks.
func (px *Proxy) USPLocations() []business.Location {
	if px == nil {
		return nil
	}
	out := make([]business.Location, 0, len(px.order))
	for _, slug := range px.order {
		out = append(out, px.locs[slug])
	}
	return out
}

// Unreachable is a location that did not answer a USP call. Its text
// names the location and its phone, nothing of how the hub reaches it,
// and is safe to show.
type Unreachable struct{ Location business.Location }

func (e *Unreachable) Error() string {
	return e.Location.Name + " cannot be reached just now. Try again in a few minutes or call " + e.Location.Phone + "."
}

// USPAnswer is a location's answer to a call the hub sent it.
type USPAnswer struct {
	Status int
	Header http.Header
	Body   []byte
}

// USPForward sends a USP REST call as the platform made it (its method,
// path, Host, headers and body, which a signature or proof covers) to
// location slug, and returns the location's answer: for a call that
// spans the locations, asked of each. A location that does not answer
// is *Unreachable.
func (px *Proxy) USPForward(ctx context.Context, slug string, r *http.Request, body []byte) (USPAnswer, error) {
	if _, ok := px.locs[slug]; !ok {
		return USPAnswer{}, fmt.Errorf("usp forward: %q is no proxied location", slug)
	}
	req := r.Clone(ctx)
	req.Body, req.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	return px.send(slug, req)
}

// reach marks a request the hub sends on its own account: the proxy's
// unreachable sets failed when the location did not answer.
type reach struct{ failed bool }

// send forwards req to location slug through the proxy and keeps the
// answer, up to maxUSPAnswer.
func (px *Proxy) send(slug string, req *http.Request) (USPAnswer, error) {
	mark := &reach{}
	req = req.WithContext(context.WithValue(req.Context(), uspCall{}, mark))
	req.SetPathValue(slugValue, slug)
	w := &answerBuffer{header: http.Header{}}
	px.ServeHTTP(w, req)
	if mark.failed {
		return USPAnswer{}, &Unreachable{Location: px.locs[slug]}
	}
	return USPAnswer{Status: w.status, Header: w.header, Body: w.body.Bytes()}, nil
}

// answerBuffer keeps a location's answer for the hub to read, up to
// maxUSPAnswer.
type answerBuffer struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (a *answerBuffer) Header() http.Header { return a.header }

func (a *answerBuffer) WriteHeader(code int) {
	if a.status == 0 {
		a.status = code
	}
}

func (a *answerBuffer) Write(b []byte) (int, error) {
	a.WriteHeader(http.StatusOK)
	if a.body.Len()+len(b) > maxUSPAnswer {
		return 0, errors.New("usp answer too large")
	}
	return a.body.Write(b)
}

// USPProfiles are the business profiles (/.well-known/usp) the proxied
// locations serve now, read in parallel within SpanRead each; a location
// that does not answer is left out, and logged. The hub publishes their
// signing keys beside its own, since each location signs the webhooks
// of its own bookings with its own keys.
func (px *Proxy) USPProfiles(ctx context.Context) [][]byte {
	if px == nil {
		return nil
	}
	out := make([][]byte, len(px.order))
	Span(ctx, px.USPLocations(), func(ctx context.Context, i int, l business.Location) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "/.well-known/usp", nil)
		if err != nil {
			return
		}
		req.Host, req.RemoteAddr = px.targets[l.Slug].Host, "127.0.0.1:0"
		a, err := px.send(l.Slug, req)
		if err != nil || a.Status != http.StatusOK {
			px.log.WarnContext(ctx, "location profile unread", "location", l.Slug, "status", a.Status)
			return
		}
		out[i] = a.Body
	})
	return slices.DeleteFunc(out, func(b []byte) bool { return b == nil })
}

// SpanRead bounds each location's read of a hub's answer that spans
// them: the worksheet's inventory read. The whole call keeps its own
// deadline.
const SpanRead = 3 * time.Second

// Span runs read for each of locs in parallel, each within SpanRead of
// ctx, and returns when all have: the reads of an answer that spans the
// locations.
func Span(ctx context.Context, locs []business.Location, read func(ctx context.Context, i int, l business.Location)) {
	var wg sync.WaitGroup
	for i, l := range locs {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(ctx, SpanRead)
			defer cancel()
			read(ctx, i, l)
		})
	}
	wg.Wait()
}
