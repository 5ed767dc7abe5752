package usp

import (
	"fmt"
	"net/http"
	"strings"

	"frontdesk/internal/fault"
)

// Version is the USP protocol version this business implements.
const Version = "2026-08-20"

// Capability is a reverse-domain USP capability name.
type Capability string

// The capabilities this business implements.
const (
	CapabilityCatalog      Capability = "dev.usp-protocol.services.catalog"
	CapabilityAvailability Capability = "dev.usp-protocol.services.availability"
	CapabilityBookings     Capability = "dev.usp-protocol.services.bookings"
	// CapabilitySubscriptions covers the feed subscription operations
	// (§3.12.2: a business that supports them SHOULD declare it). It
	// extends the catalog: negotiated only when the catalog is shared too.
	CapabilitySubscriptions Capability = "dev.usp-protocol.services.catalog.subscriptions"
)

// Access is a method's x-usp-access level (§10.1.6).
type Access string

// Access levels. Public methods need no credentials; the others need a
// mechanism of the business's AuthorizationPolicy, and BusinessOnly a
// staff credential, never a platform's.
const (
	Public             Access = "public"
	PrivilegedPlatform Access = "privileged_platform"
	PrivilegedScoped   Access = "privileged_scoped"
	BusinessOnly       Access = "business_only"
)

// Method is one USP operation as both bindings name it.
type Method struct {
	Name       string // MCP tool name, such as "usp_services_list"
	HTTPMethod string // REST method
	Path       string // REST path under the binding's base, in ServeMux syntax
	Capability Capability
	Access     Access
}

// Methods lists the operations this business serves, in the order the
// bindings register them. Nothing else is advertised.
func Methods() []Method {
	return []Method{
		{Name: "usp_services_list", HTTPMethod: http.MethodPost, Path: "/services/list", Capability: CapabilityCatalog, Access: Public},
		{Name: "usp_services_get", HTTPMethod: http.MethodGet, Path: "/services/{service_id}", Capability: CapabilityCatalog, Access: Public},
		{Name: "usp_services_lookup", HTTPMethod: http.MethodPost, Path: "/services/lookup", Capability: CapabilityCatalog, Access: Public},
		{Name: "usp_services_feed", HTTPMethod: http.MethodGet, Path: "/services/feed", Capability: CapabilityCatalog, Access: Public},
		{Name: "usp_services_feed_subscribe", HTTPMethod: http.MethodPost, Path: "/services/feed/subscriptions", Capability: CapabilitySubscriptions, Access: PrivilegedPlatform},
		{Name: "usp_services_feed_subscription_get", HTTPMethod: http.MethodGet, Path: "/services/feed/subscriptions/{subscription_id}", Capability: CapabilitySubscriptions, Access: PrivilegedPlatform},
		{Name: "usp_services_feed_unsubscribe", HTTPMethod: http.MethodDelete, Path: "/services/feed/subscriptions/{subscription_id}", Capability: CapabilitySubscriptions, Access: PrivilegedPlatform},
		{Name: "usp_services_feed_subscription_pause", HTTPMethod: http.MethodPost, Path: "/services/feed/subscriptions/{subscription_id}/pause", Capability: CapabilitySubscriptions, Access: PrivilegedPlatform},
		{Name: "usp_services_feed_subscription_resume", HTTPMethod: http.MethodPost, Path: "/services/feed/subscriptions/{subscription_id}/resume", Capability: CapabilitySubscriptions, Access: PrivilegedPlatform},
		{Name: "usp_availability_query", HTTPMethod: http.MethodPost, Path: "/availability/query", Capability: CapabilityAvailability, Access: Public},
		{Name: "usp_availability_hold", HTTPMethod: http.MethodPost, Path: "/availability/holds", Capability: CapabilityAvailability, Access: PrivilegedPlatform},
		{Name: "usp_availability_release", HTTPMethod: http.MethodDelete, Path: "/availability/holds/{hold_id}", Capability: CapabilityAvailability, Access: PrivilegedScoped},
		{Name: "usp_bookings_create", HTTPMethod: http.MethodPost, Path: "/bookings", Capability: CapabilityBookings, Access: PrivilegedPlatform},
		{Name: "usp_bookings_get", HTTPMethod: http.MethodGet, Path: "/bookings/{booking_id}", Capability: CapabilityBookings, Access: PrivilegedScoped},
		{Name: "usp_bookings_update", HTTPMethod: http.MethodPut, Path: "/bookings/{booking_id}", Capability: CapabilityBookings, Access: PrivilegedScoped},
		// Confirmation is the business's own decision (§5.3.4): staff
		// only, never a platform's credentials.
		{Name: "usp_bookings_confirm", HTTPMethod: http.MethodPost, Path: "/bookings/{booking_id}/confirm", Capability: CapabilityBookings, Access: BusinessOnly},
		{Name: "usp_bookings_cancel", HTTPMethod: http.MethodPost, Path: "/bookings/{booking_id}/cancel", Capability: CapabilityBookings, Access: PrivilegedScoped},
		{Name: "usp_bookings_reschedule", HTTPMethod: http.MethodPost, Path: "/bookings/{booking_id}/reschedule", Capability: CapabilityBookings, Access: PrivilegedScoped},
		// A platform's checkout reports a booking's payment (payment.go).
		{Name: "usp_bookings_confirm_payment", HTTPMethod: http.MethodPost, Path: "/bookings/{booking_id}/confirm-payment", Capability: CapabilityBookings, Access: PrivilegedScoped},
		{Name: "usp_waitlist_join", HTTPMethod: http.MethodPost, Path: "/waitlist", Capability: CapabilityWaitlist, Access: PrivilegedPlatform},
		{Name: "usp_waitlist_list", HTTPMethod: http.MethodPost, Path: "/waitlist/list", Capability: CapabilityWaitlist, Access: PrivilegedPlatform},
		{Name: "usp_waitlist_get", HTTPMethod: http.MethodGet, Path: "/waitlist/{entry_id}", Capability: CapabilityWaitlist, Access: PrivilegedScoped},
		{Name: "usp_waitlist_leave", HTTPMethod: http.MethodDelete, Path: "/waitlist/{entry_id}", Capability: CapabilityWaitlist, Access: PrivilegedScoped},
		{Name: "usp_waitlist_accept", HTTPMethod: http.MethodPost, Path: "/waitlist/{entry_id}/accept", Capability: CapabilityWaitlist, Access: PrivilegedScoped},
		{Name: "usp_waitlist_decline", HTTPMethod: http.MethodPost, Path: "/waitlist/{entry_id}/decline", Capability: CapabilityWaitlist, Access: PrivilegedScoped},
	}
}

