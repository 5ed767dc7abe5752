package orp

import "testing"

func TestIsBot(t *testing.T) {
	cases := []struct {
		ua  string
		bot bool
	}{
		{"", true},
		{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36", false},
		{"Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1", false},
		{"Mozilla/5.0 (Linux; Android 10; CUBOT X30) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36", false},
		{"Mozilla/5.0 (Linux; preview) Firefox/120.0", false},
		{"curl/8.5.0", true},
		{"Wget/1.21", true},
		{"python-requests/2.31", true},
		{"Go-http-client/1.1", true},
		{"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", true},
		{"Mozilla/5.0 (compatible; Googlebot)", true},
		{"Mozilla/5.0 (compatible; GoogleOther)", true},
		{"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)", true},
		{"Mozilla/5.0 (Unknown; Linux x86_64) AppleWebKit/534.34 (KHTML, like Gecko) Safari/534.34 (Linux; pingdom.com_bot_version_1.4 (http://www.pingdom.com/))", true},
		{"Mozilla/5.0 (X11; node/20.1.0) Chrome/120", true},
		{"Mozilla/5.0 (X11; node) Chrome/120", false},
		{"Mozilla/5.0 (X11; undici) Chrome/120", false},
		{"Mozilla/5.0 (X11; undici/6.0) Chrome/120", true},
		{"Mozilla/5.0 (compatible; Twitterbot/1.0", true},
		{"facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)", true},
		{"Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)", true},
		{"Mozilla/5.0 (Windows; curl) Firefox/120", true},
		{"Mozilla/5.0 (Linux; Pingdom (x; y)) Chrome/1", true},
		// Link-preview fetchers the audit saw counted as human (T5).
		{"Mozilla/5.0 (compatible; Cardyb/1.0; +https://bsky.app)", true},
		{"Iframely/1.3.1 (+https://iframely.com/docs/about)", true},
		{"Mozilla/5.0 (Linux; Android 11) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36 Google-PageRenderer", true},
		{"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120 Safari/537.36 Google-Read-Aloud", true},
		{"Mozilla/5.0 (Windows NT 6.1; Win64; x64; +http://www.proximic.com/info/spider.php) Chrome/120", true},
		// The maintained list catches clients the spec's rules do not name.
		{"Mozilla/5.0 (compatible; SemanticScholarBot/1.0)", true},
		{"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0 Safari/537.36", true},
	}
	for _, c := range cases {
		if got := IsBot(c.ua); got != c.bot {
			t.Errorf("IsBot(%q) = %v, want %v", c.ua, got, c.bot)
		}
	}
}
