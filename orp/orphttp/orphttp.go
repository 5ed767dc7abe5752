// Package orphttp is the HTTP binding of the ORP host (§4.2 of the ORP
// specification): discovery, POST /orp, the inbox, deal snapshots, party
// keys, suggest and join, the schema files, tracked-link redirects under
// /go/, approvals, the claim page, the payer's conversion reports,
// payment providers' signed webhook events, the dispute resolver's page
// and the host's terms page. Handlers parse with a size
// limit, call the orp domain and render; they hold no protocol rules.
//
// It is an adapter: it imports the orp domain and the standard library,
// never another adapter.
package orphttp

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"

	"frontdesk/internal/clientip"
	"frontdesk/internal/page"
	"frontdesk/internal/requestid"
	"frontdesk/message"
	"frontdesk/orp"
	"frontdesk/orp/schema"
)

// Server serves one ORP host over HTTP.
type Server struct {
	Host   *orp.Host
	Logger *slog.Logger
	// TermsOperator names who runs the host on the terms page.
	TermsOperator string
	// Nav is the navigation its pages show, as every page of the server does.
	Nav []page.Link
	// Mail sends owners their one-time sign-in links, from MailFrom; nil
	// means the host offers passkeys only.
	Mail     message.Sender
	MailFrom string
}

// Route is one pattern of the binding and its handler.
type Route struct {
	Pattern string
	Handler http.Handler
}

// Routes lists every pattern of the binding with its handler, for a
// server to mount on its own mux. Every answer carries Cache-Control:
// no-store (§4.2), also a not-found or wrong-method answer under the
// binding's paths: catch-all patterns hand those to a mux of the
// binding's own routes, so the server's mux never answers them itself.
func (s *Server) Routes() []Route {
	routes := s.routes()
	inner := http.NewServeMux()
	for _, r := range routes {
		inner.Handle(r.Pattern, r.Handler)
	}
	for _, p := range []string{"/orp", "/orp/", "/.well-known/orp.json", "/go/", "/approve/", "/claim/", "/owner/"} {
		routes = append(routes, Route{p, NoStore(inner)})
	}
	return routes
}

func (s *Server) routes() []Route {
	routes := []Route{
		{"GET /.well-known/orp.json", http.HandlerFunc(s.discovery)},
		{"OPTIONS /.well-known/orp.json", http.HandlerFunc(preflight)},
		{"POST /orp", http.HandlerFunc(s.send)},
		{"GET /orp/inbox", http.HandlerFunc(s.inbox)},
		{"GET /orp/deals/{deal}", http.HandlerFunc(s.deal)},
		{"POST /orp/deals/{deal}/codes", http.HandlerFunc(s.issueCode)},
		{"GET /orp/keys/{opaque}", http.HandlerFunc(s.keys)},
		{"GET /orp/constraints", http.HandlerFunc(s.constraints)},
		{"POST /orp/constraints", http.HandlerFunc(s.tighten)},
		{"POST /orp/witness", http.HandlerFunc(s.witness)},
		{"POST /orp/suggest", http.HandlerFunc(s.suggest)},
		{"OPTIONS /orp/suggest", http.HandlerFunc(preflight)},
		{"POST /orp/join", http.HandlerFunc(s.join)},
		{"OPTIONS /orp/join", http.HandlerFunc(preflight)},
		{"GET /orp/schemas/", http.StripPrefix("/orp/schemas/", http.FileServerFS(schema.FS()))},
		{"GET /go/{token}", http.HandlerFunc(s.redirect)},
		{"HEAD /go/{token}", http.HandlerFunc(s.redirect)},
		{"GET /approve/{escalation}", http.HandlerFunc(s.approvalPage)},
		{"POST /approve/{escalation}", http.HandlerFunc(s.approve)},
		{"POST /approve/{escalation}/refuse", s.signedIn(s.refuse)},
		// The paths ORP 0.4 names (Appendix C): GET shows, only POST
		// approves.
		{"GET /orp/approve/{escalation}", http.HandlerFunc(s.approvalPage)},
		{"POST /orp/approve/{escalation}", http.HandlerFunc(s.approve)},
		{"GET /claim/{claim}", http.HandlerFunc(s.claimShow)},
		{"POST /claim/{claim}", http.HandlerFunc(s.claimSubmit)},
		{"GET /claim/{claim}/email", http.HandlerFunc(s.claimMailShow)},
		{"POST /claim/{claim}/email", http.HandlerFunc(s.claimMailSubmit)},
		{"GET /owner/link/{token}", http.HandlerFunc(s.linkShow)},
		{"POST /owner/link/{token}", http.HandlerFunc(s.linkUse)},
		{"GET /owner/signin", http.HandlerFunc(s.signInShow)},
		{"POST /owner/signin", http.HandlerFunc(s.signInSubmit)},
		{"GET /owner/signin/email", http.HandlerFunc(s.signInMailShow)},
		{"POST /owner/signin/email", http.HandlerFunc(s.signInMailSubmit)},
		{"GET /owner/{$}", s.signedIn(s.ownerHome)},
		{"POST /owner/parties/{opaque}/token", s.signedIn(s.rotate)},
		{"POST /owner/parties/{opaque}/constraints", s.signedIn(s.setConstraints)},
		{"POST /owner/signout", s.signedIn(s.signOut)},
		{"POST /orp/conversions", http.HandlerFunc(s.conversion)},
		{"POST /orp/providers/{provider}", http.HandlerFunc(s.providerEvent)},
		{"GET /orp/resolve", http.HandlerFunc(s.resolveShow)},
		{"POST /orp/resolve", http.HandlerFunc(s.resolveSubmit)},
		{"GET /terms", http.HandlerFunc(s.terms)},
	}
	for i := range routes {
		routes[i].Handler = NoStore(routes[i].Handler)
	}
	return routes
}

