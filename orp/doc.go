// Package orp is frontdesk's Open Rails Protocol 0.3 host: the envelope
// rules E1 to E9, parties and joining, spaces, standing and directed
// offers, deals and their per-party snapshots, approvals by the waiting
// party's agent, the universal tracked link with its click classes and
// batched click writes, and the outcomes that scheduled work sends.
//
// It is a domain package. It imports the store contracts, the clock and
// its own subpackage orp/schema, never an adapter; the HTTP binding lives
// in orphttp and the MCP binding in mcpfront. Time and randomness are
// injected, and every multi-record change goes through one store.Apply,
// so an error never changes state and no message is applied in part.
package orp
