package bench

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"frontdesk/config"
	"frontdesk/internal/memplan"
)

// The load scripts give every server they compare the soft memory limit
// serve sets itself for the demo business they run: a baseline without
// it would collect less often than serve under load, and the ratio would
// measure the limit, not the code.
func TestLoadScriptsRunAtServesLimit(t *testing.T) {
	b, err := os.ReadFile("runtime.sh")
	if err != nil {
		t.Fatal(err)
	}
	want := "export GOMEMLIMIT=${GOMEMLIMIT:-" + strconv.FormatInt(memplan.Limit(len(config.Demo().Locations)), 10) + "}"
	if !strings.Contains(string(b), want+"\n") {
		t.Errorf("bench/runtime.sh does not say %q", want)
	}
}
