// Package directmcp is direct booking's MCP binding: the hub's server
// (list_properties, find_rooms, quote_stay, property_info and the four
// booking tools start_booking, confirm_booking, get_booking and
// cancel_booking) and each location's read-only server. Tools parse, call
// the hub and the booking core through the chat door, and render; they
// hold no business rules. The shared MCP front (mcpfront) serves them over
// HTTP and stdio.
//
// It is an adapter: it imports domain packages (direct, hub, location,
// pricing), the front and helpers, never another adapter.
package directmcp
