package pop

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"frontdesk/internal/uspspec"
	"frontdesk/sqlite"
)

// vector is one file of tests/vectors/pop, read with the fields the tests
// use.
type vector struct {
	ID         string `json:"id"`
	Expect     string `json:"expect"`
	RejectCode Code   `json:"reject_code"`
	Key        *struct {
		JWK      json.RawMessage `json:"jwk"`
		JKT      string          `json:"jkt"`
		PrivateD string          `json:"private_key_d"`
	} `json:"key"`
	Credential *struct {
		Value string `json:"value"`
		CNF   *struct {
			JKT string `json:"jkt"`
		} `json:"cnf"`
	} `json:"credential"`
	Proof          *string         `json:"proof"`
	ExpectedClaims json.RawMessage `json:"expected_claims"`
	ReplayOf       string          `json:"replay_of"`
	Canon          *struct {
		Params json.RawMessage `json:"params"`
		JCS    string          `json:"jcs"`
		USPP   string          `json:"usp_p"`
	} `json:"canonicalization"`
}

// The vector folders: the 2026-08-20 snapshot and the newer text, which
// adds 011.
var vectorSources = []string{"usp-2026-08-20", "usp-newer"}

// specVectors is the specification's own vector folder: the copy of the
// specification the tests read (internal/uspspec), or the folder
// FRONTDESK_USP_SPEC names.
func specVectors(t testing.TB, source string) string {
	t.Helper()
	dir := uspspec.Snapshot(t)
	if source == "usp-newer" {
		dir = uspspec.Newer(t)
	}
	return filepath.Join(dir, "tests", "vectors", "pop")
}

func readVectors(t testing.TB, dirs []string) []vector {
	t.Helper()
	var vs []vector
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(dir, "*.json"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no vectors in %s: %v", dir, err)
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var v vector
			if err := json.Unmarshal(data, &v); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			vs = append(vs, v)
		}
	}
	return vs
}

// TestVectorsFromTestdata runs the copies kept with this package, so the
// vectors run wherever the repository does.
func TestVectorsFromTestdata(t *testing.T) {
	var dirs []string
	for _, s := range vectorSources {
		dirs = append(dirs, filepath.Join("testdata", "vectors", s))
	}
	runVectors(t, readVectors(t, dirs))
}

// TestVectorsFromSpecification runs the specification's own folders and
// checks that the copies kept with this package have not drifted from them.
func TestVectorsFromSpecification(t *testing.T) {
	var dirs []string
	for _, s := range vectorSources {
		dir := specVectors(t, s)
		dirs = append(dirs, dir)
		files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		if len(files) == 0 {
			t.Fatalf("no vectors in %s", dir)
		}
		for _, f := range files {
			want, _ := os.ReadFile(f)
			got, err := os.ReadFile(filepath.Join("testdata", "vectors", s, filepath.Base(f)))
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("testdata copy of %s differs from the specification's: %v", f, err)
			}
		}
	}
	runVectors(t, readVectors(t, dirs))
}

// businessProfile is the aud every vector's proof is made for.
const businessProfile = "https://business.example.com/.well-known/usp"

// listedNonces accepts the nonces it lists, as a business that issued
// them would.
type listedNonces []string

func (l listedNonces) Issue(time.Time) (string, error) { return "n-fresh", nil }
func (l listedNonces) Valid(n string, _ time.Time) bool {
	return slices.Contains(l, n)
}

func openSQLite(t *testing.T) StoreReplay {
	t.Helper()
	db, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "frontdesk.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return StoreReplay{Records: db}
}

