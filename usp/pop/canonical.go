package pop

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/gowebpki/jcs"
)

// maxArgumentsLen bounds the arguments canonicalized for one proof.
const maxArgumentsLen = 1 << 20

// CanonicalParams returns the JCS (RFC 8785) form of a tool call's
// arguments with _meta.usp.authorization removed, and usp_p, the
// base64url SHA-256 of that form (§9.2.2). Only that one member goes:
// an _meta.usp left empty stays as {}, and profile, idempotency_key and
// correlation_id stay inside the digest.
func CanonicalParams(arguments json.RawMessage) ([]byte, string, error) {
	if len(arguments) > maxArgumentsLen {
		return nil, "", fmt.Errorf("arguments longer than %d bytes", maxArgumentsLen)
	}
	dec := json.NewDecoder(bytes.NewReader(arguments))
	dec.UseNumber() // numbers pass through to JCS as written
	var args map[string]any
	if err := dec.Decode(&args); err != nil {
		return nil, "", fmt.Errorf("arguments: %w", err)
	}
	if args == nil {
		return nil, "", errors.New("arguments are not an object")
	}
	if dec.More() {
		return nil, "", errors.New("arguments: trailing data")
	}
	if meta, ok := args["_meta"].(map[string]any); ok {
		if usp, ok := meta["usp"].(map[string]any); ok {
			delete(usp, "authorization")
		}
	}
	stripped, err := json.Marshal(args)
	if err != nil {
		return nil, "", fmt.Errorf("arguments: %w", err)
	}
	canonical, err := jcs.Transform(stripped)
	if err != nil {
		return nil, "", fmt.Errorf("arguments: %w", err)
	}
	return canonical, Hash(string(canonical)), nil
}
