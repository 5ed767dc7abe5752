// Package usphttp is the REST binding of USP (§9.1): the business profile
// at /.well-known/usp and the operations of openapi/usp-rest.json under
// /usp/. Handlers parse the request (USP-Agent, USP-Correlation-Id, a
// bounded JSON body), call usp.Business and render the result, or an RFC
// 9457 problem for a protocol error. No protocol rule lives here.
//
// It is an adapter: it imports the usp and hub domain packages and the
// standard library, never another adapter.
package usphttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"frontdesk/usp"
)

// maxBody bounds a request body; USP requests are small.
const maxBody = 64 << 10

// Handler serves the REST binding.
type Handler struct {
	Business *usp.Business
	Logger   *slog.Logger
	// Locations, at a split hub, are its locations: a platform's
	// waitlist list naming no service is read from each. Nil, or none,
	// in one process.
	Locations Locations
}

// Route is one pattern of the binding and its handler.
type Route struct {
	Pattern string
	Handler http.Handler
}

// Routes lists the profile, the interface documents and every operation
// the business serves, for a server to mount on its own mux. The last
// route answers anything else under the base path with a problem, so a
// platform never gets the server's plain-text not-found page.
func (h *Handler) Routes() []Route {
	routes := []Route{{"GET " + h.Business.ProfileLocation(), http.HandlerFunc(h.profile)}}
	ops := map[string]func(context.Context, usp.Call, *http.Request) (any, error){
		"usp_services_list":                     h.listServices,
		"usp_services_get":                      h.getService,
		"usp_services_lookup":                   h.lookupServices,
		"usp_services_feed":                     h.feed,
		"usp_services_feed_subscription_get":    h.subscriptionOp("usp_services_feed_subscription_get"),
		"usp_services_feed_unsubscribe":         h.subscriptionOp("usp_services_feed_unsubscribe"),
		"usp_services_feed_subscription_pause":  h.subscriptionOp("usp_services_feed_subscription_pause"),
		"usp_services_feed_subscription_resume": h.subscriptionOp("usp_services_feed_subscription_resume"),
		"usp_services_feed_subscribe": func(ctx context.Context, call usp.Call, r *http.Request) (any, error) {
			var in usp.SubscribeRequest
			if err := decode(r, &in); err != nil {
				return nil, err
			}
			return h.Business.Subscribe(ctx, call, in)
		},
		"usp_availability_query": h.queryAvailability,
		"usp_availability_hold": func(ctx context.Context, call usp.Call, r *http.Request) (any, error) {
			var in usp.HoldRequest
			if err := decode(r, &in); err != nil {
				return nil, err
			}
			return h.Business.HoldSlot(ctx, call, in)
		},
		"usp_availability_release": func(ctx context.Context, call usp.Call, r *http.Request) (any, error) {
			return h.Business.ReleaseSlot(ctx, call, r.PathValue("hold_id"))
		},
		"usp_bookings_create": func(ctx context.Context, call usp.Call, r *http.Request) (any, error) {
			var in usp.CreateRequest
			if err := decode(r, &in); err != nil {
				return nil, err
			}
			return h.Business.CreateBooking(ctx, call, in)
		},
		"usp_bookings_get": func(ctx context.Context, call usp.Call, r *http.Request) (any, error) {
			return h.Business.GetBooking(ctx, call, r.PathValue("booking_id"))
		},
		"usp_bookings_update": func(ctx context.Context, call usp.Call, r *http.Request) (any, error) {
			var in usp.UpdateRequest
			if err := decode(r, &in); err != nil {
				return nil, err
			}
			return h.Business.UpdateBooking(ctx, call, r.PathValue("booking_id"), in)
		},
		"usp_bookings_confirm": func(ctx context.Context, call usp.Call, r *http.Request) (any, error) {
			return h.Business.ConfirmBooking(ctx, call, r.PathValue("booking_id"))
		},
		"usp_bookings_cancel": func(ctx context.Context, call usp.Call, r *http.Request) (any, error) {
			var in usp.CancelRequest
			if err := decode(r, &in); err != nil {
				return nil, err
			}
			return h.Business.CancelBooking(ctx, call, r.PathValue("booking_id"), in)
		},
		"usp_bookings_reschedule": func(ctx context.Context, call usp.Call, r *http.Request) (any, error) {
			var in usp.RescheduleRequest
			if err := decode(r, &in); err != nil {
				return nil, err
			}
			return h.Business.RescheduleBooking(ctx, call, r.PathValue("booking_id"), in)
		},
		"usp_bookings_confirm_payment": func(ctx context.Context, call usp.Call, r *http.Request) (any, error) {
			var in usp.ConfirmPaymentRequest
			if err := decode(r, &in); err != nil {
				return nil, err
			}
			return h.Business.ConfirmPayment(ctx, call, r.PathValue("booking_id"), in)
		},
		"usp_waitlist_join": func(ctx context.Context, call usp.Call, r *http.Request) (any, error) {
			var in usp.JoinRequest
			if err := decode(r, &in); err != nil {
				return nil, err
			}
			return h.Business.JoinWaitlist(ctx, call, in)
		},
		"usp_waitlist_list": func(ctx context.Context, call usp.Call, r *http.Request) (any, error) {
			var in usp.WaitlistListRequest
			if err := decode(r, &in); err != nil {
				return nil, err
			}
			if in.ServiceID == "" && h.spans() {
				return h.listEveryWaitlist(ctx, r, call.Credentials.Body)
			}
			return h.Business.ListWaitlist(ctx, call, in)
		},
		"usp_waitlist_get": func(ctx context.Context, call usp.Call, r *http.Request) (any, error) {
			return h.Business.GetWaitlistEntry(ctx, call, r.PathValue("entry_id"))
		},
		"usp_waitlist_leave": func(ctx context.Context, call usp.Call, r *http.Request) (any, error) {
			return h.Business.LeaveWaitlist(ctx, call, r.PathValue("entry_id"))
		},
		"usp_waitlist_accept": func(ctx context.Context, call usp.Call, r *http.Request) (any, error) {
			var in usp.AcceptRequest
			if err := decode(r, &in); err != nil {
				return nil, err
			}
			return h.Business.AcceptOffer(ctx, call, r.PathValue("entry_id"), in)
		},
		"usp_waitlist_decline": func(ctx context.Context, call usp.Call, r *http.Request) (any, error) {
			return h.Business.DeclineOffer(ctx, call, r.PathValue("entry_id"))
		},
	}
	for _, m := range h.Business.Served() {
		op := ops[m.Name]
		routes = append(routes, Route{m.HTTPMethod + " " + usp.RESTPath + m.Path,
			http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.serve(w, r, op) })})
	}
	// The business's own interface documents: what it serves, exactly.
	for _, d := range []struct {
		path string
		doc  func() []byte
	}{{usp.OpenAPIPath, h.Business.OpenAPI}, {usp.OpenRPCPath, h.Business.OpenRPC}} {
		routes = append(routes, Route{"GET " + usp.RESTPath + d.path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Cache-Control", "public, max-age="+strconv.Itoa(usp.ProfileMaxAge))
			w.Write(d.doc())
		})})
	}
	routes = append(routes, h.payRoutes()...)
	routes = append(routes, h.checkoutRoutes()...)
	return append(routes, Route{usp.RESTPath + "/", http.HandlerFunc(h.notFound)})
}

