package store

import (
	"strings"
	"testing"
)

// TestEveryOpHasAName: logs and the crash harness's failpoints name writes
// by Op.String, so an operation without a name would log as op(N) and
// could not be targeted.
func TestEveryOpHasAName(t *testing.T) {
	seen := map[string]Op{}
	for op := OpCreate; op < opEnd; op++ {
		name := op.String()
		if strings.HasPrefix(name, "op(") {
			t.Errorf("operation %d has no name", int(op))
		}
		if other, ok := seen[name]; ok {
			t.Errorf("operations %d and %d share the name %q", int(other), int(op), name)
		}
		seen[name] = op
	}
}
