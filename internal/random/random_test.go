package random_test

import (
	"crypto/rand"
	"encoding/hex"
	"io"
	mrand "math/rand/v2"
	"sync"
	"testing"

	"frontdesk/internal/random"
)

// Draws from many goroutines never repeat, even when the reader Locked
// wraps is not safe for concurrent use.
func TestLockedDrawsAreDistinctAcrossGoroutines(t *testing.T) {
	r := random.Locked(mrand.NewChaCha8([32]byte{1}))
	const workers, draws = 8, 2000
	var mu sync.Mutex
	seen := map[string]bool{}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			b := make([]byte, 8)
			for range draws {
				if _, err := io.ReadFull(r, b); err != nil {
					t.Error(err)
					return
				}
				k := hex.EncodeToString(b)
				mu.Lock()
				if seen[k] {
					t.Errorf("draw %s came twice", k)
				}
				seen[k] = true
				mu.Unlock()
			}
		})
	}
	wg.Wait()
}

func TestLockedKeepsWhatIsAlreadySafe(t *testing.T) {
	if random.Locked(nil) != rand.Reader || random.Locked(rand.Reader) != rand.Reader {
		t.Error("crypto/rand was wrapped")
	}
	s := random.SeededBy(3)
	if random.Locked(s) != s {
		t.Error("a seeded reader was wrapped twice")
	}
}

func TestSeededIsDeterministic(t *testing.T) {
	a, b := make([]byte, 16), make([]byte, 16)
	io.ReadFull(random.SeededBy(9), a)
	io.ReadFull(random.SeededBy(9), b)
	if hex.EncodeToString(a) != hex.EncodeToString(b) {
		t.Error("the same seed drew different bytes")
	}
}
