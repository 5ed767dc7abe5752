package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestSummaryNamesWhatWasMissing: the last line counts the tests and names
// each missing service with how many tests it skipped; a failed test's
// output is shown and makes the run fail.
func TestSummaryNamesWhatWasMissing(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"run","Package":"frontdesk/a","Test":"TestPG"}`,
		`{"Action":"output","Package":"frontdesk/a","Test":"TestPG","Output":"    pg.go:26: FRONTDESK_TEST_POSTGRES is not set; set it\n"}`,
		`{"Action":"skip","Package":"frontdesk/a","Test":"TestPG"}`,
		`{"Action":"output","Package":"frontdesk/a","Test":"TestPG2","Output":"    pg.go:26: FRONTDESK_TEST_POSTGRES is not set\n"}`,
		`{"Action":"skip","Package":"frontdesk/a","Test":"TestPG2"}`,
		`{"Action":"output","Package":"frontdesk/a","Test":"TestPage","Output":"    b.go:53: Chromium is not installed\n"}`,
		`{"Action":"skip","Package":"frontdesk/a","Test":"TestPage"}`,
		`{"Action":"output","Package":"frontdesk/a","Test":"TestOdd","Output":"    odd.go:1: not today\n"}`,
		`{"Action":"skip","Package":"frontdesk/a","Test":"TestOdd"}`,
		`{"Action":"pass","Package":"frontdesk/a","Test":"TestOK"}`,
		`{"Action":"pass","Package":"frontdesk/a","Elapsed":1.5}`,
		`{"Action":"output","Package":"frontdesk/b","Test":"TestBad","Output":"    bad.go:9: want 2, got 3\n"}`,
		`{"Action":"fail","Package":"frontdesk/b","Test":"TestBad"}`,
		`{"Action":"fail","Package":"frontdesk/b","Elapsed":0.25}`,
	}, "\n")
	var out bytes.Buffer
	failed, err := summarize(strings.NewReader(in), &out)
	if err != nil {
		t.Fatal(err)
	}
	if !failed {
		t.Error("a failed test did not fail the run")
	}
	want := "ok  \tfrontdesk/a\t1.500s\n" +
		"    bad.go:9: want 2, got 3\n" +
		"FAIL\tfrontdesk/b\n" +
		"failed: frontdesk/b TestBad\n" +
		"go test: 1 passed, 1 failed, 4 skipped: 2 without PostgreSQL (set FRONTDESK_TEST_POSTGRES), 1 without Chromium (install chromium), 1 for other reasons (go test -v shows them)\n"
	if out.String() != want {
		t.Errorf("summary =\n%s\nwant\n%s", out.String(), want)
	}
}

// TestSummaryAllRan: nothing skipped, nothing failed.
func TestSummaryAllRan(t *testing.T) {
	var out bytes.Buffer
	failed, err := summarize(strings.NewReader(`{"Action":"pass","Package":"p","Test":"T"}`+"\n"), &out)
	if err != nil || failed {
		t.Fatalf("summarize = %v, %v", failed, err)
	}
	if got := out.String(); got != "go test: 1 passed, 0 failed, 0 skipped: everything ran\n" {
		t.Errorf("summary = %q", got)
	}
}
