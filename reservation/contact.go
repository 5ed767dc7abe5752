package reservation

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits of a contact's address and phone, in characters.
const (
	maxEmail      = 254
	maxEmailLocal = 64
	maxLabel      = 63
	maxPhone      = 40
	maxName       = 120
)

// Email is an address as typed and as grouped for limits and rules.
type Email struct {
	Delivery   string // where mail goes: trimmed, as the guest typed it
	Normalized string // the grouping key: lowercase, plus suffix removed, provider folding
}

var labelPattern = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?$`)

// googleDomains are one provider family's domain aliases. Dots in the
// local part mean nothing there, so they fold too. This is a grouping
// rule, not proof that other providers treat addresses the same way.
var googleDomains = map[string]bool{"gmail.com": true, "googlemail.com": true}

// ParseEmail checks an address and returns its delivery and normalized
// forms. ok is false for anything that is not a plain address with a dot
// in the domain and no spaces.
func ParseEmail(s string) (Email, bool) {
	addr := strings.TrimSpace(s)
	if addr == "" || utf8.RuneCountInString(addr) > maxEmail || strings.ContainsFunc(addr, unicode.IsSpace) {
		return Email{}, false
	}
	local, domain, ok := strings.Cut(addr, "@")
	if !ok || local == "" || strings.Contains(domain, "@") || len(local) > maxEmailLocal {
		return Email{}, false
	}
	if strings.ContainsAny(local, `<>()[]\,;:"`) || strings.HasPrefix(local, ".") || strings.HasSuffix(local, ".") || strings.Contains(local, "..") {
		return Email{}, false
	}
	if strings.ContainsFunc(local, invisible) {
		return Email{}, false
	}
	domain = strings.ToLower(domain)
	labels := strings.Split(domain, ".")
	if len(labels) < 2 {
		return Email{}, false
	}
	for _, l := range labels {
		if len(l) > maxLabel || !labelPattern.MatchString(l) {
			return Email{}, false
		}
	}
	norm := strings.ToLower(local)
	if i := strings.IndexByte(norm, '+'); i >= 0 {
		norm = norm[:i]
	}
	if googleDomains[domain] {
		norm = strings.ReplaceAll(norm, ".", "")
		domain = "gmail.com"
	}
	if norm == "" {
		return Email{}, false
	}
	return Email{Delivery: addr, Normalized: norm + "@" + domain}, true
}

// Phone is a contact number as given and as digits.
type Phone struct {
	Formatted string // trimmed, as the guest typed it
	Digits    string // country code and number, no punctuation, no extension
}

var phoneChars = regexp.MustCompile(`^\+?[0-9 ().\-]+$`)

// ParsePhone accepts text with 10 to 15 digits: a 10-digit number is read
// as a national number of the business's country and gets its calling
// code, countryCode (config's business.phone_country_code); otherwise 11 to 15 digits after removing an
// international 00. An extension ("x123", "ext. 123") is kept in the text
// but not in the digits.
func ParsePhone(s, countryCode string) (Phone, bool) {
	text := strings.TrimSpace(s)
	if text == "" || utf8.RuneCountInString(text) > maxPhone {
		return Phone{}, false
	}
	number := stripExtension(text)
	if !phoneChars.MatchString(number) {
		return Phone{}, false
	}
	digits := strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, number)
	if strings.HasPrefix(digits, "00") && !strings.HasPrefix(number, "+") {
		digits = digits[2:]
	}
	switch n := len(digits); {
	case n == 10:
		digits = countryCode + digits
	case n >= 11 && n <= 15:
	default:
		return Phone{}, false
	}
	return Phone{Formatted: text, Digits: digits}, true
}

var extensionPattern = regexp.MustCompile(`(?i)\s*(?:x|ext\.?|extension)\s*[0-9]{1,6}$`)

func stripExtension(s string) string { return extensionPattern.ReplaceAllString(s, "") }

// invisible reports a character a reader cannot see or that reorders
// what they see: controls (NUL, BEL, DEL), formatting characters such as
// U+202E, U+200B and U+2060, and anything else that is not graphic. An
// address holding one could route a code somewhere other than it reads.
func invisible(r rune) bool {
	return !unicode.IsGraphic(r) || unicode.Is(unicode.Cf, r)
}

// CleanName removes control, formatting and zero-width characters and
// collapses white space; other punctuation stays as the guest typed it.
func CleanName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			b.WriteRune(' ')
		case unicode.IsControl(r), unicode.Is(unicode.Cf, r), r == '\u200b', r == '\ufeff':
		default:
			b.WriteRune(r)
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}
