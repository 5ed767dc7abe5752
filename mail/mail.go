// Package mail delivers frontdesk's email. It holds two drivers of
// message.Sender: SMTP, which hands each message to a mail provider over
// SMTP and tells a certain failure (message.ErrNotSent) from an uncertain
// one, and Dev, which keeps every message in the store and shows the
// mailbox at /dev/mail, so a laptop install needs no mail server.
//
// It is an adapter: it imports message, store, business and internal
// helpers, never another adapter.
package mail

import (
	"net/mail"
	"strings"
)

// messageID is the Message-ID of e without its angle brackets:
// the email's stable ID, made safe for the left side of a msg-id, at the
// sender's domain. A retried send carries the same ID and so the same
// Message-ID, which lets a provider or mail client drop the duplicate.
func messageID(id, from string) string {
	return escapeIDLeft(id) + "@" + domainOf(from)
}

// domainOf returns the domain of an address such as
// "Sample Stays <stay@example.com>", or "localhost" when there is none.
func domainOf(from string) string {
	addr := from
	if a, err := mail.ParseAddress(from); err == nil {
		addr = a.Address
	}
	if i := strings.LastIndexByte(addr, '@'); i >= 0 && i < len(addr)-1 {
		return strings.ToLower(strings.Trim(addr[i+1:], "<> "))
	}
	return "localhost"
}

// escapeIDLeft keeps the letters, digits and punctuation that RFC 5322
// allows in a dot-atom and writes every other byte, and "=" and "." too,
// as "=XX" in hex. Escaping "=" and "." keeps the mapping one-to-one and
// the result free of leading, trailing or doubled dots.
func escapeIDLeft(id string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(id); i++ {
		c := id[i]
		if isAtext(c) && c != '=' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('=')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&0x0f])
	}
	return b.String()
}

// isAtext reports whether c is an atext character of RFC 5322 §3.2.3.
func isAtext(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-/=?^_`{|}~", c) >= 0
}
