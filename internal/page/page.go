// Package page renders frontdesk's HTML pages: one base layout (viewport,
// style sheet, navigation) around each adapter's page templates, rendered
// into a buffer first so a template fault becomes a clean 500. The web
// pages, the dev mailbox and the ORP claim and approval pages all render
// through it, and it gives the Content-Security-Policy that fits them.
//
// It imports only the standard library.
package page

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"path"
	"strings"
)

//go:embed layout.html
var layout string

//go:embed style.css
var style string

// signaturePad is the one script a page may run: the booking form's
// drawing pad, and its price step fetched in place. Pages include it by defining "script" as
// <script>{{.Script}}</script>; the CSP allows it by its hash only.
//
//go:embed signature.js
var signaturePad string

// passkey is the script of the ORP owner pages' passkey forms: it runs
// the WebAuthn ceremony whose options the page carries and posts the
// answer with the form. Pages include it as <script>{{.Passkey}}</script>.
//
//go:embed passkey.js
var passkey string

// ContentSecurityPolicy allows the pages nothing but their own inline
// style sheet, the drawing pad's and the passkey forms' scripts, images of
// this server, data: and https:, requests to this server (no page script
// makes one, but a crawler's check fetches robots.txt from the page),
// forms posted to this server and no framing.
var ContentSecurityPolicy = Policy(Brand{})

// Policy is ContentSecurityPolicy for a server whose pages are dressed
// in b as well: it allows the plain style sheet and b's.
func Policy(b Brand) string {
	styles := "'sha256-" + hash(style) + "'"
	if b.css() != "" {
		styles += " 'sha256-" + hash(style+b.css()) + "'"
	}
	return fmt.Sprintf("default-src 'none'; style-src %s; script-src 'sha256-%s' 'sha256-%s'; img-src 'self' data: https:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
		styles, hash(signaturePad), hash(passkey))
}

// Brand dresses a set's pages as the business's own: Accent is a
// "#rrggbb" colour for buttons, links and the header's rule (checked by
// config for contrast with white), Logo an image shown beside the first
// link of the navigation, and Lang the language of the pages, such as
// "en-GB". Wide pages use the whole window, as the staff screen's tables
// and calendar need. The zero Brand is the plain look.
type Brand struct {
	Accent, Logo, Lang string
	Wide               bool
}

// css is what follows the style sheet to set the accent.
func (b Brand) css() string {
	if b.Accent == "" {
		return ""
	}
	return ":root{--accent:" + b.Accent + "}"
}

func hash(s string) string {
	h := sha256.Sum256([]byte(s))
	return base64.StdEncoding.EncodeToString(h[:])
}

// Link is one entry of the navigation every page shows.
type Link struct{ Href, Text string }

// Set is the pages of one adapter, each parsed with the base layout. A
// page template defines "title" and "content", and may define "meta". A
// file whose name starts with "_" is no page: it holds templates that
// several pages share, parsed into each of them.
type Set struct {
	pages map[string]*template.Template
	brand Brand
}

// WithBrand is the same pages dressed in b.
func (s *Set) WithBrand(b Brand) *Set { return &Set{pages: s.pages, brand: b} }

// Must parses every file matching pattern in fsys as a page named by its
// file name, and panics on a fault: sets are built once, from embedded
// files, at package initialisation.
func Must(fsys fs.FS, pattern string, funcs template.FuncMap) *Set {
	names, err := fs.Glob(fsys, pattern)
	if err != nil || len(names) == 0 {
		panic(fmt.Sprintf("page: no templates match %s: %v", pattern, err))
	}
	var shared, pages []string
	for _, name := range names {
		if strings.HasPrefix(path.Base(name), "_") {
			shared = append(shared, name)
		} else {
			pages = append(pages, name)
		}
	}
	s := &Set{pages: map[string]*template.Template{}}
	for _, name := range pages {
		t := template.Must(template.New("layout").Funcs(funcs).Parse(layout))
		if len(shared) > 0 {
			t = template.Must(t.ParseFS(fsys, shared...))
		}
		s.pages[path.Base(name)] = template.Must(t.ParseFS(fsys, name))
	}
	return s
}

// Render writes page name with data, inside the layout with nav. Any
// fault is logged and answered with a plain 500.
func (s *Set) Render(w http.ResponseWriter, r *http.Request, logger *slog.Logger, status int, name string, nav []Link, data any) {
	var buf bytes.Buffer
	t, ok := s.pages[name]
	err := fmt.Errorf("no page %q", name)
	if ok {
		lang := s.brand.Lang
		if lang == "" {
			lang = "en"
		}
		err = t.ExecuteTemplate(&buf, "layout", struct {
			Nav     []Link
			Style   template.CSS
			Script  template.JS
			Passkey template.JS
			Logo    string
			Lang    string
			Wide    bool
			Page    any
		}{nav, template.CSS(style + s.brand.css()), template.JS(signaturePad), template.JS(passkey), s.brand.Logo, lang, s.brand.Wide, data})
	}
	if err != nil {
		if logger != nil {
			logger.ErrorContext(r.Context(), "render page", "page", name, "err", err)
		}
		http.Error(w, "The page could not be shown.", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}
