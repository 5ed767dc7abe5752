// Package crash is the crash harness of RELIABILITY.md: its test builds
// frontdesk, runs `frontdesk serve` as a child on SQLite and on
// PostgreSQL, drives every door for the same units (chat bookings and
// cancellations, booking-form requests, staff decisions from the command
// line and at the staff screen, walk-ins booked, settings saved, logins
// added and sign-outs and sign-ins at the staff screen, USP
// over REST and MCP, tracked-link clicks), kills the server
// with SIGKILL at random moments and at each named failpoint
// (FRONTDESK_FAILPOINT), restarts it, sweeps, and checks what the
// clients were told against the store. It holds tests only and is
// wiring: nothing imports it.
package crash
