package httpsig

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// This file holds the part of Structured Field Values (RFC 8941) that the
// signature fields use: dictionaries whose members are items or inner
// lists, with parameters, over integers, decimals, strings, tokens, byte
// sequences and booleans. It parses strictly and serializes canonically,
// so a parsed Signature-Input member re-serializes to the exact
// "@signature-params" line the signer covered.

// Token is a structured-field token: an unquoted identifier.
type Token string

// Param is one parameter: a key and a bare item (int64, float64, string,
// Token, []byte or bool).
type Param struct {
	Key   string
	Value any
}

// Params is an ordered parameter list; its order is part of the
// serialization and so of what a signature covers.
type Params []Param

// Get returns the value of key and whether it is present.
func (ps Params) Get(key string) (any, bool) {
	for _, p := range ps {
		if p.Key == key {
			return p.Value, true
		}
	}
	return nil, false
}

// Item is a bare item with its parameters.
type Item struct {
	Value  any
	Params Params
}

// Member is one dictionary member: an item, or an inner list when List is
// not nil.
type Member struct {
	Key    string
	Item   Item   // when List is nil
	List   []Item // an inner list, possibly empty but not nil
	Params Params // the inner list's parameters
}

// Limits that keep a hostile field from costing more than a signature is
// worth. Real signatures carry one or two members of a dozen components.
const (
	maxFieldLen   = 16 << 10
	maxMembers    = 16
	maxListItems  = 64
	maxParamCount = 16
)

var errSyntax = errors.New("structured field syntax")

type sfParser struct {
	s string
	i int
}

func (p *sfParser) fail(what string) error {
	return fmt.Errorf("%w: %s at offset %d", errSyntax, what, p.i)
}

func (p *sfParser) eof() bool { return p.i >= len(p.s) }

func (p *sfParser) peek() byte {
	if p.eof() {
		return 0
	}
	return p.s[p.i]
}

func (p *sfParser) skipSP() {
	for !p.eof() && p.s[p.i] == ' ' {
		p.i++
	}
}

