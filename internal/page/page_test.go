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
	for _, want := range []string{`<title>Hello &lt;Ada&gt;</title>`, `name="viewport"`, `<a href="/terms">Terms</a>`, `<p>Hi &lt;Ada&gt;</p>`} {
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
