package orp

import (
	"net/http"

	"frontdesk/internal/fault"
)

// Code is an ORP error code (§16).
type Code = fault.Code

// The error codes of §16.
const (
	InvalidMessage       fault.Code = "invalid_message"
	UnsupportedVersion   fault.Code = "unsupported_version"
	UnsupportedType      fault.Code = "unsupported_type"
	UnsupportedExtension fault.Code = "unsupported_extension"
	Stale                fault.Code = "stale"
	Unauthorized         fault.Code = "unauthorized"
	BadSignature         fault.Code = "bad_signature"
	Forbidden            fault.Code = "forbidden"
	StepOff              fault.Code = "step_off"
	BrandRule            fault.Code = "brand_rule"
	NotFound             fault.Code = "not_found"
	StateConflict        fault.Code = "state_conflict"
	TermsMismatch        fault.Code = "terms_mismatch"
	Replay               fault.Code = "replay"
	ChainBroken          fault.Code = "chain_broken"
	RateLimited          fault.Code = "rate_limited"
	Internal             fault.Code = "internal"
	// UnknownType is ORP 0.4's answer to a type the host does not
	// implement, such as attest where attestation is off (§20.7).
	UnknownType fault.Code = "unknown_type"
	// ClickPending is this host's extension code (§16 allows them) for a
	// provider event whose click id no stored click carries yet: the
	// provider should send it again. Receivers treat an unknown code as
	// internal for retry purposes, so it is retryable everywhere.
	ClickPending fault.Code = "dev.frontdesk.click-pending"
)

// clickPendingRetry is the Retry-After, in seconds, of ClickPending.
const clickPendingRetry = 5

// Status is the HTTP status of §16 for a code.
func Status(c Code) int {
	switch c {
	case InvalidMessage, UnsupportedVersion, UnsupportedType, UnsupportedExtension, Stale, UnknownType:
		return http.StatusBadRequest
	case Unauthorized, BadSignature:
		return http.StatusUnauthorized
	case Forbidden, StepOff, BrandRule:
		return http.StatusForbidden
	case NotFound:
		return http.StatusNotFound
	case StateConflict, TermsMismatch, Replay, ChainBroken:
		return http.StatusConflict
	case RateLimited:
		return http.StatusTooManyRequests
	case ClickPending:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

// Error is a refusal, the module's one error type (internal/fault).
// Message is safe to show any agent; Err is the cause, for logs only.
// Field is the JSON Pointer of an invalid_message, RetryAfter the seconds
// of a rate_limited, and Values the step of a step_off or the versions
// of an unsupported_version.
type Error = fault.Error

// orpCode reports whether c is one of this host's codes, so a refusal is
// found in a chain that holds another domain's error too.
func orpCode(c Code) bool {
	switch c {
	case InvalidMessage, UnsupportedVersion, UnsupportedType, UnsupportedExtension, Stale, Unauthorized, BadSignature,
		Forbidden, StepOff, BrandRule, NotFound, StateConflict, TermsMismatch, Replay, ChainBroken, RateLimited,
		Internal, UnknownType, ClickPending:
		return true
	}
	return false
}

func refuse(c Code, msg string) *Error { return &Error{Code: c, Message: msg} }

func invalid(field, msg string) *Error {
	return &Error{Code: InvalidMessage, Field: field, Message: msg}
}

// Refusal returns the host's refusal in err's chain, if there is one;
// another domain's error is not one.
func Refusal(err error) (*Error, bool) { return fault.Find(err, orpCode) }

// AsError returns err as an *Error, wording anything else as internal.
func AsError(err error) *Error {
	if e, ok := fault.Find(err, orpCode); ok {
		return e
	}
	return &Error{Code: Internal, Message: "The host failed. Retry with the same id.", Err: err}
}

// retryable says whether sending the same message again may succeed.
func retryable(e *Error) bool {
	return e.Code == RateLimited || e.Code == Internal || e.Code == Stale || e.Code == ClickPending
}