// Redirects answers GET and HEAD /go/{token} alone, as Routes does. A
// server may mount it on its own mux beside Routes, so the busiest route is
// routed once instead of twice.
func (s *Server) Redirects() http.Handler {
	return NoStore(http.HandlerFunc(s.redirect))
}

// Header values every redirect sends (T4). net/http only reads them, so
// one slice serves every response.
var (
	noStore    = []string{"no-store"}
	noReferrer = []string{"no-referrer"}
	noIndex    = []string{"noindex"}
)

// NoStore marks every answer of next uncacheable (§4.2).
func NoStore(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Cache-Control"] = noStore
		next.ServeHTTP(w, r)
	})
}

func (s *Server) logger() *slog.Logger {
	if s.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.Logger
}

// cors allows any origin without credentials, for discovery, suggest and
// join only (§4.2).
func cors(w http.ResponseWriter) {
	w.Header().Set("Access-Control-Allow-Origin", "*")
}

func preflight(w http.ResponseWriter, r *http.Request) {
	cors(w)
	w.Header().Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
	w.Header().Set("Access-Control-Allow-Headers", "Content-Type")
	w.Header().Set("Access-Control-Max-Age", "600")
	w.WriteHeader(http.StatusNoContent)
}

// readBody reads at most orp.MaxBody bytes; one more means too large.
func readBody(r *http.Request) []byte {
	b, _ := io.ReadAll(io.LimitReader(r.Body, orp.MaxBody+1))
	return b
}

func bearer(r *http.Request) string { return orp.BearerToken(r.Header.Get("Authorization")) }

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(body)
}

// writeReply writes a host reply: 202 has no body; rate_limited carries
// Retry-After (§4.2).
func writeReply(w http.ResponseWriter, r orp.Reply) {
	if r.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(r.RetryAfter))
	}
	if len(r.Body) == 0 {
		w.WriteHeader(r.Status)
		return
	}
	writeJSON(w, r.Status, r.Body)
}

// fail renders a refusal as an ORP error message with its status: the one
// place this adapter maps domain errors to the wire.
func (s *Server) fail(w http.ResponseWriter, err error) {
	writeReply(w, s.Host.ErrorMessage(err))
}

