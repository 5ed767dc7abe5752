// Package payment is the money frontdesk takes itself: the provider
// interface a payment service implements (hosted checkout pages,
// refunds, signed webhook events; Stripe's is payment/stripe), and the
// ledger of write-ahead payment records that are the truth of every
// charge and refund. A record is written before the provider is asked,
// so a crash between the two leaves a record the sweep can finish, and
// each provider event is applied once, by its id, in the same
// transaction as the change it makes. Amounts are int64 minor units of
// the business currency. No card data reaches frontdesk: the guest pays
// on the provider's hosted page, and the records hold amounts, dates,
// states and the provider's ids, never a name, email or card.
//
// It is a domain package: it imports the store contracts and helpers.
package payment
