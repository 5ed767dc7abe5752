package direct

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"image/png"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"frontdesk/business"
	"frontdesk/config"
	"frontdesk/direct/directtest"
	"frontdesk/internal/golden"
	"frontdesk/internal/signature/signaturetest"
	"frontdesk/reservation"
	"frontdesk/store"
)

// formTokens numbers the one-time tokens of the tests' form requests, so
// each request a test builds is a new one.
var formTokens atomic.Int64

// testToken is the n-th form token of the tests.
func testToken(n int64) string { return directtest.FormToken(n) }

func formRequest(t testing.TB) reservation.FormRequest {
	return reservation.FormRequest{Location: "riverside", RoomType: "double", Checkin: "2026-12-30", Checkout: "2027-01-02",
		Name: "Grace Hopper", Email: "grace@example.com", Phone: "(303) 555-0142", Guests: "2",
		Notes: "Arriving by train.", Signature: signaturetest.Drawn(t), Address: "192.0.2.10", Token: testToken(formTokens.Add(1))}
}

// TestFormRequestHoldsNothing: a signed form request is saved as a
// requested reservation from the form that holds no room, both its mails
// go out byte for byte, and staff accepting it takes the room through
// the index.
func TestFormRequestHoldsNothing(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	req := formRequest(t)
	req.Token = testToken(0) // the token its mail links with
	res, err := w.svc.Core().Submit(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	r, err := reservation.Get(ctx, w.st, res.Reference)
	if err != nil {
		t.Fatal(err)
	}
	if r.State != reservation.Requested || r.Source != reservation.SourceForm || r.Held || r.Guests != 2 || r.Total != 39538 {
		t.Fatalf("saved %+v", r)
	}
	if got := freeDoubles(t, w); got != 2 {
		t.Fatalf("a form request holds a room: %d doubles free", got)
	}
	if !res.Mailed {
		t.Fatal("acknowledgement not reported as mailed")
	}
	var mails strings.Builder
	for _, m := range w.messages() {
		fmt.Fprintf(&mails, "== %s\nTo: %s\nReply-To: %s\nSubject: %s\n\n%s\n", m.ID, strings.Join(m.To, ", "), m.ReplyTo, m.Subject, m.Text)
	}
	golden.Check(t, "form-mails.txt", []byte(mails.String()))

	accepted, mailed, err := w.svc.core.Decide(ctx, reservation.Decision{Reference: res.Reference, To: reservation.Confirmed, By: "maria"})
	if err != nil || accepted.State != reservation.Confirmed || !accepted.Held || !mailed {
		t.Fatalf("accept = %+v, %v, %v", accepted, mailed, err)
	}
	if got := freeDoubles(t, w); got != 1 {
		t.Fatalf("accepted request holds no room: %d doubles free", got)
	}
	if _, _, err := w.svc.core.Decide(ctx, reservation.Decision{Reference: res.Reference, To: reservation.Confirmed, By: "maria"}); !errors.Is(err, reservation.ErrIllegal) {
		t.Fatalf("second accept = %v", err)
	}
	// Cancelling it through the staff decision releases the room again.
	if _, _, err := w.svc.core.Decide(ctx, reservation.Decision{Reference: res.Reference, To: reservation.Cancelled, By: "maria"}); err != nil {
		t.Fatal(err)
	}
	if got := freeDoubles(t, w); got != 2 {
		t.Fatalf("cancelled request still holds: %d doubles free", got)
	}
}

// TestAcceptRequestWhenTheRoomIsGone: accepting a request for the last
// room that a chat booking took meanwhile changes nothing.
func TestAcceptRequestWhenTheRoomIsGone(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	req := formRequest(t)
	req.RoomType = "studio"
	req.Checkout = "2027-01-06"
	res, err := w.svc.Core().Submit(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	w.book(stayArgs("roomtype", "studio", "checkout", "2027-01-06"))
	before, _ := reservation.Get(ctx, w.st, res.Reference)
	_, _, err = w.svc.core.Decide(ctx, reservation.Decision{Reference: res.Reference, To: reservation.Confirmed, By: "maria"})
	if !errors.Is(err, reservation.ErrUnitTaken) {
		t.Fatalf("accept without a room = %v", err)
	}
	after, _ := reservation.Get(ctx, w.st, res.Reference)
	if after.State != reservation.Requested || after.Held || after.Version != before.Version {
		t.Fatalf("a refused accept changed the request: %+v", after)
	}
}

func TestFormProblems(t *testing.T) {
	empty := "data:image/png;base64," + base64.StdEncoding.EncodeToString(func() []byte {
		var buf bytes.Buffer
		png.Encode(&buf, image.NewNRGBA(image.Rect(0, 0, 400, 150)))
		return buf.Bytes()
	}())
	tests := []struct {
		name  string
		edit  func(*reservation.FormRequest)
		field string
		want  string
	}{
		{"no signature", func(f *reservation.FormRequest) { f.Signature = "" }, "signature", "Sign in the box"},
		{"empty signature image", func(f *reservation.FormRequest) { f.Signature = empty }, "signature", "looks empty"},
		{"not an image", func(f *reservation.FormRequest) { f.Signature = "data:image/png;base64,aGVsbG8=" }, "signature", "could not be read"},
		{"unknown room type", func(f *reservation.FormRequest) { f.RoomType = "suite" }, "roomtype", "Choose a room from the list."},
		{"unreal date", func(f *reservation.FormRequest) { f.Checkin = "2026-02-30" }, "checkin", "The arrival date is not a real date. Choose it again."},
		{"no arrival", func(f *reservation.FormRequest) { f.Checkin = "" }, "checkin", "Choose an arrival date."},
		{"no departure", func(f *reservation.FormRequest) { f.Checkout = " " }, "checkout", "Choose a departure date."},
		{"checkout first", func(f *reservation.FormRequest) { f.Checkout = "2026-12-29" }, "checkout", "The departure date must be after the arrival date."},
		{"past arrival", func(f *reservation.FormRequest) { f.Checkin, f.Checkout = "2026-01-02", "2026-01-05" }, "checkin", "The arrival date has already passed. Choose 2026-"},
		{"too long", func(f *reservation.FormRequest) { f.Checkout = "2027-06-30" }, "checkout", "A stay can be at most"},
		{"studio for a night", func(f *reservation.FormRequest) { f.RoomType = "studio" }, "checkout", "week"},
		{"no token", func(f *reservation.FormRequest) { f.Token = "" }, "token", "This form has expired."},
		{"another location's token", func(f *reservation.FormRequest) { f.Token = "OTL." + f.Token }, "token", "This form has expired."},
		{"empty name", func(f *reservation.FormRequest) { f.Name = " \u200b\n" }, "name", "Give the guest's name"},
		{"bad email", func(f *reservation.FormRequest) { f.Email = "grace@localhost" }, "email", "name@example.com"},
		{"bad phone", func(f *reservation.FormRequest) { f.Phone = "555-0142" }, "phone", "10 to 15 digits"},
		{"too many guests", func(f *reservation.FormRequest) { f.Guests = "5" }, "guests", "from 1 to 4"},
		{"guests in words", func(f *reservation.FormRequest) { f.Guests = "two" }, "guests", "from 1 to 4"},
		{"long notes", func(f *reservation.FormRequest) { f.Notes = strings.Repeat("x", 501) }, "notes", "500"},
		{"bot", func(f *reservation.FormRequest) { f.Trap = "http://spam.example" }, "trap", "empty"},
	}
	w := newWorld(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := formRequest(t)
			tt.edit(&req)
			_, err := w.svc.Core().Submit(context.Background(), req)
			var p reservation.FormProblems
			if !errors.As(err, &p) || !strings.Contains(p[tt.field], tt.want) || p[tt.field] == "" {
				t.Fatalf("Submit = %v (%v), want %s: %q", err, p, tt.field, tt.want)
			}
		})
	}
	// Every problem of a request is reported at once.
	req := formRequest(t)
	req.Name, req.Email, req.Signature = "", "x", ""
	_, err := w.svc.Core().Submit(context.Background(), req)
	if p, ok := errors.AsType[reservation.FormProblems](err); !ok || len(p) != 3 {
		t.Fatalf("several problems = %v", err)
	}
	if rows, _ := reservation.List(context.Background(), w.st, store.ReservationFilter{Limit: 10}); len(rows) != 0 || len(w.messages()) != 0 {
		t.Fatalf("refused requests saved %d reservations and sent %d mails", len(rows), len(w.messages()))
	}
}