func runVectors(t *testing.T, vs []vector) {
	byUSPP := map[string]json.RawMessage{}
	byID := map[string]vector{}
	for _, v := range vs {
		byID[v.ID] = v
		if v.Canon != nil {
			byUSPP[v.Canon.USPP] = v.Canon.Params
		}
	}
	for _, v := range vs {
		t.Run(v.ID, func(t *testing.T) {
			if v.Canon != nil {
				jcs, digest, err := CanonicalParams(v.Canon.Params)
				if err != nil || string(jcs) != v.Canon.JCS || digest != v.Canon.USPP {
					t.Fatalf("CanonicalParams = %s, %s, %v; want %s, %s", jcs, digest, err, v.Canon.JCS, v.Canon.USPP)
				}
				return
			}
			ver := &Verifier{Audiences: []string{businessProfile}, Replay: openSQLite(t)}
			if v.ReplayOf != "" {
				first := byID[v.ReplayOf]
				if _, err := verifyVector(t, ver, first, byUSPP); err != nil {
					t.Fatalf("first presentation (%s) refused: %v", first.ID, err)
				}
			}
			p, err := verifyVector(t, ver, v, byUSPP)
			switch v.Expect {
			case "accept":
				if err != nil {
					t.Fatalf("Verify: %v", err)
				}
				if p.JKT != v.Key.JKT {
					t.Fatalf("jkt = %s, want %s", p.JKT, v.Key.JKT)
				}
				var want Claims
				if err := json.Unmarshal(v.ExpectedClaims, &want); err != nil {
					t.Fatal(err)
				}
				if p.Claims != want {
					t.Fatalf("claims = %+v, want %+v", p.Claims, want)
				}
			case "reject":
				e, ok := err.(*Error)
				if !ok || e.Code != v.RejectCode {
					t.Fatalf("Verify = %v, want %s", err, v.RejectCode)
				}
			default:
				t.Fatalf("unknown expect %q", v.Expect)
			}
		})
	}
}

// verifyVector presents a vector's proof as the MCP tool call it was made
// for: the arguments whose digest the proof carries, with the
// authorization member that the digest leaves out.
func verifyVector(t *testing.T, ver *Verifier, v vector, byUSPP map[string]json.RawMessage) (Proof, error) {
	t.Helper()
	req := Request{Binding: MCP}
	mechanism := "platform_key_pop"
	if v.Credential != nil {
		req.Credential = v.Credential.Value
		mechanism = "booking_scoped_credential"
		if v.Credential.CNF != nil {
			req.BoundJKT = v.Credential.CNF.JKT
		}
	}
	now := time.Unix(1_789_200_000, 0)
	var claims Claims
	if v.Proof != nil {
		req.Proof = *v.Proof
		if err := json.Unmarshal(v.ExpectedClaims, &claims); err != nil {
			t.Fatal(err)
		}
		now = time.Unix(claims.IAT, 0)
		req.Method = claims.USPM
		if claims.Nonce != "" {
			ver.Nonces = listedNonces{claims.Nonce}
		}
	}
	params, ok := byUSPP[claims.USPP]
	if !ok {
		params = json.RawMessage(`{"booking_id":"bkg_001","_meta":{"usp":{"profile":"https://agent.example/p.json"}}}`)
	}
	req.Arguments = withAuthorization(t, params, map[string]any{"mechanism": mechanism, "proof": req.Proof, "credential": req.Credential})
	return ver.Verify(context.Background(), now, req)
}

func withAuthorization(t *testing.T, params json.RawMessage, auth map[string]any) json.RawMessage {
	t.Helper()
	var args map[string]any
	if err := json.Unmarshal(params, &args); err != nil {
		t.Fatal(err)
	}
	meta, _ := args["_meta"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		args["_meta"] = meta
	}
	usp, _ := meta["usp"].(map[string]any)
	if usp == nil {
		usp = map[string]any{}
		meta["usp"] = usp
	}
	usp["authorization"] = auth
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSignReproducesVectorProofs: Ed25519 is deterministic, so signing a
// vector's claims with its published test key must give its proof byte
// for byte.
func TestSignReproducesVectorProofs(t *testing.T) {
	for _, v := range readVectors(t, []string{filepath.Join("testdata", "vectors", "usp-2026-08-20")}) {
		if v.Proof == nil || v.Key == nil || v.Key.PrivateD == "" {
			continue
		}
		t.Run(v.ID, func(t *testing.T) {
			seed, err := base64.RawURLEncoding.DecodeString(v.Key.PrivateD)
			if err != nil {
				t.Fatal(err)
			}
			var c Claims
			if err := json.Unmarshal(v.ExpectedClaims, &c); err != nil {
				t.Fatal(err)
			}
			got, err := Sign(ed25519.NewKeyFromSeed(seed), MCP, c)
			if err != nil {
				t.Fatal(err)
			}
			if got != *v.Proof {
				t.Fatalf("Sign =\n%s\nwant\n%s", got, *v.Proof)
			}
		})
	}
}
