package usp

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"frontdesk/business"
	"frontdesk/config"
	"frontdesk/internal/clock"
	"frontdesk/inventory"
	"frontdesk/inventory/inventorytest"
	"frontdesk/pricing"
	"frontdesk/sqlite"
)

// fixture is a Business on a real SQLite file with a fixed clock.
type fixture struct {
	b   *Business
	inv *inventory.Inventory
	// holder takes holds by hand, as another door's would be.
	holder inventorytest.Holder
	clock  *clock.Fixed
	cfg    config.Config
}

func newFixture(t *testing.T, cfg config.Config, now time.Time, profiles *Profiles) *fixture {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "usp.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	clk := clock.NewFixed(now)
	inv := inventory.New(st)
	b, err := New(Options{
		Config: Config{Portfolio: cfg.Portfolio}, Inventory: inv, Pricer: pricing.New(cfg.Portfolio, "https://stays.example"),
		Clock: clk, Origin: "https://stays.example", Profiles: profiles,
	})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{b: b, inv: inv, holder: inventorytest.Holder{Index: st}, clock: clk, cfg: cfg}
}

func demo(t *testing.T) *fixture {
	return newFixture(t, config.Demo(), time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), nil)
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

func location(cfg config.Config, slug string) business.Location {
	for _, l := range cfg.Locations {
		if l.Slug == slug {
			return l
		}
	}
	panic("no location " + slug)
}

func protocolCode(t *testing.T, err error) Code {
	t.Helper()
	e, internal := AsError(err)
	if err == nil || internal {
		t.Fatalf("err = %v, want a protocol error", err)
	}
	return e.Code
}
