package main

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// perAddress is how many sessions come from one loopback address: the
// server may cap sessions per client address (mcpfront's default is 16),
// so many abandoning clients are many addresses.
const perAddress = 16

// fromAddress is a client that connects from the loopback address
// numbered k (127.1.0.1 on), one connection per request.
func fromAddress(k int) *http.Client {
	local := &net.TCPAddr{IP: net.IPv4(127, 1, byte(k/250), byte(k%250+1))}
	d := &net.Dialer{LocalAddr: local, Timeout: 5 * time.Second}
	return &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true}}
}

// measureSessions opens n MCP sessions on /mcp, 16 from each address, and
// leaves them, as abandoning clients would, then prints the child's RSS: idle before, just
// after opening, every 10 s while the sessions expire with no traffic at
// all, and again after one request arrives. The Go runtime returns freed
// memory to the system only after a collection (forced every two minutes
// when nothing allocates), so each watch lasts -watch, 150 s by default.
func measureSessions(c *child, n int, idle, watch time.Duration) error {
	const step = 10 * time.Second
	time.Sleep(2 * time.Second)
	idleRSS := c.rssKiB()
	mib := func(kib int) string { return fmt.Sprintf("%.1f MiB", float64(kib)/1024) }
	fmt.Printf("idle: %s\n", mib(idleRSS))
	var next, refused atomic.Int64
	var first error
	var once sync.Once
	var wg sync.WaitGroup
	start := time.Now()
	for range 8 {
		wg.Go(func() {
			for i := next.Add(1); i <= int64(n); i = next.Add(1) {
				_, err := c.session(fromAddress(int(i-1) / perAddress))
				if errors.Is(err, errRefused) {
					refused.Add(1) // the server is full; it may say so
					continue
				}
				if err != nil {
					once.Do(func() { first = err })
					return
				}
			}
		})
	}
	wg.Wait()
	if first != nil {
		return fmt.Errorf("opening sessions: %w", first)
	}
	opened := time.Now()
	fmt.Printf("after opening %d sessions in %s (%d refused with 503): %s (+%s over idle)\n", n, opened.Sub(start).Round(time.Millisecond), refused.Load(), mib(c.rssKiB()), mib(c.rssKiB()-idleRSS))
	watchRSS := func(label string) {
		for t := step; t <= watch; t += step {
			time.Sleep(step)
			fmt.Printf("  %s +%3.0fs: %s (+%s over idle)\n", label, t.Seconds(), mib(c.rssKiB()), mib(c.rssKiB()-idleRSS))
		}
	}
	time.Sleep(idle)
	fmt.Printf("idle timeout (%s) passed, no traffic since: %s\n", idle, mib(c.rssKiB()))
	watchRSS("no traffic")
	if _, err := c.session(fromAddress(n/perAddress + 1)); err != nil {
		return err
	}
	fmt.Printf("one new session opened: %s\n", mib(c.rssKiB()))
	watchRSS("after one request")
	return nil
}
