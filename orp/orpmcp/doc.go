// Package orpmcp is the MCP binding of an ORP host (§4.3): the tools
// orp_suggest, orp_join, orp_send, orp_inbox and orp_deal, answering with
// the same messages as the HTTP binding. It parses, calls package orp and
// renders; the shared MCP front (mcpfront) serves it over HTTP.
//
// It is an adapter: it imports orp, the front and helpers, never another
// adapter.
package orpmcp
