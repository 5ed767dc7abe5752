// Package jsonappend appends JSON values to a byte slice exactly as
// encoding/json writes them, for the few answers written on every call
// whose types write themselves (AppendJSON methods) rather than be
// walked by reflection. The common case, a plain string or number, is
// written here; anything else is left to encoding/json, so the bytes are
// always its own.
package jsonappend

import (
	"encoding/json"
	"strconv"
)

// String appends s as json.Marshal writes a string. ASCII is written
// here, with encoding/json's escapes ('<', '>' and '&' escaped for HTML,
// as in every booking link); a string with control characters or
// anything beyond ASCII is left to encoding/json.
func String(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			q, _ := json.Marshal(s) // a string always encodes
			return append(b, q...)
		}
	}
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\':
			b = append(b, s[start:i]...)
			b = append(b, '\\', c)
			start = i + 1
		case '<', '>', '&':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			start = i + 1
		}
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

const hexDigits = "0123456789abcdef"

// Int appends n.
func Int(b []byte, n int) []byte { return strconv.AppendInt(b, int64(n), 10) }

// Bool appends v.
func Bool(b []byte, v bool) []byte { return strconv.AppendBool(b, v) }

// Number appends n as json.Marshal writes a json.Number: "0" for the
// empty number, an error for text that is not a JSON number.
func Number(b []byte, n json.Number) ([]byte, error) {
	if n == "" {
		return append(b, '0'), nil
	}
	if !plainNumber(string(n)) {
		q, err := json.Marshal(n)
		return append(b, q...), err
	}
	return append(b, n...), nil
}

// plainNumber reports whether s is a JSON number with no exponent:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?, the form of every amount.
func plainNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i++; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		}
	default:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		start := i
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		}
		if i == start {
			return false
		}
	}
	return i == len(s)
}
