package orp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"frontdesk/internal/fault"
	"frontdesk/internal/jsonlimit"
)

// MaxBody is the largest message or request body the host reads (§4.2).
const MaxBody = 64 << 10

// MaxDepth is the deepest nesting of arrays and objects a body may have,
// extensions included. The deepest ORP 0.3 message needs about ten levels;
// the limit bounds the work of E1 on whatever a sender makes up.
const MaxDepth = jsonlimit.Depth

// decodeStrict parses one JSON value, refusing duplicate keys (§2),
// invalid UTF-8, trailing data, nesting beyond MaxDepth and bodies over
// MaxBody. Numbers stay json.Number so integers are never rounded. The
// depth is checked on the bytes before any value is built, so a hostile
// body costs one linear pass.
func decodeStrict(b []byte) (any, *Error) {
	if len(b) > MaxBody {
		return nil, invalid("", fmt.Sprintf("The body is over %d bytes.", MaxBody))
	}
	if !utf8.Valid(b) {
		return nil, invalid("", "The body is not UTF-8.")
	}
	if jsonlimit.CheckDepth(b, MaxDepth) != nil {
		return nil, invalid("", fmt.Sprintf("The body nests arrays and objects deeper than %d levels.", MaxDepth))
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var at path
	v, err := readValue(d, &at)
	if err != nil {
		if e, ok := fault.Find(err, orpCode); ok {
			return nil, e
		}
		return nil, invalid("", "The body is not JSON.")
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, invalid("", "The body holds more than one JSON value.")
	}
	return v, nil
}

// path is where a walk is in a JSON value, as unescaped reference tokens.
// The pointer string is built only when a problem is reported, so walking
// costs nothing per level.
type path []string

func (p *path) push(token string) { *p = append(*p, token) }
func (p *path) pop()              { *p = (*p)[:len(*p)-1] }

// pointer is the JSON Pointer of p, cut before the first token that is
// not a plain name (see safePointer).
func (p path) pointer() string {
	var b strings.Builder
	for _, t := range p {
		b.WriteByte('/')
		b.WriteString(escapePointer(t))
	}
	return safePointer(b.String())
}

func readValue(d *json.Decoder, at *path) (any, error) {
	tok, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			obj := map[string]any{}
			for d.More() {
				kt, err := d.Token()
				if err != nil {
					return nil, err
				}
				k := kt.(string)
				at.push(k)
				if _, dup := obj[k]; dup {
					return nil, invalid(at.pointer(), "Duplicate keys are invalid.")
				}
				v, err := readValue(d, at)
				if err != nil {
					return nil, err
				}
				at.pop()
				obj[k] = v
			}
			_, err := d.Token()
			return obj, err
		case '[':
			arr := []any{}
			for i := 0; d.More(); i++ {
				at.push(strconv.Itoa(i))
				v, err := readValue(d, at)
				if err != nil {
					return nil, err
				}
				at.pop()
				arr = append(arr, v)
			}
			_, err := d.Token()
			return arr, err
		}
		return nil, errors.New("unexpected delimiter")
	default:
		return t, nil
	}
}

