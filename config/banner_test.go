package config

import (
	"strings"
	"testing"
)

func TestStoreBannerNamesTheSchema(t *testing.T) {
	t.Parallel()
	tests := []struct{ database, want string }{
		{"postgres://u:secret@db:5432/app?search_path=frontdesk", `PostgreSQL database "app" on db:5432, schema "frontdesk"`},
		{"postgres://u:secret@db/app", `PostgreSQL database "app" on db, schema "public" (the URL names no search_path; add ?search_path=NAME for another schema)`},
	}
	for _, tt := range tests {
		got := Store{Database: tt.database}.Banner()
		if got != tt.want || strings.Contains(got, "secret") {
			t.Errorf("Banner of %q = %q, want %q", tt.database, got, tt.want)
		}
	}
}
