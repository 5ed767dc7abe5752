package baseline

import (
	"bytes"
	"encoding/base64"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestDurableStoresEveryClickBeforeItsAnswer: every 302 the durable
// baseline sends carries a click id already in its file, however many
// arrive together.
func TestDurableStoresEveryClickBeforeItsAnswer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "clicks")
	d, err := OpenDurable(path)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var ids [][]byte
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			rec := httptest.NewRecorder()
			d.ServeHTTP(rec, httptest.NewRequest("GET", "/go/x", nil))
			loc := rec.Header().Get("Location")
			id, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(loc, Destination+"?via="))
			if rec.Code != http.StatusFound || err != nil || len(id) != 16 {
				t.Errorf("answer = %d %q", rec.Code, loc)
				return
			}
			written := make([]byte, 64*recordSize) // appends start at the file's start
			f, err := os.Open(path)
			if err == nil {
				_, err = f.ReadAt(written, 0)
				err = errors.Join(err, f.Close())
			}
			if err != nil || !bytes.Contains(written, id) {
				t.Errorf("click %x answered before it was written (%v)", id, err)
			}
			mu.Lock()
			ids = append(ids, id)
			mu.Unlock()
		})
	}
	wg.Wait()
	if len(ids) != 50 {
		t.Fatalf("%d clicks answered, want 50", len(ids))
	}
}
