package hub

import (
	"html/template"
	"net/http"
	"strings"

	"frontdesk/business"
)

// staffCookie is the staff screen's session cookie (web's): a split
// location's session token names it (business.Location.Token).
const staffCookie = "frontdesk_staff"

// Staff serves the staff screen of a split hub. A location's login
// works at its location: a request whose ?location= names one (a
// location's sign-in forms post there, and its pages name it) or whose
// session token names one is forwarded there. The group's logins sign
// in at the hub itself (/staff/signin with no ?location=) and keep their
// session there; own, the hub's screen, serves them, reading each
// location they may see over the relay. Any other staff request gets
// the sign-in chooser, which links to the hub's sign-in and each
// location's, or a 403 for a form sent with no session. A nil proxy
// gives own, the route's handler outside a split hub.
func (px *Proxy) Staff(own http.Handler) http.Handler {
	if px == nil {
		return own
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		slug := r.URL.Query().Get("location")
		_, named := px.targets[slug]
		signIn := strings.HasPrefix(r.URL.Path, "/staff/signin")
		token := ""
		if c, err := r.Cookie(staffCookie); err == nil {
			token = c.Value
		}
		prefix, _, located := business.SplitToken(token)
		ok := named && (token == "" || located || signIn)
		if !ok && located {
			slug, ok = px.ownerOf(prefix)
		}
		switch {
		case !ok && !located && (token != "" || signIn):
			own.ServeHTTP(w, r) // the hub's own login, or its sign-in
		case ok:
			r = r.Clone(r.Context())
			r.SetPathValue(slugValue, slug)
			px.ServeHTTP(w, r)
		case r.Method == http.MethodGet || r.Method == http.MethodHead:
			px.chooser(w, r)
		default:
			http.Error(w, "Sign in at a property first: "+strings.TrimSuffix(r.URL.Path, "/")+" needs its session.", http.StatusForbidden)
		}
	})
}

// chooserText is the hub's staff page: where to sign in.
var chooserText = template.Must(template.New("chooser").Parse(`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Staff sign-in</title></head>
<body>
<main>
<h1>Staff sign-in</h1>
<p>A login for the whole group signs in <a href="/staff/signin" id="group">here</a>. A property's own login signs in at its property:</p>
<ul id="properties">{{range .}}
<li><a href="/staff/signin?location={{.Slug}}">{{.Name}}</a></li>{{end}}
</ul>
</main>
</body>
</html>
`))

// chooser answers a staff page asked for with no session the hub can
// route: the properties to sign in at, in config order.
func (px *Proxy) chooser(w http.ResponseWriter, r *http.Request) {
	var locs []business.Location
	for _, l := range px.order {
		locs = append(locs, px.locs[l])
	}
	var b strings.Builder
	if err := chooserText.Execute(&b, locs); err != nil {
		http.Error(w, http.StatusText(http.StatusInternalServerError), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Write([]byte(b.String())) // the answer is decided; a client gone away is no fault here
}
