package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"frontdesk/internal/citest"
)

// TestMain lets the test binary stand in for the frontdesk command: run
// under the name frontdesk (a link TestDocExamples makes), it is the
// command, so the documentation's shell blocks call a real `frontdesk`
// without a separate build.
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == "frontdesk" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// docBlock is one shell block of the documentation.
type docBlock struct {
	where  string // file:line of its opening fence
	text   string
	notRun string // the reason its marker gives, when it is not run
	expect string // text its output must hold, when its marker says so
}

// The markers a block may carry on the line before its fence.
var (
	notRunMarker = regexp.MustCompile(`^\s*<!-- not run: (.+) -->\s*$`)
	expectMarker = regexp.MustCompile(`^\s*<!-- expect: (.+) -->\s*$`)
)

// docFiles are the pages whose shell blocks are run: the README, the
// contributor's guide and every page under docs/.
func docFiles(t *testing.T, root string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{filepath.Join(root, "README.md"), filepath.Join(root, "CONTRIBUTING.md")}, files...)
}

// shellBlocks extracts the ```sh blocks of a markdown file (indented ones
// in lists too), with the markers before them.
func shellBlocks(t *testing.T, root, path string) []docBlock {
	t.Helper()
	body, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rel, _ := filepath.Rel(root, path)
	lines := strings.Split(string(body), "\n")
	var out []docBlock
	for i := 0; i < len(lines); i++ {
		fence := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(fence, "```") {
			continue
		}
		indent := lines[i][:len(lines[i])-len(strings.TrimLeft(lines[i], " "))]
		lang := strings.TrimPrefix(fence, "```")
		start := i
		var text []string
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			text = append(text, strings.TrimPrefix(lines[i], indent))
		}
		if lang != "sh" && lang != "bash" && lang != "shell" {
			continue
		}
		b := docBlock{where: fmt.Sprintf("%s:%d", rel, start+1), text: strings.Join(text, "\n") + "\n"}
		for j := start - 1; j >= 0 && strings.HasPrefix(strings.TrimSpace(lines[j]), "<!--"); j-- {
			if m := notRunMarker.FindStringSubmatch(lines[j]); m != nil {
				b.notRun = m[1]
			}
			if m := expectMarker.FindStringSubmatch(lines[j]); m != nil {
				b.expect = m[1]
			}
		}
		out = append(out, b)
	}
	return out
}

// docPassword is what the examples' password prompts read, one line each.
const docPassword = "a long example password"

// TestDocExamples runs every shell block of README.md, CONTRIBUTING.md and
// docs/*.md as written, in order, with bash, against the demo started as
// the README's quick start starts it (`frontdesk serve` in an empty
// folder), with a `frontdesk` on the PATH. Only the address differs: the
// blocks' localhost:8080 and 127.0.0.1:8080 become the port the demo got.
// A block that cannot run here (systemd, a public ACME server, a remote
// database, the test suite itself) carries `<!-- not run: REASON -->` on
// the line before its fence and is left out by that marker; one with
// `<!-- expect: TEXT -->` must print TEXT. First it runs the start
// banner's first-login hint as printed.
func TestDocExamples(t *testing.T) {
	for _, tool := range []string{"bash", "curl", "od", "sed", "grep", "cut", "date"} {
		if _, err := exec.LookPath(tool); err != nil {
			citest.Missing(t, "%s is not installed; the documentation's examples need it", tool)
		}
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	var blocks []docBlock
	for _, f := range docFiles(t, root) {
		blocks = append(blocks, shellBlocks(t, root, f)...)
	}

	// frontdesk on the PATH is this test binary under that name.
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	if err := os.Symlink(self, filepath.Join(bin, "frontdesk")); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	env := append(slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "PATH=") || strings.HasPrefix(kv, "FRONTDESK_")
	}), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "HOME="+work)

	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	ctx, cancel := context.WithCancel(context.Background())
	serve := exec.CommandContext(ctx, filepath.Join(bin, "frontdesk"), "serve", "--addr", addr)
	serve.Dir, serve.Env = work, env
	var banner syncBuffer
	serve.Stdout, serve.Stderr = &banner, &banner
	serve.Cancel = func() error { return serve.Process.Signal(os.Interrupt) }
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = serve.Wait()
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the demo did not become ready at %s:\n%s", addr, banner.String())
		}
		time.Sleep(100 * time.Millisecond)
	}

	runShell := func(t *testing.T, script string) string {
		t.Helper()
		script = strings.NewReplacer("localhost:8080", addr, "127.0.0.1:8080", addr).Replace(script)
		cctx, ccancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer ccancel()
		cmd := exec.CommandContext(cctx, "bash", "-e", "-o", "pipefail", "-c", script)
		cmd.Dir, cmd.Env = work, env
		cmd.Stdin = strings.NewReader(strings.Repeat(docPassword+"\n", 20))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("failed (%v):\n%s\noutput:\n%s", err, script, out)
		}
		return string(out)
	}

	t.Run("banner's first-login hint", func(t *testing.T) {
		m := regexp.MustCompile(`\(first login: (frontdesk [^)]*)\)`).FindStringSubmatch(banner.String())
		if m == nil {
			t.Fatalf("the banner gives no first-login command:\n%s", banner.String())
		}
		if out := runShell(t, m[1]); !strings.Contains(out, "added owner") {
			t.Errorf("%s printed %q", m[1], out)
		}
	})

	for _, b := range blocks {
		t.Run(b.where, func(t *testing.T) {
			if b.notRun != "" {
				t.Logf("not run: %s", b.notRun)
				return
			}
			out := runShell(t, b.text)
			if b.expect != "" && !strings.Contains(out, b.expect) {
				t.Errorf("output lacks %q:\n%s", b.expect, out)
			}
		})
	}
}

// TestREADMEIsADoor: the README stays short, names every command in its
// table, and links pages that exist (or that are on their way).
func TestREADMEIsADoor(t *testing.T) {
	t.Parallel()
	body, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(body)
	if n := strings.Count(readme, "\n"); n > 200 {
		t.Errorf("README.md has %d lines; it stays at 200 or fewer, with the detail in docs/", n)
	}
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `frontdesk ([^`]*)`").FindAllStringSubmatch(readme, -1) {
		names := []string{""}
		for _, word := range strings.Fields(m[1]) {
			if strings.HasPrefix(word, "-") || strings.HasPrefix(word, "[") || strings.ToUpper(word) == word {
				break // the arguments begin
			}
			var next []string
			for _, n := range names {
				for _, alt := range strings.Split(word, `\|`) {
					next = append(next, strings.TrimSpace(n+" "+alt))
					listed[strings.TrimSpace(n+" "+alt)] = true
				}
			}
			names = next
		}
	}
	for name := range commands {
		if !listed[name] {
			t.Errorf("the README's command table has no row for frontdesk %s", name)
		}
	}
	// Pages other branches bring; linked ahead of their arrival.
	coming := map[string]bool{"docs/orp-deals.md": true, "docs/channels.md": true, "docs/guest-site.md": true, "docs/upgrading.md": true}
	for _, m := range regexp.MustCompile(`\]\(([^)#]+\.(?:md|png))`).FindAllStringSubmatch(readme, -1) {
		if _, err := os.Stat(filepath.Join("..", "..", m[1])); err != nil && !coming[m[1]] {
			t.Errorf("the README links %s, which does not exist", m[1])
		}
	}
}