func (p *sfParser) skipOWS() {
	for !p.eof() && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

// parseDictionary parses a whole dictionary field value. Unlike RFC 8941,
// which lets a repeated key overwrite the earlier one, a repeated key is
// refused: in a signature field it can only be an attempt to confuse.
func parseDictionary(field string) ([]Member, error) {
	if len(field) > maxFieldLen {
		return nil, fmt.Errorf("%w: field longer than %d bytes", errSyntax, maxFieldLen)
	}
	p := &sfParser{s: field}
	p.skipSP()
	var members []Member
	seen := map[string]bool{}
	for !p.eof() {
		key, err := p.parseKey()
		if err != nil {
			return nil, err
		}
		if seen[key] {
			return nil, p.fail(fmt.Sprintf("repeated key %q", key))
		}
		seen[key] = true
		m := Member{Key: key}
		if p.peek() == '=' {
			p.i++
			if p.peek() == '(' {
				m.List, m.Params, err = p.parseInnerList()
			} else {
				m.Item, err = p.parseItem()
			}
		} else {
			m.Item.Value = true
			m.Item.Params, err = p.parseParams()
		}
		if err != nil {
			return nil, err
		}
		members = append(members, m)
		if len(members) > maxMembers {
			return nil, p.fail("too many members")
		}
		p.skipOWS()
		if p.eof() {
			return members, nil
		}
		if p.peek() != ',' {
			return nil, p.fail("expected a comma")
		}
		p.i++
		p.skipOWS()
		if p.eof() {
			return nil, p.fail("trailing comma")
		}
	}
	return members, nil
}

func (p *sfParser) parseInnerList() ([]Item, Params, error) {
	p.i++ // (
	items := []Item{}
	for !p.eof() {
		p.skipSP()
		if p.peek() == ')' {
			p.i++
			params, err := p.parseParams()
			return items, params, err
		}
		it, err := p.parseItem()
		if err != nil {
			return nil, nil, err
		}
		items = append(items, it)
		if len(items) > maxListItems {
			return nil, nil, p.fail("too many inner-list items")
		}
		if c := p.peek(); c != ' ' && c != ')' {
			return nil, nil, p.fail("expected a space or ')'")
		}
	}
	return nil, nil, p.fail("unterminated inner list")
}

func (p *sfParser) parseItem() (Item, error) {
	v, err := p.parseBareItem()
	if err != nil {
		return Item{}, err
	}
	params, err := p.parseParams()
	return Item{Value: v, Params: params}, err
}

// parseParams refuses a repeated key for the same reason parseDictionary
// does.
func (p *sfParser) parseParams() (Params, error) {
	var ps Params
	for p.peek() == ';' {
		p.i++
		p.skipSP()
		key, err := p.parseKey()
		if err != nil {
			return nil, err
		}
		if _, dup := ps.Get(key); dup {
			return nil, p.fail(fmt.Sprintf("repeated parameter %q", key))
		}
		var v any = true
		if p.peek() == '=' {
			p.i++
			if v, err = p.parseBareItem(); err != nil {
				return nil, err
			}
		}
		ps = append(ps, Param{Key: key, Value: v})
		if len(ps) > maxParamCount {
			return nil, p.fail("too many parameters")
		}
	}
	return ps, nil
}

func isLCAlpha(c byte) bool { return c >= 'a' && c <= 'z' }
func isDigit(c byte) bool   { return c >= '0' && c <= '9' }
func isAlpha(c byte) bool   { return isLCAlpha(c) || c >= 'A' && c <= 'Z' }

// isTChar reports an RFC 9110 token character.
func isTChar(c byte) bool {
	return isAlpha(c) || isDigit(c) || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

func (p *sfParser) parseKey() (string, error) {
	start := p.i
	if c := p.peek(); !isLCAlpha(c) && c != '*' {
		return "", p.fail("expected a key")
	}
	for !p.eof() {
		c := p.s[p.i]
		if !isLCAlpha(c) && !isDigit(c) && c != '_' && c != '-' && c != '.' && c != '*' {
			break
		}
		p.i++
	}
	return p.s[start:p.i], nil
}

func (p *sfParser) parseBareItem() (any, error) {
	c := p.peek()
	switch {
	case c == '-' || isDigit(c):
		return p.parseNumber()
	case c == '"':
		return p.parseString()
	case c == ':':
		return p.parseByteSequence()
	case c == '?':
		return p.parseBoolean()
	case isAlpha(c) || c == '*':
		return p.parseToken(), nil
	}
	return nil, p.fail("expected an item")
}

func (p *sfParser) parseNumber() (any, error) {
	start, neg := p.i, 0
	if p.peek() == '-' {
		p.i++
		neg = 1
	}
	if !isDigit(p.peek()) {
		return nil, p.fail("expected a digit")
	}
	decimal := false
	for !p.eof() {
		c := p.s[p.i]
		if isDigit(c) {
			p.i++
		} else if c == '.' && !decimal {
			if p.i-start-neg > 12 {
				return nil, p.fail("decimal with too many integer digits")
			}
			decimal = true
			p.i++
		} else {
			break
		}
		if n := p.i - start - neg; !decimal && n > 15 || decimal && n > 16 {
			return nil, p.fail("number too long")
		}
	}
	num := p.s[start:p.i]
	if !decimal {
		n, err := strconv.ParseInt(num, 10, 64)
		if err != nil {
			return nil, p.fail("bad integer")
		}
		return n, nil
	}
	if strings.HasSuffix(num, ".") {
		return nil, p.fail("decimal without fraction digits")
	}
	if frac := num[strings.IndexByte(num, '.')+1:]; len(frac) > 3 {
		return nil, p.fail("decimal with more than three fraction digits")
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return nil, p.fail("bad decimal")
	}
	return f, nil
}

func (p *sfParser) parseString() (string, error) {
	p.i++ // "
	var b strings.Builder
	for !p.eof() {
		c := p.s[p.i]
		p.i++
		switch {
		case c == '\\':
			if p.eof() {
				return "", p.fail("unterminated escape")
			}
			next := p.s[p.i]
			if next != '"' && next != '\\' {
				return "", p.fail("bad escape")
			}
			b.WriteByte(next)
			p.i++
		case c == '"':
			return b.String(), nil
		case c < 0x20 || c > 0x7e:
			return "", p.fail("character outside a string's range")
		default:
			b.WriteByte(c)
		}
	}
	return "", p.fail("unterminated string")
}

func (p *sfParser) parseToken() Token {
	start := p.i
	p.i++
	for !p.eof() {
		c := p.s[p.i]
		if !isTChar(c) && c != ':' && c != '/' {
			break
		}
		p.i++
	}
	return Token(p.s[start:p.i])
}

func (p *sfParser) parseByteSequence() ([]byte, error) {
	p.i++ // :
	end := strings.IndexByte(p.s[p.i:], ':')
	if end < 0 {
		return nil, p.fail("unterminated byte sequence")
	}
	enc := p.s[p.i : p.i+end]
	for i := range len(enc) {
		c := enc[i]
		if !isAlpha(c) && !isDigit(c) && c != '+' && c != '/' && c != '=' {
			return nil, p.fail("character outside base64")
		}
	}
	b, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		return nil, p.fail("bad base64")
	}
	p.i += end + 1
	return b, nil
}

func (p *sfParser) parseBoolean() (bool, error) {
	p.i++ // ?
	switch p.peek() {
	case '1':
		p.i++
		return true, nil
	case '0':
		p.i++
		return false, nil
	}
	return false, p.fail("expected ?0 or ?1")
}

// Serialization (RFC 8941 §4.1).

func writeBareItem(b *strings.Builder, v any) error {
	switch v := v.(type) {
	case int64:
		if v > 999_999_999_999_999 || v < -999_999_999_999_999 {
			return errors.New("httpsig: integer out of range")
		}
		b.WriteString(strconv.FormatInt(v, 10))
	case float64:
		s := strconv.FormatFloat(v, 'f', 3, 64)
		s = strings.TrimRight(s, "0")
		if strings.HasSuffix(s, ".") {
			s += "0"
		}
		b.WriteString(s)
	case string:
		b.WriteByte('"')
		for i := range len(v) {
			c := v[i]
			if c < 0x20 || c > 0x7e {
				return errors.New("httpsig: string with a character outside printable ASCII")
			}
			if c == '"' || c == '\\' {
				b.WriteByte('\\')
			}
			b.WriteByte(c)
		}
		b.WriteByte('"')
	case Token:
		if v == "" || !isAlpha(v[0]) && v[0] != '*' {
			return errors.New("httpsig: bad token")
		}
		for i := 1; i < len(v); i++ {
			if !isTChar(v[i]) && v[i] != ':' && v[i] != '/' {
				return errors.New("httpsig: bad token")
			}
		}
		b.WriteString(string(v))
	case []byte:
		b.WriteByte(':')
		b.WriteString(base64.StdEncoding.EncodeToString(v))
		b.WriteByte(':')
	case bool:
		if v {
			b.WriteString("?1")
		} else {
			b.WriteString("?0")
		}
	default:
		return fmt.Errorf("httpsig: cannot serialize %T", v)
	}
	return nil
}

func writeKey(b *strings.Builder, key string) error {
	if key == "" || !isLCAlpha(key[0]) && key[0] != '*' {
		return fmt.Errorf("httpsig: bad key %q", key)
	}
	for i := 1; i < len(key); i++ {
		c := key[i]
		if !isLCAlpha(c) && !isDigit(c) && c != '_' && c != '-' && c != '.' && c != '*' {
			return fmt.Errorf("httpsig: bad key %q", key)
		}
	}
	b.WriteString(key)
	return nil
}

func writeParams(b *strings.Builder, ps Params) error {
	for _, p := range ps {
		b.WriteByte(';')
		if err := writeKey(b, p.Key); err != nil {
			return err
		}
		if v, ok := p.Value.(bool); ok && v {
			continue
		}
		b.WriteByte('=')
		if err := writeBareItem(b, p.Value); err != nil {
			return err
		}
	}
	return nil
}

func writeItem(b *strings.Builder, it Item) error {
	if err := writeBareItem(b, it.Value); err != nil {
		return err
	}
	return writeParams(b, it.Params)
}

func writeInnerList(b *strings.Builder, items []Item, ps Params) error {
	b.WriteByte('(')
	for i, it := range items {
		if i > 0 {
			b.WriteByte(' ')
		}
		if err := writeItem(b, it); err != nil {
			return err
		}
	}
	b.WriteByte(')')
	return writeParams(b, ps)
}

func writeMember(b *strings.Builder, m Member) error {
	if err := writeKey(b, m.Key); err != nil {
		return err
	}
	if m.List != nil {
		b.WriteByte('=')
		return writeInnerList(b, m.List, m.Params)
	}
	if v, ok := m.Item.Value.(bool); ok && v {
		return writeParams(b, m.Item.Params)
	}
	b.WriteByte('=')
	return writeItem(b, m.Item)
}
