package usp

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"
)

// Cursors are opaque to platforms but carry everything needed to resume:
// a digest of the query they belong to and the position after the last
// item sent. They hold no state on the server, so they never expire.

type cursor struct {
	Query  string `json:"q"`
	Offset int    `json:"o,omitempty"` // service lists: items already sent
	After  string `json:"a,omitempty"` // slots: the last slot sent, as its sort key
}

// digestOf identifies a query by the fields that decide its results.
func digestOf(parts ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return base64.RawURLEncoding.EncodeToString(sum[:12])
}

func encodeCursor(c cursor) string {
	body, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(body)
}

func decodeCursor(s, digest string) (cursor, error) {
	var c cursor
	body, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || json.Unmarshal(body, &c) != nil || c.Query != digest || c.Offset < 0 {
		return cursor{}, fail(CodeInvalidRequest, "The cursor was not issued for this query; start again without one.")
	}
	return c, nil
}

func encodeOffsetCursor(digest string, offset int) string {
	return encodeCursor(cursor{Query: digest, Offset: offset})
}

func decodeOffsetCursor(s, digest string) (int, error) {
	c, err := decodeCursor(s, digest)
	return c.Offset, err
}
