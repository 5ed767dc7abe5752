package usp

import (
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"strconv"

	"github.com/google/jsonschema-go/jsonschema"
)

// What the interface documents say of each operation's answers: the
// schema of its result, built from the very Go type the bindings encode
// (so it cannot drift), every status code frontdesk answers it with, the
// headers it reads and echoes, and the authentication schemes it takes.

// resultTypes maps each method to the type of its result.
var resultTypes = map[string]reflect.Type{
	"usp_services_list":                     reflect.TypeFor[ListResult](),
	"usp_services_get":                      reflect.TypeFor[GetResult](),
	"usp_services_lookup":                   reflect.TypeFor[LookupResult](),
	"usp_services_feed":                     reflect.TypeFor[FeedResult](),
	"usp_services_feed_subscribe":           reflect.TypeFor[SubscriptionResult](),
	"usp_services_feed_subscription_get":    reflect.TypeFor[SubscriptionResult](),
	"usp_services_feed_unsubscribe":         reflect.TypeFor[SubscriptionResult](),
	"usp_services_feed_subscription_pause":  reflect.TypeFor[SubscriptionResult](),
	"usp_services_feed_subscription_resume": reflect.TypeFor[SubscriptionResult](),
	"usp_availability_query":                reflect.TypeFor[QueryResult](),
	"usp_availability_hold":                 reflect.TypeFor[HoldResult](),
	"usp_availability_release":              reflect.TypeFor[HoldResult](),
	"usp_bookings_create":                   reflect.TypeFor[BookingResult](),
	"usp_bookings_get":                      reflect.TypeFor[BookingResult](),
	"usp_bookings_update":                   reflect.TypeFor[BookingResult](),
	"usp_bookings_confirm":                  reflect.TypeFor[BookingResult](),
	"usp_bookings_cancel":                   reflect.TypeFor[BookingResult](),
	"usp_bookings_reschedule":               reflect.TypeFor[BookingResult](),
	"usp_bookings_confirm_payment":          reflect.TypeFor[BookingResult](),
	"usp_waitlist_join":                     reflect.TypeFor[WaitlistResult](),
	"usp_waitlist_list":                     reflect.TypeFor[WaitlistListResult](),
	"usp_waitlist_get":                      reflect.TypeFor[WaitlistResult](),
	"usp_waitlist_leave":                    reflect.TypeFor[WaitlistResult](),
	"usp_waitlist_accept":                   reflect.TypeFor[WaitlistAcceptResult](),
	"usp_waitlist_decline":                  reflect.TypeFor[WaitlistResult](),
}

// resultSchema is the JSON schema of method name's result. Values whose
// shape the type does not tell (raw JSON) are left open.
func resultSchema(name string) *jsonschema.Schema {
	t, ok := resultTypes[name]
	if !ok {
		return &jsonschema.Schema{Type: "object"}
	}
	s, err := jsonschema.ForType(t, &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[json.RawMessage](): {},
		reflect.TypeFor[json.Number]():     {Type: "number"},
	}})
	if err != nil {
		panic("usp: result schema of " + name + ": " + err.Error()) // a test builds every one
	}
	return s
}

// createdBy are the methods whose new resource REST answers with 201; an
// outcome (messages[] only) is 200.
var createdBy = map[string]bool{
	"usp_bookings_create": true, "usp_availability_hold": true, "usp_services_feed_subscribe": true, "usp_waitlist_join": true,
}

// ifMatchBy are the methods that honour If-Match (412 revision_mismatch).
var ifMatchBy = map[string]bool{
	"usp_bookings_update": true, "usp_bookings_cancel": true, "usp_bookings_reschedule": true, "usp_bookings_confirm": true,
}

// errorStatuses are the problem statuses method m can answer, and the
// codes each carries.
func errorStatuses(m Method) map[int][]Code {
	out := map[int][]Code{}
	add := func(codes ...Code) {
		for _, c := range codes {
			s := HTTPStatus(c)
			if !slices.Contains(out[s], c) {
				out[s] = append(out[s], c)
			}
		}
	}
	add(CodeInvalidRequest, CodeValidation, CodeInvalidProfileURL, CodeProfileUnreachable, CodeProfileMalformed,
		CodeVersionUnsupported, CodeServiceUnavailable, CodeServerError)
	if m.Access != Public {
		add(CodeAuthenticationRequired, CodeProfileNotTrusted, "signature_missing", "signature_invalid", "signature_expired", "key_not_found",
			"digest_mismatch", "algorithm_unsupported", "pop_proof_missing", "pop_proof_invalid", "pop_key_mismatch", "pop_proof_replayed", "proof_nonce_required")
	}
	if m.HTTPMethod != http.MethodGet {
		add(CodeIdempotencyConflict)
	}
	if ifMatchBy[m.Name] {
		add(CodeRevisionMismatch)
	}
	switch m.Capability {
	case CapabilityBookings:
		add(CodeBookingNotFound)
	case CapabilityWaitlist:
		add(CodeEntryNotFound)
	case CapabilitySubscriptions:
		add(CodeSubscriptionNotFound)
	}
	if m.Name == "usp_services_get" || m.Name == "usp_availability_query" || m.Name == "usp_bookings_create" || m.Name == "usp_waitlist_join" {
		add(CodeServiceNotFound)
	}
	if m.Capability == CapabilityCatalog || m.Name == "usp_availability_query" {
		add(CodeRangeTooWide)
	}
	return out
}

