// Package orp is frontdesk's Open Rails Protocol 0.3 host: the envelope
// rules E1 to E9, parties and joining, spaces with their domain
// verification and audience buckets, standing and directed offers,
// requests, counters and amendments, deals and their per-party
// snapshots, approvals by the waiting party's agent, the universal
// tracked link with its click classes and batched click writes,
// obligation deadlines, conversions from the payer or a signed provider
// webhook, the outcomes and payouts that scheduled work sends, disputes,
// and orp-rep-1 reputation.
//
// It is a domain package. It imports the store contracts, the clock and
// its own subpackage orp/schema, never an adapter; the HTTP binding lives
// in orphttp and the MCP binding in mcpfront. Time and randomness are
// injected, and every multi-record change goes through one store.Apply,
// so an error never changes state and no message is applied in part.
package orp
