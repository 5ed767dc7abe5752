package usp_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"frontdesk/config"
	"frontdesk/internal/clock"
	"frontdesk/sqlite"
	"frontdesk/usp"
	"frontdesk/usp/usptest"
)

// TestRESTOnlyProfile: a business serving REST alone (a split hub)
// names no MCP binding in its profile; by default both are named.
func TestRESTOnlyProfile(t *testing.T) {
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "usp.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	clk := clock.NewFixed(usptest.Now)
	for _, restOnly := range []bool{false, true} {
		b := usptest.On(t, config.Demo(), st, clk, nil, nil, "", func(o *usp.Options) { o.RESTOnly = restOnly })
		profile := string(b.ProfileJSON())
		if strings.Contains(profile, `"transport": "mcp"`) == restOnly || !strings.Contains(profile, `"transport": "rest"`) {
			t.Errorf("RESTOnly %v: profile %s", restOnly, profile)
		}
	}
}
