package main

import (
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// TestTwoThousandSessionsFromOneAddress: 2,000 conversations start at
// once from one address, as a hosted assistant's egress would bring
// them, and every one is opened and answered on its own session; the
// heap they hold is reported (BENCHMARKS.md records a run).
func TestTwoThousandSessionsFromOneAddress(t *testing.T) {
	const sessions = 2000
	url := startServer(t, "") + "/mcp"
	client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 128, MaxIdleConnsPerHost: 128}}
	defer client.CloseIdleConnections()
	do := func(session, body string) (int, string, error) {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		}
		resp, err := client.Do(req)
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		_, err = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), err
	}
	before := heapInUse()
	ids := make([]string, sessions)
	failures := make([]string, sessions)
	var wg sync.WaitGroup
	for i := range sessions {
		wg.Go(func() {
			status, id, err := do("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
			if err != nil || status != http.StatusOK || id == "" {
				failures[i] = "initialize: " + http.StatusText(status) + errSuffix(err)
				return
			}
			ids[i] = id
			if status, _, err := do(id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil || status != http.StatusAccepted {
				failures[i] = "initialized: " + http.StatusText(status) + errSuffix(err)
				return
			}
			if status, _, err := do(id, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`); err != nil || status != http.StatusOK {
				failures[i] = "tools/list: " + http.StatusText(status) + errSuffix(err)
			}
		})
	}
	wg.Wait()
	held := heapInUse() - before
	failed := 0
	for i, f := range failures {
		if f != "" {
			if failed < 5 {
				t.Errorf("session %d: %s", i, f)
			}
			failed++
		}
	}
	if failed > 0 {
		t.Fatalf("%d of %d sessions from one address were not answered", failed, sessions)
	}
	// Every session is still open: a second call on each answers.
	for i, id := range ids {
		if status, _, err := do(id, `{"jsonrpc":"2.0","id":3,"method":"ping"}`); err != nil || status != http.StatusOK {
			t.Fatalf("session %d after all opened: %d %v", i, status, err)
		}
	}
	t.Logf("%d sessions from one address: heap in use grew by %.1f MiB, %.1f KiB a session", sessions, float64(held)/(1<<20), float64(held)/1024/sessions)
}

// heapInUse is the heap in use after a collection.
func heapInUse() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapInuse)
}

func errSuffix(err error) string {
	if err == nil {
		return ""
	}
	return " " + err.Error()
}
