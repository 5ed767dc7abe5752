// Package usp is the business side of the Universal Scheduling Protocol
// (USP, Standalone mode): the business profile served at /.well-known/usp,
// negotiation with the platform profile a caller names, the service
// catalog built from the config, availability queries read from the
// inventory, holds and bookings on the reservation core, authentication of
// privileged calls with identity binding, and idempotency. Both bindings
// (MCP in usp/uspmcp, REST in usp/usphttp) call the same methods of
// Business and only parse arguments and render results and errors; every
// protocol rule lives here. In UCP-Native Mode (ucp.go) the same business
// publishes /.well-known/ucp instead, and a service paid in full when
// booking is booked through the UCP checkout of ucp_checkout.go, whose
// REST routes usp/usphttp mounts under UCPPath.
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
// # Holds and bookings on the reservation core
//
// A hold (§4.2) is a reservation of the core with source usp:<platform>
// in the desk's tentative state hold, taking its units through the
// reservation desk like chat, the booking form and staff, so no door
// sells what another holds. A hold awaits no one: it is never listed as
// awaiting staff, and the desk refuses every staff decision on it; it
// ends by its expiry, by the platform's release, or by the platform
// converting it. Its id is "hold_" and the reservation's reference;
// it lasts HoldTTL. The booking it becomes is the same reservation, so a
// conversion is the desk's Convert, one conditional write of that row
// (§4.2.1: atomic, and a converted hold replayed answers its booking). A
// booking without a hold is a new reserved reservation. A booking's id is the reservation
// reference, the one staff screens and `frontdesk staff` show. What USP
// keeps of its own (service, slot, spots, buyer, hold deadline, how a hold
// ended) is the reservation's Detail.
//
// Booking statuses (§5.1) from the core's states:
//
//	reserved   (units held, awaiting staff)  pending
//	requested  (holds nothing; not used)     pending
//	confirmed                                confirmed
//	completed                                completed
//	no-show                                  no_show
//	cancelled, declined, moved               canceled (with a cancellation)
//
// A unit's confirmation_mode (config) is its service's: an auto booking
// is stored confirmed by the write that creates it (or converts its
// hold), a manual one reserved until staff decide; the booking records
// its mode when made. A booking of a service that takes money when
// booking (Standalone Mode) is stored reserved with its payment pending
// and reads requires_action until paid (payment.go); in_progress is not
// tracked. Confirm from pending is refused (invalid_transition) for an
// auto booking, as flow vector 105 asks, and from requires_action always. The operations follow §5.1.1: confirm from pending (and, as a
// no-op, from confirmed), cancel from pending, requires_action or
// confirmed, reschedule from pending or confirmed (not requires_action),
// confirm-payment from requires_action, update until the booking ends; anything else
// is the business outcome invalid_transition in messages[]. A pending
// booking holds its units, so it carries expires_at, the slot's start:
// one still pending then is cancelled by the system and its units freed.
// Hold expiry and booking expiry happen when a read finds them passed and
// in Expire, which serve runs every minute. Staff see a hold in state
// hold, with a note that it is not a booking yet, and no action on it.
//
// A reschedule releases the old units and takes the new ones in one
// store.Apply, so either the booking moves or it stays where it was.
// Writes are guarded by revision (the row version, "v<n>") through
// If-Match / _meta.usp.if_match, and by idempotency keys kept
// IdempotencyKeep in the store, per caller.
//
// # Access levels
//
// Every method carries its x-usp-access level. Public methods (catalog,
// availability query) need no credentials; privileged ones go through the
// Authenticator before they run, and a platform principal is then bound to
// the profile URI it presents, trust on first use (Bindings). Mechanisms
// compose in a Chain: APIKeys (api_key, for platforms registered in the
// config, keys stored hashed) and StaffSessions (the business's own staff,
// for the business-only usp_bookings_confirm) live here, with
// BookingCredentials (booking_scoped_credential, issued with every
// platform-created booking and checked first so a key-bound one is never
// a bearer token), KeyProofs (platform_key_pop: the proof key's thumbprint
// is the platform "key-<jkt>") and RequestSignatures
// (http_message_signature on REST, keys from the caller's profile, the
// profile's host as the platform). Without an authenticator, only the
// public methods are served and advertised.
//
// # Platform profiles, outbound connections and deadlines
//
// Profiles fetches the profile a caller names (or reads the owner's pin
// of it, PinProfile, and never fetches), keeps it for its caching headers
// and serves it stale, within a bound, while its host is down. Every
// outbound connection (profile fetches, webhooks, feed callbacks) obeys
// outbound.Rule on the URL's host and on the address dialled: public unicast
// only, loopback too in development. A principal is bound to its profile
// URI only by a call that passed every check, its arguments and its
// write included (admit). The bindings run
// each call through Within, which answers by the deadline whatever the
// store does: a finished call with its result, an unfinished one and a
// store outage (store.Outages) as service_unavailable with Retry-After.
//
// # Webhooks
//
// The door subscribes to the reservation desk's transitions (events.go):
// every transition of a platform's booking queues its event in the
// webhook outbox in the same write (a reschedule announces itself), and
// every terminal one deletes the booking's credentials in it; EventBody renders it as a BookingEvent with the
// booking as it was after the change, skipping holds, and WebhookURL finds
// where it goes. usp/webhook delivers it signed.
//
// # Catalog feed
//
// The catalog comes from the config, so it changes between starts only:
// SyncCatalog records a digest of every service at each start, dating new
// and changed services then and keeping removed ones as deleted, and
// queues the catalog events of feed subscriptions in the same write. The
// feed reads that record. Subscriptions are read, paused, resumed and
// cancelled on both bindings; the MCP names of those four come from the
// newer OpenRPC document, as the snapshot's has only subscribe. All five
// belong to the capability dev.usp-protocol.services.catalog.subscriptions
// (§3.12.2), which extends the catalog and is negotiated with it. An
// unknown subscription id is subscription_not_found (404), a code §9.4.3
// does not register.
//
// # Waitlist
//
// The waitlist extension (§11.1, waitlist.go) keeps one queue per slot as
// store records keyed by slot and order of joining. A freed place is
// offered to the first in line as a hold of the core for OfferTTL, the
// entry's change riding in the hold's write; accepting converts that hold
// (convert), with the entry's change in the same write. Offers are made
// right after a USP cancellation or release and by Expire's pass for
// places any door freed. Entry changes queue their WaitlistEvent webhooks
// in the same write (webhook.Queue).
//
// # Where this differs from the schemas
//
// A failed booking creation (slot_unavailable, hold_expired,
// capacity_exceeded, booking_window_violated), and a waitlist join that
// makes no entry (slot_available, waitlist_full), answer the usp object
// and messages[] with no booking or entry, as the binding's business-outcome example
// does, although the create result schemas require booking; on REST it is
// 200, and a created booking 201. Severity unrecoverable is left out of
// messages, which the snapshot's Message schema does not accept. An
// unknown hold on release is booking_not_found (404): a hold is the first
// stage of a booking, and no hold code exists.
//
// It is a domain package: it imports config, inventory, pricing, the
// reservation core (reservation, booking, store), its own subpackages
// (pop, credential, keyset, webhook) and internal helpers, never an
// adapter.
package usp
