package crash

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"frontdesk/internal/pgtest"
	"frontdesk/internal/signature/signaturetest"
	"frontdesk/payment"
	"frontdesk/payment/stripe/stripemock"
)

const crashWebhookSecret = "whsec_crash_payment"

// paidDoubles is the crash config with a 20% deposit on Riverside's
// doubles.
func paidDoubles(c []byte) []byte {
	const studio = "\n[[locations.units]]\ntype = \"studio\""
	return bytes.Replace(c, []byte(studio), []byte("\n[locations.units.policy]\npayment = \"deposit_required\"\ndeposit = \"20%\"\n"+studio), 1)
}

var stayPage = regexp.MustCompile(`/stay/[A-Z]{2,6}\.[A-Za-z0-9_-]{43}`)

// TestKillBetweenChargeAndBooking: serve is killed with SIGKILL right
// after it recorded a payment paid, for a request the guest withdrew
// while the payment page was open, before anything settled it. After
// the restart the sweep refunds the whole charge, once: the provider's
// event sent again, another restart and a sweep from the command line
// change nothing.
func TestKillBetweenChargeAndBooking(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "frontdesk")
	if out, err := exec.Command("go", "build", "-tags", "failpoint", "-o", bin, "frontdesk/cmd/frontdesk").CombinedOutput(); err != nil {
		t.Fatalf("build frontdesk: %v\n%s", err, out)
	}
	demo, err := exec.Command(bin, "init", "--demo").Output()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("FRONTDESK_STRIPE_MOCK", stripemock.Start(t))
	t.Setenv("FRONTDESK_STRIPE_WEBHOOK_SECRET", crashWebhookSecret)
	signature := signaturetest.Drawn(t)
	t.Run("sqlite", func(t *testing.T) { killAfterCharge(t, bin, demo, signature, "") })
	t.Run("postgres", func(t *testing.T) { killAfterCharge(t, bin, demo, signature, pgtest.Schema(t)) })
}

func killAfterCharge(t *testing.T, bin string, demo []byte, signature, database string) {
	data := t.TempDir()
	config := filepath.Join(data, "crash.toml")
	if err := os.WriteFile(config, paidDoubles(crashConfig(demo, "http://127.0.0.1:9/hook")), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	s := start(t, bin, config, addr, data, database, "after:payment-paid", 0)
	link := requestPaidDouble(t, s.url, signature)
	resp, err := proxied.Post(s.url+link+"/pay", "application/x-www-form-urlencoded", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		log, _ := os.ReadFile(s.log)
		t.Fatalf("pay = %d\n%s", resp.StatusCode, log)
	}
	p := onlyPayment(t, data, database)
	if p.State != payment.StateOpen {
		t.Fatalf("payment before the charge = %+v", p)
	}
	if resp, err = proxied.Post(s.url+link+"/withdraw", "application/x-www-form-urlencoded", nil); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("withdraw = %d", resp.StatusCode)
	}
	time.Sleep(time.Second) // the outbox finds nothing paid to settle

	event, sig := stripemock.Event(t, crashWebhookSecret, "evt_crash_paid", payment.EventCheckoutCompleted, map[string]any{
		"id": p.Checkout, "object": "checkout.session", "status": "complete", "payment_status": "paid",
		"amount_total": p.Amount, "currency": "usd", "payment_intent": "pi_crash",
		"metadata": map[string]string{payment.MetadataPayment: p.ID},
	}, time.Now())
	if status, body, err := deliver(s.url, event, sig); err == nil {
		t.Fatalf("the event was answered (%d %s): the failpoint did not fire", status, body)
	}
	for deadline := time.Now().Add(10 * time.Second); !s.dead() && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
	}
	if !s.dead() || !s.marked("after:payment-paid") {
		t.Fatal("serve was not killed at the failpoint")
	}
	if p = onlyPayment(t, data, database); p.State != payment.StatePaid || len(p.Refunds) != 0 || p.Settled != nil {
		t.Fatalf("after the kill: %+v", p)
	}

	s = start(t, bin, config, addr, data, database, "", 1)
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if p = onlyPayment(t, data, database); len(p.Refunds) > 0 && p.Refunds[0].State == payment.RefundDone {
			break
		}
	}
	settledOnce(t, p)
	// The provider sends the event again, as it does when it had no
	// answer: it was recorded before the kill, and changes nothing.
	if status, body, err := deliver(s.url, event, stripemock.Sign(event, crashWebhookSecret, time.Now())); err != nil || status != http.StatusOK || !strings.Contains(body, "already received") {
		t.Fatalf("the event again = %d %s, %v", status, body, err)
	}
	s.kill()
	args := []string{"sweep", "--config", config, "--data", data}
	if database != "" {
		args = append(args, "--database", database)
	}
	if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
		t.Fatalf("frontdesk sweep: %v\n%s", err, out)
	}
	settledOnce(t, onlyPayment(t, data, database))
}

// settledOnce checks p was refunded in full by one refund, as a charge
// without a booking.
func settledOnce(t *testing.T, p payment.Payment) {
	t.Helper()
	if p.Settled == nil || p.Settled.Why != payment.SettledNoBooking || len(p.Refunds) != 1 || p.Refunds[0].Amount != p.Amount ||
		p.Refunds[0].State != payment.RefundDone || p.Refunds[0].Provider == "" {
		t.Fatalf("settled = %+v, refunds %+v; want one refund of %d", p.Settled, p.Refunds, p.Amount)
	}
}

// requestPaidDouble files a booking-form request for Riverside's double
// a month ahead and returns the guest's page.
func requestPaidDouble(t *testing.T, base, signature string) string {
	t.Helper()
	ctx := context.Background()
	resp, err := proxied.Do(browser(ctx, http.MethodGet, base+"/book/riverside", 1, nil))
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	token := formToken.FindSubmatch(page)
	if token == nil {
		t.Fatalf("no form token: %s", page)
	}
	in := time.Now().AddDate(0, 1, 0)
	form := url.Values{"roomtype": {"double"}, "checkin": {in.Format(time.DateOnly)}, "checkout": {in.AddDate(0, 0, 2).Format(time.DateOnly)}, "guests": {"2"},
		"name": {"Crash Payer"}, "email": {"payer@example.com"}, "phone": {"(303) 555-0142"}, "signature": {signature}, "token": {string(token[1])}}
	req := browser(ctx, http.MethodPost, base+"/book/riverside", 1, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if resp, err = proxied.Do(req); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("form post = %d", resp.StatusCode)
	}
	if resp, err = proxied.Do(browser(ctx, http.MethodGet, base+resp.Header.Get("Location"), 1, nil)); err != nil {
		t.Fatal(err)
	}
	page, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	link := stayPage.FindString(string(page))
	if link == "" {
		t.Fatalf("no stay page link: %s", page)
	}
	return link
}

// deliver posts a signed provider event.
func deliver(base string, event []byte, sig string) (int, string, error) {
	req, _ := http.NewRequest(http.MethodPost, base+"/payments/stripe", bytes.NewReader(event))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Stripe-Signature", sig)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}

// onlyPayment reads the one payment record the run made.
func onlyPayment(t *testing.T, data, database string) payment.Payment {
	t.Helper()
	st := openStore(t, data, database)
	defer st.Close()
	recs := listAll(t, st, "payment")
	if len(recs) != 1 {
		t.Fatalf("%d payment records, want 1", len(recs))
	}
	var p payment.Payment
	if err := json.Unmarshal(recs[0].Value, &p); err != nil {
		t.Fatal(fmt.Errorf("payment record: %w", err))
	}
	return p
}
