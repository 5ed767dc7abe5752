package usp_test

import (
	"context"
	"testing"

	"frontdesk/config"
	"frontdesk/usp"
	"frontdesk/usp/usptest"
)

// BenchmarkWithin is what the bindings' deadline costs a call: the
// cheapest USP call (a service read from the catalog, no store) directly
// and through Business.Within, in ABBA order.
func BenchmarkWithin(b *testing.B) {
	biz := usptest.NewBusiness(b, usptest.PublicOnly(config.Demo()), usptest.Now, nil, nil)
	ctx := context.Background()
	get := func(ctx context.Context) (any, error) { return biz.GetService(ctx, usp.Call{}, "svc_airport_shuttle") }
	direct := func(b *testing.B) {
		for b.Loop() {
			if _, err := get(ctx); err != nil {
				b.Fatal(err)
			}
		}
	}
	within := func(b *testing.B) {
		for b.Loop() {
			if _, err := biz.Within(ctx, get); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("A=direct", direct)
	b.Run("B=within", within)
	b.Run("B=within-again", within)
	b.Run("A=direct-again", direct)
}
