package mcpfront

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// quickCheck proves, without the schema package's general validator,
// that arguments meet an input schema of the one shape the read and
// booking tools use: an object of string and integer properties with
// length and minimum bounds, some required, nothing else allowed. It only
// ever says yes when the validator would too; for anything else (a
// failing value, or a schema using any other keyword) the validator runs,
// so the refusal a caller reads is always the validator's own.
type quickCheck struct {
	props    map[string]quickProp
	required []string
}

type quickProp struct {
	integer   bool // else a string
	required  bool
	maxLength int // -1 when unbounded
	minimum   *float64
}

// newQuickCheck returns the check for s, or nil when s uses a keyword
// the check does not know.
func newQuickCheck(s *jsonschema.Schema) *quickCheck {
	if s == nil || s.Type != "object" || !isFalse(s.AdditionalProperties) {
		return nil
	}
	rest := *s
	rest.Type, rest.AdditionalProperties, rest.Properties, rest.PropertyOrder, rest.Required = "", nil, nil, nil, nil
	rest.Title, rest.Description = "", ""
	if !reflect.ValueOf(rest).IsZero() {
		return nil
	}
	c := &quickCheck{props: map[string]quickProp{}, required: s.Required}
	for name, p := range s.Properties {
		q, ok := newQuickProp(p)
		if !ok {
			return nil
		}
		c.props[name] = q
	}
	for _, name := range s.Required {
		p, ok := c.props[name]
		if !ok {
			return nil
		}
		p.required = true
		c.props[name] = p
	}
	return c
}

func newQuickProp(p *jsonschema.Schema) (quickProp, bool) {
	if p == nil {
		return quickProp{}, false
	}
	q := quickProp{maxLength: -1, minimum: p.Minimum}
	switch p.Type {
	case "string":
		if p.MaxLength != nil {
			q.maxLength = *p.MaxLength
		}
		if p.Minimum != nil {
			return quickProp{}, false
		}
	case "integer":
		q.integer = true
		if p.MaxLength != nil {
			return quickProp{}, false
		}
	default:
		return quickProp{}, false
	}
	rest := *p
	rest.Type, rest.MaxLength, rest.Minimum, rest.Title, rest.Description = "", nil, nil, "", ""
	return q, reflect.ValueOf(rest).IsZero()
}

// isFalse reports whether s is the schema no value meets, {"not": {}}.
func isFalse(s *jsonschema.Schema) bool {
	if s == nil || s.Not == nil || !reflect.ValueOf(*s.Not).IsZero() {
		return false
	}
	rest := *s
	rest.Not = nil
	return reflect.ValueOf(rest).IsZero()
}

// passesRaw is passes read from the object as written, without decoding
// it into a map first: an ordinary call's arguments are then decoded
// once, into the tool's input. It says no to whatever it cannot read
// exactly as encoding/json would (a repeated key, an escape, text that
// is not UTF-8); the caller then decodes the map and asks passes.
func (c *quickCheck) passesRaw(raw json.RawMessage) bool {
	if !json.Valid(raw) {
		return false
	}
	i := skipSpace(raw, 0)
	if raw[i] != '{' {
		return false
	}
	var seen [16][]byte
	n, required := 0, 0
	if i = skipSpace(raw, i+1); raw[i] == '}' {
		return len(c.required) == 0
	}
	for {
		end := valueEnd(raw, i) // valid JSON: a key, a colon, a value
		key := raw[i+1 : end-1]
		p, ok := c.props[string(key)]
		if !ok || bytes.IndexByte(key, '\\') >= 0 || n == len(seen) {
			return false
		}
		for _, k := range seen[:n] {
			if bytes.Equal(k, key) {
				return false
			}
		}
		seen[n], n = key, n+1
		if p.required {
			required++
		}
		start := skipSpace(raw, skipSpace(raw, end)+1)
		end = valueEnd(raw, start)
		if !p.passesRaw(raw[start:end]) {
			return false
		}
		if i = skipSpace(raw, end); raw[i] == '}' {
			return required == len(c.required)
		}
		i = skipSpace(raw, i+1)
	}
}

// passesRaw reports whether v, a valid JSON value, certainly meets p.
func (p quickProp) passesRaw(v []byte) bool {
	if p.integer {
		// A JSON number, parsed as encoding/json parses one.
		if v[0] != '-' && (v[0] < '0' || v[0] > '9') {
			return false
		}
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			return false
		}
		_, frac := math.Modf(f)
		return frac == 0 && (p.minimum == nil || f >= *p.minimum)
	}
	if v[0] != '"' {
		return false
	}
	text := v[1 : len(v)-1]
	return bytes.IndexByte(text, '\\') < 0 && utf8.Valid(text) &&
		(p.maxLength < 0 || utf8.RuneCount(text) <= p.maxLength)
}

// passes reports whether args, as encoding/json decodes an object into
// map[string]any, certainly meet the schema.
func (c *quickCheck) passes(args map[string]any) bool {
	for name, v := range args {
		p, ok := c.props[name]
		if !ok {
			return false
		}
		if p.integer {
			f, ok := v.(float64)
			if !ok {
				return false
			}
			if _, frac := math.Modf(f); frac != 0 || p.minimum != nil && f < *p.minimum {
				return false
			}
			continue
		}
		s, ok := v.(string)
		if !ok || p.maxLength >= 0 && utf8.RuneCountInString(s) > p.maxLength {
			return false
		}
	}
	for _, name := range c.required {
		if _, ok := args[name]; !ok {
			return false
		}
	}
	return true
}
