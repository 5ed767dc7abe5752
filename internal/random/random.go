// Package random hands components their random source. A component draws
// from one reader in many goroutines at once, so the reader it keeps must
// be safe for that: crypto/rand is; a seeded test generator is not, and
// two goroutines reading it together can draw the same bytes.
package random

import (
	"crypto/rand"
	"io"
	mrand "math/rand/v2"
	"sync"
)

// Locked returns a reader safe for concurrent use that reads from r; nil
// means crypto/rand. crypto/rand and readers Locked or Seeded made are
// returned as they are.
func Locked(r io.Reader) io.Reader {
	switch r.(type) {
	case nil:
		return rand.Reader
	case *locked:
		return r
	}
	if r == rand.Reader {
		return r
	}
	return &locked{r: r}
}

// Seeded returns a deterministic reader, safe for concurrent use, for
// tests: the same seed gives the same bytes in the same order of reads.
func Seeded(seed [32]byte) io.Reader { return &locked{r: mrand.NewChaCha8(seed)} }

// SeededBy is Seeded with the seed's first byte b and the rest zero.
func SeededBy(b byte) io.Reader { return Seeded([32]byte{b}) }

type locked struct {
	mu sync.Mutex
	r  io.Reader
}

func (l *locked) Read(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r.Read(p)
}