func escapePointer(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

var pointerToken = regexp.MustCompile(`^[A-Za-z0-9_.:~-]{1,64}$`)

// safePointer cuts a pointer before the first token the sender made up
// that is not a plain name, so refusals never echo odd text back.
func safePointer(p string) string {
	parts := strings.Split(p, "/")
	for i, t := range parts[1:] {
		if !pointerToken.MatchString(t) {
			return strings.Join(parts[:i+1], "/")
		}
	}
	return p
}

// Text hygiene (§18) and personal data in free text (§7.2).
var (
	markup = regexp.MustCompile(`<\s*/?\s*[A-Za-z!?][^<>]*>|&#?[A-Za-z0-9]+;`)
	email  = regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}`)
	// phone finds runs of digits and separators; phoneDigits decides.
	phone = regexp.MustCompile(`\+?\(?[0-9][0-9 ().-]{5,}[0-9]`)
	// isoDate is a run that is a date, not a phone number.
	isoDate = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)
)

// freeText are the fields whose text a person wrote for another party,
// where an email address or phone number is refused.
var freeText = map[string]bool{"note": true, "statement": true, "brief": true, "copy": true, "title": true, "quote": true, "label": true}

// checkText refuses, with the field's pointer, any string in v that holds
// bidirectional controls, zero-width characters, C0 or C1 controls other
// than newline and tab, or HTML markup (§18); an email address or a
// phone number (§7.2, L1-NO-PII) in a free-text field or anywhere inside
// ext, whose keys and values are all the sender's own free data; and a
// number the host cannot read exactly (see checkNumber).
func checkText(v any, at string) *Error {
	var p path
	if at != "" {
		p = strings.Split(strings.TrimPrefix(at, "/"), "/")
	}
	w := walker{fractions: false}
	if obj, ok := v.(map[string]any); ok && obj["type"] == "reputation" {
		w.fractions = true // reputation components are the one non-integer (§2)
	}
	return w.walk(v, &p, "", false)
}

// walker carries what a walk allows.
type walker struct {
	fractions bool
}

// maxInteger is the largest integer an I-JSON number holds exactly
// (RFC 7493): beyond it two integers can share one hash.
const maxInteger = 1<<53 - 1

// integerLiteral is an integer written the one way JCS writes it.
var integerLiteral = regexp.MustCompile(`^(0|-?[1-9][0-9]{0,15})$`)

// checkNumber words why n is not a number the host reads exactly, or "".
// Numbers in ORP are integers (§2), and an integer written as 1e1 or 3.0
// hashes like 10 or 3 while a reader may take it otherwise, so only plain
// integer literals within the I-JSON range are accepted.
func (w walker) checkNumber(n json.Number) string {
	s := n.String()
	if w.fractions {
		if f, err := n.Float64(); err == nil && f >= -maxInteger && f <= maxInteger {
			return ""
		}
		return "Numbers must lie within the I-JSON range."
	}
	if !integerLiteral.MatchString(s) {
		return "Numbers in ORP are integers written without a fraction or exponent."
	}
	if i, err := n.Int64(); err != nil || i > maxInteger || i < -maxInteger {
		return "Integers must lie within the I-JSON range, -(2^53-1) to 2^53-1."
	}
	return ""
}

func (w walker) walk(v any, at *path, key string, open bool) *Error {
	switch v := v.(type) {
	case map[string]any:
		for k, c := range v {
			at.push(k)
			if open {
				if e := textProblem(k, true); e != "" {
					return invalid(at.pointer(), e)
				}
			}
			if e := w.walk(c, at, k, open || len(*at) == 1 && k == "ext"); e != nil {
				return e
			}
			at.pop()
		}
	case []any:
		for i, c := range v {
			at.push(strconv.Itoa(i))
			if e := w.walk(c, at, key, open); e != nil {
				return e
			}
			at.pop()
		}
	case string:
		if e := textProblem(v, open || freeText[key]); e != "" {
			return invalid(at.pointer(), e)
		}
	case json.Number:
		if msg := w.checkNumber(v); msg != "" {
			return invalid(at.pointer(), msg)
		}
		if open && hasContact(v.String()) {
			return invalid(at.pointer(), "Extension data must not contain an email address or phone number.")
		}
	}
	return nil
}

// textProblem words what is wrong with s, or is "". contact says personal
// contact data is refused too.
func textProblem(s string, contact bool) string {
	if msg := hygiene(s); msg != "" {
		return msg
	}
	if contact && hasContact(s) {
		return "Free text must not contain an email address or phone number."
	}
	return ""
}

func hygiene(s string) string {
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t':
		case r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f:
			return "Text must not contain control characters."
		case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
			return "Text must not contain bidirectional control characters."
		case r >= 0x200b && r <= 0x200d, r == 0x2060, r == 0xfeff, r == 0x180e:
			return "Text must not contain zero-width characters."
		}
	}
	if markup.MatchString(s) {
		return "Text must not contain HTML markup."
	}
	return ""
}

func hasContact(s string) bool {
	if email.MatchString(s) {
		return true
	}
	for _, m := range phone.FindAllString(s, -1) {
		m = strings.TrimSpace(m)
		if isoDate.MatchString(m) {
			continue
		}
		digits := 0
		for _, r := range m {
			if r >= '0' && r <= '9' {
				digits++
			}
		}
		if digits >= 9 && digits <= 15 {
			return true
		}
	}
	return false
}

// remarshal decodes v, a value decodeStrict read and a schema checked,
// into out.
func remarshal(v any, out any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}
