// Package channel keeps frontdesk's one inventory in step with the
// listing sites (Airbnb, Booking.com, Vrbo…) over iCalendar feeds, both
// ways.
//
// Import: each configured feed of a channel is fetched on a schedule
// (fetch.go) and parsed (parse.go) into blocks of nights; each block
// becomes a hold of one unit on the reservation desk, with source
// "ical:NAME", that every other door then cannot sell over, moved or
// released as the feed changes (sync.go). A block that finds no unit
// left is kept as a conflict: it holds the nights that have room, and
// staff are told, on the screen and by mail, with both sides named. Only
// the dates, the event's UID and the channel's name are stored; what a
// feed says of a guest is never read into a record or a log.
//
// Export: every physical unit of a night unit type has its own feed
// (export.go), at an address with an unguessable token, listing the
// nights held by every door except the blocks imported from the channel
// that feed is given to.
//
// It imports store, reservation, business and helpers; no door imports
// it except the staff screen, and it imports no door.
package channel
