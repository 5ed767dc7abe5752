package browsertest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserRendersAtBothWidths starts Chromium at each width and reads
// a page's width as the page itself sees it.
func TestBrowserRendersAtBothWidths(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><meta name="viewport" content="width=device-width"><title>t</title><h1 id="h">hello</h1>`)
	}))
	defer srv.Close()
	for _, width := range []int{Desktop, Phone} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			ctx := New(t, width)
			Do(t, ctx, chromedp.Navigate(srv.URL))
			text := Get(t, ctx, chromedp.Text("#h"))
			seen := Get(t, ctx, chromedp.Evaluate[int](`window.innerWidth`))
			if text != "hello" || seen != width {
				t.Fatalf("text %q at width %d, want hello at %d", text, seen, width)
			}
			Screenshot(t, ctx, "hello")
		})
	}
}