// notFound answers a path under the base path that names no operation,
// or an operation's path with another method.
func (h *Handler) notFound(w http.ResponseWriter, r *http.Request) {
	h.problem(w, r, http.StatusNotFound, "about:blank", "Not Found", "This business serves no USP operation at "+r.Method+" "+r.URL.Path+".")
}

func (h *Handler) logger() *slog.Logger {
	if h.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return h.Logger.With("component", "usphttp")
}

// profile serves the business profile with the hosting rules of §8.2.2:
// JSON, public caching for at least a minute, never a redirect.
func (h *Handler) profile(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", fmt.Sprintf("public, max-age=%d", usp.ProfileMaxAge))
	if h.Business.Mode() == usp.ModeUCPNative {
		w.Write(h.Business.UCPProfileJSON())
		return
	}
	w.Write(h.Business.ProfileJSON())
}

// serve runs one operation: it reads the caller's identity, calls the
// domain and renders the result or the problem.
func (h *Handler) serve(w http.ResponseWriter, r *http.Request, op func(context.Context, usp.Call, *http.Request) (any, error)) {
	correlation := r.Header.Get("USP-Correlation-Id")
	if correlation != "" {
		w.Header().Set("USP-Correlation-Id", correlation)
	}
	profile, err := ProfileFromAgent(r.Header.Get("USP-Agent"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	// The body is read once here, bounded, so that a signature check can
	// cover it and decode can parse it.
	in, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		h.fail(w, r, &usp.Error{Code: usp.CodeInvalidRequest, Message: "The request body could not be read.", Err: err})
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(in))
	call := usp.Call{Profile: profile, CorrelationID: correlation, Credentials: usp.Credentials{Header: r.Header, Request: r, Body: in},
		IdempotencyKey: r.Header.Get("Idempotency-Key"), IfMatch: entityTag(r.Header.Get("If-Match"))}
	res, err := h.Business.Within(r.Context(), func(ctx context.Context) (any, error) { return op(ctx, call, r) })
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if a, ok := res.(relayed); ok {
		a.write(w)
		return
	}
	body, err := json.Marshal(res)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if c, ok := res.(interface{ Created() bool }); ok && c.Created() && r.Method == http.MethodPost && r.URL.Path == usp.RESTPath+"/bookings" {
		w.WriteHeader(http.StatusCreated)
	} else if hr, ok := res.(*usp.HoldResult); ok && r.Method == http.MethodPost && hr.Hold != nil {
		w.WriteHeader(http.StatusCreated)
	} else if sr, ok := res.(*usp.SubscriptionResult); ok && r.Method == http.MethodPost && sr.Created() && r.URL.Path == usp.RESTPath+"/services/feed/subscriptions" {
		w.WriteHeader(http.StatusCreated)
	} else if wr, ok := res.(*usp.WaitlistResult); ok && r.Method == http.MethodPost && wr.Created() && r.URL.Path == usp.RESTPath+"/waitlist" {
		w.WriteHeader(http.StatusCreated)
	} else if cr, ok := res.(*usp.Checkout); ok && r.Method == http.MethodPost && cr.Created() && r.URL.Path == usp.UCPPath+"/checkout-sessions" {
		w.WriteHeader(http.StatusCreated)
	}
	w.Write(append(body, '\n'))
}

// entityTag reads an If-Match value: the revision, with the quotes of an
// entity tag taken off.
func entityTag(v string) string {
	v = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), "W/"))
	if v == "*" {
		return "" // any current representation: no precondition on a booking that exists
	}
	return strings.Trim(v, `"`)
}

