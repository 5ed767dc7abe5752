package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"frontdesk/config"
	"frontdesk/internal/failpoint"
	"frontdesk/relay"
)

// The worksheet's deadlines on a confirmation's path through the hub,
// and the delays of the late commits: riverside's lands after the
// hub's deadline, airport's just before the mutation relay's limit.
const (
	hubDeadline   = 44 * time.Second
	mutationRelay = 40 * time.Second
	landsLate     = 45 * time.Second
	landsInTime   = 38 * time.Second
)

// TestSplitWorstPathAcrossProcesses: the hub and three locations as
// processes of the failpoint build, on both engines, with the
// worksheet's deadlines. Riverside's reservation commit, sent in time,
// lands after the hub's 44 s: the hub answers once its mutation relay's
// 40 s (clipped to what remains of the 44 s) has passed and before its
// own deadline, with the sentence that the booking may have gone
// through, never as an outage or as undone. The commit then lands; a
// lookup through the hub finds its reservation, and the same
// confirmation asked again answers with it, so riverside holds one
// reservation. Airport's commit lands at 38 s, before the relay's
// limit, and the hub answers with its reservation. Oldtown, and airport
// before its own commit was held, book as usual meanwhile.
func TestSplitWorstPathAcrossProcesses(t *testing.T) {
	bin := failpointBinary(t)
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			testSplitWorstPath(t, engine, bin)
		})
	}
}

func testSplitWorstPath(t *testing.T, engine, bin string) {
	late := map[string]string{"riverside": filepath.Join(t.TempDir(), "late"), "airport": filepath.Join(t.TempDir(), "late")}
	d := startSplitWith(t, engine, splitOptions{bin: bin, env: map[string][]string{
		"riverside": {failpoint.Env + "=late:" + landsLate.String() + ":" + late["riverside"]},
		"airport":   {failpoint.Env + "=late:" + landsInTime.String() + ":" + late["airport"]},
	}})
	g := &splitGuest{t: t, d: d, cs: connect(t, d.hub+"/mcp", "2025-11-25")}
	river := g.startWithCode("riverside")
	air := g.startWithCode("airport")

	arm(t, late["riverside"])
	riverAnswer := g.confirmTimed(river)
	// Riverside's commit is held; the other locations book as usual.
	began := time.Now()
	g.book("oldtown")
	g.book("airport")
	if took := time.Since(began); took > 10*time.Second {
		t.Fatalf("booking at oldtown and airport took %v while riverside's commit was held", took)
	}
	arm(t, late["airport"])
	airAnswer := g.confirmTimed(air)

	got := <-riverAnswer
	uncertain := fmt.Sprintf(sentence(t, "outcome_unknown"), relay.PhoneOf(config.Demo().Portfolio)("riverside"))
	if got.err != nil || !got.res.IsError || text(got.res) != uncertain {
		t.Fatalf("the hub's answer to a commit landing after its deadline = %v %q, want %q", got.err, got.text(), uncertain)
	}
	if got.took < mutationRelay || got.took >= hubDeadline {
		t.Fatalf("the hub answered after %v, want after the mutation relay's %v and before its own %v", got.took, mutationRelay, hubDeadline)
	}
	t.Logf("the hub answered the commit landing at %v after %v", landsLate, got.took)

	got = <-airAnswer
	if got.err != nil || got.res.IsError || got.out["status"] != "reserved" {
		t.Fatalf("the hub's answer to a commit landing at %v = %v %q, want the reservation", landsInTime, got.err, got.text())
	}
	if got.took < landsInTime || got.took >= mutationRelay {
		t.Fatalf("the hub answered airport after %v, want after its commit's %v and before the relay's %v", got.took, landsInTime, mutationRelay)
	}
	t.Logf("the hub answered the commit landing at %v after %v", landsInTime, got.took)
	if refs := d.reservations(t, "airport"); len(refs) != 2 {
		t.Fatalf("airport holds %v, want the usual booking and the one made at %v", refs, landsInTime)
	}

	ref := d.landed(t, "riverside")
	res, out := callTool(t, g.cs, "get_booking", map[string]any{"reservation_number": ref, "phone_last4": "0199"})
	if res.IsError || out["status"] != "reserved" {
		t.Fatalf("the late reservation %s looked up through the hub: %s", ref, text(res))
	}
	res, out = callTool(t, g.cs, "confirm_booking", map[string]any{"booking_id": river.id, "code": river.code})
	if res.IsError || out["reservation_number"] != ref {
		t.Fatalf("the same confirmation asked again = %s %v, want %s", text(res), out["reservation_number"], ref)
	}
	if refs := d.reservations(t, "riverside"); len(refs) != 1 {
		t.Fatalf("riverside holds %v, want the late commit's reservation alone", refs)
	}
}

// codeSent is a started booking with the code mailed for it.
type codeSent struct{ id, code string }

// startWithCode starts a booking at slug and reads its code.
func (g *splitGuest) startWithCode(slug string) codeSent {
	g.t.Helper()
	id, email, refusal := g.start(slug)
	if refusal != "" {
		g.t.Fatalf("start at %s: %s", slug, refusal)
	}
	return codeSent{id: id, code: latestCode(g.t, g.d.origins[slug], email)}
}

// timedAnswer is a tool call's answer and how long it took.
type timedAnswer struct {
	res  *mcp.CallToolResult
	out  map[string]any
	err  error
	took time.Duration
}

func (a timedAnswer) text() string {
	if a.res == nil {
		return ""
	}
	return text(a.res)
}

// confirmTimed confirms c through the hub while the test goes on, and
// sends the answer once it comes.
func (g *splitGuest) confirmTimed(c codeSent) <-chan timedAnswer {
	answer := make(chan timedAnswer, 1)
	began := time.Now()
	go func() {
		res, err := g.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "confirm_booking",
			Arguments: map[string]any{"booking_id": c.id, "code": c.code}})
		a := timedAnswer{res: res, err: err, took: time.Since(began)}
		if res != nil && res.StructuredContent != nil {
			b, _ := json.Marshal(res.StructuredContent)
			json.Unmarshal(b, &a.out)
		}
		answer <- a
	}()
	return answer
}

// arm creates a failpoint's file.
func arm(t *testing.T, file string) {
	t.Helper()
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
}

var referenceIn = regexp.MustCompile(`[A-Z]{3}-[0-9A-F]{16}`)

// reservations are the references `staff list` shows at slug.
func (d *splitDeployment) reservations(t *testing.T, slug string) []string {
	t.Helper()
	return referenceIn.FindAllString(d.staffList(t, slug), -1)
}

// landed waits for slug's late commit to land and returns the one
// reservation it made.
func (d *splitDeployment) landed(t *testing.T, slug string) string {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(250 * time.Millisecond) {
		refs := d.reservations(t, slug)
		if len(refs) == 1 {
			return refs[0]
		}
		if len(refs) > 1 || time.Now().After(end) {
			t.Fatalf("%s holds %v after its late commit, want one reservation", slug, refs)
		}
	}
}
