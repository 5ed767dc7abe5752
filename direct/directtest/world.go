package directtest

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"frontdesk/business"
	"frontdesk/config"
	"frontdesk/sqlite"
	"frontdesk/store"
)

// Demo is the demo business's configuration with edits applied, and a
// fresh SQLite file under t.TempDir(), closed when the test ends.
func Demo(t testing.TB, edit ...func(*config.Config)) (config.Config, store.Store) {
	t.Helper()
	cfg := config.Demo()
	for _, e := range edit {
		e(&cfg)
	}
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "fd.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := st.Close(); err != nil {
			t.Error(err)
		}
	})
	return cfg, st
}

// Resolver finds the location a property argument names by slug or
// name, case-insensitively.
func Resolver(cfg config.Config) func(string) (business.Location, bool) {
	return func(p string) (business.Location, bool) {
		for _, l := range cfg.Locations {
			if strings.EqualFold(p, l.Slug) || strings.EqualFold(p, l.Name) {
				return l, true
			}
		}
		return business.Location{}, false
	}
}