// fail is the one place that turns an error into a problem; internal
// causes are logged once, without the request body.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	e, internal := usp.AsError(err)
	if internal {
		h.logger().ErrorContext(r.Context(), "usp request failed", "path", r.URL.Path, "err", err)
	}
	if nonce := usp.Nonce(e); nonce != "" {
		w.Header().Set("DPoP-Nonce", nonce) // RFC 9449 §8: the nonce to retry with
	}
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfter))
	}
	status := usp.HTTPStatus(e.Code)
	h.problem(w, r, status, usp.ProblemType(e.Code), http.StatusText(status), e.Message)
}

func (h *Handler) problem(w http.ResponseWriter, r *http.Request, status int, typ, title, detail string) {
	body, _ := json.Marshal(map[string]any{"type": typ, "title": title, "status": status, "detail": detail, "instance": r.URL.Path})
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	w.Write(append(body, '\n'))
}

// decode reads a JSON object body into v; an empty body is an empty
// object. Unknown members are ignored, as the specification asks for
// forward compatibility.
func decode(r *http.Request, v any) error {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		return &usp.Error{Code: usp.CodeInvalidRequest, Message: "The request body could not be read.", Err: err}
	}
	if len(body) > maxBody {
		return &usp.Error{Code: usp.CodeInvalidRequest, Message: fmt.Sprintf("The request body is larger than %d bytes.", maxBody)}
	}
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return nil // every member is optional here; the domain names missing ones
	}
	if body[0] != '{' {
		return &usp.Error{Code: usp.CodeInvalidRequest, Message: "The request body must be a JSON object."}
	}
	return usp.Decode(body, v)
}

