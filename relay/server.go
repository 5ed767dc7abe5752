package relay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"frontdesk/business"
	"frontdesk/internal/clock"
	"frontdesk/internal/fault"
	"frontdesk/pricing"
)

// PathPrefix is where a location serves the endpoint: POST
// PathPrefix+operation.
const PathPrefix = "/relay/v1/"

// LocationDeadline bounds an operation at the location (the worksheet's
// 25-second location deadline), inside the hub's 40-second relay of it.
const LocationDeadline = 25 * time.Second

// Call is one relayed call as the location's operation reads it. Its
// fields are the public request only: the origin it reached, its
// authentication and the deployment it runs under are the location's own.
type Call struct {
	Slug string          `json:"slug"`
	Args json.RawMessage `json:"args,omitempty"`
	// Host is the Host the call reached the location at, for the
	// operation's own host checks; it is not part of the body.
	Host string `json:"-"`
}

// Operation is one thing the hub may ask a location.
type Operation struct {
	// Booking operations run only under a published production context
	// on a custom hostname of the location.
	Booking bool
	// Run answers the call. A *pricing.Refusal or a *fault.Error with a
	// message reaches the hub as it is; any other error is the location's
	// failure, which the hub reports without detail.
	Run func(ctx context.Context, call Call) (any, error)
}

// ServerOptions configure a Server.
type ServerOptions struct {
	Keys   []Key
	Clock  clock.Clock
	Window time.Duration // 0: Window
	// Deployment is the location's own; its context, published status and
	// hostnames guard the booking operations.
	Deployment business.Deployment
	// Phone is the phone a refusal offers for slug, the business's for
	// an unknown one.
	Phone func(slug string) string
	Log   *slog.Logger
}

// Server is a location's end of the relay.
type Server struct {
	verify *Verifier
	o      ServerOptions
	ops    map[string]Operation
}

// NewServer returns a Server with no operations yet.
func NewServer(o ServerOptions) *Server {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	o.Log = o.Log.With("component", "relay")
	return &Server{verify: NewVerifier(o.Keys, o.Clock, o.Window), o: o, ops: map[string]Operation{}}
}

// Add adds the operation name.
func (s *Server) Add(name string, op Operation) { s.ops[name] = op }

// Route is one operation's pattern and handler, for cmd/frontdesk to
// mount.
type Route struct {
	Pattern string
	Handler http.Handler
}

// Routes are the operations' routes, POST PathPrefix+name each.
func (s *Server) Routes() []Route {
	var out []Route
	for _, name := range slices.Sorted(maps.Keys(s.ops)) {
		out = append(out, Route{Pattern: "POST " + PathPrefix + name, Handler: s})
	}
	return out
}

// answer is the body of every reply: a result, a refusal worded for the
// guest, a quote refusal, or the bare fact of a failure.
type answer struct {
	Result  json.RawMessage  `json:"result,omitempty"`
	Refusal *wireError       `json:"refusal,omitempty"`
	Quote   *pricing.Refusal `json:"quote_refusal,omitempty"`
	Failed  bool             `json:"failed,omitempty"`
}

// wireError is a *fault.Error without its cause, which stays at the
// location's log.
type wireError struct {
	Code       Code     `json:"code"`
	Message    string   `json:"message"`
	Field      string   `json:"field,omitempty"`
	RetryAfter int      `json:"retry_after,omitempty"`
	Phone      string   `json:"phone,omitempty"`
	Form       string   `json:"form,omitempty"`
	Values     []string `json:"values,omitempty"`
}

// ServeHTTP authenticates the call, checks the deployment for a booking
// operation and runs it. Nothing runs unless the call is authentic,
// fresh, new and names a known operation with a well-formed body.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	name, ok := strings.CutPrefix(r.URL.Path, PathPrefix)
	if r.Method != http.MethodPost || !ok {
		http.NotFound(w, r)
		return
	}
	body, err := s.verify.Verify(r)
	if err != nil {
		e, _ := AsError(err)
		s.o.Log.Warn("relay call refused", "code", string(e.Code))
		status := http.StatusUnauthorized
		if e.Code == CodeTooLarge {
			status = http.StatusRequestEntityTooLarge
		}
		s.reply(w, status, answer{Refusal: wire(s.worded(e.Code, s.phone("")))})
		return
	}
	var call Call
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	op, known := s.ops[name]
	if !known || dec.Decode(&call) != nil || dec.More() {
		s.reply(w, http.StatusBadRequest, answer{Refusal: wire(s.worded(CodeUnknownOperation, s.phone("")))})
		return
	}
	call.Host = r.Host
	if op.Booking {
		if refusal := s.checkDeployment(call); refusal != nil {
			s.reply(w, http.StatusForbidden, answer{Refusal: wire(refusal)})
			return
		}
	}
	ctx, cancel := context.WithTimeout(r.Context(), LocationDeadline)
	defer cancel()
	result, err := op.Run(ctx, call)
	s.reply(w, http.StatusOK, s.answerOf(name, result, err))
}

