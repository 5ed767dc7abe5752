package mcptools

import (
	"bytes"
	"encoding/json"
	"errors"
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

var errNotJSONRPC = errors.New("not a JSON-RPC message")

// Inspect returns the body to pass on, with limited calls marked when the
// batch breaks the limit and any client-supplied marker removed. It
// reports whether the body is a batch. A body that is not JSON is
// errParse; one that is JSON but not JSON-RPC is errNotJSONRPC.
func (g BatchGuard) Inspect(body []byte) (out []byte, isBatch bool, err error) {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if !json.Valid(trimmed) {
		return nil, false, errParse
	}
	if len(trimmed) == 0 || trimmed[0] != '[' {
		if trimmed[0] != '{' {
			return nil, false, errNotJSONRPC
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
	limited := 0
	for _, m := range msgs {
		if g.Limited[toolName(m)] {
			limited++
		}
	}
	first := true
	for i, m := range msgs {
		mark := ""
		if limited > 1 && g.Limited[toolName(m)] {
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

// toolName returns the tool a tools/call message names, or "".
func toolName(m json.RawMessage) string {
	var msg struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	if json.Unmarshal(m, &msg) != nil || msg.Method != "tools/call" {
		return ""
	}
	return msg.Params.Name
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
