package direct

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"frontdesk/reservation"
)

// Length limits of the worksheet, in characters.
const (
	maxName       = 120
	maxRoomType   = 20
	maxDate       = 10
	maxNotes      = 500
	maxIdentifier = 100
	maxReference  = 80
)

// MaskEmail shows enough of an address for a guest to recognise it:
// "j***@example.com".
func MaskEmail(addr string) string {
	local, domain, _ := strings.Cut(addr, "@")
	first, _ := utf8.DecodeRuneInString(local)
	return string(first) + "***@" + domain
}

// LastFour returns the last four digits of a stored phone, extension
// stripped. The calling code only prefixes digits, so none is needed.
func LastFour(formatted string) string {
	p, ok := reservation.ParsePhone(formatted, "")
	if !ok || len(p.Digits) < 4 {
		return ""
	}
	return p.Digits[len(p.Digits)-4:]
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
