package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"frontdesk/config"
	"frontdesk/direct/chatdoor/catalogue"
	"frontdesk/relay"
	"frontdesk/store"
)

// workedCeilings are the worked deployment's pending ceilings, 3 per
// location and 8 across the group, in every file of the split.
func workedCeilings(text string) string {
	return strings.NewReplacer("location_pending = 15", "location_pending = 3", "portfolio_pending = 30", "portfolio_pending = 8").Replace(text)
}

// splitGuest books through the hub's chat tools.
type splitGuest struct {
	t  *testing.T
	d  *splitDeployment
	cs *mcp.ClientSession
	n  int // guests so far: each has an address and nights of its own
}

// start starts a booking of a new guest at slug and returns its
// booking_id and address, or the refusal.
func (g *splitGuest) start(slug string) (id, email, refusal string) {
	g.t.Helper()
	g.n++
	email = fmt.Sprintf("guest%d@example.com", g.n)
	in := time.Now().AddDate(0, 0, 30+2*g.n)
	res, out := callTool(g.t, g.cs, "start_booking", map[string]any{"property": slug, "roomtype": "double",
		"checkin": in.Format(time.DateOnly), "checkout": in.AddDate(0, 0, 1).Format(time.DateOnly),
		"guest_name": "Ada Lovelace", "email": email, "phone": "+1 303 555 0199"})
	if res.IsError {
		return "", email, text(res)
	}
	return out["booking_id"].(string), email, ""
}

// confirm confirms a started booking with the code mailed for it.
func (g *splitGuest) confirm(slug, id, email string) (ref, refusal string) {
	g.t.Helper()
	res, out := callTool(g.t, g.cs, "confirm_booking", map[string]any{"booking_id": id, "code": latestCode(g.t, g.d.origins[slug], email)})
	if res.IsError {
		return "", text(res)
	}
	return out["reservation_number"].(string), ""
}

// book starts and confirms one booking at slug.
func (g *splitGuest) book(slug string) string {
	g.t.Helper()
	id, email, refusal := g.start(slug)
	if refusal != "" {
		g.t.Fatalf("start at %s: %s", slug, refusal)
	}
	ref, refusal := g.confirm(slug, id, email)
	if refusal != "" {
		g.t.Fatalf("confirm at %s: %s", slug, refusal)
	}
	return ref
}

func sentence(t *testing.T, code string) string {
	t.Helper()
	s, ok := catalogue.Sentence(code)
	if !ok {
		t.Fatalf("no sentence %s", code)
	}
	return s
}

// restart starts a stopped location again.
func (d *splitDeployment) restart(t *testing.T, slug string) {
	t.Helper()
	d.start(t, slug, append([]string{"location", "--slug", slug, "--config", filepath.Join(d.dir, slug+".toml")}, d.stores[slug]...), nil)
	waitReady(t, slug, d.origins[slug])
}

// TestSplitGroupControl: the hub and three locations as processes, on
// both engines. With the hub's control data the group holds at most 8
// pending chat reservations (3 per location); identical confirmations
// racing make one reservation, which both answer with; a location stopped, started and stopped
// again during starts and confirmations answers for itself alone and
// keeps the booking to finish. With the hub's control store locked
// (the documented outage), no code is sent, while confirmations of sent
// codes go on under each location's own 3, and each names for staff the
// locations whose stays were not read.
func TestSplitGroupControl(t *testing.T) {
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			t.Run("normal", func(t *testing.T) { testSplitGroupCeiling(t, engine) })
			t.Run("outage", func(t *testing.T) { testSplitControlOutage(t, engine) })
		})
	}
}

