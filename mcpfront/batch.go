package mcpfront

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"unicode/utf8"

	"frontdesk/internal/jsonlimit"
)

// batchMarker is the _meta key through which the front tells a tool call
// that its batch broke the per-batch limit. The front strips it from every
// incoming message, so a client cannot set it.
const batchMarker = "frontdesk/batch-rejected"

// Batch refusals of direct-booking.md §6 and §12.
const (
	batchFirstRefusal = "A JSON-RPC batch may contain at most one booking-tool call. No booking calls were run and no emails were charged. Send one booking-tool call in its own request."
	batchLaterRefusal = "A JSON-RPC batch may contain at most one booking-tool call. No booking calls were run."
)

// BatchGuard looks at a whole message or batch before any call in it runs.
// Limited names the tools of which a batch may hold at most one call; when
// a batch holds more, every one of them is refused and none runs.
type BatchGuard struct {
	Limited map[string]bool
}

// maxBatch is the most messages one JSON-RPC batch may hold. Batches
// exist only in protocol revision 2025-03-26, where a client has no reason
// to send more; a bigger one is refused before any call in it runs, so it
// cannot make an answer of megabytes.
const maxBatch = 50

// maxDepth bounds how deep a message nests: room for the JSON-RPC
// envelope around any argument a tool takes, ORP's 32 levels included.
const maxDepth = 64

var (
	errNotJSONRPC    = errors.New("not a JSON-RPC message")
	errDuplicateKey  = errors.New("a JSON object repeats a key")
	errBatchTooLarge = errors.New("batch too large")
	errTooDeep       = errors.New("nested too deep")
)

// Inspect returns the body to pass on, with limited calls marked when the
// batch breaks the limit and any client-supplied marker removed. It
// reports whether the body is a batch. A body that is not JSON is
// errParse; one that is JSON but not JSON-RPC is errNotJSONRPC; one whose
// message, params or params._meta repeats a key is errDuplicateKey; a
// batch of more than maxBatch messages is errBatchTooLarge.
//
// It reads every message exactly as the SDK will: keys match case
// sensitively (the SDK's decoder does not fold case), and since decoders
// disagree about which of two equal keys wins, a message that repeats a
// key is refused as malformed rather than read one way here and another
// way there. Tool arguments are the tool's to judge.
func (g BatchGuard) Inspect(body []byte) (out []byte, isBatch bool, err error) {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	// Depth first, on the bytes: decoding a body nested thousands deep
	// costs memory with the square of its depth before any rule applies.
	if jsonlimit.CheckDepth(trimmed, maxDepth) != nil {
		return nil, false, errTooDeep
	}
	if !json.Valid(trimmed) {
		return nil, false, errParse
	}
	if trimmed[0] != '[' {
		if trimmed[0] != '{' {
			return nil, false, errNotJSONRPC
		}
		if err := checkEnvelope(trimmed); err != nil {
			return nil, false, err
		}
		if !bytes.Contains(body, []byte(batchMarker)) {
			return body, false, nil // the common case: nothing to rewrite
		}
		msg, err := rewrite(trimmed, "")
		return msg, false, err
	}
	var msgs []json.RawMessage
	if err := json.Unmarshal(trimmed, &msgs); err != nil || len(msgs) == 0 {
		return nil, true, errNotJSONRPC
	}
	if len(msgs) > maxBatch {
		return nil, true, errBatchTooLarge
	}
	names := make([]string, len(msgs))
	limited := 0
	for i, m := range msgs {
		e, err := readEnvelope(m)
		if err != nil {
			return nil, true, err
		}
		if names[i] = e.toolName(); g.Limited[names[i]] {
			limited++
		}
	}
	first := true
	for i, m := range msgs {
		mark := ""
		if limited > 1 && g.Limited[names[i]] {
			mark = "later"
			if first {
				mark, first = "first", false
			}
		}
		if msgs[i], err = rewrite(m, mark); err != nil {
			return nil, true, err
		}
	}
	out, err = json.Marshal(msgs)
	return out, true, err
}

// envelope is one JSON-RPC message as the SDK reads it: its keys, and
// those of its params, exactly as written.
type envelope struct {
	msg, params map[string]json.RawMessage
}

