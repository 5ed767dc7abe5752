package pop

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"frontdesk/sqlite"
)

// FuzzVerify: no proof or arguments panic the verifier, and whatever it
// accepts is bound to this business and cannot be accepted twice.
func FuzzVerify(f *testing.F) {
	var dirs []string
	for _, s := range vectorSources {
		dirs = append(dirs, filepath.Join("testdata", "vectors", s))
	}
	for _, v := range readVectors(f, dirs) {
		if v.Proof != nil {
			f.Add(*v.Proof, `{"booking_id":"bkg_001","_meta":{"usp":{"profile":"https://agent.example/p.json"}}}`, "")
		}
	}
	db, err := sqlite.Open(context.Background(), filepath.Join(f.TempDir(), "fuzz.db"))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { db.Close() })
	v := &Verifier{Audiences: []string{businessProfile}, Replay: StoreReplay{Records: db}}
	f.Fuzz(func(t *testing.T, proof, args, credential string) {
		now := time.Unix(1_789_203_600, 0)
		req := Request{Binding: MCP, Proof: proof, Method: "usp_bookings_cancel", Arguments: json.RawMessage(args), Credential: credential}
		p, err := v.Verify(context.Background(), now, req)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("Verify = %v, want an *Error", err)
			}
			return
		}
		c := p.Claims
		if c.Aud != businessProfile || c.USPM != req.Method {
			t.Fatalf("accepted a proof for %s %s", c.Aud, c.USPM)
		}
		if _, err := v.Verify(context.Background(), now, req); codeOf(err) != CodeReplayed {
			t.Fatalf("second presentation = %v, want %s", err, CodeReplayed)
		}
	})
}