// Served lists the methods this business serves: the public ones always,
// the privileged ones when it can authenticate callers and keep
// reservations. The bindings register exactly these, and the profile
// advertises their capabilities.
func (b *Business) Served() []Method {
	var out []Method
	for _, m := range Methods() {
		if m.Access == Public || b.privileged() {
			out = append(out, m)
		}
	}
	return out
}

func (b *Business) privileged() bool { return b.auth != nil && b.st != nil && b.bookings != nil }

// MethodNamed returns the method with the given MCP name.
func MethodNamed(name string) (Method, bool) {
	for _, m := range append(Methods(), UCPMethods()...) {
		if m.Name == name {
			return m, true
		}
	}
	return Method{}, false
}

// Meta is the usp object of every response: the version in use and the
// negotiated capabilities relevant to the operation.
type Meta struct {
	Version      string                             `json:"version"`
	Capabilities map[Capability][]CapabilityVersion `json:"capabilities,omitempty"`
}

// CapabilityVersion is one negotiated capability version.
type CapabilityVersion struct {
	Version string `json:"version"`
}

// Message is one entry of a response's messages[] (§9.4).
type Message struct {
	Type     string `json:"type"` // "error", "warning" or "info"
	Code     string `json:"code,omitempty"`
	Content  string `json:"content"`
	Severity string `json:"severity,omitempty"`
	Path     string `json:"path,omitempty"`
}

// Pagination is the cursor state of a list response (§9.1.2). Cursor is
// nil on the last page.
type Pagination struct {
	Cursor  *string `json:"cursor"`
	HasMore bool    `json:"has_more"`
}

// Call is what a caller says about itself on every request: the platform
// profile URI (_meta.usp.profile or the USP-Agent header), the optional
// correlation id and the credentials it presented.
type Call struct {
	Profile       string
	CorrelationID string
	Credentials   Credentials
	// IdempotencyKey is the Idempotency-Key header or
	// _meta.usp.idempotency_key of a state-changing call (§9.1.1).
	IdempotencyKey string
	// IfMatch is the If-Match header or _meta.usp.if_match: the
	// revision a booking write expects (§5.6).
	IfMatch string
}

// Code is a USP protocol error code (§9.4.3).
type Code = fault.Code

// Protocol error codes this business returns.
const (
	CodeInvalidRequest         fault.Code = "invalid_request"
	CodeValidation             fault.Code = "validation_error"
	CodeInvalidProfileURL      fault.Code = "invalid_profile_url"
	CodeProfileUnreachable     fault.Code = "profile_unreachable"
	CodeProfileMalformed       fault.Code = "profile_malformed"
	CodeAuthenticationRequired fault.Code = "authentication_required"
	CodeRangeTooWide           fault.Code = "range_too_wide"
	CodeVersionUnsupported     fault.Code = "version_unsupported"
	CodeServiceUnavailable     fault.Code = "service_unavailable"
	CodeServerError            fault.Code = "server_error"
	CodeServiceNotFound        fault.Code = "service_not_found"
	CodeProfileNotTrusted      fault.Code = "profile_not_trusted"
	CodeBookingNotFound        fault.Code = "booking_not_found"
	CodeIdempotencyConflict    fault.Code = "idempotency_conflict"
	CodeRevisionMismatch       fault.Code = "revision_mismatch"
)