// readEnvelope reads a message's keys, its params' keys and its
// params._meta's keys, and returns errDuplicateKey if any of them repeats
// (after unescaping, so "m" and "\u006d" are the same key). A message
// that is not an object reads as empty, for the SDK to refuse.
func readEnvelope(m json.RawMessage) (envelope, error) {
	msg, err := objectKeys(m)
	if err != nil {
		return envelope{}, err
	}
	params, err := objectKeys(msg["params"])
	if err != nil {
		return envelope{}, err
	}
	if _, err := objectKeys(params["_meta"]); err != nil {
		return envelope{}, err
	}
	return envelope{msg: msg, params: params}, nil
}

// checkEnvelope is readEnvelope for a single message, which is passed on
// as sent: the same refusals, found without keeping the keys.
func checkEnvelope(m json.RawMessage) error {
	params, err := distinctKeys(m, "params")
	if err != nil {
		return err
	}
	meta, err := distinctKeys(params, "_meta")
	if err != nil {
		return err
	}
	_, err = distinctKeys(meta, "")
	return err
}

// toolName returns the tool a tools/call message names, or "". Keys are
// looked up exactly: encoding/json would match "METHOD" or "Name" to a
// struct field, which the SDK does not.
func (e envelope) toolName() string {
	var method, name string
	if json.Unmarshal(e.msg["method"], &method) != nil || method != "tools/call" {
		return ""
	}
	if json.Unmarshal(e.params["name"], &name) != nil {
		return ""
	}
	return name
}

// objectKeys returns the members of a JSON object by key, or nil for a
// value that is not an object. A repeated key is errDuplicateKey. raw is
// part of a body json.Valid accepted, so one pass over its bytes finds
// the members: a key is compared as its JSON string decodes.
func objectKeys(raw json.RawMessage) (map[string]json.RawMessage, error) {
	var out map[string]json.RawMessage
	err := eachMember(raw, func(key []byte, v json.RawMessage) error {
		if out == nil {
			out = map[string]json.RawMessage{}
		}
		if _, seen := out[string(key)]; seen {
			return errDuplicateKey
		}
		out[string(key)] = v
		return nil
	})
	if err != nil {
		return nil, err
	}
	if out == nil && isObject(raw) {
		out = map[string]json.RawMessage{}
	}
	return out, nil
}

// distinctKeys is objectKeys' check alone, for a message passed on as
// sent, whose keys are not needed after: the same refusals, without a
// map or a string per key. It returns the value of want, if raw has it.
func distinctKeys(raw json.RawMessage, want string) (json.RawMessage, error) {
	var seen [16][]byte
	var many map[string]bool // past len(seen) keys
	n := 0
	var found json.RawMessage
	err := eachMember(raw, func(key []byte, v json.RawMessage) error {
		if string(key) == want {
			found = v
		}
		if many == nil && n < len(seen) {
			for _, k := range seen[:n] {
				if bytes.Equal(k, key) {
					return errDuplicateKey
				}
			}
			seen[n], n = key, n+1
			return nil
		}
		if many == nil {
			many = map[string]bool{}
			for _, k := range seen {
				many[string(k)] = true
			}
		}
		if many[string(key)] {
			return errDuplicateKey
		}
		many[string(key)] = true
		return nil
	})
	return found, err
}

func isObject(raw json.RawMessage) bool {
	i := skipSpace(raw, 0)
	return i < len(raw) && raw[i] == '{'
}

// eachMember calls f with each member of the JSON object raw, in order,
// its key as its JSON string decodes, and stops at f's first error;
// a value that is not an object has no members. raw is part of a body
// json.Valid accepted.
func eachMember(raw json.RawMessage, f func(key []byte, v json.RawMessage) error) error {
	i := skipSpace(raw, 0)
	if i == len(raw) || raw[i] != '{' {
		return nil
	}
	if i = skipSpace(raw, i+1); i < len(raw) && raw[i] == '}' {
		return nil
	}
	for {
		end := valueEnd(raw, i)
		if end < 0 || raw[i] != '"' {
			return errParse
		}
		key, err := keyBytes(raw[i:end])
		if err != nil {
			return errParse
		}
		if i = skipSpace(raw, end); i == len(raw) || raw[i] != ':' {
			return errParse
		}
		start := skipSpace(raw, i+1)
		if end = valueEnd(raw, start); end <= start {
			return errParse
		}
		if err := f(key, raw[start:end]); err != nil {
			return err
		}
		switch i = skipSpace(raw, end); {
		case i == len(raw):
			return errParse
		case raw[i] == '}':
			return nil
		case raw[i] != ',':
			return errParse
		}
		i = skipSpace(raw, i+1)
	}
}

