// Package browsertest starts headless Chromium for page tests, driven
// through chromedp. Chromium comes from Debian's chromium package (CI
// installs it); CHROMIUM names another binary. Without one a test is
// skipped with a message, except under CI, where it fails.
//
// It is used by tests alone and imports chromedp, internal/citest and the
// standard library.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"frontdesk/internal/citest"
)

// Widths of the two screens every page is tested at.
const (
	Desktop = 1280
	Phone   = 390
)

// binary finds Chromium.
func binary() string {
	if b := os.Getenv("CHROMIUM"); b != "" {
		return b
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// New starts a browser whose window is width pixels wide and returns its
// context, ended when t ends. Run steps in it with Do and Get, which
// give each a deadline.
func New(t testing.TB, width int) context.Context {
	t.Helper()
	bin := binary()
	if bin == "" {
		citest.Missing(t, "Chromium is not installed (apt-get install chromium, or set CHROMIUM; .ci/run installs it); skipping browser test")
	}
	height := 900
	if width <= Phone {
		height = 844
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(width, height),
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(alloc)
	t.Cleanup(func() {
		cancelCtx()
		cancelAlloc()
	})
	// The first call starts the browser and must run without a deadline,
	// which would end the whole browser; later steps each get one.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(int64(width), int64(height))); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	return ctx
}

// StepTimeout bounds each Do, so a page that never answers fails the test
// instead of hanging it.
const StepTimeout = 30 * time.Second

// Do runs steps in the browser of ctx under StepTimeout and fails t on
// an error.
func Do(t testing.TB, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, StepTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("browser: %v", err)
	}
}

// Get runs one action that returns a value, under StepTimeout.
func Get[T any](t testing.TB, ctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, StepTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatalf("browser: %v", err)
	}
	return v
}

// Submit clicks sel (a submit button) and waits until the page it
// posted to has loaded, so nothing of the old page is read by mistake.
func Submit(t testing.TB, ctx context.Context, sel string) {
	t.Helper()
	Do(t, ctx, chromedp.Evaluate[chromedp.Void](`window.beforeSubmit = true`), chromedp.Click(sel))
	deadline := time.Now().Add(StepTimeout)
	for time.Now().Before(deadline) {
		loaded := Get(t, ctx, chromedp.Evaluate[bool](`!window.beforeSubmit && document.readyState === "complete"`))
		if loaded {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("browser: the page posted by %s did not load", sel)
}

// Screenshot saves the whole page as name.png in the test's artifact
// directory (kept with go test -artifacts) and returns its path.
func Screenshot(t *testing.T, ctx context.Context, name string) string {
	t.Helper()
	png := Get(t, ctx, chromedp.FullScreenshot(100))
	path := filepath.Join(t.ArtifactDir(), name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
