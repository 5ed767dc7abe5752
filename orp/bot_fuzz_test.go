package orp

import (
	"strings"
	"testing"
)

// FuzzIsBot: the user-agent classifier never panics, answers the same for
// the same agent (through its cache too), ignores surrounding spaces, and
// takes an empty agent for a bot.
func FuzzIsBot(f *testing.F) {
	for _, seed := range []string{
		"", " ", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36",
		"curl/8.5.0", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
		"Mozilla/5.0 (Linux; Android 10; CUBOT X30) AppleWebKit/537.36", "node", "(((((", "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
		"Mozilla/5.0 (X11; Linux x86_64; (node/20.1)) Gecko/20100101 Firefox/126.0", "\xff\xfe", "facebookexternalhit/1.1",
	} {
		f.Add(seed)
	}
	cache := newBotCache()
	f.Fuzz(func(t *testing.T, ua string) {
		got := IsBot(ua)
		if IsBot(ua) != got || cache.isBot(ua) != got || cache.isBot(ua) != got {
			t.Fatalf("IsBot(%q) is not stable", ua)
		}
		if IsBot(" "+ua+"\t") != got {
			t.Fatalf("IsBot(%q) changes with surrounding spaces", ua)
		}
		if strings.TrimSpace(ua) == "" && !got {
			t.Fatal("an empty agent is not a bot")
		}
	})
}
