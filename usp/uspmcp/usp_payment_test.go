package uspmcp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"frontdesk/business"
	"frontdesk/config"
	"frontdesk/internal/uspspec"
	"frontdesk/mcpfront"
	"frontdesk/usp/usptest"
)

// The paid flow over MCP (§8.6.2): usp_bookings_create on the shuttle,
// paid when booking, answers requires_action with the payment action;
// usp_bookings_confirm_payment with the platform's payment_result
// confirms it. Both answers are the OpenRPC documents' results.
func TestConfirmPaymentOverMCP(t *testing.T) {
	cfg := usptest.WithPlatform(config.Demo())
	locs := append([]business.Location(nil), cfg.Locations...)
	for i := range locs {
		units := append([]business.Unit(nil), locs[i].Units...)
		for j := range units {
			if units[j].Type == "shuttle" {
				units[j].Policy = business.Policy{Payment: business.PayAtBooking}
			}
		}
		locs[i].Units = units
	}
	cfg.Locations = locs
	plat := usptest.NewPlatforms(t, map[string]string{"/full.json": fullPlatform})
	b := usptest.NewBusiness(t, cfg, usptest.Now, plat, nil)
	srv := httptest.NewServer(mcpfront.Handler(New(b.Business, mcpfront.Options{}), mcpfront.HTTPOptions{Hostnames: []string{"127.0.0.1"}}))
	t.Cleanup(srv.Close)
	hc := &http.Client{Transport: headerTransport{"Authorization", usptest.Bearer, http.DefaultTransport}}
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: hc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	schemas := uspspec.Load(t)
	call := func(tool string, args map[string]any) map[string]any {
		t.Helper()
		args["_meta"] = map[string]any{"usp": map[string]any{"profile": plat.URL + "/full.json"}}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", tool, err, res)
		}
		envelope, _ := json.Marshal(map[string]any{"structuredContent": res.StructuredContent, "content": res.Content})
		schemas.Check(t, schemas.MCPResult(t, tool), envelope)
		return res.StructuredContent.(map[string]any)
	}
	slot := call("usp_availability_query", map[string]any{"service_id": "svc_airport_shuttle", "start_date": "2026-03-02", "end_date": "2026-03-02"})["slots"].([]any)[0].(map[string]any)["id"]
	made := call("usp_bookings_create", map[string]any{"service_id": "svc_airport_shuttle", "slot_id": slot,
		"buyer": map[string]any{"first_name": "Ada", "last_name": "Lovelace", "email": "ada@example.com"}})["booking"].(map[string]any)
	actions, _ := made["actions"].([]any)
	if made["status"] != "requires_action" || len(actions) != 1 || actions[0].(map[string]any)["payment_context"].(map[string]any)["amount_due"] != 2500.0 {
		t.Fatalf("created = %v", made)
	}
	paid := call("usp_bookings_confirm_payment", map[string]any{"booking_id": made["id"], "payment_result": map[string]any{
		"status": "paid", "provider": "stripe", "transaction_id": "txn_abc123", "amount_paid": 2500, "currency": "USD", "order_reference": "ord_xyz789"}})
	booking := paid["booking"].(map[string]any)
	if pay := booking["payment"].(map[string]any); booking["status"] != "confirmed" || pay["status"] != "paid" || pay["order_reference"] != "ord_xyz789" || len(paid["messages"].([]any)) != 0 {
		t.Fatalf("confirm-payment = %v", paid)
	}
}
