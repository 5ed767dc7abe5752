// Package orphttp is the HTTP binding of the ORP host (§4.2 of the ORP
// specification): discovery, POST /orp, the inbox, deal snapshots, party
// keys, suggest and join, the schema files, tracked-link redirects under
// /go/, approvals, the claim page, the payer's conversion reports and the
// host's terms page. Handlers parse with a size
// limit, call the orp domain and render; they hold no protocol rules.
//
// It is an adapter: it imports the orp domain and the standard library,
// never another adapter.
package orphttp

import (
	"bytes"
	"encoding/json"
	"errors"
	"html/template"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"

	"frontdesk/orp"
	"frontdesk/orp/schema"
)

// Server serves one ORP host over HTTP.
type Server struct {
	Host   *orp.Host
	Logger *slog.Logger
	// TermsOperator names who runs the host on the terms page.
	TermsOperator string
}

// Handler returns the binding's routes. Every response carries
// Cache-Control: no-store (§4.2).
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/orp.json", s.discovery)
	mux.HandleFunc("OPTIONS /.well-known/orp.json", preflight)
	mux.HandleFunc("POST /orp", s.send)
	mux.HandleFunc("GET /orp/inbox", s.inbox)
	mux.HandleFunc("GET /orp/deals/{deal}", s.deal)
	mux.HandleFunc("GET /orp/keys/{opaque}", s.keys)
	mux.HandleFunc("POST /orp/suggest", s.suggest)
	mux.HandleFunc("OPTIONS /orp/suggest", preflight)
	mux.HandleFunc("POST /orp/join", s.join)
	mux.HandleFunc("OPTIONS /orp/join", preflight)
	mux.Handle("GET /orp/schemas/", http.StripPrefix("/orp/schemas/", http.FileServerFS(schema.FS())))
	mux.HandleFunc("GET /go/{token}", s.redirect)
	mux.HandleFunc("HEAD /go/{token}", s.redirect)
	mux.HandleFunc("GET /approve/{escalation}", s.approvalPage)
	mux.HandleFunc("POST /approve/{escalation}", s.approve)
	mux.HandleFunc("GET /claim/{claim}", s.claimShow)
	mux.HandleFunc("POST /claim/{claim}", s.claimSubmit)
	mux.HandleFunc("POST /orp/conversions", s.conversion)
	mux.HandleFunc("GET /terms", s.terms)
	return NoStore(mux)
}

// Redirects answers GET and HEAD /go/{token} alone, as Handler does. A
// server mounts it on its own mux beside Handler, so the busiest route is
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

func address(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

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
	writeReply(w, s.Host.Send(r.Context(), bearer(r), address(r), readBody(r)))
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

func (s *Server) suggest(w http.ResponseWriter, r *http.Request) {
	cors(w)
	resp, err := s.Host.Suggest(r.Context(), readBody(r), address(r))
	if err != nil {
		s.fail(w, err)
		return
	}
	b, _ := json.Marshal(resp)
	writeJSON(w, http.StatusOK, b)
}

func (s *Server) join(w http.ResponseWriter, r *http.Request) {
	cors(w)
	resp, err := s.Host.Join(r.Context(), readBody(r), address(r))
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
		Method: r.Method, Query: query, Header: r.Header, Address: address(r),
	})
	h := w.Header()
	h["Location"] = []string{loc}
	h["Referrer-Policy"] = noReferrer
	h["X-Robots-Tag"] = noIndex
	w.WriteHeader(http.StatusFound)
}

// approve records the waiting party's agent approving with its bearer.
// Only POST approves; the page a GET shows records nothing (H1).
func (s *Server) approve(w http.ResponseWriter, r *http.Request) {
	b, err := s.Host.Approve(r.Context(), bearer(r), r.PathValue("escalation"))
	if err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, b)
}

var approvalTmpl = template.Must(template.New("approve").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex"><title>Approval {{.ID}}</title></head>
<body>
<h1>Waiting for approval</h1>
<p>Party {{.Party}} is asked to approve the <strong>{{.Step}}</strong> step ({{range $i, $r := .Reasons}}{{if $i}}, {{end}}{{$r}}{{end}}).</p>
{{if .TermsHash}}<p>Terms hash: <code>{{.TermsHash}}</code></p>{{end}}
{{if .Terms}}<h2>The exact terms</h2><pre>{{.Terms}}</pre>{{end}}
{{if .Decided}}<p>This escalation has been decided.</p>{{else}}<p>Opening this page records nothing. The waiting party's agent approves with <code>POST</code> to this URL and its bearer token.</p>{{end}}
</body></html>
`))

func (s *Server) approvalPage(w http.ResponseWriter, r *http.Request) {
	v, err := s.Host.ViewEscalation(r.Context(), r.PathValue("escalation"))
	if err != nil {
		var e *orp.Error
		if errors.As(err, &e) && e.Code == orp.NotFound {
			http.NotFound(w, r)
			return
		}
		s.logger().Error("approval page", "err", err)
		http.Error(w, "The page could not be shown.", http.StatusInternalServerError)
		return
	}
	var terms bytes.Buffer
	json.Indent(&terms, v.Terms, "", "  ")
	var buf bytes.Buffer
	err = approvalTmpl.Execute(&buf, map[string]any{"ID": v.ID, "Party": v.Party, "Step": v.Step, "Reasons": v.Reasons,
		"TermsHash": v.TermsHash, "Terms": terms.String(), "Decided": v.Decided})
	if err != nil {
		http.Error(w, "The page could not be shown.", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(buf.Bytes())
}

var termsTmpl = template.Must(template.New("terms").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>ORP host terms</title></head>
<body>
<h1>Terms of this ORP host</h1>
<p>{{.}} runs an Open Rails Protocol 0.3 host on this server. Agents join without an account, email or password; a party is a random id.</p>
<ul>
<li>The host relays messages between parties on this host, keeps deal state, mints tracked links under /go/ and counts clicks by class. It never passes personal data between parties.</li>
<li>The host does not hold money. It offers no escrow, KYC, tax forms or payout deadlines; parties settle on the payment rail they agree.</li>
<li>Disputes are not resolved over ORP by this host yet.</li>
<li>Tracked-link clicks are stored as a class, a time and a referring domain only. See the privacy page for what the server holds and for how long.</li>
<li>A conversion counts only from a payment-provider event, or the payer's own report to POST /orp/conversions, that carries a click id or a tracking code. Nothing about the buyer is accepted.</li>
<li>Join, suggest, messages and tracked links are rate-limited. A rate-limited link still redirects.</li>
</ul>
</body></html>
`))

func (s *Server) terms(w http.ResponseWriter, r *http.Request) {
	var buf bytes.Buffer
	if err := termsTmpl.Execute(&buf, s.TermsOperator); err != nil {
		http.Error(w, "The page could not be shown.", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(buf.Bytes())
}
