package citest

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestMissingFailsUnderCI runs a child test that calls Missing, once with
// CI=true and once without, and checks the first fails and the second skips.
func TestMissingFailsUnderCI(t *testing.T) {
	if os.Getenv("CITEST_CHILD") == "1" {
		Missing(t, "the thing is not here")
		return
	}
	for _, tc := range []struct {
		ci      string
		wantErr bool
		want    string
	}{
		{"true", true, "--- FAIL"},
		{"", false, "--- SKIP"},
	} {
		t.Run("CI="+tc.ci, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestMissingFailsUnderCI$", "-test.v")
			cmd.Env = append(os.Environ(), "CITEST_CHILD=1", "CI="+tc.ci)
			out, err := cmd.CombinedOutput()
			if (err != nil) != tc.wantErr {
				t.Fatalf("child error = %v, want error %v\n%s", err, tc.wantErr, out)
			}
			if !strings.Contains(string(out), tc.want) {
				t.Fatalf("child output lacks %q:\n%s", tc.want, out)
			}
		})
	}
}
