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

// Staff forwards the staff screen to the location a request is for:
// the one its ?location= names (a location's sign-in forms post there,
// and its pages name it), else the one its session token names. Staff
// sign in at each location, against its own logins, and work on its
// reservations alone; the hub keeps no staff data. Any other staff
// request gets the hub's sign-in chooser, which links to each
// location's sign-in page, or a 403 for a form sent with no session. A
// nil proxy gives own, the route's handler outside a split hub.
func (px *Proxy) Staff(own http.Handler) http.Handler {
	if px == nil {
		return own
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		slug := r.URL.Query().Get("location")
		_, ok := px.targets[slug]
		if c, err := r.Cookie(staffCookie); err == nil && !ok {
			if prefix, _, located := business.SplitToken(c.Value); located {
				slug, ok = px.ownerOf(prefix)
			}
		}
		switch {
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
<p>Each property keeps its own logins and reservations. Sign in at yours:</p>
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
