package failpoint

import (
	"strings"
	"testing"
)

// TestFailpointOnlyInTheTaggedBuild: a release build ignores every setting,
// even a malformed one; the build with the tag wraps the store at a
// known boundary and refuses a name it does not know.
func TestFailpointOnlyInTheTaggedBuild(t *testing.T) {
	fp, err := Parse("after:record-creation")
	if !Compiled {
		if err != nil || fp.Store != nil || fp.JournalFile != nil {
			t.Fatalf("release build: Parse = %+v, %v; want nothing wrapped", fp, err)
		}
		if _, err := Parse("sideways:nowhere"); err != nil {
			t.Fatalf("release build: a malformed setting = %v, want it ignored", err)
		}
		return
	}
	if err != nil || fp.Store == nil || fp.JournalFile != nil {
		t.Fatalf("tagged build: Parse = %+v, %v; want the store wrapped", fp, err)
	}
	if fp, err := Parse("before:click-batch"); err != nil || fp.JournalFile == nil {
		t.Fatalf("tagged build: click-batch = %+v, %v; want the journal wrapped", fp, err)
	}
	if fp, err := Parse("slow:700ms:/armed"); err != nil || fp.Store == nil {
		t.Fatalf("tagged build: a slow store = %+v, %v; want the store wrapped", fp, err)
	}
	if _, err := Parse("slow:soon:/armed"); err == nil {
		t.Fatal("tagged build: a slow store of no duration was accepted")
	}
	if fp, err := Parse("late:45s:/armed"); err != nil || fp.Store == nil {
		t.Fatalf("tagged build: a late commit = %+v, %v; want the store wrapped", fp, err)
	}
	for _, bad := range []string{"late:soon:/armed", "late:45s:", "late:-1s:/armed", "late:45s"} {
		if _, err := Parse(bad); err == nil || !strings.Contains(err.Error(), "want late:DURATION:FILE") {
			t.Fatalf("tagged build: %q = %v, want a refusal saying late:DURATION:FILE", bad, err)
		}
	}
	if _, err := Parse("sideways:nowhere"); err == nil || !strings.Contains(err.Error(), "record-creation") {
		t.Fatalf("tagged build: a malformed setting = %v, want a refusal naming the boundaries", err)
	}
}
