// Package staff holds the people who run the business and how they sign
// in: logins with argon2id password hashes, a role (owner or clerk) and
// the locations a clerk may see, sessions kept as hashes of random
// tokens, the CSRF token of each session, and sign-in limits claimed per
// user and per address before a password is checked.
//
// It is a domain package: it imports config, store and internal helpers,
// never an adapter. The staff screen and the command line call it.
package staff
