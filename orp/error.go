package orp

import (
	"errors"
	"net/http"
)

// Code is an ORP error code (§16).
type Code string

// The error codes of §16.
const (
	InvalidMessage       Code = "invalid_message"
	UnsupportedVersion   Code = "unsupported_version"
	UnsupportedType      Code = "unsupported_type"
	UnsupportedExtension Code = "unsupported_extension"
	Stale                Code = "stale"
	Unauthorized         Code = "unauthorized"
	BadSignature         Code = "bad_signature"
	Forbidden            Code = "forbidden"
	StepOff              Code = "step_off"
	BrandRule            Code = "brand_rule"
	NotFound             Code = "not_found"
	StateConflict        Code = "state_conflict"
	TermsMismatch        Code = "terms_mismatch"
	Replay               Code = "replay"
	ChainBroken          Code = "chain_broken"
	RateLimited          Code = "rate_limited"
	Internal             Code = "internal"
	// UnknownType is ORP 0.4's answer to a type the host does not
	// implement, such as attest where attestation is off (§20.7).
	UnknownType Code = "unknown_type"
	// ClickPending is this host's extension code (§16 allows them) for a
	// provider event whose click id no stored click carries yet: the
	// provider should send it again. Receivers treat an unknown code as
	// internal for retry purposes, so it is retryable everywhere.
	ClickPending Code = "dev.frontdesk.click-pending"
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

// Error is a refusal. Message is safe to show any agent; Err is the cause,
// for logs only.
type Error struct {
	Code       Code
	Message    string
	Field      string   // JSON Pointer, for invalid_message
	Step       string   // for step_off
	Supported  []string // for unsupported_version
	RetryAfter int      // seconds, for rate_limited
	Err        error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return string(e.Code) + ": " + e.Message + ": " + e.Err.Error()
	}
	return string(e.Code) + ": " + e.Message
}

func (e *Error) Unwrap() error { return e.Err }

func refuse(c Code, msg string) *Error { return &Error{Code: c, Message: msg} }

func invalid(field, msg string) *Error {
	return &Error{Code: InvalidMessage, Field: field, Message: msg}
}

// AsError returns err as an *Error, wording anything else as internal.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: Internal, Message: "The host failed. Retry with the same id.", Err: err}
}

// retryable says whether sending the same message again may succeed.
func (e *Error) retryable() bool {
	return e.Code == RateLimited || e.Code == Internal || e.Code == Stale || e.Code == ClickPending
}
