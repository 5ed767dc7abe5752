package usphttp

import (
	"bytes"
	"html/template"
	"net/http"

	"frontdesk/usp"
)

// payRoutes are the business-hosted payment pages behind the payment
// actions' continue_url (usp.PayPage).
func (h *Handler) payRoutes() []Route {
	return []Route{
		{"GET " + usp.PayPath + "{token}", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h.payStep(w, r, h.Business.PayPage(r.Context(), r.PathValue("token")))
		})},
		{"GET " + usp.PayPath + "{token}/return", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h.payStep(w, r, h.Business.PayReturn(r.Context(), r.PathValue("token"), r.URL.Query().Get("paid")))
		})},
	}
}

var payTemplate = template.Must(template.New("pay").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title></head>
<body><main><h1>{{.Title}}</h1><p>{{.Text}}</p></main></body></html>
`))

// payStep renders one answer of the payment page: a redirect, or a small
// page that is never cached, since it says where a payment stands.
func (h *Handler) payStep(w http.ResponseWriter, r *http.Request, step usp.PayStep) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	if step.Redirect != "" {
		http.Redirect(w, r, step.Redirect, http.StatusSeeOther)
		return
	}
	var buf bytes.Buffer
	if err := payTemplate.Execute(&buf, step); err != nil {
		h.logger().ErrorContext(r.Context(), "usp payment page render", "err", err)
		http.Error(w, "The page could not be shown.", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(step.Status)
	w.Write(buf.Bytes())
}
