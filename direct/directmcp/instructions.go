package directmcp

import "fmt"

// hubInstructions tell an assistant how the hub's tools fit together.
func hubInstructions(business string, confirmHours int, booking bool) string {
	s := fmt.Sprintf(`The booking desk of %s. To find and price a stay: list_properties, then find_rooms for the dates, then quote_stay for one room type; property_info gives phones, hours and rooms. Nothing is held until a booking is confirmed.`, business)
	if !booking {
		return s
	}
	return s + fmt.Sprintf(`
To book: call start_booking with the property, room type, dates and the guest's name, email and phone. The server emails the guest a six-digit code and returns a booking_id. Ask the guest for the code from that email (never guess or reuse one), then call confirm_booking with the booking_id and the code. Staff confirm the reservation in writing within %d hours; no payment is taken. To resend the code, call start_booking with only the booking_id.
To check a reservation: get_booking with the reservation number and the last four digits of the contact phone. To cancel: cancel_booking with the same two values, which emails a code; then cancel_booking with the cancel_id and that code.
When a tool refuses, show the guest its sentence as it is. When it ends with a booking-form link or a phone number, give the guest that link or number: it is how they can still book or get help. Change the details and retry only when the refusal asks for a corrected value. "Chat booking is briefly paused" means a limit was reached: offer the form link or phone rather than retrying.`, confirmHours)
}

// locationInstructions tell an assistant what a property's own server is
// for and where booking happens.
func locationInstructions(name, hubURL string) string {
	return fmt.Sprintf(`Read-only server of %s: find_rooms shows which room types are free for the dates, quote_stay prices one, property_info gives the phone, hours and rooms. Nothing is held. Booking tools are on the business's main server at %s, or the guest can call the phone from property_info.`, name, hubURL)
}
