package config

import (
	"fmt"
	"net/url"
	"strings"
)

// Banner names the store, and for PostgreSQL the schema it writes
// into, without the URL (it may hold a password).
func (c Store) Banner() string {
	if c.Database == "" {
		return "SQLite in " + c.DataDir
	}
	u, err := url.Parse(c.Database)
	if err != nil {
		return "PostgreSQL"
	}
	db := strings.TrimPrefix(u.Path, "/")
	if schema := u.Query().Get("search_path"); schema != "" {
		return fmt.Sprintf("PostgreSQL database %q on %s, schema %q", db, u.Host, schema)
	}
	return fmt.Sprintf("PostgreSQL database %q on %s, schema \"public\" (the URL names no search_path; add ?search_path=NAME for another schema)", db, u.Host)
}