// problemSchema is RFC 9457 problem details as frontdesk writes them.
var problemSchema = map[string]any{
	"type": "object", "required": []string{"type", "title", "status", "detail"},
	"properties": map[string]any{
		"type":     map[string]any{"type": "string", "format": "uri", "description": "https://usp-protocol.dev/errors/ and the code, dashes for underscores."},
		"title":    map[string]any{"type": "string"},
		"status":   map[string]any{"type": "integer"},
		"detail":   map[string]any{"type": "string", "description": "What went wrong and what to do, safe to show."},
		"instance": map[string]any{"type": "string"},
	},
}

// securitySchemes are the mechanisms a privileged call may authenticate
// with (§10.1).
var securitySchemes = map[string]any{
	"apiKey":        map[string]any{"type": "http", "scheme": "bearer", "description": "mechanism api_key: a key the business issued to the platform (frontdesk usp key add)."},
	"dpop":          map[string]any{"type": "http", "scheme": "DPoP", "description": "mechanism platform_key_pop: a credential bound to the platform's key, with a DPoP proof header per request (RFC 9449)."},
	"httpSignature": map[string]any{"type": "apiKey", "in": "header", "name": "Signature", "description": "mechanism http_message_signature: an RFC 9421 signature (Signature and Signature-Input) by a key of the platform profile named in USP-Agent, covering @method, @authority, @path, Content-Digest and Idempotency-Key."},
	"bookingScoped": map[string]any{"type": "http", "scheme": "bearer", "description": "mechanism booking_scoped_credential: the credential returned when the booking, hold or entry was created, for that resource only; with cnf, sent as DPoP with a proof."},
	"staffSession":  map[string]any{"type": "http", "scheme": "bearer", "description": "mechanism staff_session: a staff member of the business (required for usp_bookings_confirm)."},
}

// security is the OpenAPI security requirement of method m.
func security(m Method) []map[string][]string {
	switch m.Access {
	case Public:
		return []map[string][]string{}
	case BusinessOnly:
		return []map[string][]string{{"staffSession": {}}}
	}
	out := []map[string][]string{{"apiKey": {}}, {"dpop": {}}, {"httpSignature": {}}, {"staffSession": {}}}
	if m.Access == PrivilegedScoped {
		out = append(out, map[string][]string{"bookingScoped": {}})
	}
	return out
}

// correlationHeader is the USP-Correlation-Id header, read and echoed.
var correlationHeader = map[string]any{"description": "The request's USP-Correlation-Id, echoed.", "schema": map[string]any{"type": "string"}}

// responses is the OpenAPI responses object of method m.
func responses(m Method) map[string]any {
	success := map[string]any{
		"headers": map[string]any{"USP-Correlation-Id": correlationHeader},
		"content": map[string]any{"application/json": map[string]any{"schema": resultSchema(m.Name)}},
	}
	out := map[string]any{}
	ok := copyMap(success)
	ok["description"] = "The operation's result; an outcome the caller can act on (a slot gone, a full waitlist) is a result too, with messages[] saying what happened."
	out["200"] = ok
	if createdBy[m.Name] {
		created := copyMap(success)
		created["description"] = "Created: the result holds the new resource."
		out["201"] = created
	}
	for status, codes := range errorStatuses(m) {
		names := make([]string, len(codes))
		for i, c := range codes {
			names[i] = string(c)
		}
		slices.Sort(names)
		headers := map[string]any{"USP-Correlation-Id": correlationHeader}
		switch status {
		case http.StatusServiceUnavailable:
			headers["Retry-After"] = map[string]any{"description": "Seconds to wait before retrying (with the same Idempotency-Key for a write).", "schema": map[string]any{"type": "integer"}}
		case http.StatusUnauthorized:
			headers["WWW-Authenticate"] = map[string]any{"description": "The mechanisms the business accepts.", "schema": map[string]any{"type": "string"}}
			headers["DPoP-Nonce"] = map[string]any{"description": "With proof_nonce_required: the nonce to put in the next proof.", "schema": map[string]any{"type": "string"}}
		}
		out[strconv.Itoa(status)] = map[string]any{
			"description": "Problem details; type names one of: " + joinCodes(names) + ".",
			"headers":     headers,
			"content":     map[string]any{"application/problem+json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/Problem"}}},
		}
	}
	return out
}

// rpcErrors is the OpenRPC errors list of method m: each JSON-RPC code
// with the USP codes it carries in data.code.
func rpcErrors(m Method) []map[string]any {
	byRPC := map[int64][]string{}
	for _, codes := range errorStatuses(m) {
		for _, c := range codes {
			w := wires[c]
			byRPC[w.rpc] = append(byRPC[w.rpc], string(c))
		}
	}
	rpcs := make([]int64, 0, len(byRPC))
	for r := range byRPC {
		rpcs = append(rpcs, r)
	}
	slices.Sort(rpcs)
	out := make([]map[string]any, 0, len(rpcs))
	for _, r := range rpcs {
		names := byRPC[r]
		slices.Sort(names)
		out = append(out, map[string]any{"code": r, "message": joinCodes(names),
			"data": map[string]any{"type": "object", "required": []string{"code"}, "properties": map[string]any{"code": map[string]any{"type": "string", "enum": names}}}})
	}
	return out
}

func joinCodes(names []string) string {
	out := ""
	for i, n := range names {
		if i > 0 {
			out += ", "
		}
		out += n
	}
	return out
}

func copyMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}
