//go:build unix

package sqlite

import (
	"os"
	"syscall"
)

// mapsHeader says the WAL index header is read from memory here.
const mapsHeader = true

// mapHeader maps the first n bytes of f, read-only and shared, so that
// reads see every write to the file at once; nil when it cannot, or when
// f is still shorter than n (a byte past its end would fault).
func mapHeader(f *os.File, n int) []byte {
	st, err := f.Stat()
	if err != nil || st.Size() < int64(n) {
		return nil
	}
	m, err := syscall.Mmap(int(f.Fd()), 0, n, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil
	}
	return m
}

func unmapHeader(m []byte) {
	if m != nil {
		_ = syscall.Munmap(m) // a mapping this package made, of a length it gave
	}
}
