package mcpfront

import (
	"math"
	"reflect"
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
	maxLength int  // -1 when unbounded
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
		if _, ok := c.props[name]; !ok {
			return nil
		}
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
