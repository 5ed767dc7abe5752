// Package uspmcp is the MCP binding of USP (§9.2): one usp_* tool per
// method the business serves, with _meta.usp inside the arguments,
// business outcomes in messages[] and protocol errors as JSON-RPC errors
// carrying data.code, and the usp_webhook notifications on a platform's
// open streams. It parses, calls package usp and renders; the shared MCP
// front (mcpfront) serves it over HTTP.
//
// At a split hub (NewAtHub) the calls that are a location's go to its
// own endpoint through the hub's proxy, and a waitlist list naming no
// service is merged from every location's.
//
// It is an adapter: it imports usp, hub, the front and helpers, never
// another adapter.
package uspmcp
