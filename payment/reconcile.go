package payment

// ReasonNoBooking is the reason of the refund of money taken without a
// booking to pay for, once per payment.
const ReasonNoBooking = "no-booking"