// keyBytes is the text of a quoted JSON string: the bytes between the
// quotes when nothing needs decoding, else as encoding/json decodes it.
func keyBytes(quoted []byte) ([]byte, error) {
	body := quoted[1 : len(quoted)-1]
	if bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
		return body, nil
	}
	var s string
	err := json.Unmarshal(quoted, &s)
	return []byte(s), err
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// valueEnd returns the index just past the JSON value that starts at i,
// or -1 when none does.
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	depth := 0
	for ; i < len(b); i++ {
		switch c := b[i]; c {
		case '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
			if i >= len(b) {
				return -1
			}
			if depth == 0 {
				return i + 1
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i // the end of the object or array around a scalar
			}
			if depth--; depth == 0 {
				return i + 1
			}
		case ',', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return i
			}
		}
	}
	if depth != 0 {
		return -1
	}
	return i
}

// guardAnswer words a refusal of Inspect as the HTTP status, JSON-RPC
// code and message the client gets.
func guardAnswer(err error, isBatch bool, version string) (status, code int, message string, refused bool) {
	switch {
	case errors.Is(err, errParse):
		return http.StatusBadRequest, -32700, "Parse error: the body is not valid JSON.", true
	case errors.Is(err, errDuplicateKey):
		return http.StatusBadRequest, -32600, "Invalid Request: a JSON object in the message repeats a key.", true
	case errors.Is(err, errTooDeep):
		return http.StatusBadRequest, -32600, fmt.Sprintf("Invalid Request: the body nests arrays and objects more than %d deep.", maxDepth), true
	case errors.Is(err, errBatchTooLarge):
		return http.StatusBadRequest, -32600, fmt.Sprintf("Invalid Request: a batch may hold at most %d messages; send the calls in smaller batches.", maxBatch), true
	case err != nil:
		return http.StatusBadRequest, -32600, "Invalid Request: the body is not a JSON-RPC message or batch.", true
	case isBatch && version >= revisionNoBatches:
		return http.StatusBadRequest, -32600, "Invalid Request: JSON-RPC batches are not part of protocol revision " + version + ".", true
	}
	return 0, 0, "", false
}

// rewrite removes any client-supplied marker and sets mark when non-empty.
func rewrite(m json.RawMessage, mark string) (json.RawMessage, error) {
	if mark == "" && !bytes.Contains(m, []byte(batchMarker)) {
		return m, nil
	}
	var msg map[string]json.RawMessage
	if err := json.Unmarshal(m, &msg); err != nil {
		return nil, errNotJSONRPC
	}
	var params map[string]json.RawMessage
	if raw, ok := msg["params"]; ok && json.Unmarshal(raw, &params) != nil {
		return m, nil // params that are not an object carry no marker
	}
	if params == nil {
		params = map[string]json.RawMessage{}
	}
	var meta map[string]json.RawMessage
	if raw, ok := params["_meta"]; ok {
		_ = json.Unmarshal(raw, &meta)
	}
	if meta == nil {
		meta = map[string]json.RawMessage{}
	}
	delete(meta, batchMarker)
	if mark != "" {
		meta[batchMarker], _ = json.Marshal(mark)
	}
	if len(meta) == 0 {
		delete(params, "_meta")
	} else {
		params["_meta"], _ = json.Marshal(meta)
	}
	if _, had := msg["params"]; had || len(params) > 0 {
		msg["params"], _ = json.Marshal(params)
	}
	return json.Marshal(msg)
}

// batchRefusal returns the refusal for a call the guard marked, if any.
func batchRefusal(meta map[string]any) (string, bool) {
	switch meta[batchMarker] {
	case "first":
		return batchFirstRefusal, true
	case "later":
		return batchLaterRefusal, true
	}
	return "", false
}
