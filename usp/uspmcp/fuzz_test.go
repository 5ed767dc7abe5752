package uspmcp

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"frontdesk/config"
	"frontdesk/usp"
	"frontdesk/usp/usptest"
)

// FuzzUSPArguments: no tool arguments panic a USP tool, and whatever goes
// wrong is a USP error with a code, never some other error. Each input
// goes to every tool of the binding, public and private.
func FuzzUSPArguments(f *testing.F) {
	for _, seed := range []string{
		`{}`, `null`, `[]`, `"x"`, `{"_meta":{"usp":{"profile":"https://agent.example/p.json"}}}`,
		`{"service_id":"svc_airport_shuttle","_meta":{"usp":{"profile":"https://agent.example/p.json"}}}`,
		`{"service_id":"svc_airport_shuttle","start":"2026-12-02T00:00:00Z","end":"2026-12-03T00:00:00Z"}`,
		`{"ids":["svc_airport_shuttle",""],"page_size":-1,"cursor":"\u0000"}`,
		`{"service_id":"svc_airport_shuttle","slot_id":"slot_airport_shuttle_20261202T1300Z","buyer":{"email":"a@b"}}`,
		`{"booking_id":"bkg_001","_meta":{"usp":{"idempotency_key":"k","if_match":"\"1\""}}}`,
		`{"_meta":{"usp":[]}}`, `{"page_size":1e400}`,
	} {
		f.Add(seed)
	}
	plat := usptest.NewPlatforms(f, nil)
	b := usptest.NewBusiness(f, usptest.PublicOnly(config.Demo()), usptest.Now, plat, nil)
	var names []string
	for name := range uspTools {
		names = append(names, name)
	}
	f.Fuzz(func(t *testing.T, args string) {
		for _, name := range names {
			req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: name, Arguments: json.RawMessage(args)}}
			_, err := callUSP(context.Background(), b.Business, name, req)
			if err == nil {
				continue
			}
			if e, internal := usp.AsError(err); internal || e.Code == "" {
				t.Fatalf("%s(%s) = %v, want a coded USP refusal", name, args, err)
			}
		}
	})
}
