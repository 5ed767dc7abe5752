package main

import (
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// measureSessions opens n MCP sessions on /mcp and leaves them, as an
// abandoning client would, then prints the child's RSS: idle before, just
// after opening, every 10 s while the sessions expire with no traffic at
// all, and again after one request arrives. The Go runtime returns freed
// memory to the system only after a collection (forced every two minutes
// when nothing allocates), so each watch lasts -watch, 150 s by default.
func measureSessions(c *child, n int, idle, watch time.Duration) error {
	const step = 10 * time.Second
	hc := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	time.Sleep(2 * time.Second)
	idleRSS := c.rssKiB()
	mib := func(kib int) string { return fmt.Sprintf("%.1f MiB", float64(kib)/1024) }
	fmt.Printf("idle: %s\n", mib(idleRSS))
	var next atomic.Int64
	var first error
	var once sync.Once
	var wg sync.WaitGroup
	start := time.Now()
	for range 8 {
		wg.Go(func() {
			for next.Add(1) <= int64(n) {
				if _, err := c.session(hc); err != nil {
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
	hc.CloseIdleConnections()
	fmt.Printf("after opening %d sessions in %s: %s (+%s over idle)\n", n, opened.Sub(start).Round(time.Millisecond), mib(c.rssKiB()), mib(c.rssKiB()-idleRSS))
	watchRSS := func(label string) {
		for t := step; t <= watch; t += step {
			time.Sleep(step)
			fmt.Printf("  %s +%3.0fs: %s (+%s over idle)\n", label, t.Seconds(), mib(c.rssKiB()), mib(c.rssKiB()-idleRSS))
		}
	}
	time.Sleep(idle)
	fmt.Printf("idle timeout (%s) passed, no traffic since: %s\n", idle, mib(c.rssKiB()))
	watchRSS("no traffic")
	if _, err := c.session(hc); err != nil {
		return err
	}
	hc.CloseIdleConnections()
	fmt.Printf("one new session opened: %s\n", mib(c.rssKiB()))
	watchRSS("after one request")
	return nil
}
