package sqlite

import (
	"bytes"
	"io"
	"os"
	"runtime/debug"
)

// walIndex reads the header of the file's WAL index, the "-shm" file
// every connection in WAL mode shares. Each commit, from any connection
// of any process, rewrites that header with its change counter raised
// (https://www.sqlite.org/walformat.html, "The WAL-Index Header"), so an
// unchanged header proves that nothing was committed: one read of 96
// bytes, where asking SQLite takes a read transaction and its locks.
//
// Where the system can, the header is read from the file mapped into
// memory, as SQLite itself shares it (walindex_unix.go), without a system
// call: every read tool call looks at it.
type walIndex struct {
	f      io.ReaderAt
	mapped []byte // the file's first page, shared, or nil
}

// walIndexHeader is the 48 bytes a commit rewrites: its change counter,
// frame count, page count, salts and checksums.
type walIndexHeader [48]byte

// openWALIndex opens path's WAL index, which exists once a connection has
// read the file in WAL mode, and stays the same file for as long as one
// is open. Without it (another journal mode), there is no shortcut.
func openWALIndex(path string) *walIndex {
	f, err := os.Open(path + "-shm")
	if err != nil {
		return nil
	}
	return &walIndex{f: f, mapped: mapHeader(f, 2*len(walIndexHeader{}))}
}

// header returns the header as the last commit left it. SQLite writes its
// two copies one after the other, the second copy first; when they differ,
// a commit is writing them, and ok is false.
func (w *walIndex) header() (h walIndexHeader, ok bool) {
	if w == nil {
		return h, false
	}
	var both [2 * len(h)]byte
	if w.mapped != nil {
		if !copyMapped(both[:], w.mapped) {
			return h, false
		}
	} else if _, err := w.f.ReadAt(both[:], 0); err != nil {
		return h, false
	}
	first, second := both[:len(h)], both[len(h):]
	// isInit (byte 12) is set once a connection has built the index.
	if first[12] == 0 || !bytes.Equal(first, second) {
		return h, false
	}
	copy(h[:], first)
	return h, true
}

// copyMapped copies the mapped header into dst. A file cut shorter under
// the mapping (never by SQLite while a connection holds it, as this
// store's does) faults instead of reading; that is a header not read,
// and the caller asks SQLite.
func copyMapped(dst, mapped []byte) (ok bool) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	copy(dst, mapped)
	return true
}

func (w *walIndex) close() error {
	if w == nil {
		return nil
	}
	unmapHeader(w.mapped)
	if c, ok := w.f.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
