package httpsig

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Message is the part of an HTTP message a signature can cover. A request
// has a Method and no Status; a response has a Status and no Method.
type Message struct {
	Method    string
	Scheme    string // "https" or "http"
	Authority string // host[:port] as the client addressed it
	Path      string // the escaped absolute path
	RawQuery  string // without the "?"
	HasQuery  bool   // whether the target had a "?", even an empty one
	Status    int
	Header    http.Header
}

// Request describes a request for signing or verification. On the server
// the scheme is not on the wire: it is "https" when the connection used
// TLS, else "http", unless r.URL carries one (as a client request does).
func Request(r *http.Request) Message {
	scheme := r.URL.Scheme
	if scheme == "" {
		scheme = "http"
		if r.TLS != nil {
			scheme = "https"
		}
	}
	host := r.Host
	if host == "" {
		host = r.URL.Host
	}
	return Message{
		Method:    r.Method,
		Scheme:    scheme,
		Authority: host,
		Path:      r.URL.EscapedPath(),
		RawQuery:  r.URL.RawQuery,
		HasQuery:  r.URL.RawQuery != "" || r.URL.ForceQuery,
		Header:    r.Header,
	}
}

// Response describes a response by its status and header.
func Response(status int, h http.Header) Message {
	return Message{Status: status, Header: h}
}

func (m Message) isResponse() bool { return m.Status != 0 }

// authority is lowercase and without the scheme's default port, so that a
// signer and a verifier who write the same host differently agree.
func (m Message) authority() string {
	a := strings.ToLower(m.Authority)
	switch {
	case m.Scheme == "https" && strings.HasSuffix(a, ":443"):
		a = strings.TrimSuffix(a, ":443")
	case m.Scheme == "http" && strings.HasSuffix(a, ":80"):
		a = strings.TrimSuffix(a, ":80")
	}
	return a
}

func (m Message) path() string {
	if m.Path == "" {
		return "/"
	}
	return m.Path
}

func (m Message) query() string {
	return "?" + m.RawQuery
}

func (m Message) requestTarget() string {
	if m.HasQuery {
		return m.path() + m.query()
	}
	return m.path()
}

var errMissing = errors.New("component absent from the message")

// value returns the canonical value of one component (RFC 9421 §2.1 and
// §2.2).
func (m Message) value(c Component) (string, error) {
	for _, p := range c.Params {
		if !(c.Name == "@query-param" && p.Key == "name") {
			// sf, key, bs, req and tr change how a value is derived; none is
			// needed here, and guessing would verify what was not signed.
			return "", fmt.Errorf("component parameter %q is not supported", p.Key)
		}
	}
	if !strings.HasPrefix(c.Name, "@") {
		return m.field(c.Name)
	}
	if m.isResponse() != (c.Name == "@status") {
		return "", fmt.Errorf("%s does not apply to this message", c.Name)
	}
	switch c.Name {
	case "@method":
		return m.Method, nil
	case "@target-uri":
		return strings.ToLower(m.Scheme) + "://" + m.authority() + m.requestTarget(), nil
	case "@authority":
		return m.authority(), nil
	case "@scheme":
		return strings.ToLower(m.Scheme), nil
	case "@request-target":
		return m.requestTarget(), nil
	case "@path":
		return m.path(), nil
	case "@query":
		return m.query(), nil
	case "@query-param":
		return m.queryParam(c)
	case "@status":
		if m.Status < 100 || m.Status > 999 {
			return "", errors.New("status out of range")
		}
		return strconv.Itoa(m.Status), nil
	}
	return "", fmt.Errorf("unknown derived component %s", c.Name)
}

// field joins every line of a header field, each trimmed of surrounding
// whitespace, with ", " (RFC 9421 §2.1).
func (m Message) field(name string) (string, error) {
	lines := m.Header.Values(name)
	if len(lines) == 0 {
		return "", errMissing
	}
	vals := make([]string, len(lines))
	for i, l := range lines {
		if strings.ContainsAny(l, "\r\n") {
			return "", errors.New("field value with a line break")
		}
		vals[i] = strings.Trim(l, " \t")
	}
	return strings.Join(vals, ", "), nil
}

// queryParam returns the one value of the named query parameter,
// re-encoded (RFC 9421 §2.2.8). The name parameter holds the name in that
// same encoding. A name that appears more than once cannot be covered
// this way.
func (m Message) queryParam(c Component) (string, error) {
	v, _ := c.Params.Get("name")
	name, ok := v.(string)
	if !ok {
		return "", errors.New("@query-param without a name")
	}
	var found []string
	for pair := range strings.SplitSeq(m.RawQuery, "&") {
		k, val, _ := strings.Cut(pair, "=")
		dk, err := url.QueryUnescape(k)
		if err != nil {
			return "", fmt.Errorf("query: %w", err)
		}
		if formEncode(dk) != name {
			continue
		}
		dv, err := url.QueryUnescape(val)
		if err != nil {
			return "", fmt.Errorf("query: %w", err)
		}
		found = append(found, dv)
	}
	switch len(found) {
	case 0:
		return "", errMissing
	case 1:
		return formEncode(found[0]), nil
	}
	return "", fmt.Errorf("query parameter %q appears more than once", name)
}

// formEncode percent-encodes every byte outside the
// application/x-www-form-urlencoded safe set, spaces included.
func formEncode(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := range len(s) {
		c := s[i]
		if isAlpha(c) || isDigit(c) || c == '*' || c == '-' || c == '.' || c == '_' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// Base returns the signature base of in over m (RFC 9421 §2.5): one line
// per covered component and the @signature-params line last, joined by
// "\n" with no trailing newline.
func Base(m Message, in Input) ([]byte, error) {
	var b strings.Builder
	for _, c := range in.Components {
		if c.Name == "@signature-params" {
			return nil, errors.New("httpsig: @signature-params cannot be covered")
		}
		v, err := m.value(c)
		if err != nil {
			return nil, fmt.Errorf("httpsig: %s: %w", c, err)
		}
		b.WriteString(c.String())
		b.WriteString(": ")
		b.WriteString(v)
		b.WriteByte('\n')
	}
	sp, err := in.SignatureParams()
	if err != nil {
		return nil, err
	}
	b.WriteString(`"@signature-params": `)
	b.WriteString(sp)
	return []byte(b.String()), nil
}