func (h *Handler) listServices(ctx context.Context, call usp.Call, r *http.Request) (any, error) {
	var in usp.ListRequest
	if err := decode(r, &in); err != nil {
		return nil, err
	}
	return h.Business.ListServices(ctx, call, in)
}

func (h *Handler) getService(ctx context.Context, call usp.Call, r *http.Request) (any, error) {
	return h.Business.GetService(ctx, call, r.PathValue("service_id"))
}

// subscriptionOp serves one operation on the subscription of the path.
func (h *Handler) subscriptionOp(method string) func(context.Context, usp.Call, *http.Request) (any, error) {
	return func(ctx context.Context, call usp.Call, r *http.Request) (any, error) {
		return h.Business.SubscriptionOp(ctx, call, method, r.PathValue("subscription_id"))
	}
}

// feed reads the feed's query parameters: cursor, limit, location_id.
func (h *Handler) feed(ctx context.Context, call usp.Call, r *http.Request) (any, error) {
	q := r.URL.Query()
	in := usp.FeedRequest{Cursor: q.Get("cursor"), LocationID: q.Get("location_id")}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return nil, &usp.Error{Code: usp.CodeInvalidRequest, Message: "limit must be an integer."}
		}
		in.Limit = &n
	}
	return h.Business.Feed(ctx, call, in)
}

func (h *Handler) lookupServices(ctx context.Context, call usp.Call, r *http.Request) (any, error) {
	var in usp.LookupRequest
	if err := decode(r, &in); err != nil {
		return nil, err
	}
	return h.Business.LookupServices(ctx, call, in)
}

func (h *Handler) queryAvailability(ctx context.Context, call usp.Call, r *http.Request) (any, error) {
	var in usp.QueryRequest
	if err := decode(r, &in); err != nil {
		return nil, err
	}
	return h.Business.QueryAvailability(ctx, call, in)
}

// ProfileFromAgent reads the profile member of a USP-Agent header, an RFC
// 8941 dictionary such as profile="https://agent.example/p.json". An
// absent header is no profile; a header without a readable profile string
// is invalid_request.
func ProfileFromAgent(header string) (string, error) {
	if strings.TrimSpace(header) == "" {
		return "", nil
	}
	bad := &usp.Error{Code: usp.CodeInvalidRequest, Message: `The USP-Agent header must be a structured-field dictionary with profile="<URI>".`}
	rest := header
	for rest != "" {
		rest = strings.TrimLeft(rest, " \t")
		key, after, ok := strings.Cut(rest, "=")
		if !ok {
			return "", bad
		}
		key = strings.TrimSpace(key)
		var value string
		if strings.HasPrefix(after, `"`) {
			v, tail, err := sfString(after)
			if err != nil {
				return "", bad
			}
			value, rest = v, tail
		} else {
			// A token or number value; skip it.
			end := strings.IndexAny(after, ",;")
			if end < 0 {
				end = len(after)
			}
			rest = after[end:]
		}
		// Parameters after a member are allowed and ignored.
		if i := strings.IndexByte(rest, ','); i >= 0 {
			rest = rest[i+1:]
		} else {
			rest = ""
		}
		if key == "profile" {
			if value == "" {
				return "", bad
			}
			return value, nil
		}
	}
	return "", bad
}

// sfString reads one structured-field string from the start of s.
func sfString(s string) (value, rest string, err error) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\'):
			b.WriteByte(s[i+1])
			i++
		case c == '"':
			return b.String(), s[i+1:], nil
		case c < 0x20 || c > 0x7e || c == '\\':
			return "", "", errors.New("bad string")
		default:
			b.WriteByte(c)
		}
	}
	return "", "", errors.New("unterminated string")
}
