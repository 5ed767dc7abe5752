package direct

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Length limits of the worksheet, in characters.
const (
	maxName       = 120
	maxRoomType   = 20
	maxDate       = 10
	maxEmail      = 254
	maxEmailLocal = 64
	maxLabel      = 63
	maxPhone      = 40
	maxNotes      = 500
	maxIdentifier = 100
	maxReference  = 80
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

// MaskEmail shows enough of an address for a guest to recognise it:
// "j***@example.com".
func MaskEmail(addr string) string {
	local, domain, _ := strings.Cut(addr, "@")
	first, _ := utf8.DecodeRuneInString(local)
	return string(first) + "***@" + domain
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

// LastFour returns the last four digits of a stored phone, extension
// stripped. The calling code only prefixes digits, so none is needed.
func LastFour(formatted string) string {
	p, ok := ParsePhone(formatted, "")
	if !ok || len(p.Digits) < 4 {
		return ""
	}
	return p.Digits[len(p.Digits)-4:]
}

// invisible reports a character a reader cannot see or that reorders
// what they see: controls (NUL, BEL, DEL), formatting characters such as
// U+202E, U+200B and U+2060, and anything else that is not graphic. An
// address holding one could route a code somewhere other than it reads.
func invisible(r rune) bool {
	return !unicode.IsGraphic(r) || unicode.Is(unicode.Cf, r)
}

// linkSchemes are the URI schemes a mail reader or chat client may turn
// into something clickable.
var linkSchemes = []string{"http:", "https:", "ftp:", "ftps:", "sftp:", "file:", "mailto:", "data:", "javascript:", "vbscript:", "ws:", "wss:", "irc:", "magnet:", "tel:", "sms:"}

// hostPattern finds a dotted host name ending in a top-level label of
// letters, such as "evil.shop" or "bit.ly", wherever it stands in a word.
var hostPattern = regexp.MustCompile(`(?i)[a-z0-9-]+(\.[a-z0-9-]+)*\.[a-z]{2,}([^a-z0-9-]|$)`)

// linkLike reports whether a word could be read as a link: it has a
// scheme or "://" anywhere (so one leading character does not hide it), a
// "www." prefix, or a dotted host name.
func linkLike(word string) bool {
	lower := strings.ToLower(word)
	if strings.Contains(lower, "://") || strings.Contains(lower, "www.") {
		return true
	}
	for _, scheme := range linkSchemes {
		if i := strings.Index(lower, scheme); i >= 0 && i+len(scheme) < len(lower) {
			return true
		}
	}
	return hostPattern.MatchString(word)
}

var wordPattern = regexp.MustCompile(`\S+`)

// MailName is a cleaned guest name as staff mail shows it: every word a
// mail reader could turn into a link has its dots and colons bracketed
// ("evil[.]example", "https[:]//"), so the name stays readable but is
// never clickable. Other words are left exactly as the guest typed them.
// The change is bounded to link-like words of a name of at most 120
// characters.
func MailName(name string) string {
	return wordPattern.ReplaceAllStringFunc(name, func(w string) string {
		if !linkLike(w) {
			return w
		}
		return strings.NewReplacer(".", "[.]", ":", "[:]").Replace(w)
	})
}

// CleanNotes makes notes plain text for staff: control and formatting
// characters go, and every word that is or holds a link (a scheme such as
// https://, ftp:// or mailto:, a www. address, a bare host such as
// evil.shop/login or a shortener's bit.ly/x) or a path is replaced, so a
// note cannot carry an address into staff mail.
func CleanNotes(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case unicode.IsControl(r), unicode.Is(unicode.Cf, r):
		default:
			b.WriteRune(r)
		}
	}
	return strings.TrimSpace(wordPattern.ReplaceAllStringFunc(b.String(), func(w string) string {
		if linkLike(w) || strings.HasPrefix(w, "/") {
			return "[link removed]"
		}
		return w
	}))
}
