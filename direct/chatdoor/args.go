package chatdoor

import (
	"encoding/json"
	"math"
	"strings"
	"unicode/utf8"
)

// Args are a tool call's arguments as decoded JSON. The booking tools
// check them here, not with the schema, so every problem gets its exact
// catalogue sentence.
type Args map[string]any

// unknownField returns the first argument not in allowed, in a stable
// order.
func (a Args) unknownField(allowed []string) string {
	var unknown []string
	for k := range a {
		if !contains(allowed, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return ""
	}
	first := unknown[0]
	for _, k := range unknown[1:] {
		if k < first {
			first = k
		}
	}
	return first
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// str returns a string argument. present is false when absent or null;
// ok is false when present but not a string or longer than max.
func (a Args) str(key string, max int) (value string, present, ok bool) {
	v, exists := a[key]
	if !exists || v == nil {
		return "", false, true
	}
	s, isString := v.(string)
	if !isString || utf8.RuneCountInString(s) > max {
		return "", true, false
	}
	return s, true, true
}

// filled reports whether a mode-selecting argument is given: empty text
// and null count as absent, so empty selectors normalize the same way.
func (a Args) filled(key string) bool {
	v, ok := a[key]
	if !ok || v == nil {
		return false
	}
	if s, isString := v.(string); isString {
		return strings.TrimSpace(s) != ""
	}
	return true
}

// integer returns a whole-number argument.
func (a Args) integer(key string) (n int, present, ok bool) {
	v, exists := a[key]
	if !exists || v == nil {
		return 0, false, true
	}
	if s, isString := v.(string); isString && strings.TrimSpace(s) == "" {
		return 0, false, true // an empty optional count is absent
	}
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case json.Number:
		var err error
		if f, err = x.Float64(); err != nil {
			return 0, true, false
		}
	default:
		return 0, true, false
	}
	if f != math.Trunc(f) || f < -1e9 || f > 1e9 {
		return 0, true, false
	}
	return int(f), true, true
}
