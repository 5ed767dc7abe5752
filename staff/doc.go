// Package staff holds the people who run the business and how they sign
// in: logins with argon2id password hashes and passkeys (WebAuthn), a
// role (owner or clerk) and the locations a clerk may see, sessions kept
// as hashes of random tokens, the CSRF token of each session, signed
// device cookies that name the logins a browser signed in with, and
// failed-sign-in budgets per login and client claimed before a password
// is checked.
//
// It is a domain package: it imports business, store, quota and internal
// helpers and go-webauthn, never an adapter. The staff screen and the
// command line call it.
package staff
