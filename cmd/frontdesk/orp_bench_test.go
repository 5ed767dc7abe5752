package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"frontdesk/config"
	"frontdesk/internal/clock"
)

// bareRedirect is the baseline: a bare net/http handler answering the
// same 302 a live tracked link does, with a fresh 128-bit click id and the
// same headers, and nothing else.
func bareRedirect(w http.ResponseWriter, r *http.Request) {
	id := make([]byte, 16)
	rand.Read(id)
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Location", "https://acmenotes.example/pricing?via="+base64.RawURLEncoding.EncodeToString(id))
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Robots-Tag", "noindex")
	w.WriteHeader(http.StatusFound)
}

// loadClient keeps connections alive across requests and never follows a
// redirect, as a load generator should.
func loadClient() *http.Client {
	return &http.Client{
		Transport:     &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256, DisableCompression: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// hammer requests target b.N times from parallel clients and reports
// redirects per second.
func hammer(b *testing.B, client *http.Client, target string, sent *atomic.Int64) {
	b.SetParallelism(8)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req, _ := http.NewRequest("GET", target, nil)
			req.Header.Set("User-Agent", browserUA)
			req.Header.Set("Referer", "https://x.com/indie/status/1")
			resp, err := client.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusFound || !strings.Contains(resp.Header.Get("Location"), "via=") {
				b.Errorf("redirect = %d %s", resp.StatusCode, resp.Header.Get("Location"))
				return
			}
			sent.Add(1)
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "redirects/s")
}

// BenchmarkRedirects measures tracked-link redirects through /go/{token}
// on the real server (SQLite, batched click writes, every route and
// middleware) against the bare handler, both on loopback in the same run.
// After each frontdesk run it checks that every click was stored.
// bench/orp.sh turns the results into the ratio.
func BenchmarkRedirects(b *testing.B) {
	b.Run("bare", func(b *testing.B) {
		srv := httptest.NewServer(http.HandlerFunc(bareRedirect))
		defer srv.Close()
		var sent atomic.Int64
		hammer(b, loadClient(), srv.URL+"/go/Zr8Kq2LwAbCd", &sent)
	})
	b.Run("frontdesk", func(b *testing.B) {
		// The limit per address is lifted: every request comes from
		// loopback, and a limited click would skip the recording measured
		// here.
		s := startORPAt(b, b.TempDir(), "", clock.NewFixed(testNow), "127.0.0.1:0", func(c *config.Config) { c.ORP.ClicksPerMinute = 1 << 30 })
		_, _, _, link := s.activeDeal()
		token := link[strings.LastIndex(link, "/")+1:]
		var sent atomic.Int64
		hammer(b, loadClient(), link, &sent)
		// Every click the server redirected is stored: the fixed clock
		// makes all but the first a repeat, which takes the same write path.
		want := int(sent.Load())
		deadline := time.Now().Add(10 * time.Second)
		for {
			s.main.orp.host.Flush(context.Background())
			if got := countClicks(b, s, token); got == want {
				break
			} else if time.Now().After(deadline) {
				b.Fatalf("stored %d clicks, want %d", got, want)
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}

func countClicks(b *testing.B, s *orpServer, token string) int {
	n, after := 0, ""
	for {
		recs, err := s.main.store.List(context.Background(), "orp.click", token+"/", after, 1000)
		if err != nil {
			b.Fatal(err)
		}
		n += len(recs)
		if len(recs) < 1000 {
			return n
		}
		after = recs[len(recs)-1].Key
	}
}
