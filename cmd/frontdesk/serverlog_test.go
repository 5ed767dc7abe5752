package main

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// serve writes its request lines in batches: the first line at once, a
// request's line within moments, and every line held when it stops.
func TestServeWritesItsLogLinesInBatches(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "frontdesk") // TestMain runs main under this name
	if err := os.Symlink(self, bin); err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	serve := exec.Command(bin, "serve", "--addr", addr, "--data", filepath.Join(dir, "data"))
	serve.Env = append(os.Environ(), "FRONTDESK_LOG_LEVEL=info")
	var logs syncBuffer
	serve.Stderr = &logs
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- serve.Wait() }()
	t.Cleanup(func() {
		_ = serve.Process.Kill()
		<-exited
	})
	waitReady(t, "serve", "http://"+addr)
	if !strings.Contains(logs.String(), `"msg":"frontdesk started"`) {
		t.Fatalf("serve is ready and its first line is not written:\n%s", logs.String())
	}

	get := func(path string) {
		t.Helper()
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %s", path, resp.Status)
		}
	}
	pageLines := func() int { return strings.Count(logs.String(), `"method":"GET","route":"GET /{$}","status":200`) }
	get("/")
	deadline := time.Now().Add(5 * time.Second)
	for pageLines() < 1 {
		if time.Now().After(deadline) {
			t.Fatalf("a request's line was not written within 5 s:\n%s", logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}

	// The lines of the requests just before it stops are not lost.
	for range 20 {
		get("/")
	}
	if err := serve.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		exited <- err
		if err != nil {
			t.Fatalf("serve ended with %v:\n%s", err, logs.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop within 30 s of an interrupt")
	}
	if n := pageLines(); n != 21 {
		t.Fatalf("%d lines of the 21 requests were written by the time serve stopped, want all:\n%s", n, logs.String())
	}
}