// answerOf encodes what an operation returned.
func (s *Server) answerOf(name string, result any, err error) answer {
	var quote *pricing.Refusal
	var f *fault.Error
	switch {
	case errors.As(err, &quote):
		return answer{Quote: quote}
	case errors.As(err, &f) && f.Message != "":
		if f.Err != nil {
			s.o.Log.Error("relay operation refused with an internal cause", "operation", name, "code", string(f.Code), "err", f.Err)
		}
		return answer{Refusal: wire(f)}
	case err != nil:
		s.o.Log.Error("relay operation failed", "operation", name, "err", err)
		return answer{Failed: true}
	}
	b, err := json.Marshal(result)
	if err != nil {
		s.o.Log.Error("relay answer not encoded", "operation", name, "err", err)
		return answer{Failed: true}
	}
	return answer{Result: b}
}

func wire(e *fault.Error) *wireError {
	return &wireError{Code: e.Code, Message: e.Message, Field: e.Field, RetryAfter: e.RetryAfter,
		Phone: e.Phone, Form: e.Form, Values: e.Values}
}

func (s *Server) reply(w http.ResponseWriter, status int, a answer) {
	b, err := json.Marshal(a)
	if err != nil {
		b, status = []byte(`{"failed":true}`), http.StatusInternalServerError
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(b)
}

func (s *Server) phone(slug string) string {
	if s.o.Phone == nil {
		return ""
	}
	return s.o.Phone(slug)
}

// checkDeployment is the location layer's own check of direct-booking.md
// §12: its context, its published status and the hostname the call
// reached it at.
func (s *Server) checkDeployment(call Call) *fault.Error {
	d := s.o.Deployment
	phone := s.phone(call.Slug)
	switch ctx := strings.TrimSpace(d.Context); {
	case ctx == "":
		return s.worded(CodeDeployUnknown, phone)
	case ctx != "production":
		return s.worded(CodeDeployDraft, phone, ctx)
	case !d.Published:
		return s.worded(CodeDeployUnpublished, phone)
	case !customHost(d, call.Host):
		return s.worded(CodeDeployNotCustom, phone, ctx)
	}
	return nil
}

// customHost says whether hostport is one of the deployment's custom
// hostnames, or of its hostnames when it names no custom ones.
func customHost(d business.Deployment, hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	host = strings.Trim(host, "[]")
	names := d.CustomHostnames
	if len(names) == 0 {
		names = d.Hostnames
	}
	for _, n := range names {
		if strings.EqualFold(n, host) {
			return true
		}
	}
	return false
}

// worded is the location layer's sentence for code, with the phone to
// call (rule P of §12).
func (s *Server) worded(code Code, phone string, values ...any) *fault.Error {
	var e *fault.Error
	switch code {
	case CodeDeployUnknown:
		e = refuse(CodeDeployUnknown, "Booking tools are disabled because the deploy context is unknown.")
	case CodeDeployDraft:
		e = refuse(CodeDeployDraft, "Booking tools are disabled on this draft (context: %s).", values...)
	case CodeDeployUnpublished:
		e = refuse(CodeDeployUnpublished, "Booking tools are disabled because this production deploy is not currently published.")
	case CodeDeployNotCustom:
		e = refuse(CodeDeployNotCustom, "Booking tools are disabled on this non-custom hostname (context: %s).", values...)
	case CodeUnknownOperation:
		e = refuse(CodeUnknownOperation, "Unknown assistant booking operation.")
	case CodeTooLarge:
		e = refuse(CodeTooLarge, "The relayed call is too large. Nothing was changed.")
	case CodeOutOfScope:
		e = refuse(CodeOutOfScope, "This login does not work at this property. Nothing was read or changed.")
	default:
		// Forged, stale, replayed and busy share one sentence: the answer
		// tells a caller without the secret nothing about which check
		// failed.
		e = refuse(CodeForged, "The relayed call was not accepted. Nothing was changed.")
		e.Code = code
	}
	if phone != "" {
		e.Message += " Call " + phone + "."
		e.Phone = phone
	}
	return e
}

func refuse(code Code, format string, values ...any) *fault.Error {
	msg := format
	if len(values) > 0 {
		msg = fmt.Sprintf(format, values...)
	}
	return &fault.Error{Code: code, Message: msg}
}
