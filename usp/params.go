package usp

import (
	"github.com/google/jsonschema-go/jsonschema"
)

func openObject(props map[string]*jsonschema.Schema, required ...string) *jsonschema.Schema {
	if required == nil {
		required = []string{}
	}
	return &jsonschema.Schema{Type: "object", Properties: props, Required: required}
}

// InputSchema is the JSON Schema of a method's parameters, as the MCP
// binding's tool takes them: every parameter of the method in the OpenRPC
// document, with _meta.usp.
func InputSchema(name string) *jsonschema.Schema {
	text := func(d string) *jsonschema.Schema { return &jsonschema.Schema{Type: "string", Description: d} }
	integer := func(d string) *jsonschema.Schema { return &jsonschema.Schema{Type: "integer", Description: d} }
	metaArg := openObject(map[string]*jsonschema.Schema{
		"usp": openObject(map[string]*jsonschema.Schema{
			"profile":         {Type: "string", Format: "uri", Description: "The platform's profile URI (https), for capability negotiation."},
			"correlation_id":  text("Optional join id, echoed in the result's _meta.usp."),
			"idempotency_key": {Type: "string", Format: "uuid", Description: "For state-changing tools: a UUID; a retry with the same key and arguments answers the first result."},
			"if_match":        text("For booking writes: the revision the booking must still have."),
			"authorization":   openObject(map[string]*jsonschema.Schema{"mechanism": text("An accepted mechanism, such as api_key."), "credential": text("The credential, when not sent on the HTTP Authorization header.")}, "mechanism"),
		}),
	})
	props := map[string]*jsonschema.Schema{"_meta": metaArg}
	number := func(d string) *jsonschema.Schema { return &jsonschema.Schema{Type: "number", Description: d} }
	buyerContext := &jsonschema.Schema{Type: "object", Description: "Buyer locale and intent signals; validated, and not used for ranking by this business.", Properties: map[string]*jsonschema.Schema{
		"address_country": text("ISO 3166-1 alpha-2 country, such as US."),
		"address_region":  text("Region within the country."),
		"postal_code":     text("Postal code."),
		"coordinates": openObject(map[string]*jsonschema.Schema{
			"latitude":  {Type: "number", Minimum: new(-90.0), Maximum: new(90.0), Description: "WGS 84 latitude."},
			"longitude": {Type: "number", Minimum: new(-180.0), Maximum: new(180.0), Description: "WGS 84 longitude."},
		}, "latitude", "longitude"),
		"language": text("BCP 47 language tag, such as en or fr-CA."),
		"currency": text("ISO 4217 currency, such as USD."),
		"intent":   text("Free-text buyer intent."),
	}}
	var required []string
	switch name {
	case "usp_services_list":
		props["query"] = text("Free-text search across names, descriptions and categories.")
		props["filters"] = openObject(map[string]*jsonschema.Schema{
			"type": text("Service vertical: appointment, group or reservation."), "category_id": text("Category id: lodging or timed."),
			"categories":  {Type: "array", Items: text("Category id.")},
			"location_id": text("Location id (the property slug)."),
			"price":       openObject(map[string]*jsonschema.Schema{"min": integer("Minimum price in minor units."), "max": integer("Maximum price in minor units.")}),
		})
		props["pagination"] = openObject(map[string]*jsonschema.Schema{"limit": integer("Page size, default 20, at most 100."), "cursor": {Types: []string{"string", "null"}}})
		props["context"] = buyerContext
	case "usp_services_get":
		props["service_id"] = text("The service id.")
		required = []string{"service_id"}
	case "usp_services_lookup":
		props["ids"] = &jsonschema.Schema{Type: "array", Items: text("A service id.")}
		props["context"] = buyerContext
		required = []string{"ids"}
	case "usp_services_feed_subscription_get", "usp_services_feed_unsubscribe", "usp_services_feed_subscription_pause", "usp_services_feed_subscription_resume":
		props["subscription_id"] = text("The subscription's id, from usp_services_feed_subscribe.")
		required = []string{"subscription_id"}
	case "usp_services_feed_subscribe":
		props["callback_url"] = text("The https URL catalog events are POSTed to.")
		props["categories"] = &jsonschema.Schema{Type: "array", Items: text("A category id: lodging or timed.")}
		props["events"] = &jsonschema.Schema{Type: "array", Items: text("service.created, service.updated, service.deleted or service.suspended.")}
		required = []string{"callback_url"}
	case "usp_services_feed":
		props["cursor"] = text("The pagination.next_cursor of the previous page; omit for the first.")
		props["limit"] = integer("Page size, default 50, at most 200.")
		props["location_id"] = text("Only this location's services (the property slug).")
	case "usp_availability_query":
		props["service_id"] = text("The service to query.")
		props["start_date"] = text("Start of range: RFC 3339 date or date-time.")
		props["end_date"] = text("End of range: RFC 3339 date (inclusive) or date-time (exclusive).")
		props["timezone"] = text("IANA time zone for dates and answers; default the location's.")
		props["resource_id"] = text("Only slots of this resource.")
		props["party_size"] = integer("Places needed; default 1.")
		props["location_id"] = text("Only slots at this location.")
		props["locale"] = text("BCP 47 language tag.")
		props["cursor"] = text("Cursor from the previous page.")
		props["limit"] = integer("Page size, default 50, at most 500.")
		required = []string{"service_id", "start_date", "end_date"}
	case "usp_availability_hold":
		props["service_id"] = text("The service.")
		props["slot_id"] = text("The slot to hold, from usp_availability_query.")
		props["spots"] = integer("Places or rooms to hold; default 1.")
		required = []string{"slot_id", "service_id"}
	case "usp_availability_release":
		props["hold_id"] = text("The hold to release.")
		required = []string{"hold_id"}
	case "usp_bookings_create":
		buyer := openObject(map[string]*jsonschema.Schema{"first_name": text("First name."), "last_name": text("Last name."), "email": text("Email address."), "phone_number": text("Phone number, E.164.")}, "first_name", "last_name", "email")
		props["service_id"] = text("The service to book.")
		props["slot_id"] = text("The slot, from usp_availability_query.")
		props["hold_id"] = text("A hold of this slot to convert.")
		props["buyer"] = buyer
		props["recipient"] = openObject(buyer.Properties)
		props["party_size"] = integer("Places or rooms; default 1.")
		props["resource_id"] = text("The slot's resource, when given.")
		props["notes"] = text("Notes for the business.")
		props["delivery_address"] = openObject(map[string]*jsonschema.Schema{
			"line1": text("Street address."), "line2": text("Apartment, suite, floor."), "city": text("City."),
			"region": text("State or region."), "postal_code": text("Postal code."), "country": text("ISO 3166-1 alpha-2 country."),
			"coordinates": openObject(map[string]*jsonschema.Schema{"lat": number("Latitude."), "lng": number("Longitude.")}),
		}, "line1", "city", "country")
		props["delivery_address"].Description = "The buyer's address; no service here travels to the buyer, so it is only echoed on the booking."
		props["post_payment_return_request"] = openObject(map[string]*jsonschema.Schema{
			"url":    {Type: "string", Format: "uri", Description: "The https URL a redirect checkout returns the buyer to."},
			"params": {Type: "object", AdditionalProperties: text("A query parameter value.")},
		}, "url")
		props["post_payment_return_request"].Description = "For redirect checkouts; this business takes no payment, so it is validated and unused."
		required = []string{"service_id", "slot_id", "buyer"}
	case "usp_bookings_get", "usp_bookings_confirm":
		props["booking_id"] = text("The booking id.")
		required = []string{"booking_id"}
	case "usp_bookings_update":
		buyer := openObject(map[string]*jsonschema.Schema{"first_name": text("First name."), "last_name": text("Last name."), "email": text("Email address."), "phone_number": text("Phone number.")})
		props["booking_id"] = text("The booking id.")
		props["buyer"] = buyer
		props["recipient"] = buyer
		props["notes"] = text("Notes for the business.")
		required = []string{"booking_id"}
	case "usp_bookings_confirm_payment":
		props["booking_id"] = text("The booking id.")
		props["payment_result"] = openObject(map[string]*jsonschema.Schema{
			"status":          {Type: "string", Enum: []any{"paid", "deposit_paid"}},
			"provider":        text("The payment provider."),
			"transaction_id":  text("The provider's transaction id."),
			"amount_paid":     {Types: []string{"integer", "string"}, Pattern: "^-?[0-9]+$", Description: "Minor units."},
			"currency":        text("ISO 4217 currency."),
			"order_reference": text("The order reference."),
		}, "status", "transaction_id", "amount_paid", "currency")
		required = []string{"booking_id", "payment_result"}
	case "usp_bookings_cancel":
		props["booking_id"] = text("The booking id.")
		props["reason"] = text("Why it is cancelled.")
		required = []string{"booking_id"}
	case "usp_waitlist_join":
		props["service_id"] = text("The service.")
		props["slot_id"] = text("The full slot to wait for; without it, any slot preferred_slots take.")
		props["buyer"] = openObject(map[string]*jsonschema.Schema{"first_name": text("First name."), "last_name": text("Last name."), "email": text("Email address."), "phone_number": text("Phone number, E.164.")}, "first_name", "last_name", "email")
		props["preferred_slots"] = &jsonschema.Schema{Type: "array", Items: openObject(map[string]*jsonschema.Schema{
			"start_date":  {Type: "string", Format: "date", Description: "RFC 3339 date (YYYY-MM-DD)."},
			"end_date":    {Type: "string", Format: "date", Description: "RFC 3339 date (YYYY-MM-DD)."},
			"time_of_day": text("morning (before 12:00), afternoon (12:00 to 17:00) or evening (from 17:00), local time."),
		})}
		required = []string{"service_id", "buyer"}
	case "usp_waitlist_list":
		props["service_id"] = text("Only entries of this service.")
		props["status"] = &jsonschema.Schema{Type: "string", Enum: []any{"waiting", "offered", "accepted", "expired", "declined", "removed"}, Description: "Only entries in this status."}
		props["pagination"] = openObject(map[string]*jsonschema.Schema{"limit": integer("Page size, default 50, at most 100."), "cursor": text("The pagination.next_cursor of the previous page.")})
	case "usp_waitlist_get", "usp_waitlist_leave", "usp_waitlist_decline":
		props["entry_id"] = text("The waitlist entry id.")
		required = []string{"entry_id"}
	case "usp_waitlist_accept":
		props["entry_id"] = text("The waitlist entry id.")
		props["hold_id"] = text("The offer's hold, if given; the offer names it.")
		required = []string{"entry_id"}
	case "usp_bookings_reschedule":
		props["booking_id"] = text("The booking id.")
		props["slot_id"] = text("The new slot.")
		props["hold_id"] = text("A hold of the new slot to use.")
		required = []string{"booking_id", "slot_id"}
	}
	return openObject(props, required...)
}
