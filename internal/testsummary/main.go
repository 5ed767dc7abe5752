// Command testsummary reads `go test -json` on stdin and prints what a
// person needs of it: each package's result as `go test` prints it, the
// output of every failed test and failed build, and one last line counting
// the tests that passed, failed and were skipped, naming how many were
// skipped for which missing service (PostgreSQL, Chromium, …) and how to
// provide it. It exits 1 when anything failed. `make test` runs it:
//
//	go test -json ./... | go run ./internal/testsummary
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action      string
	Package     string
	Test        string
	Output      string
	Elapsed     float64
	ImportPath  string
	FailedBuild string
}

// A service is something outside the repository a test may need; its
// skip messages name it by one of the words in match.
type service struct {
	name, how string
	match     []string
}

// services in the order the summary names them. A skip whose message
// matches none counts as "other".
var services = []service{
	{"PostgreSQL", "set FRONTDESK_TEST_POSTGRES", []string{"FRONTDESK_TEST_POSTGRES"}},
	{"Chromium", "install chromium", []string{"Chromium", "chromium"}},
	{"axe-core", "cd test && npm ci", []string{"axe-core", "npm ci"}},
	{"pebble", "set FRONTDESK_TEST_PEBBLE", []string{"FRONTDESK_TEST_PEBBLE", "pebble"}},
	{"the specification texts", "set FRONTDESK_USP_SPEC and FRONTDESK_ORP_SPEC", []string{"FRONTDESK_USP_SPEC", "FRONTDESK_ORP_SPEC"}},
	{"git", "run in a git checkout", []string{"git "}},
}

func main() {
	failed, err := summarize(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		os.Exit(2)
	}
	if failed {
		os.Exit(1)
	}
}

// summarize reads the events from r, writes the report to w and says
// whether anything failed.
func summarize(r io.Reader, w io.Writer) (bool, error) {
	output := map[string][]string{} // "pkg test" → its output lines
	builds := map[string][]string{} // import path → its build output
	skips := map[string]int{}       // service name → skipped tests
	var passed, failedTests, skipped int
	var failures []string
	anyFailed := false
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			fmt.Fprintln(w, string(line)) // not an event: show it as it came
			continue
		}
		key := e.Package + " " + e.Test
		switch e.Action {
		case "build-output":
			builds[e.ImportPath] = append(builds[e.ImportPath], e.Output)
		case "build-fail":
			anyFailed = true
			fmt.Fprint(w, strings.Join(builds[e.ImportPath], ""))
		case "output":
			output[key] = append(output[key], e.Output)
		case "pass":
			if e.Test != "" {
				passed++
			} else {
				fmt.Fprintf(w, "ok  \t%s\t%.3fs\n", e.Package, e.Elapsed)
			}
			delete(output, key)
		case "skip":
			if e.Test == "" {
				fmt.Fprintf(w, "?   \t%s\t[no test files]\n", e.Package)
				break
			}
			skipped++
			skips[reason(output[key])]++
			delete(output, key)
		case "fail":
			anyFailed = true
			if e.Test != "" {
				failedTests++
				failures = append(failures, key)
				fmt.Fprint(w, strings.Join(output[key], ""))
			} else {
				if e.FailedBuild == "" {
					// Output outside any test: a panic, TestMain, a timeout.
					fmt.Fprint(w, strings.Join(output[key], ""))
				}
				fmt.Fprintf(w, "FAIL\t%s\n", e.Package)
			}
			delete(output, key)
		}
	}
	if err := sc.Err(); err != nil {
		return true, err
	}
	for _, f := range failures {
		fmt.Fprintf(w, "failed: %s\n", f)
	}
	fmt.Fprintln(w, summaryLine(passed, failedTests, skipped, skips))
	return anyFailed, nil
}

// reason names the service a skipped test's output says is missing.
func reason(lines []string) string {
	text := strings.Join(lines, "")
	for _, s := range services {
		for _, m := range s.match {
			if strings.Contains(text, m) {
				return s.name
			}
		}
	}
	return "other"
}

// summaryLine is the last line: the counts, then each service that made
// tests skip with how to provide it.
func summaryLine(passed, failed, skipped int, skips map[string]int) string {
	line := fmt.Sprintf("go test: %d passed, %d failed, %d skipped", passed, failed, skipped)
	if skipped == 0 {
		return line + ": everything ran"
	}
	var parts []string
	for _, s := range services {
		if n := skips[s.name]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d without %s (%s)", n, s.name, s.how))
		}
	}
	if n := skips["other"]; n > 0 {
		parts = append(parts, fmt.Sprintf("%d for other reasons (go test -v shows them)", n))
	}
	return line + ": " + strings.Join(parts, ", ")
}
