package chatdoor

import (
	"frontdesk/direct"
	"frontdesk/internal/fault"
)

// The codes of the door's own field checks, in the catalogue's order;
// the core's answers carry direct's codes.
const (
	CodeNotObject    fault.Code = "not_object"     // the arguments are not an object
	CodeUnknownField fault.Code = "unknown_field"  // Values: the field, the fields allowed
	CodeResendOnly   fault.Code = "resend_only"    // a resend named another field; Values[0] is it
	CodeCancelFields fault.Code = "cancel_fields"  // a cancellation mixed its two steps' fields
	CodeBadProperty  fault.Code = "bad_property"   // property is not text of the right length
	CodeNoProperty   fault.Code = "no_property"    // no one property matches; Values[0] lists them
	CodeBadRoomType  fault.Code = "bad_roomtype"   // Values[0] lists the room types
	CodeBadCheckin   fault.Code = "bad_checkin"    // not a real date
	CodeBadCheckout  fault.Code = "bad_checkout"   // not a real date after checkin
	CodeBadName      fault.Code = "bad_name"       // guest_name missing or too long
	CodeBadEmail     fault.Code = "bad_email"      // not an address
	CodeBadPhone     fault.Code = "bad_phone"      // not a phone number
	CodeBadNotes     fault.Code = "bad_notes"      // notes not text or too long
	CodeBadGuests    fault.Code = "bad_guests"     // not a whole count; Values[0] is the most
	CodeGuestRange   fault.Code = "guest_range"    // outside the form's range; Values[0] is the most
	CodeBadBookingID fault.Code = "bad_booking_id" // not a booking_id start_booking returned
	CodeBadCancelID  fault.Code = "bad_cancel_id"  // not a cancel_id cancel_booking returned
	CodeBadCode      fault.Code = "bad_code"       // not six digits
	CodeBadReference fault.Code = "bad_reference"  // Values[0] lists the reference prefixes
	CodeBadLast4     fault.Code = "bad_last4"      // not four digits
)

// chatCode reports whether c is one of the door's own codes.
func chatCode(c fault.Code) bool {
	switch c {
	case CodeNotObject, CodeUnknownField, CodeResendOnly, CodeCancelFields, CodeBadProperty, CodeNoProperty,
		CodeBadRoomType, CodeBadCheckin, CodeBadCheckout, CodeBadName, CodeBadEmail, CodeBadPhone, CodeBadNotes,
		CodeBadGuests, CodeGuestRange, CodeBadBookingID, CodeBadCancelID, CodeBadCode, CodeBadReference, CodeBadLast4:
		return true
	}
	return false
}

// AsError returns the door's answer in err's chain: a refusal of its
// field checks or of the booking core, each worded by the door.
func AsError(err error) (*direct.Error, bool) {
	return fault.Find(err, func(c fault.Code) bool { return chatCode(c) || direct.IsCode(c) })
}
