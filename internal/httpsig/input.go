// Package httpsig signs and verifies HTTP messages with HTTP Message
// Signatures (RFC 9421) and computes and checks Content-Digest (RFC 9530).
//
// It builds signature bases from the derived components @method,
// @target-uri, @authority, @scheme, @request-target, @path, @query,
// @query-param and @status and from header fields; reads and writes the
// Signature-Input and Signature fields as the Structured Field Values of
// RFC 8941; signs with Ed25519 and ECDSA P-256 (and HMAC-SHA256, kept for
// the RFC's own examples); verifies those and RSA-PSS-SHA512; and checks
// created, expires and a maximum age against a time the caller passes in.
// HMAC is refused unless a verifier opts in.
//
// It is domain-free and imports only the standard library.
package httpsig

import (
	"fmt"
	"strings"
	"time"
)

// Component is one covered component: a lowercase field name or a derived
// component name starting with "@", with its parameters (such as name for
// @query-param).
type Component struct {
	Name   string
	Params Params
}

// C returns a component without parameters.
func C(name string) Component { return Component{Name: name} }

// QueryParam returns the @query-param component for one decoded
// parameter name; the identifier carries it percent-encoded, as RFC 9421
// §2.2.8 asks.
func QueryParam(name string) Component {
	return Component{Name: "@query-param", Params: Params{{Key: "name", Value: formEncode(name)}}}
}

// String returns the component identifier as it appears in a signature
// base: the quoted name followed by its parameters.
func (c Component) String() string {
	var b strings.Builder
	if err := writeItem(&b, Item{Value: c.Name, Params: c.Params}); err != nil {
		return fmt.Sprintf("%q", c.Name)
	}
	return b.String()
}

// Input is one signature's metadata: its label in the signature fields,
// the components it covers, and its parameters in their order.
type Input struct {
	Label      string
	Components []Component
	Params     Params
}

// Signature parameter names of RFC 9421 §2.3.
const (
	ParamCreated = "created"
	ParamExpires = "expires"
	ParamKeyID   = "keyid"
	ParamAlg     = "alg"
	ParamNonce   = "nonce"
	ParamTag     = "tag"
)

func (in Input) intParam(key string) (time.Time, bool) {
	v, ok := in.Params.Get(key)
	if !ok {
		return time.Time{}, false
	}
	n, ok := v.(int64)
	if !ok {
		return time.Time{}, false
	}
	return time.Unix(n, 0).UTC(), true
}

func (in Input) stringParam(key string) string {
	v, _ := in.Params.Get(key)
	s, _ := v.(string)
	return s
}

// Created returns the created parameter, if present.
func (in Input) Created() (time.Time, bool) { return in.intParam(ParamCreated) }

// Expires returns the expires parameter, if present.
func (in Input) Expires() (time.Time, bool) { return in.intParam(ParamExpires) }

// KeyID returns the keyid parameter, or "".
func (in Input) KeyID() string { return in.stringParam(ParamKeyID) }

// Alg returns the alg parameter, or "".
func (in Input) Alg() string { return in.stringParam(ParamAlg) }

// Nonce returns the nonce parameter, or "".
func (in Input) Nonce() string { return in.stringParam(ParamNonce) }

// Tag returns the tag parameter, or "".
func (in Input) Tag() string { return in.stringParam(ParamTag) }

// Covers reports whether the input covers a component of that name.
func (in Input) Covers(name string) bool {
	for _, c := range in.Components {
		if c.Name == name {
			return true
		}
	}
	return false
}

// checkParams refuses parameters of the wrong type: created and expires
// are integers, keyid, alg, nonce and tag are strings. Unknown parameters
// are kept, as RFC 9421 lets applications define more.
func (in Input) checkParams() error {
	for _, p := range in.Params {
		var ok bool
		switch p.Key {
		case ParamCreated, ParamExpires:
			_, ok = p.Value.(int64)
		case ParamKeyID, ParamAlg, ParamNonce, ParamTag:
			_, ok = p.Value.(string)
		default:
			ok = true
		}
		if !ok {
			return fmt.Errorf("httpsig: parameter %s of the wrong type", p.Key)
		}
	}
	return nil
}

// SignatureParams returns the serialized inner list that is both the
// member value in Signature-Input and the @signature-params line of the
// signature base.
func (in Input) SignatureParams() (string, error) {
	items := make([]Item, len(in.Components))
	for i, c := range in.Components {
		items[i] = Item{Value: c.Name, Params: c.Params}
	}
	var b strings.Builder
	if err := writeInnerList(&b, items, in.Params); err != nil {
		return "", err
	}
	return b.String(), nil
}

// ParseSignatureInput parses the Signature-Input field, given as its field
// lines, into one Input per label, in field order. Every member must be an
// inner list of component names, each a lowercase string, none repeated.
func ParseSignatureInput(lines []string) ([]Input, error) {
	members, err := parseDictionary(strings.Join(lines, ", "))
	if err != nil {
		return nil, fmt.Errorf("httpsig: Signature-Input: %w", err)
	}
	inputs := make([]Input, 0, len(members))
	for _, m := range members {
		if m.List == nil {
			return nil, fmt.Errorf("httpsig: Signature-Input %s: not an inner list", m.Key)
		}
		in := Input{Label: m.Key, Params: m.Params}
		seen := map[string]bool{}
		for _, it := range m.List {
			name, ok := it.Value.(string)
			if !ok || name == "" || name != strings.ToLower(name) {
				return nil, fmt.Errorf("httpsig: Signature-Input %s: component is not a lowercase string", m.Key)
			}
			c := Component{Name: name, Params: it.Params}
			if id := c.String(); seen[id] {
				return nil, fmt.Errorf("httpsig: Signature-Input %s: component %s covered twice", m.Key, id)
			} else {
				seen[id] = true
			}
			in.Components = append(in.Components, c)
		}
		if err := in.checkParams(); err != nil {
			return nil, err
		}
		inputs = append(inputs, in)
	}
	return inputs, nil
}

// ParseSignature parses the Signature field, given as its field lines,
// into the signature bytes of each label.
func ParseSignature(lines []string) (map[string][]byte, error) {
	members, err := parseDictionary(strings.Join(lines, ", "))
	if err != nil {
		return nil, fmt.Errorf("httpsig: Signature: %w", err)
	}
	sigs := make(map[string][]byte, len(members))
	for _, m := range members {
		b, ok := m.Item.Value.([]byte)
		if m.List != nil || !ok || len(m.Item.Params) > 0 {
			return nil, fmt.Errorf("httpsig: Signature %s: not a byte sequence", m.Key)
		}
		sigs[m.Key] = b
	}
	return sigs, nil
}

// FormatSignatureInput serializes inputs as one Signature-Input field
// value.
func FormatSignatureInput(inputs ...Input) (string, error) {
	var b strings.Builder
	for i, in := range inputs {
		if i > 0 {
			b.WriteString(", ")
		}
		if err := writeKey(&b, in.Label); err != nil {
			return "", err
		}
		b.WriteByte('=')
		sp, err := in.SignatureParams()
		if err != nil {
			return "", err
		}
		b.WriteString(sp)
	}
	return b.String(), nil
}

// FormatSignature serializes one signature as a Signature field member.
func FormatSignature(label string, sig []byte) (string, error) {
	var b strings.Builder
	err := writeMember(&b, Member{Key: label, Item: Item{Value: sig}})
	return b.String(), err
}
