package orp

import (
	"strings"
	"sync"

	"github.com/x-way/crawlerdetect"
)

// knownClients are automation clients and link-preview fetchers, matched
// on the lowercased product name (T5). A link-preview fetcher is a bot,
// not a preview. Keep the list sorted; add names as they are seen.
var knownClients = map[string]bool{
	"ahrefsbot": true, "apache-httpclient": true, "applebot": true, "axios": true, "baiduspider": true,
	"bingpreview": true, "bytespider": true, "ccbot": true, "chrome-lighthouse": true, "curl": true,
	"discordbot": true, "duckduckbot": true, "embedly": true, "facebookcatalog": true, "facebookexternalhit": true,
	"go-http-client": true, "google-inspectiontool": true, "googleother": true, "gptbot": true, "headlesschrome": true,
	"httpie": true, "httpx": true, "java": true, "libwww-perl": true, "linkedinbot": true, "mastodon": true,
	"node": true, "node-fetch": true, "okhttp": true, "petalbot": true, "phantomjs": true, "pingdom": true,
	"postmanruntime": true, "python-requests": true, "python-urllib": true, "python-httpx": true, "aiohttp": true,
	"quora link preview": true, "redditbot": true, "scrapy": true, "semrushbot": true, "skypeuripreview": true,
	"slack-imgproxy": true, "slackbot": true, "slackbot-linkexpanding": true, "telegrambot": true, "twitterbot": true,
	"undici": true, "uptimerobot": true, "vkshare": true, "wget": true, "whatsapp": true, "yandexbot": true,
	"zgrab": true, "claudebot": true, "cardyb": true, "iframely": true, "google-pagerenderer": true,
	"google-read-aloud": true, "proximic": true, "claude-user": true, "chatgpt-user": true, "perplexitybot": true,
	"ia_archiver": true, "mediapartners-google": true, "adsbot-google": true, "feedfetcher-google": true,
	"googlebot": true, "bingbot": true, "slurp": true, "yeti": true, "sogou": true, "exabot": true,
}

// slashOnly are clients that count inside a comment only in name/version
// form: "node" or "undici" alone there stays human (§20.2).
var slashOnly = map[string]bool{"node": true, "undici": true}

// IsBot reports whether a User-Agent is missing or names an automation
// client. The product-token rules of T5 and §20.2 come first: a top-level
// product name; inside parentheses (nested ones too) a name/version
// entry, the token just before an inner parenthesis, a named client
// written as its own entry, or an entry after "compatible" that is a
// named crawler or ends in "bot". Comment text of another shape (CUBOT,
// Linux, preview) stays human under them. Behind them, a maintained list
// of crawler patterns (crawlerdetect) catches the clients our own names
// miss.
func IsBot(ua string) bool {
	ua = strings.TrimSpace(ua)
	if ua == "" {
		return true
	}
	return specBot(ua) || crawlerdetect.IsCrawler(ua)
}

// specBot applies the product-token rules of T5 and §20.2.
func specBot(ua string) bool {
	top, comments := splitUA(ua)
	for _, tok := range top {
		name, _, _ := strings.Cut(tok, "/")
		if botName(name) {
			return true
		}
	}
	for _, c := range comments {
		if commentBot(c) {
			return true
		}
	}
	return false
}

func botName(name string) bool {
	n := strings.ToLower(strings.TrimSpace(name))
	if n == "" {
		return false
	}
	return knownClients[n] || strings.HasSuffix(n, "bot") || strings.HasSuffix(n, "spider") || strings.HasSuffix(n, "crawler")
}

// splitUA separates top-level product tokens from parenthesised comments.
// An unclosed parenthesis runs to the end and is scanned the same way.
func splitUA(ua string) (top []string, comments []string) {
	depth, start := 0, 0
	var cur strings.Builder
	for i, r := range ua {
		switch {
		case r == '(':
			if depth == 0 {
				top = append(top, strings.Fields(cur.String())...)
				cur.Reset()
				start = i + 1
			}
			depth++
		case r == ')' && depth > 0:
			depth--
			if depth == 0 {
				comments = append(comments, ua[start:i])
			}
		case depth == 0:
			cur.WriteRune(r)
		}
	}
	if depth > 0 {
		comments = append(comments, ua[start:])
	}
	top = append(top, strings.Fields(cur.String())...)
	return top, comments
}

// commentBot scans one comment's entries, recursing into nested groups.
func commentBot(c string) bool {
	entries := splitEntries(c)
	afterCompatible := false
	for _, e := range entries {
		inner := ""
		if i := strings.IndexByte(e, '('); i >= 0 {
			// The product token just before an inner parenthesis counts,
			// and the group itself is scanned like any comment.
			inner = e[i+1:]
			if j := strings.LastIndexByte(inner, ')'); j >= 0 {
				if rest := strings.TrimSpace(inner[j+1:]); rest != "" && entryBot(rest, false) {
					return true
				}
				inner = inner[:j]
			}
			e = strings.TrimSpace(e[:i])
			if f := strings.Fields(e); len(f) > 0 && (entryBot(f[len(f)-1], false) || productBot(f[len(f)-1])) {
				return true
			}
			if commentBot(inner) {
				return true
			}
			continue
		}
		if entryBot(e, afterCompatible) {
			return true
		}
		afterCompatible = strings.EqualFold(strings.TrimSpace(e), "compatible")
	}
	return false
}

// splitEntries splits a comment on ';' outside nested parentheses.
func splitEntries(c string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range c {
		switch r {
		case '(':
			depth++
		case ')':
			if depth > 0 {
				depth--
			}
		case ';':
			if depth == 0 {
				out = append(out, strings.TrimSpace(c[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(c[start:]))
}

func entryBot(e string, afterCompatible bool) bool {
	e = strings.TrimSpace(e)
	if e == "" {
		return false
	}
	for _, word := range strings.Fields(e) {
		if name, _, ok := strings.Cut(word, "/"); ok {
			if botName(name) {
				return true
			}
		}
	}
	name := strings.ToLower(e)
	if strings.Contains(name, "/") {
		return false
	}
	if afterCompatible {
		first := strings.ToLower(strings.Fields(e)[0])
		return botName(first) || knownClients[name] || strings.Contains(first, "bot")
	}
	// A named client written as its own entry, except the names that
	// count only with a version.
	return knownClients[name] && !slashOnly[name]
}

// productBot reads a product token written without a slash, such as
// "pingdom.com_bot_version_1.4": its leading name decides.
func productBot(tok string) bool {
	name := strings.FieldsFunc(strings.ToLower(tok), func(r rune) bool { return r == '.' || r == '_' || r == '/' || r == ' ' })
	return len(name) > 0 && botName(name[0])
}

// botCache remembers IsBot's answer per User-Agent. Real traffic repeats
// a few browser strings, and parsing one costs more than the rest of a
// redirect; the cache is cleared when it fills, so odd strings cannot
// grow it.
type botCache struct {
	mu sync.Mutex
	m  map[string]bool
}

const botCacheMax = 4096

func newBotCache() *botCache { return &botCache{m: map[string]bool{}} }

func (c *botCache) isBot(ua string) bool {
	c.mu.Lock()
	bot, ok := c.m[ua]
	c.mu.Unlock()
	if ok {
		return bot
	}
	bot = IsBot(ua)
	c.mu.Lock()
	if len(c.m) >= botCacheMax {
		clear(c.m)
	}
	c.m[ua] = bot
	c.mu.Unlock()
	return bot
}
