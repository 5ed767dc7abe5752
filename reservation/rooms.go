package reservation

import (
	"frontdesk/business"
	"frontdesk/internal/civil"
	"frontdesk/pricing"
)

// The guest site's availability search and calendar: what is free for a
// stay and a party, and night by night.

// SearchRequest is the search form as typed. An empty Location searches
// every property.
type SearchRequest struct {
	Checkin, Checkout, Guests, Location string
}

// Offer is one room type that is free for the whole stay.
type Offer struct {
	Location business.Location
	Unit     business.Unit
	Free     int
	Quote    pricing.Quote
	// Total is the quote's total as people read it.
	Total string
}

// RoomSearch is the stay searched and what is free for it.
type RoomSearch struct {
	Checkin, Checkout civil.Date
	Nights, Guests    int
	Offers            []Offer
	// Full names the room types that would suit but have no unit free
	// or no price for these dates, as "Riverside Inn double".
	Full []string
	// Closed gives, by location slug, the first night of the stay a
	// closure of the business or of the property covers: none of its
	// rooms is offered then.
	Closed map[string]civil.Date
	// Unread are the properties whose free rooms could not be read just
	// now (a split hub's locations): none of their rooms is offered, and
	// none is called full.
	Unread []business.Location
}

// Availability is what is free at one property, night by night, from
// First (today at the property) for Days nights.
type Availability struct {
	First civil.Date
	Days  int
	// Free gives, per room type, the units free on each night.
	Free map[string][]int
}
