package usp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"frontdesk/config"
	"frontdesk/internal/clock"
	"frontdesk/internal/uspspec"
	"frontdesk/mcpfront"
	"frontdesk/store"
	"frontdesk/usp"
	"frontdesk/usp/uspmcp"
	"frontdesk/usp/usptest"
	"frontdesk/usp/webhook"
)

// waitlistProfile is a platform using bookings and the waitlist.
var waitlistProfile = strings.TrimSuffix(strings.TrimSuffix(fullProfile, "}}}"), "]") + `],
 "dev.usp-protocol.services.waitlist":[{"version":"2026-08-20","extends":"dev.usp-protocol.services.bookings"}]}}}`

// waitBench is a business on one engine with both bindings served.
type waitBench struct {
	*bench
	rest    string
	cs      *mcp.ClientSession
	schemas *uspspec.Schemas
}

func newWaitBench(t *testing.T, b *usptest.Business, plat *usptest.Platforms) *waitBench {
	t.Helper()
	rest := httptest.NewServer(restMux(b.Business))
	t.Cleanup(rest.Close)
	srv := httptest.NewServer(mcpfront.Handler(uspmcp.New(b.Business, mcpfront.Options{}), mcpfront.HTTPOptions{Hostnames: []string{"127.0.0.1"}}))
	t.Cleanup(srv.Close)
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: &http.Client{Transport: bearer{http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	call := platformCall(plat)
	call.Profile = plat.URL + "/waitlist.json"
	return &waitBench{bench: &bench{Business: b, plat: plat, call: call}, rest: rest.URL, cs: cs, schemas: uspspec.Load(t)}
}

// waitBenchOn is the demo business on a fresh store of engine, at clk,
// with a platform whose profile takes the waitlist, served on both
// bindings.
func waitBenchOn(t *testing.T, engine func(*testing.T) func() store.Store, clk *clock.Fixed) *waitBench {
	t.Helper()
	plat := usptest.NewPlatforms(t, map[string]string{"/full.json": fullProfile, "/waitlist.json": waitlistProfile})
	st := engine(t)()
	t.Cleanup(func() { st.Close() })
	return newWaitBench(t, usptest.On(t, usptest.WithPlatform(usptest.Unpaid(config.Demo())), st, clk, plat, nil, ""), plat)
}

// rest sends a REST request as the platform and checks a 2xx answer
// against the OpenAPI schema of spec (the path template).
func (w *waitBench) restDo(t *testing.T, method, path, spec, body string, want int) map[string]any {
	t.Helper()
	req, _ := http.NewRequest(method, w.rest+"/usp"+path, strings.NewReader(body))
	req.Header.Set("Authorization", usptest.Bearer)
	req.Header.Set("USP-Agent", `profile="`+w.call.Profile+`"`)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != want {
		t.Fatalf("%s %s: %d %s, want %d", method, path, resp.StatusCode, raw, want)
	}
	if want < 300 && spec != "" {
		w.schemas.Check(t, uspspec.REST(method, spec, want), raw)
	} else if want >= 300 {
		w.schemas.Check(t, uspspec.Problem, raw)
	}
	var out map[string]any
	json.Unmarshal(raw, &out)
	return out
}

// tool calls an MCP tool as the platform and checks the result against
// the OpenRPC result schema.
func (w *waitBench) tool(t *testing.T, name string, args map[string]any) map[string]any {
	t.Helper()
	args["_meta"] = map[string]any{"usp": map[string]any{"profile": w.call.Profile}}
	res, err := w.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil || res.IsError {
		t.Fatalf("%s: %v %+v", name, err, res)
	}
	envelope, _ := json.Marshal(map[string]any{"structuredContent": res.StructuredContent, "content": res.Content})
	w.schemas.Check(t, w.schemas.MCPResult(t, name), envelope)
	return res.StructuredContent.(map[string]any)
}

// events are the waitlist webhooks queued so far, by entry, each checked
// against the WaitlistEvent schema.
func (w *waitBench) events(t *testing.T) map[string][]string {
	t.Helper()
	recs, err := w.Store.List(context.Background(), webhook.Kind, "", "", 1000)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, r := range recs {
		var row struct {
			Body json.RawMessage `json:"body"`
		}
		json.Unmarshal(r.Value, &row)
		var body struct {
			Event   string `json:"event"`
			EntryID string `json:"entry_id"`
		}
		if json.Unmarshal(row.Body, &body) != nil || !strings.HasPrefix(body.Event, "waitlist.") {
			continue
		}
		w.schemas.Check(t, "https://usp-protocol.dev/schemas/services/webhook_event.json#/$defs/WaitlistEvent", row.Body)
		out[body.EntryID] = append(out[body.EntryID], body.Event)
	}
	return out
}

func buyerArgs(first string) map[string]any {
	return map[string]any{"first_name": first, "last_name": "Waits", "email": strings.ToLower(first) + "@example.com"}
}

// TestWaitlist: on both engines and both bindings, buyers join a full
// shuttle slot in line; a cancellation offers the place to the first,
// who accepts it (one write: booking and entry); a second offer expires
// untaken and the sweep ends it; an entry leaves and an offer is
// declined; list filters; and every answer and webhook matches the
// schemas.
func TestWaitlist(t *testing.T) {
	for name, engine := range engines() {
		t.Run(name, func(t *testing.T) {
			waitlistFlow(t, waitBenchOn(t, engine, clock.NewFixed(usptest.Now)))
		})
	}
}

func waitlistFlow(t *testing.T, w *waitBench) {
	ctx := context.Background()
	slot := w.slot(t, "svc_airport_shuttle", "2026-03-02")
	first := w.restDo(t, "POST", "/bookings", "/bookings", fmt.Sprintf(`{"service_id":"svc_airport_shuttle","slot_id":%q,"buyer":{"first_name":"Ada","last_name":"Lovelace","email":"ada@example.com"}}`, slot.ID), 201)
	bookingID := first["booking"].(map[string]any)["id"].(string)

	// Bob over MCP, Carol over REST: in line, in order.
	bob := w.tool(t, "usp_waitlist_join", map[string]any{"service_id": "svc_airport_shuttle", "slot_id": slot.ID, "buyer": buyerArgs("Bob"),
		"preferred_slots": []any{map[string]any{"start_date": "2026-03-02", "end_date": "2026-03-02", "time_of_day": "morning"}}})["entry"].(map[string]any)
	carol := w.restDo(t, "POST", "/waitlist", "/waitlist", fmt.Sprintf(`{"service_id":"svc_airport_shuttle","slot_id":%q,"buyer":{"first_name":"Carol","last_name":"Waits","email":"carol@example.com"}}`, slot.ID), 201)["entry"].(map[string]any)
	if bob["status"] != "waiting" || bob["position"] != 1.0 || carol["position"] != 2.0 {
		t.Fatalf("joined: bob %v, carol %v", bob, carol)
	}
	bobID, carolID := bob["id"].(string), carol["id"].(string)
	// A date-time is no date, and an unknown entry is 404.
	w.restDo(t, "POST", "/waitlist", "", fmt.Sprintf(`{"service_id":"svc_airport_shuttle","slot_id":%q,"buyer":{"first_name":"Dan","last_name":"W","email":"dan@example.com"},"preferred_slots":[{"start_date":"2026-03-02T09:00:00Z"}]}`, slot.ID), 422)
	w.restDo(t, "GET", "/waitlist/wl_bm9uZQ", "", "", 404)

	// The booking is cancelled: the place goes to Bob, held for him.
	w.restDo(t, "POST", "/bookings/"+bookingID+"/cancel", "/bookings/{booking_id}/cancel", `{}`, 200)
	offered := w.tool(t, "usp_waitlist_get", map[string]any{"entry_id": bobID})["entry"].(map[string]any)
	if offered["status"] != "offered" || offered["offered_slot"].(map[string]any)["slot_id"] != slot.ID || offered["offer_expires_at"] == nil {
		t.Fatalf("after the cancellation Bob's entry is %v, want offered the slot", offered)
	}
	if again := w.slot(t, "svc_airport_shuttle", "2026-03-02"); again.ID == slot.ID {
		t.Fatal("the offered place is still sold to anyone")
	}
	accepted := w.tool(t, "usp_waitlist_accept", map[string]any{"entry_id": bobID})
	if accepted["entry"].(map[string]any)["status"] != "accepted" || accepted["booking"].(map[string]any)["status"] != "confirmed" {
		t.Fatalf("accept: %v", accepted)
	}
	bobBooking := accepted["booking"].(map[string]any)["id"].(string)
	if c := w.restDo(t, "GET", "/waitlist/"+carolID, "/waitlist/{entry_id}", "", 200)["entry"].(map[string]any); c["position"] != 1.0 || c["status"] != "waiting" {
		t.Fatalf("Carol after Bob's conversion: %v, want first in line", c)
	}

	// Bob cancels: Carol is offered the place and lets it expire.
	w.tool(t, "usp_bookings_cancel", map[string]any{"booking_id": bobBooking})
	if c := w.tool(t, "usp_waitlist_get", map[string]any{"entry_id": carolID})["entry"].(map[string]any); c["status"] != "offered" {
		t.Fatalf("Carol after Bob's cancellation: %v", c)
	}
	w.Clock.Advance(usp.OfferTTL)
	if _, err := w.Expire(ctx); err != nil {
		t.Fatal(err)
	}
	late := w.restDo(t, "POST", "/waitlist/"+carolID+"/accept", "/waitlist/{entry_id}/accept", `{}`, 200)
	if late["entry"].(map[string]any)["status"] != "expired" || outcomeOf(late) != "offer_expired" || late["booking"] != nil {
		t.Fatalf("accepting an expired offer: %v", late)
	}
	// Nobody waits now and the hold lapsed: the slot is free again.
	if again := w.slot(t, "svc_airport_shuttle", "2026-03-02"); again.ID != slot.ID {
		t.Fatalf("the slot of the expired offer is not free: first open %s", again.ID)
	}
	// An outcome without an entry, at 200 (as a refused booking: the
	// schema requires an entry; see the package comment).
	if got := w.restDo(t, "POST", "/waitlist", "", fmt.Sprintf(`{"service_id":"svc_airport_shuttle","slot_id":%q,"buyer":{"first_name":"Dan","last_name":"W","email":"dan@example.com"}}`, slot.ID), 200); outcomeOf(got) != "slot_available" {
		t.Fatalf("joining a slot with a place free: %v", got)
	}

	// Another slot: Eve leaves the line, Dan declines his offer.
	other := w.slot(t, "svc_airport_shuttle", "2026-03-03")
	held := w.restDo(t, "POST", "/bookings", "/bookings", fmt.Sprintf(`{"service_id":"svc_airport_shuttle","slot_id":%q,"buyer":{"first_name":"Ada","last_name":"Lovelace","email":"ada@example.com"}}`, other.ID), 201)
	dan := w.tool(t, "usp_waitlist_join", map[string]any{"service_id": "svc_airport_shuttle", "slot_id": other.ID, "buyer": buyerArgs("Dan")})["entry"].(map[string]any)["id"].(string)
	eve := w.tool(t, "usp_waitlist_join", map[string]any{"service_id": "svc_airport_shuttle", "slot_id": other.ID, "buyer": buyerArgs("Eve")})["entry"].(map[string]any)["id"].(string)
	w.restDo(t, "DELETE", "/waitlist/"+eve, "/waitlist/{entry_id}", "", 200)
	if e := w.tool(t, "usp_waitlist_get", map[string]any{"entry_id": eve})["entry"].(map[string]any); e["status"] != "removed" {
		t.Fatalf("Eve after leaving: %v", e)
	}
	w.restDo(t, "POST", "/bookings/"+held["booking"].(map[string]any)["id"].(string)+"/cancel", "/bookings/{booking_id}/cancel", `{}`, 200)
	declined := w.tool(t, "usp_waitlist_decline", map[string]any{"entry_id": dan})["entry"].(map[string]any)
	if declined["status"] != "declined" {
		t.Fatalf("decline: %v", declined)
	}
	if again := w.slot(t, "svc_airport_shuttle", "2026-03-03"); again.ID != other.ID {
		t.Fatal("the declined place was not given back")
	}

	list := w.restDo(t, "POST", "/waitlist/list", "/waitlist/list", `{"service_id":"svc_airport_shuttle"}`, 200)
	if n := len(list["entries"].([]any)); n != 4 {
		t.Fatalf("list: %d entries, want 4", n)
	}
	expired := w.tool(t, "usp_waitlist_list", map[string]any{"status": "expired"})["entries"].([]any)
	if len(expired) != 1 || expired[0].(map[string]any)["id"] != carolID {
		t.Fatalf("expired entries: %v", expired)
	}

	events := w.events(t)
	for id, want := range map[string][]string{
		bobID:   {"waitlist.spot_offered", "waitlist.converted"},
		carolID: {"waitlist.position_changed", "waitlist.spot_offered", "waitlist.expired"},
		dan:     {"waitlist.spot_offered"},
	} {
		for _, e := range want {
			if !slices.Contains(events[id], e) {
				t.Errorf("webhooks of %s: %v, want %s among them", id, events[id], e)
			}
		}
	}
}

func outcomeOf(doc map[string]any) string {
	msgs, _ := doc["messages"].([]any)
	for _, m := range msgs {
		if mm := m.(map[string]any); mm["type"] == "error" {
			code, _ := mm["code"].(string)
			return code
		}
	}
	return ""
}

// TestWaitlistPreferredSlots: on both engines and both bindings, open
// entries (no slot_id) wait for the slots their preferred windows take.
// Bob, first in line, wants an evening of 3 March and Carol, behind him,
// an evening of 2 or 3 March, and Dan, behind her, one evening slot of 2
// March: a cancelled evening seat of 2 March skips Bob and goes to Carol,
// who books it, and Dan moves up; a reschedule off a 3 March evening
// offers the seat to Bob. Bad windows are refused and stored nowhere.
func TestWaitlistPreferredSlots(t *testing.T) {
	for name, engine := range engines() {
		t.Run(name, func(t *testing.T) {
			preferredFlow(t, waitBenchOn(t, engine, clock.NewFixed(usptest.Now)))
		})
	}
}

// bookEvenings books every shuttle seat of day from 17:00 local and
// returns the bookings' ids.
func (w *waitBench) bookEvenings(t *testing.T, day string) []string {
	t.Helper()
	res, err := w.QueryAvailability(context.Background(), usp.Call{}, usp.QueryRequest{ServiceID: "svc_airport_shuttle", StartDate: day, EndDate: day})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, sl := range res.Slots {
		if start, _ := time.Parse(time.RFC3339, sl.Start); start.Hour() < 17 {
			continue
		}
		doc := w.restDo(t, "POST", "/bookings", "/bookings", fmt.Sprintf(`{"service_id":"svc_airport_shuttle","slot_id":%q,"buyer":{"first_name":"Ada","last_name":"Lovelace","email":"ada@example.com"}}`, sl.ID), 201)
		ids = append(ids, doc["booking"].(map[string]any)["id"].(string))
	}
	if len(ids) == 0 {
		t.Fatalf("no evening seat on %s", day)
	}
	return ids
}

func preferredFlow(t *testing.T, w *waitBench) {
	ctx := context.Background()
	// Nothing is full yet: an open entry is told the seat it would take.
	if got := w.restDo(t, "POST", "/waitlist", "", `{"service_id":"svc_airport_shuttle","buyer":{"first_name":"Dan","last_name":"W","email":"dan@example.com"}}`, 200); outcomeOf(got) != "slot_available" {
		t.Fatalf("an open join with seats free: %v", got)
	}
	second := w.bookEvenings(t, "2026-03-02")
	third := w.bookEvenings(t, "2026-03-03")

	// Bad windows: 422 over REST, validation_error over MCP, no entry.
	for _, c := range []struct{ window, want string }{
		{`{"time_of_day":"lunchtime"}`, "preferred_slots[0].time_of_day must be morning (before 12:00), afternoon (12:00 to 17:00) or evening (from 17:00)."},
		{`{"start_date":"2026-03-03","end_date":"2026-03-02"}`, "preferred_slots[0].end_date must not be before its start_date."},
		{`{"start_date":"2026-03-02T17:00:00-07:00"}`, "preferred_slots[0].start_date must be an RFC 3339 date (YYYY-MM-DD), not a date-time."},
	} {
		body := `{"service_id":"svc_airport_shuttle","buyer":{"first_name":"Eve","last_name":"W","email":"eve@example.com"},"preferred_slots":[` + c.window + `]}`
		if got := w.restDo(t, "POST", "/waitlist", "", body, 422); got["detail"] != c.want {
			t.Errorf("REST join with %s: %v, want detail %q", c.window, got, c.want)
		}
		var args map[string]any
		json.Unmarshal([]byte(body), &args)
		args["_meta"] = map[string]any{"usp": map[string]any{"profile": w.call.Profile}}
		_, err := w.cs.CallTool(ctx, &mcp.CallToolParams{Name: "usp_waitlist_join", Arguments: args})
		var rpcErr *jsonrpc.Error
		if !errors.As(err, &rpcErr) || rpcErr.Message != "validation_error" || !strings.Contains(string(rpcErr.Data), c.want) {
			t.Errorf("MCP join with %s: %v, want validation_error %q", c.window, err, c.want)
		}
	}
	if list := w.restDo(t, "POST", "/waitlist/list", "/waitlist/list", `{}`, 200); len(list["entries"].([]any)) != 0 {
		t.Fatalf("refused joins stored entries: %v", list["entries"])
	}

	// Bob over MCP, then Carol over REST; neither names a slot. Carol
	// would take an evening of either day, so she is behind Bob.
	bob := w.tool(t, "usp_waitlist_join", map[string]any{"service_id": "svc_airport_shuttle", "buyer": buyerArgs("Bob"),
		"preferred_slots": []any{map[string]any{"start_date": "2026-03-03", "end_date": "2026-03-03", "time_of_day": "evening"}}})["entry"].(map[string]any)
	carol := w.restDo(t, "POST", "/waitlist", "/waitlist", `{"service_id":"svc_airport_shuttle","buyer":{"first_name":"Carol","last_name":"Waits","email":"carol@example.com"},"preferred_slots":[{"start_date":"2026-03-02","end_date":"2026-03-02","time_of_day":"evening"},{"start_date":"2026-03-03","end_date":"2026-03-03","time_of_day":"evening"}]}`, 201)["entry"].(map[string]any)
	if bob["status"] != "waiting" || bob["position"] != 1.0 || carol["status"] != "waiting" || carol["position"] != 2.0 {
		t.Fatalf("joined: bob %v, carol %v", bob, carol)
	}
	bobID, carolID := bob["id"].(string), carol["id"].(string)
	// Dan waits for one later evening slot of 2 March: Carol would take it
	// too and is ahead of him; Bob would not.
	later := w.restDo(t, "GET", "/bookings/"+second[1], "/bookings/{booking_id}", "", 200)["booking"].(map[string]any)["slot"].(map[string]any)["id"]
	dan := w.tool(t, "usp_waitlist_join", map[string]any{"service_id": "svc_airport_shuttle", "slot_id": later, "buyer": buyerArgs("Dan")})["entry"].(map[string]any)
	if dan["position"] != 2.0 {
		t.Fatalf("Dan joined at %v, want position 2 (behind Carol)", dan["position"])
	}
	danID := dan["id"].(string)

	// An evening seat of 2 March frees: Bob, first in line, is outside
	// his window and skipped; Carol is offered it, held for her.
	freed := w.restDo(t, "POST", "/bookings/"+second[0]+"/cancel", "/bookings/{booking_id}/cancel", `{}`, 200)["booking"].(map[string]any)["slot"].(map[string]any)["id"]
	if b := w.tool(t, "usp_waitlist_get", map[string]any{"entry_id": bobID})["entry"].(map[string]any); b["status"] != "waiting" {
		t.Fatalf("Bob, who wants 3 March, after a seat of 2 March freed: %v", b)
	}
	c := w.restDo(t, "GET", "/waitlist/"+carolID, "/waitlist/{entry_id}", "", 200)["entry"].(map[string]any)
	if c["status"] != "offered" || c["offered_slot"].(map[string]any)["slot_id"] != freed {
		t.Fatalf("Carol after the seat %v freed: %v, want it offered", freed, c)
	}
	accepted := w.restDo(t, "POST", "/waitlist/"+carolID+"/accept", "/waitlist/{entry_id}/accept", `{}`, 200)
	if accepted["entry"].(map[string]any)["status"] != "accepted" || accepted["booking"].(map[string]any)["slot"].(map[string]any)["id"] != freed {
		t.Fatalf("Carol's accept: %v, want a booking of %v", accepted, freed)
	}
	// Bob still waits, and the sweep finds nothing for him.
	if n, err := w.OfferWaitlist(ctx); err != nil || n != 0 {
		t.Fatalf("sweep: %d offers, %v; want none", n, err)
	}
	// Carol left the line: Dan moves up and is told; Bob, ahead of her,
	// is not.
	if d := w.restDo(t, "GET", "/waitlist/"+danID, "/waitlist/{entry_id}", "", 200)["entry"].(map[string]any); d["position"] != 1.0 || d["status"] != "waiting" {
		t.Fatalf("Dan after Carol's conversion: %v, want waiting at position 1", d)
	}
	events := w.events(t)
	if !slices.Equal(events[carolID], []string{"waitlist.spot_offered", "waitlist.converted"}) || len(events[bobID]) != 0 || !slices.Equal(events[danID], []string{"waitlist.position_changed"}) {
		t.Fatalf("webhooks: Carol %v, Bob %v, Dan %v", events[carolID], events[bobID], events[danID])
	}

	// A booking of a 3 March evening moves to the morning: the evening
	// seat goes to Bob at once, without waiting for the sweep.
	evening := third[0]
	left := w.restDo(t, "GET", "/bookings/"+evening, "/bookings/{booking_id}", "", 200)["booking"].(map[string]any)["slot"].(map[string]any)["id"]
	morning := w.slot(t, "svc_airport_shuttle", "2026-03-03")
	moved := w.tool(t, "usp_bookings_reschedule", map[string]any{"booking_id": evening, "slot_id": morning.ID})
	if moved["booking"].(map[string]any)["slot"].(map[string]any)["id"] != morning.ID {
		t.Fatalf("reschedule: %v", moved)
	}
	if b := w.tool(t, "usp_waitlist_get", map[string]any{"entry_id": bobID})["entry"].(map[string]any); b["status"] != "offered" || b["offered_slot"].(map[string]any)["slot_id"] != left {
		t.Fatalf("Bob after the 3 March evening seat %v freed by a reschedule: %v, want it offered", left, b)
	}
}

// TestWaitlistRejoinUpdatesInPlace: on both engines, the same buyer
// joining a service's waitlist again with other preferred windows
// updates the entry in place: same id, same place in line, the new
// windows only, and messages[] says so; a re-join with nothing new says
// the entry is unchanged. Before, the old entry came back, old windows
// included, with no message.
func TestWaitlistRejoinUpdatesInPlace(t *testing.T) {
	for name, engine := range engines() {
		t.Run(name, func(t *testing.T) {
			w := waitBenchOn(t, engine, clock.NewFixed(usptest.Now))
			w.bookEvenings(t, "2026-03-02")
			w.bookEvenings(t, "2026-03-03")
			join := func(first, windows string, want int) map[string]any {
				return w.restDo(t, "POST", "/waitlist", "/waitlist", `{"service_id":"svc_airport_shuttle","buyer":{"first_name":"`+first+`","last_name":"Waits","email":"`+strings.ToLower(first)+`@example.com"},"preferred_slots":[`+windows+`]}`, want)
			}
			evening3 := `{"start_date":"2026-03-03","end_date":"2026-03-03","time_of_day":"evening"}`
			evening2 := `{"start_date":"2026-03-02","end_date":"2026-03-02","time_of_day":"evening"}`
			onlyEvening2 := `[{"end_date":"2026-03-02","start_date":"2026-03-02","time_of_day":"evening"}]` // as a map marshals
			bob := join("Bob", evening3, 201)["entry"].(map[string]any)
			join("Carol", evening3, 201)
			again := join("Bob", evening2, 201)
			entry := again["entry"].(map[string]any)
			windows, _ := json.Marshal(entry["preferred_slots"])
			if entry["id"] != bob["id"] || entry["position"] != 1.0 || string(windows) != onlyEvening2 {
				t.Fatalf("Bob's re-join with other windows: %v, want his entry at position 1 with only the new window", entry)
			}
			msgs, _ := again["messages"].([]any)
			if len(msgs) != 1 || msgs[0].(map[string]any)["code"] != "waitlist_updated" || !strings.Contains(msgs[0].(map[string]any)["content"].(string), "keeps its place in line") {
				t.Fatalf("messages of the update = %v", again["messages"])
			}
			got := w.restDo(t, "GET", "/waitlist/"+bob["id"].(string), "/waitlist/{entry_id}", "", 200)["entry"].(map[string]any)
			if stored, _ := json.Marshal(got["preferred_slots"]); string(stored) != onlyEvening2 {
				t.Fatalf("stored windows after the update = %s", stored)
			}
			same := join("Bob", evening2, 201)
			if m, _ := same["messages"].([]any); len(m) != 1 || m[0].(map[string]any)["code"] != "already_waitlisted" || same["entry"].(map[string]any)["position"] != 1.0 {
				t.Fatalf("a re-join with nothing new: %v", same)
			}
		})
	}
}
