// Package stripemock starts stripe-mock, Stripe's stateless API
// simulator, for tests: on a free loopback port, stopped when the test
// ends. Install it with
//
//	go install github.com/stripe/stripe-mock@v0.203.0
//
// A test that needs it skips on a developer's machine without it and
// fails under CI (internal/citest). It stores nothing that is posted and
// sends no webhooks: tests sign the events they deliver themselves.
//
// Event and Sign build the signed webhook events stripe-mock does not
// send.
//
// It is test support: it imports the standard library, stripe-go and
// internal/citest, and only tests import it.
package stripemock

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"

	stripego "github.com/stripe/stripe-go/v82"
	"github.com/stripe/stripe-go/v82/webhook"

	"frontdesk/internal/citest"
)

// Version is the stripe-mock release the tests are written against.
const Version = "v0.203.0"

// Binary finds stripe-mock: on the PATH, else where go install puts it
// (GOBIN, or bin under GOPATH or ~/go). It returns "" when it is in none.
func Binary() string {
	if p, err := exec.LookPath("stripe-mock"); err == nil {
		return p
	}
	var dirs []string
	if d := os.Getenv("GOBIN"); d != "" {
		dirs = append(dirs, d)
	}
	if d := os.Getenv("GOPATH"); d != "" {
		dirs = append(dirs, filepath.Join(filepath.SplitList(d)[0], "bin"))
	}
	if home, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(home, "go", "bin"))
	}
	for _, d := range dirs {
		p := filepath.Join(d, "stripe-mock")
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
	}
	return ""
}

// Start runs stripe-mock for the test and returns its base URL, such as
// "http://127.0.0.1:40123". stripe-mock picks free loopback ports itself
// (for HTTP and for the HTTPS listener it always opens) and prints them,
// so parallel tests never race for a port.
func Start(t testing.TB) string {
	t.Helper()
	bin := Binary()
	if bin == "" {
		citest.Missing(t, "stripe-mock is not installed: go install github.com/stripe/stripe-mock@%s", Version)
	}
	out := &lockedBuffer{}
	cmd := exec.Command(bin, "-http-addr", "127.0.0.1:0", "-https-addr", "127.0.0.1:0")
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatalf("stripe-mock: %v", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }() // its exit is seen through exited
	t.Cleanup(func() {
		_ = cmd.Process.Kill() // already exited is fine
		<-exited
	})
	deadline := time.After(30 * time.Second)
	for {
		if m := listening.FindStringSubmatch(out.String()); m != nil {
			return "http://" + m[1]
		}
		select {
		case <-exited:
			t.Fatalf("stripe-mock exited before it listened:\n%s", out.String())
		case <-deadline:
			t.Fatalf("stripe-mock did not listen within 30s:\n%s", out.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// listening is stripe-mock's line naming its HTTP address.
var listening = regexp.MustCompile(`Listening for HTTP at address: (127\.0\.0\.1:[0-9]+)`)

// lockedBuffer is the output of a running process, read while it writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Event is a Stripe event of type typ about object (a Checkout Session
// or other API object as JSON-encodable values), with its body and the
// Stripe-Signature header signing it with secret at at: what Stripe
// would post to a webhook endpoint.
func Event(t testing.TB, secret, id, typ string, object any, at time.Time) (body []byte, signature string) {
	t.Helper()
	obj, err := json.Marshal(object)
	if err != nil {
		t.Fatal(err)
	}
	body, err = json.Marshal(map[string]any{
		"id": id, "object": "event", "type": typ, "api_version": stripego.APIVersion, "created": at.Unix(),
		"livemode": false, "pending_webhooks": 1, "data": map[string]json.RawMessage{"object": obj},
	})
	if err != nil {
		t.Fatal(err)
	}
	return body, Sign(body, secret, at)
}

// Sign is the Stripe-Signature header of body signed with secret at at.
func Sign(body []byte, secret string, at time.Time) string {
	return webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: body, Secret: secret, Timestamp: at}).Header
}
