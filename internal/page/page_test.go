package page

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
)

var testPages = Must(fstest.MapFS{
	"p/hello.html":  {Data: []byte(`{{define "title"}}Hello {{.}}{{end}}{{define "content"}}<p>Hi {{.}}</p>{{end}}`)},
	"p/broken.html": {Data: []byte(`{{define "title"}}x{{end}}{{define "content"}}{{.Missing.Field}}{{end}}`)},
}, "p/*.html", nil)

// TestLayoutAndPolicyAgree: every page has the viewport and navigation,
// and the one inline style sheet is the one the CSP allows by hash.
func TestLayoutAndPolicyAgree(t *testing.T) {
	rec := httptest.NewRecorder()
	testPages.Render(rec, httptest.NewRequest(http.MethodGet, "/", nil), nil, http.StatusOK, "hello.html", []Link{{"/terms", "Terms"}}, "<Ada>")
	body := rec.Body.String()
	for _, want := range []string{`<title>Hello &lt;Ada&gt;</title>`, `name="viewport"`, `<a href="/terms" class="brand">Terms</a>`, `<p>Hi &lt;Ada&gt;</p>`} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %s:\n%s", want, body)
		}
	}
	start := strings.Index(body, "<style>") + len("<style>")
	end := strings.Index(body, "</style>")
	sum := sha256.Sum256([]byte(body[start:end]))
	if hash := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"; !strings.Contains(ContentSecurityPolicy, hash) {
		t.Fatalf("CSP %q does not allow the inline style %s", ContentSecurityPolicy, hash)
	}
}

// TestRenderFaultIsAClean500: a template fault shows no half page.
func TestRenderFaultIsAClean500(t *testing.T) {
	rec := httptest.NewRecorder()
	testPages.Render(rec, httptest.NewRequest(http.MethodGet, "/", nil), nil, http.StatusOK, "broken.html", nil, "text")
	if rec.Code != http.StatusInternalServerError || strings.Contains(rec.Body.String(), "<html") {
		t.Fatalf("broken page = %d %q", rec.Code, rec.Body.String())
	}
}

// TestBrandAndPolicyAgree: a page dressed in a brand carries its accent,
// logo, language and width, and the policy for that brand allows its
// style sheet while the plain policy allows the plain one.
func TestBrandAndPolicyAgree(t *testing.T) {
	b := Brand{Accent: "#0b5d4b", Logo: "/photos/logo.svg", Lang: "en-GB", Wide: true}
	rec := httptest.NewRecorder()
	testPages.WithBrand(b).Render(rec, httptest.NewRequest(http.MethodGet, "/", nil), nil, http.StatusOK, "hello.html", []Link{{"/", "Inn"}, {"/policy", "Policy"}}, "Ada")
	body := rec.Body.String()
	for _, want := range []string{`<html lang="en-GB">`, `<body class="wide">`, ":root{--accent:#0b5d4b}</style>", `<a href="/" class="brand"><img src="/photos/logo.svg" alt="" width="32" height="32">Inn</a> <a href="/policy">Policy</a>`} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	start := strings.Index(body, "<style>") + len("<style>")
	sum := sha256.Sum256([]byte(body[start:strings.Index(body, "</style>")]))
	hash := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	if !strings.Contains(Policy(b), hash) {
		t.Fatalf("Policy(brand) does not allow the branded style %s", hash)
	}
	if strings.Contains(ContentSecurityPolicy, hash) {
		t.Fatalf("the plain policy allows the branded style")
	}
}
