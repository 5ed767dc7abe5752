// Package jsonlimit bounds the work a server does on a JSON body before it
// trusts it: a size cap while reading, and a nesting-depth check that scans
// bytes without building any value, so a deeply nested body costs one
// linear pass instead of a decoder's allocations at every level.
//
// It imports the standard library only; every door that reads JSON from a
// client may use it.
package jsonlimit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// Depth is the deepest nesting of arrays and objects a door accepts unless
// it says otherwise. No message of the protocols this server speaks needs
// more than a dozen levels.
const Depth = 32

// ErrTooLarge is returned by Read for a body over its limit.
var ErrTooLarge = errors.New("jsonlimit: body too large")

// DepthError is returned by CheckDepth for a body nested too deep.
type DepthError struct {
	Max int
}

func (e *DepthError) Error() string {
	return fmt.Sprintf("jsonlimit: nested deeper than %d levels", e.Max)
}

// Read reads all of r up to max bytes. A body of more than max bytes is
// ErrTooLarge, and at most max+1 bytes are ever read.
func Read(r io.Reader, max int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, ErrTooLarge
	}
	return b, nil
}

// CheckDepth reports a *DepthError when arrays and objects in b nest more
// than max levels deep. It reads bytes only, skipping the insides of
// strings, and stops at the first level too deep; b need not be valid
// JSON, which the decoder decides afterwards.
func CheckDepth(b []byte, max int) error {
	depth := 0
	inString, escaped := false, false
	for _, c := range b {
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '[', '{':
			depth++
			if depth > max {
				return &DepthError{Max: max}
			}
		case ']', '}':
			depth--
		}
	}
	return nil
}

// Guard reads a request body of up to max bytes and checks its depth
// before next sees it; next reads the same bytes again. A body too large
// or too deep goes to refuse instead, which writes the door's own error.
func Guard(next http.Handler, max int64, depth int, refuse func(w http.ResponseWriter, err error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		b, err := Read(r.Body, max)
		if err == nil {
			err = CheckDepth(b, depth)
		}
		if err != nil {
			refuse(w, err)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
		r.ContentLength = int64(len(b))
		next.ServeHTTP(w, r)
	})
}