// wire is a protocol error's REST status and JSON-RPC number (§9.4.3).
type wire struct {
	status int
	rpc    int64
}

var wires = map[Code]wire{
	CodeInvalidRequest:         {http.StatusBadRequest, -32600},
	CodeValidation:             {http.StatusUnprocessableEntity, -32602},
	CodeInvalidProfileURL:      {http.StatusBadRequest, -32602},
	CodeProfileUnreachable:     {http.StatusFailedDependency, -32003},
	CodeProfileMalformed:       {http.StatusUnprocessableEntity, -32004},
	CodeAuthenticationRequired: {http.StatusUnauthorized, -32006},
	CodeRangeTooWide:           {http.StatusBadRequest, -32602},
	CodeVersionUnsupported:     {http.StatusBadRequest, -32008},
	CodeServiceUnavailable:     {http.StatusServiceUnavailable, -32009},
	CodeServerError:            {http.StatusInternalServerError, -32603},
	// A service named in the path that does not exist: 404, the same
	// bucket as booking_not_found.
	CodeServiceNotFound:      {http.StatusNotFound, -32602},
	CodeProfileNotTrusted:    {http.StatusForbidden, -32005},
	CodeBookingNotFound:      {http.StatusNotFound, -32602},
	CodeIdempotencyConflict:  {http.StatusConflict, -32602},
	CodeRevisionMismatch:     {http.StatusPreconditionFailed, -32002},
	CodeSubscriptionNotFound: {http.StatusNotFound, -32602},
	CodeEntryNotFound:        {http.StatusNotFound, -32602},
	// Signature and proof-of-possession failures (§9.4.3, §10.1.1).
	"signature_missing":     {http.StatusUnauthorized, -32006},
	"signature_invalid":     {http.StatusUnauthorized, -32006},
	"signature_expired":     {http.StatusUnauthorized, -32006},
	"key_not_found":         {http.StatusUnauthorized, -32006},
	"digest_mismatch":       {http.StatusBadRequest, -32600},
	"algorithm_unsupported": {http.StatusBadRequest, -32600},
	"pop_proof_missing":     {http.StatusUnauthorized, -32001},
	"pop_proof_invalid":     {http.StatusUnauthorized, -32001},
	"pop_key_mismatch":      {http.StatusUnauthorized, -32001},
	"pop_proof_replayed":    {http.StatusUnauthorized, -32001},
	"proof_nonce_required":  {http.StatusUnauthorized, -32001},
}

// uspCode reports whether c is one of this protocol's codes (the proof
// and credential refusals of usp/pop and usp/credential among them), so
// AsError finds the protocol's error in a chain that holds another
// domain's too.
func uspCode(c Code) bool {
	_, ok := wires[c]
	return ok
}

// HTTPStatus is the REST status of the code.
func HTTPStatus(c Code) int {
	if w, ok := wires[c]; ok {
		return w.status
	}
	return http.StatusInternalServerError
}

// RPCCode is the JSON-RPC error number of the code; data.code carries the
// code itself.
func RPCCode(c Code) int64 {
	if w, ok := wires[c]; ok {
		return w.rpc
	}
	return -32603
}

// ProblemType is the RFC 9457 type URI of the code.
func ProblemType(c Code) string {
	return "https://usp-protocol.dev/errors/" + strings.ReplaceAll(string(c), "_", "-")
}

// Error is a protocol error, the module's one error type
// (internal/fault): the request could not be processed. Message is safe
// to show the caller; Err is the cause, for logs. RetryAfter, in seconds,
// is set with service_unavailable (Retry-After over REST); with
// proof_nonce_required, Values holds the nonce a fresh proof must carry
// (data.nonce over MCP, DPoP-Nonce over REST).
type Error = fault.Error

// Nonce is the nonce a proof_nonce_required refusal asks for, or "".
func Nonce(e *Error) string {
	if e.Code != "proof_nonce_required" {
		return ""
	}
	return e.Value(0)
}

func fail(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// AsError returns err as a protocol error. Anything that is not one is an
// internal fault, worded as server_error without detail.
func AsError(err error) (e *Error, internal bool) {
	if e, ok := fault.Find(err, uspCode); ok {
		return e, e.Code == CodeServerError
	}
	return &Error{Code: CodeServerError, Message: "The business could not process the request.", Err: err}, true
}
