package mcpfront

import (
	"bytes"
	"encoding"
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
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
	in       reflect.Type // the tool's input, once every property has its field in it (bind)
}

type quickProp struct {
	integer   bool // else a string
	required  bool
	maxLength int // -1 when unbounded
	minimum   *float64
	field     int  // the input struct's field it decodes into, once bound
	pointer   bool // that field is an *int
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
// is not UTF-8, a value that is neither a string nor a number); the
// caller then decodes the map and asks passes.
func (c *quickCheck) passesRaw(raw json.RawMessage) bool {
	return c.scan(raw, nil)
}

// scan reads raw as an object of the check's properties, each a plain
// string (no escape, no control character) or a JSON number, with
// nothing before or after it but white space, and reports whether it
// certainly meets the schema. It checks the JSON grammar itself, and
// only that narrow part of it: whatever else JSON allows it says no to.
// each, when set, is given every property and its value's bytes in
// order; the scan stops, saying no, when it returns false.
func (c *quickCheck) scan(raw []byte, each func(p quickProp, v []byte) bool) bool {
	i := skipSpace(raw, 0)
	if i == len(raw) || raw[i] != '{' {
		return false
	}
	var seen [16][]byte
	n, required := 0, 0
	if i = skipSpace(raw, i+1); i < len(raw) && raw[i] == '}' {
		return skipSpace(raw, i+1) == len(raw) && len(c.required) == 0
	}
	for {
		end := plainStringEnd(raw, i)
		if end < 0 {
			return false
		}
		key := raw[i+1 : end-1]
		p, ok := c.props[string(key)]
		if !ok || n == len(seen) {
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
		if i = skipSpace(raw, end); i == len(raw) || raw[i] != ':' {
			return false
		}
		start := skipSpace(raw, i+1)
		if p.integer {
			end = numberEnd(raw, start)
		} else {
			end = plainStringEnd(raw, start)
		}
		if end < 0 || !p.passesRaw(raw[start:end]) || each != nil && !each(p, raw[start:end]) {
			return false
		}
		switch i = skipSpace(raw, end); {
		case i == len(raw):
			return false
		case raw[i] == '}':
			return skipSpace(raw, i+1) == len(raw) && required == len(c.required)
		case raw[i] != ',':
			return false
		}
		i = skipSpace(raw, i+1)
	}
}

// plainStringEnd returns the index just past the JSON string starting at
// i, or -1 when there is none or it holds an escape or a control
// character, which JSON forbids unescaped.
func plainStringEnd(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	for i++; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1
		case c == '\\' || c < 0x20:
			return -1
		}
	}
	return -1
}

// numberEnd returns the index just past the JSON number starting at i,
// or -1 when none does: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func numberEnd(b []byte, i int) int {
	digits := func(i int) int {
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i == len(b):
		return -1
	case b[i] == '0':
		i++
	case b[i] >= '1' && b[i] <= '9':
		i = digits(i)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		if j := digits(i + 1); j > i+1 {
			i = j
		} else {
			return -1
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

// bind ties the check's properties to the fields of in, the tool's input
// struct, that encoding/json decodes them into, so that decode can fill
// them without it. It binds only a struct whose every field is exported
// and named by a json tag of its own, holding a string, an int or an
// *int that does not decode itself, with every property of the schema on
// a field of its type; for any other, decode always says no.
func (c *quickCheck) bind(in reflect.Type) *quickCheck {
	if c == nil || in.Kind() != reflect.Struct {
		return c
	}
	fields := map[string]int{}
	for i := range in.NumField() {
		f := in.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || f.Anonymous || name == "" || name == "-" || strings.Contains(opts, "string") {
			return c
		}
		if _, twice := fields[name]; twice {
			return c
		}
		fields[name] = i
	}
	bound := &quickCheck{props: map[string]quickProp{}, required: c.required, in: in}
	for name, p := range c.props {
		i, ok := fields[name]
		if !ok {
			return c
		}
		t := in.Field(i).Type
		p.field, p.pointer = i, t.Kind() == reflect.Pointer
		if p.pointer {
			t = t.Elem()
		}
		if p.integer && t.Kind() != reflect.Int || !p.integer && (t.Kind() != reflect.String || p.pointer) || decodesItself(t) {
			return c
		}
		bound.props[name] = p
	}
	return bound
}

// decodesItself reports whether encoding/json would hand a value of t to
// t's own method instead of setting it as a plain string or number.
func decodesItself(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return p.Implements(reflect.TypeFor[json.Unmarshaler]()) || p.Implements(reflect.TypeFor[encoding.TextUnmarshaler]())
}

// decode fills *dst, the zero value of the struct the check is bound to,
// from raw exactly as encoding/json.Unmarshal would, and reports whether
// it could: raw must pass the check, and every integer be written as
// one (encoding/json refuses 2.0 for an int). When it says no, *dst may
// hold part of raw and the caller starts again from the zero value.
func (c *quickCheck) decode(raw []byte, dst any) bool {
	if c == nil || c.in == nil {
		return false
	}
	v := reflect.ValueOf(dst).Elem()
	if v.Type() != c.in {
		return false
	}
	return c.scan(raw, func(p quickProp, val []byte) bool {
		f := v.Field(p.field)
		if !p.integer {
			f.SetString(string(val[1 : len(val)-1]))
			return true
		}
		if bytes.ContainsAny(val, ".eE") {
			return false
		}
		n, err := strconv.ParseInt(string(val), 10, 64)
		if p.pointer {
			f.Set(reflect.New(f.Type().Elem()))
			f = f.Elem()
		}
		if err != nil || f.OverflowInt(n) {
			return false
		}
		f.SetInt(n)
		return true
	})
}

// passesRaw reports whether v, a JSON string or number, certainly meets p.
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
