// Package usp is the business side of the Universal Scheduling Protocol
// (USP, Standalone mode): the business profile served at /.well-known/usp,
// negotiation with the platform profile a caller names, the service
// catalog built from the config, and availability queries read from the
// inventory. Both bindings (MCP in mcptools, REST in usphttp) call the same
// methods of Business and only parse arguments and render results and
// errors; every protocol rule lives here.
//
// # How the config maps onto USP
//
// Every unit of every location is one USP service, with the id
// svc_<location>_<type> (svc_airport_shuttle, svc_riverside_double):
//
//   - A timed unit (the demo's airport shuttle) is an "appointment" when it
//     has one place per slot and a "group" with capacity.max = count
//     otherwise. Its slots are the unit's own: every duration_minutes from
//     opens, each ending by closes, in the location's time zone. The unit
//     itself is the slot's one equipment resource
//     (res_<location>_<type>).
//   - A lodging unit (room type) is a "reservation" whose spots are rooms:
//     capacity.max and a slot's capacity.total are the number of rooms of
//     that type. A slot is a stay of the unit's minimum length (one night,
//     or a week for a weekly-only studio) from check-in on one date to
//     check-in time on the date of departure. Its price is that stay's
//     quote, tax included.
//
// Slot start and end are instants rendered with their offset; durations
// are end minus start as instants, so a night across a daylight-saving
// change lasts 23 or 25 hours, and a local start time that does not exist
// is never offered. Free counts come from the inventory, the same index
// that every channel holds units through.
//
// # Access levels
//
// Every method carries its x-usp-access level. Public methods (catalog,
// availability query) need no credentials; privileged ones go through the
// Authenticator slot before they run. This package implements only public
// methods so far, and the profile advertises only them.
//
// It is a domain package: it imports config, inventory, pricing and
// internal helpers, never an adapter.
package usp