func testSplitGroupCeiling(t *testing.T, engine string) {
	d := startSplitEdited(t, engine, workedCeilings)
	g := &splitGuest{t: t, d: d, cs: connect(t, d.hub+"/mcp", "2025-11-25")}
	pausedForStaff := sentence(t, "paused_for_staff")

	// The hub's control operations take only calls signed with the
	// shared secret.
	forged := []relay.Key{{N: 1, Key: bytes.Repeat([]byte{7}, 32)}}
	for _, c := range []struct {
		keys []relay.Key
		want int
	}{{forged, http.StatusUnauthorized}, {d.keys, http.StatusOK}} {
		body := []byte(`{"slug":"hub","args":{}}`)
		req, err := http.NewRequest(http.MethodPost, d.hub+relay.PathPrefix+relay.OpControlPending, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		relay.Sign(req, body, c.keys, time.Now(), fmt.Sprintf("%032x", time.Now().UnixNano()))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Fatalf("a control call signed with %d key(s): HTTP %d, want %d", len(c.keys), resp.StatusCode, c.want)
		}
	}

	// Identical confirmations at once: one reservation, and both answer
	// with it.
	id, email, refusal := g.start("riverside")
	if refusal != "" {
		t.Fatal(refusal)
	}
	var wg sync.WaitGroup
	refs := make([]string, 2)
	refusals := make([]string, 2)
	for i := range 2 {
		wg.Go(func() { refs[i], refusals[i] = g.confirm("riverside", id, email) })
	}
	wg.Wait()
	if refs[0] == "" || refs[0] != refs[1] {
		t.Fatalf("identical confirmations: %q, %q", refs, refusals)
	}
	if n := strings.Count(d.staffList(t, "riverside"), "RIV-"); n != 1 {
		t.Fatalf("riverside holds %d reservations after identical confirmations", n)
	}

	// A location down, up and down again: its calls fail alone, and a
	// booking started before it went down is confirmed once it is back.
	d.stop("airport")
	if _, _, refusal := g.start("airport"); refusal == "" {
		t.Fatal("a start at a stopped location succeeded")
	}
	g.book("riverside")
	d.restart(t, "airport")
	id, email, refusal = g.start("airport")
	if refusal != "" {
		t.Fatalf("start at the restarted location: %s", refusal)
	}
	d.stop("airport")
	res, _ := callTool(t, g.cs, "confirm_booking", map[string]any{"booking_id": id, "code": "000000"})
	if !res.IsError {
		t.Fatal("a confirmation at a stopped location succeeded")
	}
	d.restart(t, "airport")
	if _, refusal := g.confirm("airport", id, email); refusal != "" {
		t.Fatalf("confirm once the location is back: %s", refusal)
	}

	// Up to the group's 8: riverside 3, oldtown 3, airport 2.
	g.book("riverside")
	for range 3 {
		g.book("oldtown")
	}
	type started struct{ id, email string }
	var air []started
	for range 2 {
		id, email, refusal := g.start("airport")
		if refusal != "" {
			t.Fatalf("start at airport with 7 pending: %s", refusal)
		}
		air = append(air, started{id, email})
	}
	var refused []string
	for _, s := range air {
		if _, refusal := g.confirm("airport", s.id, s.email); refusal != "" {
			refused = append(refused, refusal)
		}
	}
	if len(refused) != 1 || !strings.HasPrefix(refused[0], pausedForStaff) {
		t.Fatalf("confirmations past the group's 8: %q", refused)
	}
	if _, _, refusal := g.start("airport"); !strings.HasPrefix(refusal, pausedForStaff) {
		t.Fatalf("a start with the group full: %q", refusal)
	}
}

