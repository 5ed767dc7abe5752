// Package crash is the crash harness of RELIABILITY.md: its test builds
// frontdesk, runs `frontdesk serve` as a child on SQLite and on
// PostgreSQL, races chat bookings for the same units,
// kills the server with SIGKILL at random moments and at each named
// failpoint (FRONTDESK_FAILPOINT), restarts it, sweeps, and checks the
// invariants on the store. It holds tests only and is wiring: nothing
// imports it.
package crash
