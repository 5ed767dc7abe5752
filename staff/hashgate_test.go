package staff

import (
	"context"
	"fmt"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"frontdesk/config"
	"frontdesk/internal/clock"
	"frontdesk/internal/random"
)

// goMemory is the memory the Go runtime holds from the system now:
// everything mapped minus what it gave back.
func goMemory() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64() - s[1].Value.Uint64()
}

// TestSignInFloodKeepsHashingMemoryBounded sends 200 parallel wrong
// sign-ins, each from its own address, at the default argon2id cost with
// a 64 MiB budget. The memory the process holds grows by at most the
// budget and one hash more; sign-ins beyond what fits are refused as busy
// before hashing, and every one is answered within seconds. Without the
// gate the same flood takes 200 hashes of 19 MiB at once (several GiB).
func TestSignInFloodKeepsHashingMemoryBounded(t *testing.T) {
	const budget = 64 * 1024 // KiB
	svc, err := New(sqliteStore(t), config.Demo().Portfolio, Options{Clock: clock.NewFixed(testNow), Random: random.SeededBy(1), HashMemory: budget})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.AddUser(context.Background(), "olga", "correct horse battery", Owner, nil); err != nil {
		t.Fatal(err)
	}
	base := goMemory()
	var peak uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			peak = max(peak, goMemory())
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	var wg sync.WaitGroup
	codes := make([]Code, 200)
	took := make([]time.Duration, 200)
	for i := range 200 {
		wg.Go(func() {
			start := time.Now()
			_, _, err := svc.SignIn(context.Background(), fmt.Sprintf("user%d", i%20), "wrong password!!", fmt.Sprintf("198.51.100.%d", i))
			took[i] = time.Since(start)
			codes[i] = ErrorCode(err)
		})
	}
	wg.Wait()
	close(stop)
	<-sampled
	count := map[Code]int{}
	for i, c := range codes {
		count[c]++
		if took[i] > 15*time.Second {
			t.Errorf("sign-in %d took %v", i, took[i])
		}
	}
	if count[CodeDenied]+count[CodeLimited] != 200 || count[CodeLimited] == 0 || count[CodeDenied] == 0 {
		t.Errorf("outcomes = %v, want denied and busy only, some of each", count)
	}
	grown := int64(peak) - int64(base)
	if limit := int64(budget+DefaultHashing().Memory) * 1024; grown > limit {
		t.Fatalf("memory grew by %d MiB under the flood, want at most %d MiB", grown>>20, limit>>20)
	}
	t.Logf("memory grew by %d MiB; outcomes %v", grown>>20, count)
}

// TestKnownDeviceSignsInDuringFlood: while 200 wrong sign-ins at the same
// login arrive at once from 200 addresses, at the default argon2id cost,
// the login's own device signs in at once: its budget is its own and the
// password check keeps memory for it. Unknown clients are refused as
// busy meanwhile, and none of them checks more than its budget.
func TestKnownDeviceSignsInDuringFlood(t *testing.T) {
	svc, err := New(sqliteStore(t), config.Demo().Portfolio, Options{Clock: clock.NewFixed(testNow), Random: random.SeededBy(1), HashMemory: 64 * 1024})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := svc.AddUser(ctx, "olga", "correct horse battery", Owner, nil); err != nil {
		t.Fatal(err)
	}
	before := time.Now()
	in, err := svc.SignInFrom(ctx, Attempt{Username: "olga", Password: "correct horse battery", Addr: "192.0.2.1"})
	if err != nil {
		t.Fatal(err)
	}
	alone := time.Since(before) // one check at this cost, on this machine as loaded now
	var wg sync.WaitGroup
	started := make(chan struct{})
	for i := range 200 {
		wg.Go(func() {
			if i == 0 {
				close(started)
			}
			_, _, err := svc.SignIn(ctx, "olga", "wrong password!!", fmt.Sprintf("198.51.%d.%d", i/100, i%100))
			if c := ErrorCode(err); c != CodeDenied && c != CodeLimited {
				t.Errorf("flood sign-in %d: %v", i, err)
			}
		})
	}
	<-started
	time.Sleep(50 * time.Millisecond) // the flood holds the password check
	start := time.Now()
	if _, err := svc.SignInFrom(ctx, Attempt{Username: "olga", Password: "correct horse battery", Addr: "198.51.0.1", Device: in.Device}); err != nil {
		t.Fatalf("the known device during the flood: %v", err)
	}
	took := time.Since(start)
	wg.Wait()
	// Queued behind the flood it would be refused as busy after
	// hashWait; its own check costs what one costs alone, which a busy
	// or race-instrumented machine stretches, and the flood shares the
	// cores with it.
	if took > hashWait+2*alone {
		t.Fatalf("the known device waited %v, longer than an unknown one is let wait (%v) and its own check (%v alone)", took, hashWait, alone)
	}
	t.Logf("the known device signed in after %v; one check alone took %v", took, alone)
}
