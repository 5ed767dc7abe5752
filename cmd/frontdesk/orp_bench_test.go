package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"frontdesk/config"
	"frontdesk/internal/baseline"
	"frontdesk/internal/clock"
	"frontdesk/internal/pgtest"
	"frontdesk/store"
)

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
	cpu := processCPU()
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
	b.ReportMetric(float64((processCPU()-cpu).Microseconds())/float64(b.N), "cpu-µs/redirect")
}

// processCPU is the CPU time this process has used, user and system. Per
// request it shows what a redirect costs even when other work shares the
// machine and skews the throughput of one run.
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkRedirects measures tracked-link redirects through /go/{token}
// on the real server (SQLite, batched click writes, every route and
// middleware) against the bare handler, both on loopback in the same run.
// After each frontdesk run it checks that every click was stored.
// bench/orp.sh turns the results into the ratio.
func BenchmarkRedirects(b *testing.B) {
	b.Run("bare", func(b *testing.B) {
		srv := httptest.NewServer(http.HandlerFunc(baseline.Redirect))
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
	clicks, err := s.main.orp.host.StoredClicks(context.Background(), token, time.Unix(0, 0), testNow.Add(time.Hour))
	if err != nil {
		b.Fatal(err)
	}
	return len(clicks)
}

// BenchmarkORPMessages measures ORP messages per second through POST /orp
// on the real server over loopback HTTP, one message at a time, beside the
// baseline of one raw single-row commit (store.Create of one record, its
// own transaction) on the same engine in the same run. Each iteration is
// two messages, each with a fresh id, so every one is decoded, validated
// against the schemas, checked for text hygiene, hashed and stored with
// its reply for idempotency: an offer (a new standing offer, which waits
// for its list step) and an accept of a listed standing offer (a new deal,
// which waits for the acceptor's accept step). Between iterations, with
// the timer stopped, the publisher declines the deal, so neither party's
// open deals grow with b.N, and the fixed clock moves on a minute every
// ten iterations, so the per-party message limit never answers
// rate_limited. bench/orp-messages.sh turns the results into ratios.
func BenchmarkORPMessages(b *testing.B) {
	engines := []struct {
		name     string
		database func(testing.TB) string
	}{
		{"sqlite", func(testing.TB) string { return "" }},
		{"postgres", func(tb testing.TB) string { return pgtest.Schema(tb) }},
	}
	for _, e := range engines {
		b.Run(e.name+"/raw_commit", func(b *testing.B) {
			s := startORPAt(b, b.TempDir(), e.database(b), clock.NewFixed(testNow), "127.0.0.1:0")
			ctx := context.Background()
			i := 0
			for b.Loop() {
				i++
				if _, err := s.main.store.Create(ctx, store.Record{Kind: "bench", Key: fmt.Sprint(i), Value: []byte("x"), UpdatedAt: testNow}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "commits/s")
		})
		b.Run(e.name+"/offer_accept", func(b *testing.B) {
			clk := clock.NewFixed(testNow)
			s := startORPAt(b, b.TempDir(), e.database(b), clk, "127.0.0.1:0")
			maker, offer := s.listOffer()
			pub := s.join("{}")
			offerBody := map[string]any{"terms": e2eTerms}
			acceptBody := map[string]any{"offer": offer, "terms_hash": e2eHash}
			i := 0
			for b.Loop() {
				b.StopTimer()
				if i++; i%10 == 0 {
					clk.Advance(time.Minute)
				}
				offerMsg, acceptMsg := s.msg(maker, "offer", nil, offerBody), s.msg(pub, "accept", nil, acceptBody)
				b.StartTimer()
				if reply := s.post(maker, offerMsg); reply.Type != "offer" || reply.Body.Terms != e2eHash {
					b.Fatalf("offer = %+v", reply)
				}
				reply := s.post(pub, acceptMsg)
				if reply.Type != "deal" || reply.Body.State != "awaiting" {
					b.Fatalf("accept = %+v", reply)
				}
				b.StopTimer()
				decline := s.msg(pub, "decline", map[string]any{"deal": reply.Deal}, map[string]any{"reason": "timing"})
				if r := s.post(pub, decline); r.Body.State != "declined" {
					b.Fatalf("decline = %+v", r)
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(2*b.N)/b.Elapsed().Seconds(), "msgs/s")
		})
	}
}

// postedReply is what the message benchmark reads of a reply.
type postedReply struct {
	Type string `json:"type"`
	Deal string `json:"deal"`
	Body struct {
		State string `json:"state"`
		Terms string `json:"terms_hash"`
	} `json:"body"`
}

// post sends one message over HTTP and decodes the little the benchmark
// checks of a 200 reply; unlike send it does not validate the reply
// against the schemas, which would time the client's schema compilation.
func (s *orpServer) post(p *orpParty, raw []byte) postedReply {
	s.t.Helper()
	resp, b := s.do("POST", "/orp", p.token, raw, nil)
	var r postedReply
	if resp.StatusCode != http.StatusOK || json.Unmarshal(b, &r) != nil {
		s.t.Fatalf("POST /orp = %d %s", resp.StatusCode, b)
	}
	return r
}
