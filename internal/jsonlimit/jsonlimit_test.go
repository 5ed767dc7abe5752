package jsonlimit

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestCheckDepth(t *testing.T) {
	tests := []struct {
		name string
		body string
		max  int
		deep bool
	}{
		{"flat", `{"a":1}`, 1, false},
		{"at the limit", `{"a":[{"b":[]}]}`, 4, false},
		{"one over", `{"a":[{"b":[[]]}]}`, 4, true},
		{"brackets inside strings do not count", `{"a":"[[[[[[{{{{"}`, 1, false},
		{"escaped quote keeps the string open", `{"a":"\"[[[["}`, 1, false},
		{"escaped backslash closes it", `{"a":"\\"}`, 1, false},
		{"invalid JSON is left to the decoder", `[[[`, 3, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckDepth([]byte(tt.body), tt.max)
			var de *DepthError
			if got := errors.As(err, &de); got != tt.deep {
				t.Fatalf("CheckDepth(%s, %d) = %v, want too deep %v", tt.body, tt.max, err, tt.deep)
			}
		})
	}
}

// TestCheckDepthAllocatesNothing: the nesting probe of 32,000 levels costs
// one pass and no allocation.
func TestCheckDepthAllocatesNothing(t *testing.T) {
	body := []byte(`{"ext":{"x":` + strings.Repeat("[", 32000) + strings.Repeat("]", 32000) + `}}`)
	allocs := testing.AllocsPerRun(10, func() {
		if CheckDepth(body, Depth) == nil {
			t.Fatal("32,000 levels passed")
		}
	})
	if allocs > 1 {
		t.Fatalf("CheckDepth allocated %v times, want at most the one error", allocs)
	}
}

func TestRead(t *testing.T) {
	b, err := Read(bytes.NewReader([]byte("12345")), 5)
	if err != nil || string(b) != "12345" {
		t.Fatalf("Read at the limit = %q %v", b, err)
	}
	if _, err := Read(bytes.NewReader([]byte("123456")), 5); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Read over the limit = %v, want ErrTooLarge", err)
	}
}

func TestGuard(t *testing.T) {
	var seen string
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		seen = string(b)
	})
	var refused error
	h := Guard(next, 64, 3, func(w http.ResponseWriter, err error) { refused = err; w.WriteHeader(400) })
	for _, tt := range []struct {
		body    string
		refused bool
	}{
		{`{"a":[[1]]}`, false},
		{`{"a":[[[1]]]}`, true},
		{`"` + strings.Repeat("x", 70) + `"`, true},
	} {
		seen, refused = "", nil
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/", strings.NewReader(tt.body)))
		if (refused != nil) != tt.refused || !tt.refused && seen != tt.body {
			t.Fatalf("Guard(%s): refused %v, next saw %q", tt.body, refused, seen)
		}
	}
}
