package pop

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"frontdesk/sqlite"
	"frontdesk/store"
)

// BenchmarkProofVerify measures a full presentation check (parse, the
// weak-key check, thumbprint, signature, JCS of the arguments, and the
// jti record) against its baseline, one raw single-row commit on the same
// SQLite store. Run with -count to interleave the two.
func BenchmarkProofVerify(b *testing.B) {
	db, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	n := 0 // unique keys and jtis across the rounds of b.N
	b.Run("raw_commit", func(b *testing.B) {
		for i := range b.N {
			n++
			if _, err := db.Create(ctx, store.Record{Kind: "bench", Key: fmt.Sprintf("row-%d-%d", n, i), Value: []byte("{}"), UpdatedAt: t0}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "commits/s")
	})
	b.Run("verify", func(b *testing.B) {
		v := &Verifier{Audiences: []string{businessProfile}, Replay: StoreReplay{Records: db}}
		req, c := presentationFor(b)
		proofs := make([]string, b.N)
		for i := range proofs {
			n++
			c.JTI = fmt.Sprintf("jti-%d", n)
			p, err := Sign(platform, MCP, c)
			if err != nil {
				b.Fatal(err)
			}
			proofs[i] = p
		}
		b.ResetTimer()
		for i := range b.N {
			req.Proof = proofs[i]
			if _, err := v.Verify(ctx, t0, req); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "proofs/s")
	})
}

func presentationFor(b *testing.B) (Request, Claims) {
	_, digest, err := CanonicalParams(bookingArgs)
	if err != nil {
		b.Fatal(err)
	}
	c := Claims{USPM: "usp_bookings_get", Aud: businessProfile, USPP: digest, IAT: t0.Unix(), ATH: Hash("bsc_1")}
	return Request{Binding: MCP, Method: "usp_bookings_get", Arguments: bookingArgs, Credential: "bsc_1"}, c
}