// TestFormRateLimits: an address may send five requests an hour and an
// email address three a day; the limits lift when their window ends.
func TestFormRateLimits(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	for i := range reservation.FormPerAddressHourly {
		req := formRequest(t)
		req.Email = fmt.Sprintf("guest%d@example.com", i)
		if _, err := w.svc.Core().Submit(ctx, req); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	req := formRequest(t)
	req.Email = "another@example.com"
	if _, err := w.svc.Core().Submit(ctx, req); !errors.As(err, new(*reservation.FormLimited)) {
		t.Fatalf("sixth request from one address = %v", err)
	}
	w.clock.Advance(time.Hour)
	for i := range reservation.FormPerEmailDaily {
		req := formRequest(t)
		req.Email = "Same+tag@Example.com"
		req.Address = fmt.Sprintf("198.51.100.%d", i)
		if _, err := w.svc.Core().Submit(ctx, req); err != nil {
			t.Fatalf("request %d for one email: %v", i, err)
		}
	}
	req.Address = "203.0.113.1"
	req.Email = "same@example.com"
	if _, err := w.svc.Core().Submit(ctx, req); !errors.As(err, new(*reservation.FormLimited)) {
		t.Fatalf("fourth request for one email = %v", err)
	}
}

// TestFormRequestWithAFailingStore fails each store call of a request in
// turn: the guest learns of a failure, nothing is mailed for a request
// that was not saved, and a retry saves exactly one.
func TestFormRequestWithAFailingStore(t *testing.T) {
	for n := 1; ; n++ {
		base := newWorld(t)
		fs := &failingStore{Store: base.st}
		w := newWorldOn(t, base.cfg, fs)
		ctx := context.Background()
		fs.arm(n)
		res, err := w.svc.Core().Submit(ctx, formRequest(t))
		calls := fs.disarm()
		rows, _ := reservation.List(ctx, base.st, store.ReservationFilter{Limit: 10})
		if err == nil && (len(rows) != 1 || rows[0].Reference != res.Reference) {
			t.Fatalf("call %d failing: success with %d saved", n, len(rows))
		}
		if err != nil && (len(rows) != 0 || len(w.messages()) != 0) {
			t.Fatalf("call %d failing: refused, yet %d saved and %d mailed", n, len(rows), len(w.messages()))
		}
		if err != nil {
			if _, err := w.svc.Core().Submit(ctx, formRequest(t)); err != nil {
				t.Fatalf("call %d failing: retry = %v", n, err)
			}
		}
		if calls < n {
			break // every call has failed once
		}
	}
}

// TestStaffConfirmOfARequestTakesTheRoom: the staff decision that
// confirms a form request holds its unit, as accepting it does; without
// that a confirmed reservation would hold nothing.
func TestStaffConfirmOfARequestTakesTheRoom(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	res, err := w.svc.Core().Submit(ctx, formRequest(t))
	if err != nil {
		t.Fatal(err)
	}
	r, _, err := w.svc.core.Decide(ctx, reservation.Decision{Reference: res.Reference, To: reservation.Confirmed, By: "maria"})
	if err != nil || r.State != reservation.Confirmed || !r.Held {
		t.Fatalf("confirm = %+v, %v", r, err)
	}
	if got := freeDoubles(t, w); got != 1 {
		t.Fatalf("confirmed request holds nothing: %d doubles free", got)
	}
	declined, err := w.svc.Core().Submit(ctx, func() reservation.FormRequest { f := formRequest(t); f.Email = "ada@example.com"; return f }())
	if err != nil {
		t.Fatal(err)
	}
	if r, _, err := w.svc.core.Decide(ctx, reservation.Decision{Reference: declined.Reference, To: reservation.Declined, By: "maria"}); err != nil || r.State != reservation.Declined {
		t.Fatalf("decline = %+v, %v", r, err)
	}
}

// TestFormTokenSavesOnce: a form posted again with its token, one after
// the other or at the same moment, answers with the first request and
// saves, mails and counts nothing more; the token then opens the
// request's own page.
func TestFormTokenSavesOnce(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	req := formRequest(t)
	first, err := w.svc.Core().Submit(ctx, req)
	if err != nil || first.Again {
		t.Fatalf("first = %+v, %v", first, err)
	}
	var wg sync.WaitGroup
	results := make([]reservation.FormResult, 4)
	errs := make([]error, 4)
	for i := range results {
		wg.Go(func() { results[i], errs[i] = w.svc.Core().Submit(ctx, req) })
	}
	wg.Wait()
	for i, res := range results {
		if errs[i] != nil || !res.Again || res.Reference != first.Reference || res.Quote.Total != first.Quote.Total {
			t.Fatalf("resubmission %d = %+v, %v; first %s", i, res, errs[i], first.Reference)
		}
	}
	rows, err := reservation.List(ctx, w.st, store.ReservationFilter{Limit: 10})
	if err != nil || len(rows) != 1 {
		t.Fatalf("saved %d requests, %v", len(rows), err)
	}
	if got := len(w.messages()); got != 2 {
		t.Fatalf("mails = %d, want the first request's 2", got)
	}
	// The email limit (3 a day) was claimed once: two more requests pass.
	for range 2 {
		if _, err := w.svc.Core().Submit(ctx, formRequest(t)); err != nil {
			t.Fatalf("a new request after resubmissions: %v", err)
		}
	}
	stay, err := w.svc.GuestStay(ctx, req.Token)
	if err != nil || stay.Reservation.Reference != first.Reference || stay.Reservation.State != reservation.Requested || stay.Cancellable {
		t.Fatalf("guest page = %+v, %v", stay, err)
	}
	if _, err := w.svc.GuestStay(ctx, testToken(-1)); !errors.Is(err, reservation.ErrNoReservation) {
		t.Fatalf("unknown token = %v", err)
	}
	if _, err := w.svc.GuestStay(ctx, "RIV-1"); !errors.Is(err, reservation.ErrNoReservation) {
		t.Fatalf("malformed token = %v", err)
	}
}

// TestFormQuote prices the form's stay without saving anything and
// names the field of each problem.
func TestFormQuote(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	q, err := w.svc.Core().FormQuote(ctx, formRequest(t))
	if err != nil || q.Total != 39538 || q.Nights != 3 {
		t.Fatalf("quote = %+v, %v", q, err)
	}
	req := formRequest(t)
	req.Checkin = "30/12/2026"
	_, err = w.svc.Core().FormQuote(ctx, req)
	if p, ok := errors.AsType[reservation.FormProblems](err); !ok || p["checkin"] == "" || len(p) != 1 {
		t.Fatalf("unreadable date = %v", err)
	}
	if rows, _ := reservation.List(ctx, w.st, store.ReservationFilter{Limit: 10}); len(rows) != 0 || len(w.messages()) != 0 {
		t.Fatal("a quote saved or mailed something")
	}
}

// TestSearchRooms lists the room types free for the whole stay that
// sleep the party, with their price, and leaves out a full one.
func TestSearchRooms(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	got, err := w.svc.Core().SearchRooms(ctx, reservation.SearchRequest{Checkin: "2026-12-30", Checkout: "2027-01-02", Guests: "3"})
	if err != nil {
		t.Fatal(err)
	}
	var offers []string
	for _, o := range got.Offers {
		offers = append(offers, fmt.Sprintf("%s %s %d %s", o.Location.Slug, o.Unit.Type, o.Free, o.Total))
	}
	if want := "riverside double 2 $395.38"; strings.Join(offers, "; ") != want {
		t.Fatalf("offers for 3 = %q, want %q", offers, want)
	}
	for _, tt := range []struct {
		q     reservation.SearchRequest
		field string
	}{
		{reservation.SearchRequest{Checkin: "", Checkout: "2027-01-02"}, "checkin"},
		{reservation.SearchRequest{Checkin: "2026-12-30", Checkout: "2026-12-30"}, "checkout"},
		{reservation.SearchRequest{Checkin: "2020-01-01", Checkout: "2020-01-02"}, "checkin"},
		{reservation.SearchRequest{Checkin: "2026-12-30", Checkout: "2027-01-02", Guests: "9"}, "guests"},
		{reservation.SearchRequest{Checkin: "2026-12-30", Checkout: "2027-01-02", Location: "moon"}, "location"},
	} {
		_, err := w.svc.Core().SearchRooms(ctx, tt.q)
		if p, ok := errors.AsType[reservation.FormProblems](err); !ok || p[tt.field] == "" {
			t.Errorf("SearchRooms(%+v) = %v, want a problem with %s", tt.q, err, tt.field)
		}
	}
}

// TestSearchRoomsClosed: a closure of the business or of one property
// covering a night of the stay leaves that property's rooms out and
// names the first closed night; other properties are offered as usual.
func TestSearchRoomsClosed(t *testing.T) {
	w := newWorld(t, func(c *config.Config) {
		c.Locations[0].Closures = []business.Closure{{From: "2026-12-31", To: "2027-01-01", Reason: "staff training"}}
	})
	got, err := w.svc.Core().SearchRooms(context.Background(), reservation.SearchRequest{Checkin: "2026-12-30", Checkout: "2027-01-02", Guests: "1"})
	if err != nil {
		t.Fatal(err)
	}
	slug := w.cfg.Locations[0].Slug
	if d, ok := got.Closed[slug]; !ok || d.String() != "2026-12-31" {
		t.Fatalf("closed = %v, want %s closed on 2026-12-31", got.Closed, slug)
	}
	for _, o := range got.Offers {
		if o.Location.Slug == slug {
			t.Fatalf("offers a room at a closed property: %s", o.Unit.Type)
		}
	}
	if len(got.Offers) == 0 {
		t.Fatal("no offer at the open property")
	}
}