func (s *Server) discovery(w http.ResponseWriter, r *http.Request) {
	cors(w)
	b, err := json.MarshalIndent(s.Host.Discovery(), "", "  ")
	if err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, append(b, '\n'))
}

func (s *Server) send(w http.ResponseWriter, r *http.Request) {
	writeReply(w, s.Host.Send(r.Context(), bearer(r), clientip.Host(r), readBody(r)))
}

func (s *Server) inbox(w http.ResponseWriter, r *http.Request) {
	page, err := s.Host.Inbox(r.Context(), bearer(r), r.URL.Query().Get("after"))
	if err != nil {
		s.fail(w, err)
		return
	}
	b, _ := json.Marshal(page)
	writeJSON(w, http.StatusOK, b)
}

func (s *Server) deal(w http.ResponseWriter, r *http.Request) {
	b, err := s.Host.Deal(r.Context(), bearer(r), r.PathValue("deal"))
	if err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, b)
}

func (s *Server) keys(w http.ResponseWriter, r *http.Request) {
	set, err := s.Host.PartyKeys(r.Context(), r.PathValue("opaque"))
	if err != nil {
		s.fail(w, err)
		return
	}
	b, _ := json.Marshal(set)
	writeJSON(w, http.StatusOK, b)
}

// constraints answers the bearer's party's constraints document (§8.4).
func (s *Server) constraints(w http.ResponseWriter, r *http.Request) {
	p, err := s.Host.Authenticate(r.Context(), bearer(r))
	if err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, s.Host.ConstraintsOf(p))
}

// tighten replaces the bearer's party's constraints when the new ones
// loosen nothing (H4).
func (s *Server) tighten(w http.ResponseWriter, r *http.Request) {
	b, err := s.Host.TightenConstraints(r.Context(), bearer(r), readBody(r))
	if err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, b)
}

// witness takes a named verifier's finding (§13).
func (s *Server) witness(w http.ResponseWriter, r *http.Request) {
	b, err := s.Host.WitnessReceipt(r.Context(), bearer(r), readBody(r))
	if err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, b)
}

func (s *Server) suggest(w http.ResponseWriter, r *http.Request) {
	cors(w)
	resp, err := s.Host.Suggest(r.Context(), readBody(r), clientip.Host(r))
	if err != nil {
		s.fail(w, err)
		return
	}
	b, _ := json.Marshal(resp)
	writeJSON(w, http.StatusOK, b)
}

func (s *Server) join(w http.ResponseWriter, r *http.Request) {
	cors(w)
	resp, err := s.Host.Join(r.Context(), readBody(r), clientip.Host(r))
	if err != nil {
		s.fail(w, err)
		return
	}
	b, _ := json.Marshal(resp)
	writeJSON(w, http.StatusCreated, b)
}

// redirect answers a tracked link (T3, T4): 302, no cookie, no page.
func (s *Server) redirect(w http.ResponseWriter, r *http.Request) {
	var query url.Values
	if r.URL.RawQuery != "" {
		query = r.URL.Query()
	}
	loc := s.Host.Redirect(r.Context(), r.PathValue("token"), orp.Click{
		Method: r.Method, Query: query, Header: r.Header, Address: clientip.Host(r),
	})
	// A bodiless 302 carries only what a redirect needs: where to, not
	// stored (§4.2), no referrer for the destination, no indexing. The
	// page headers set for every answer (a content policy, no framing,
	// no sniffing) guard a body there is none of, and cost the busiest
	// route their bytes. The request id stays: every answer carries one.
	h := w.Header()
	id := h[requestid.Header]
	clear(h)
	if id != nil {
		h[requestid.Header] = id
	}
	h["Cache-Control"] = noStore
	h["Location"] = []string{loc}
	h["Referrer-Policy"] = noReferrer
	h["X-Robots-Tag"] = noIndex
	w.WriteHeader(http.StatusFound)
}

func (s *Server) terms(w http.ResponseWriter, r *http.Request) {
	pages.Render(w, r, s.logger(), http.StatusOK, "terms.html", s.Nav, map[string]any{"Operator": s.TermsOperator, "Destinations": s.Host.DestinationRule()})
}