func testSplitControlOutage(t *testing.T, engine string) {
	d := startSplitEdited(t, engine, workedCeilings)
	g := &splitGuest{t: t, d: d, cs: connect(t, d.hub+"/mcp", "2025-11-25")}
	slugs := []string{"riverside", "oldtown", "airport"}
	type started struct{ slug, id, email string }
	var all []started
	for _, slug := range slugs {
		for range 4 {
			id, email, refusal := g.start(slug)
			if refusal != "" {
				t.Fatalf("start at %s: %s", slug, refusal)
			}
			all = append(all, started{slug, id, email})
		}
	}
	unlock := lockStore(t, d, engine, "hub")
	if _, _, refusal := g.start("oldtown"); !strings.HasPrefix(refusal, sentence(t, "paused")) {
		t.Fatalf("a start with the hub's mail counter down: %q", refusal)
	}
	// Every confirmation at once: each location's own ceiling holds.
	codes := make([]string, len(all))
	for i, s := range all {
		codes[i] = latestCode(t, d.origins[s.slug], s.email)
	}
	pausedForStaff := sentence(t, "paused_for_staff")
	var mu sync.Mutex
	reserved := map[string]int{}
	refs := map[string][]string{}
	var wg sync.WaitGroup
	for i, s := range all {
		wg.Go(func() {
			began := time.Now()
			res, err := g.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "confirm_booking",
				Arguments: map[string]any{"booking_id": s.id, "code": codes[i]}})
			took := time.Since(began)
			switch {
			case err != nil:
				t.Errorf("confirm at %s: %v", s.slug, err)
			case took > 25*time.Second:
				t.Errorf("a confirmation with the hub's store down took %v", took)
			case res.IsError && !strings.HasPrefix(text(res), pausedForStaff):
				t.Errorf("confirm at %s with the hub's store down: %s", s.slug, text(res))
			case !res.IsError:
				var out struct {
					Ref string `json:"reservation_number"`
				}
				b, _ := json.Marshal(res.StructuredContent)
				json.Unmarshal(b, &out)
				mu.Lock()
				reserved[s.slug]++
				refs[s.slug] = append(refs[s.slug], out.Ref)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	unlock()
	if reserved["riverside"] != 3 || reserved["oldtown"] != 3 || reserved["airport"] != 3 {
		t.Fatalf("reserved with the hub's store down: %v (the bound is 3 per location)", reserved)
	}
	// The staff screen says which locations were not read.
	d.addOwner(t, "riverside", "olga")
	olga := d.signInAt(t, "riverside", "olga")
	_, _, body := olga.do("GET", "/staff/reservations/"+refs["riverside"][0], nil)
	if !regexp.MustCompile(`id="unread">The guest's reservations at (oldtown, airport|airport, oldtown) could not be read`).MatchString(body) {
		t.Fatalf("the staff page of %s does not name the unread locations:\n%s", refs["riverside"][0], body)
	}
	// Staff see, on each reservation, the locations not read.
	unread := regexp.MustCompile(`"uncheckedProperties":\[([^\]]*)\]`)
	for _, slug := range slugs {
		d.stop(slug)
		c := config.Store{DataDir: filepath.Join(d.dir, slug+"-data")}
		if engine == "postgres" {
			c = config.Store{Database: d.stores[slug][1]}
		}
		st, err := openStore(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := st.ListReservations(context.Background(), store.ReservationFilter{Limit: 100})
		st.Close()
		if err != nil || len(rows) != 3 {
			t.Fatalf("%s: %d reservations, %v", slug, len(rows), err)
		}
		for _, r := range rows {
			m := unread.FindSubmatch(r.Value)
			others := slices.DeleteFunc(slices.Clone(slugs), func(s string) bool { return s == slug })
			want := fmt.Sprintf("%q,%q", others[0], others[1])
			if m == nil || (string(m[1]) != want && string(m[1]) != fmt.Sprintf("%q,%q", others[1], others[0])) {
				t.Fatalf("%s at %s names %q unread, want %s", r.Reference, slug, m, want)
			}
		}
	}
}

// lockStore takes the store of the process name out of service until
// the returned func is called: a PostgreSQL schema's tables locked, or
// a SQLite file held in an exclusive transaction, so its requests wait
// past their deadlines.
func lockStore(t *testing.T, d *splitDeployment, engine, name string) (unlock func()) {
	t.Helper()
	ctx := context.Background()
	if engine == "postgres" {
		conn, err := pgx.Connect(ctx, d.stores[name][1])
		if err != nil {
			t.Fatal(err)
		}
		tx, err := conn.Begin(ctx)
		if err == nil {
			_, err = tx.Exec(ctx, "LOCK TABLE records, counters IN ACCESS EXCLUSIVE MODE")
		}
		if err != nil {
			t.Fatal(err)
		}
		var once sync.Once
		unlock = func() { once.Do(func() { tx.Rollback(ctx); conn.Close(ctx) }) }
		t.Cleanup(unlock)
		return unlock
	}
	db, err := sql.Open("sqlite", filepath.Join(d.dir, name+"-data", "frontdesk.db"))
	if err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(ctx)
	if err == nil {
		_, err = conn.ExecContext(ctx, "BEGIN EXCLUSIVE")
	}
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	unlock = func() {
		once.Do(func() { conn.ExecContext(ctx, "ROLLBACK"); conn.Close(); db.Close() })
	}
	t.Cleanup(unlock)
	return unlock
}
