package orp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"
)

// TestInboxPagingUnderConcurrentSenders: a reader paging with next while
// sixteen parties send to it receives every message exactly once, and
// each sender's messages in the order they were sent. A sender retries a
// retryable refusal with the same id, as §16 says.
func TestInboxPagingUnderConcurrentSenders(t *testing.T) {
	engines(t, func(t *testing.T, e *env) {
		// A sender that loses the counter's races every attempt is
		// answered busy and sends again, and each send counts against its
		// limit of the minute, which never ends on the test's clock: on
		// a slow machine, or under the race detector, a sender could be
		// refused for good. The limit is not what this test is about.
		e.messagesPerMinute = 1 << 20
		e.host.Close()
		e.host = e.newHost(e.db)
		testInboxPaging(t, e)
	})
}

func testInboxPaging(t *testing.T, e *env) {
	reader := e.join("{}")
	const senders, each = 16, 15
	parties := make([]*party, senders)
	for i := range parties {
		parties[i] = e.join("{}")
	}
	var wg sync.WaitGroup
	done := make(chan struct{})
	for i, p := range parties {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; n < each; n++ {
				raw, _ := json.Marshal(map[string]any{"orp": "0.3", "type": "request", "id": fmt.Sprintf("m_req_%02d_%03d", i, n),
					"ts": t0.Format(time.RFC3339), "from": p.id, "to": reader.id, "body": map[string]any{"note": fmt.Sprintf("sender %d message %d", i, n)}})
				for {
					r := e.host.Send(context.Background(), p.token, testAddr, raw)
					if r.Status == 202 {
						break
					}
					var m map[string]any
					json.Unmarshal(r.Body, &m)
					if retryable, _ := body(m)["retryable"].(bool); !retryable {
						t.Errorf("request %d/%d = %d %s", i, n, r.Status, r.Body)
						return
					}
				}
			}
		}()
	}
	go func() { wg.Wait(); close(done) }()
	seen := map[string]int{}
	var got []string
	cursor := ""
	read := func() int {
		page, err := e.host.Inbox(context.Background(), reader.token, cursor)
		if err != nil {
			t.Fatal(err)
		}
		for _, raw := range page.Messages {
			var m struct{ ID string }
			json.Unmarshal(raw, &m)
			seen[m.ID]++
			got = append(got, m.ID)
		}
		cursor = page.Next
		return len(page.Messages)
	}
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
			read()
		}
	}
	for read() > 0 {
	}
	if len(seen) != senders*each {
		t.Fatalf("the paging reader received %d of %d messages", len(seen), senders*each)
	}
	last := map[string]string{}
	for _, id := range got {
		if seen[id] != 1 {
			t.Fatalf("message %s returned %d times", id, seen[id])
		}
		from := id[:8]
		if id <= last[from] {
			t.Fatalf("message %s came after %s", id, last[from])
		}
		last[from] = id
	}
}
