package usp

// IdempotencyKind is the record kind of kept answers to idempotent
// writes (24 hours), whose bodies may name a buyer: `frontdesk forget`
// searches it.
const IdempotencyKind = kindIdempotency
