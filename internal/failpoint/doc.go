// Package failpoint kills serve at a named durable boundary, for the
// crash harness (bench/crash, RELIABILITY.md). It is compiled in only with
// the build tag "failpoint"; a release build ignores the setting.
package failpoint

import (
	"frontdesk/orp"
	"frontdesk/store"
)

// Env names a durable boundary at which serve kills itself with SIGKILL:
// "after:BOUNDARY" dies once the write crossing it has committed,
// "before:BOUNDARY" just before it is sent. Or it slows the store:
// "slow:DURATION:FILE" makes every store request wait DURATION while
// FILE exists (a slow store across processes, as the split's tests
// need); "late:DURATION:FILE" holds the reservation commit DURATION
// while FILE exists and then makes it whatever the caller's deadline
// says (a write sent before a deadline that lands after it). Only serve's wiring reads it; unset, or in a build without the
// tag, the store is left as it is.
const Env = "FRONTDESK_FAILPOINT"

// Failpoint is a parsed setting: it wraps the store, and for the click
// batch also the click journal's files, which take a SQLite server's
// clicks instead of the store. Its fields are nil for none.
type Failpoint struct {
	Store       func(store.Store) store.Store
	JournalFile func(orp.JournalFile) orp.JournalFile // nil unless the boundary is the click batch
}
