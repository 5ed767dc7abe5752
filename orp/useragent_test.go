package orp

import (
	"net/http"
	"net/url"
	"testing"
)

// TestUserAgentTable is every example §20.2 names for what a click
// counts as, by its user agent and headers: no user agent, known
// clients as product tokens, name/version entries and named entries in
// parentheses (nested and unclosed ones too), the token just before an
// inner parenthesis and the one after the group, entries after
// compatible, node and undici only in name/version form, comment text
// (CUBOT, preview, Linux) staying human, HEAD, prefetch and prerender
// headers, and orp_test=1.
func TestUserAgentTable(t *testing.T) {
	const browser = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36"
	cases := []struct {
		name, method, ua string
		header           map[string]string
		query            string
		class            string
	}{
		{"no user agent", "GET", "", nil, "", classBot},
		{"a browser", "GET", browser, nil, "", classHuman},
		{"product token curl", "GET", "curl/8.5.0", nil, "", classBot},
		{"product token wget", "GET", "Wget/1.21.4", nil, "", classBot},
		{"product token ending in bot", "GET", "ExampleBot/2.0", nil, "", classBot},
		{"name/version in parentheses", "GET", "Mozilla/5.0 (X11; python-requests/2.31) Gecko", nil, "", classBot},
		{"named client as its own entry", "GET", "Mozilla/5.0 (Windows; curl) Firefox/120", nil, "", classBot},
		{"Applebot/0.1 inside parentheses", "GET", "Mozilla/5.0 (Macintosh) Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)", nil, "", classBot},
		{"Pingdom in nested parentheses", "GET", "Mozilla/5.0 (Linux; Pingdom (x; y)) Chrome/1", nil, "", classBot},
		{"token just before an inner parenthesis", "GET", "Mozilla/5.0 (Linux; wget (build 7)) Chrome/1", nil, "", classBot},
		{"token after a nested group", "GET", "Mozilla/5.0 (Linux; (build 7) curl) Chrome/1", nil, "", classBot},
		{"unclosed parenthesis", "GET", "Mozilla/5.0 (compatible; Twitterbot/1.0", nil, "", classBot},
		{"unclosed with a named client", "GET", "Mozilla/5.0 (X11; curl", nil, "", classBot},
		{"compatible; Googlebot", "GET", "Mozilla/5.0 (compatible; Googlebot)", nil, "", classBot},
		{"compatible; GoogleOther", "GET", "Mozilla/5.0 (compatible; GoogleOther)", nil, "", classBot},
		{"compatible; a browser's own entry", "GET", "Mozilla/5.0 (compatible; MSIE 10.0; Windows NT 6.1; Trident/6.0)", nil, "", classHuman},
		{"node/version in a device comment", "GET", "Mozilla/5.0 (X11; node/20.1.0) Chrome/120", nil, "", classBot},
		{"slashless node in a device comment", "GET", "Mozilla/5.0 (X11; node) Chrome/120", nil, "", classHuman},
		{"undici/version in a device comment", "GET", "Mozilla/5.0 (X11; undici/6.0) Chrome/120", nil, "", classBot},
		{"slashless undici in a device comment", "GET", "Mozilla/5.0 (X11; undici) Chrome/120", nil, "", classHuman},
		{"CUBOT stays human", "GET", "Mozilla/5.0 (Linux; Android 10; CUBOT X30) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36", nil, "", classHuman},
		{"preview in a comment stays human", "GET", "Mozilla/5.0 (Linux; preview) Firefox/120.0", nil, "", classHuman},
		{"Linux stays human", "GET", "Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0", nil, "", classHuman},
		{"HEAD", "HEAD", browser, nil, "", classPreview},
		{"X-Moz: prefetch", "GET", browser, map[string]string{"X-Moz": "prefetch"}, "", classPreview},
		{"Sec-Purpose: prefetch", "GET", browser, map[string]string{"Sec-Purpose": "prefetch;prerender"}, "", classPreview},
		{"Sec-Fetch-Purpose: prefetch", "GET", browser, map[string]string{"Sec-Fetch-Purpose": "prefetch"}, "", classPreview},
		{"Purpose: prefetch", "GET", browser, map[string]string{"Purpose": "prefetch"}, "", classPreview},
		{"X-Purpose: preview", "GET", browser, map[string]string{"X-Purpose": "preview"}, "", classPreview},
		{"orp_test=1", "GET", browser, nil, "orp_test=1", classTest},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := http.Header{}
			if c.ua != "" {
				h.Set("User-Agent", c.ua)
			}
			for k, v := range c.header {
				h.Set(k, v)
			}
			q, _ := url.ParseQuery(c.query)
			if got := classify(Click{Method: c.method, Query: q, Header: h}, IsBot); got != c.class {
				t.Fatalf("class = %s, want %s", got, c.class)
			}
		})
	}
}
