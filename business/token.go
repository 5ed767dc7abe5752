package business

import "strings"

// A located token is a secret in a public address (a guest's page, a
// channel's feed) that names the location which minted it: the
// location's reference prefix, a dot, and the random part. A split
// deployment's hub routes such an address to that location by the
// prefix alone, without reading any store; the random part keeps all
// the token's entropy, and the prefix adds none and hides nothing.

// tokenSeparator ends a located token's prefix. No reference prefix
// (capital letters) and no base64url or base32 text holds it, so a token
// minted before tokens named their location never has one.
const tokenSeparator = "."

// Token is the located token of l with the random part random.
func (l Location) Token(random string) string { return l.Prefix + tokenSeparator + random }

// SplitToken cuts a located token into the reference prefix it names
// and its random part. ok is false for any other text, such as a token
// minted before tokens named their location: the prefix must be 2 to 6
// capital letters and the random part must not be empty.
func SplitToken(tok string) (prefix, random string, ok bool) {
	prefix, random, ok = strings.Cut(tok, tokenSeparator)
	if !ok || len(prefix) < 2 || len(prefix) > 6 || random == "" || strings.Trim(prefix, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
		return "", "", false
	}
	return prefix, random, true
}
