package payment

import "frontdesk/forget"

// RecordKinds are the registrations of the ledger's kinds. A payment
// holds what accounting needs (the reservation number, amounts,
// currency, dates, the provider's ids) and never a guest's name,
// address or card: forgetting a guest redacts the reservation and
// leaves these records as they are.
func RecordKinds() []forget.Kind {
	return []forget.Kind{
		{Name: kindPayment, Keeps: "a payment and its refunds: reservation number, amounts, dates, the provider's ids, and the staff login and reason of a manual refund or waiver; no guest's data", Forget: forget.Nothing},
		{Name: kindEvent, Keeps: "the id of a provider event already applied, so a replay changes nothing", Forget: forget.Nothing},
		{Name: kindLatest, Keeps: "a reservation number's latest payment id", Forget: forget.Nothing},
	}
}
