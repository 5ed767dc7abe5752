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

// TestViolationsFindsWhatAxeReports is the accessibility check's
// negative control: a page with an unlabelled field and an image
// without text gives serious or critical violations, and the same page
// repaired gives none.
func TestViolationsFindsWhatAxeReports(t *testing.T) {
	bad := `<!doctype html><html lang="en"><title>t</title><main><h1>t</h1><img src="/x.png"><input id="q"></main></html>`
	good := `<!doctype html><html lang="en"><title>t</title><main><h1>t</h1><img src="/x.png" alt="A room"><label for="q">Name</label><input id="q"></main></html>`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if r.URL.Path == "/good" {
			fmt.Fprint(w, good)
			return
		}
		fmt.Fprint(w, bad)
	}))
	defer srv.Close()
	ctx := New(t, Desktop)
	serious := func(path string) map[string]bool {
		Do(t, ctx, chromedp.Navigate(srv.URL+path))
		found := map[string]bool{}
		for _, v := range Violations(t, ctx, "../..") {
			if v.Impact == "serious" || v.Impact == "critical" {
				found[v.ID] = true
			}
		}
		return found
	}
	if got := serious("/bad"); !got["image-alt"] || !got["label"] {
		t.Fatalf("violations of the bad page = %v, want image-alt and label", got)
	}
	if got := serious("/good"); len(got) != 0 {
		t.Fatalf("violations of the repaired page = %v, want none", got)
	}
}
