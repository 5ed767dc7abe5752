// Package browsertest starts headless Chromium for page tests, driven
// through chromedp. Chromium comes from Debian's chromium package (CI
// installs it); CHROMIUM names another binary. Without one a test is
// skipped with a message, except under CI, where it fails.
//
// It is used by tests alone and imports chromedp and its cdproto,
// internal/citest and the standard library.
package browsertest

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto"
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
	height := height(width)
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
	Do(t, ctx, chromedp.Evaluate[chromedp.Void](`window.beforeSubmit = true`))
	// The page the click posts may start loading before the click's own
	// command has answered: Chromium then ends that command with "target
	// navigated", which is the submit taking place, not a fault.
	clickCtx, cancel := context.WithTimeout(ctx, StepTimeout)
	err := chromedp.Do(clickCtx, chromedp.Click(sel))
	cancel()
	if e, ok := errors.AsType[*cdproto.Error](err); err != nil && !(ok && e.Message == "Inspected target navigated or closed") {
		t.Fatalf("browser: %v", err)
	}
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

// docs rewrites the screenshots in the repository's docs/ folder; CI
// leaves it off so the tree stays clean.
var docs = flag.Bool("docs", false, "rewrite the page screenshots in docs/")

// Document saves a screenshot of the page as docs/name.png when the
// tests run with -docs, and always in the test's artifact directory.
// root is the repository root, relative to the test's package.
func Document(t *testing.T, ctx context.Context, root, name string) {
	t.Helper()
	path := Screenshot(t, ctx, name)
	if !*docs {
		return
	}
	png, err := os.ReadFile(path)
	if err == nil {
		err = os.WriteFile(filepath.Join(root, "docs", name+".png"), png, 0o644)
	}
	if err != nil {
		t.Fatalf("save docs/%s.png: %v", name, err)
	}
}

// axePath is where npm ci in test/ puts axe-core, from the repository
// root; test/package-lock.json pins its version.
const axePath = "test/node_modules/axe-core/axe.min.js"

// Violation is one accessibility rule a page breaks, as axe-core
// reports it.
type Violation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target []any `json:"target"`
	} `json:"nodes"`
}

// Accessible runs axe-core on the loaded page and fails t on every
// serious or critical violation; lesser findings are logged. axe-core is
// read from test/node_modules under root; without it the check is
// skipped, except under CI, where .ci/run installs it first and its
// absence fails.
func Accessible(t *testing.T, ctx context.Context, root, page string) {
	t.Helper()
	for _, v := range Violations(t, ctx, root) {
		targets := make([]string, 0, len(v.Nodes))
		for _, n := range v.Nodes {
			targets = append(targets, fmt.Sprint(n.Target...))
		}
		if v.Impact != "serious" && v.Impact != "critical" {
			t.Logf("%s: %s accessibility finding %s (%s) at %s", page, v.Impact, v.ID, v.Help, strings.Join(targets, ", "))
			continue
		}
		t.Errorf("%s: %s violation %s (%s) at %s", page, v.Impact, v.ID, v.Help, strings.Join(targets, ", "))
	}
}

// Violations injects axe-core into the loaded page and returns what it
// finds.
func Violations(t *testing.T, ctx context.Context, root string) []Violation {
	t.Helper()
	script, err := os.ReadFile(filepath.Join(root, axePath))
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("axe-core is missing (%v); .ci/run installs it with npm ci in test/", err)
		}
		t.Skipf("axe-core is not installed (cd test && npm ci); skipping the accessibility check")
	}
	// Runtime.evaluate is not bound by the page's Content-Security-Policy,
	// so the script runs though the page allows none but its own.
	Do(t, ctx, chromedp.Evaluate[chromedp.Void](string(script)))
	ctx, cancel := context.WithTimeout(ctx, StepTimeout)
	defer cancel()
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](`axe.run(document, {resultTypes: ["violations"]}).then(r => JSON.stringify(r.violations))`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("axe-core: %v", err)
	}
	var found []Violation
	if err := json.Unmarshal([]byte(raw), &found); err != nil {
		t.Fatalf("axe-core: %v", err)
	}
	return found
}

// height is the window height that goes with a width.
func height(width int) int {
	if width <= Phone {
		return 844
	}
	return 900
}
