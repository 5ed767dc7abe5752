package usp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"testing"

	"frontdesk/internal/uspspec"
	"frontdesk/payment/stripe/stripemock"
	"frontdesk/sqlite"
	"frontdesk/usp"
)

// fetch is a GET of path on w's binding: its status and body.
func (w *payWorld) fetch(t *testing.T, path string) (int, []byte) {
	t.Helper()
	res, err := w.client.Get(w.srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, body
}

// One mode at a time (§1.5): Standalone publishes /.well-known/usp with
// the checkout systems of its paid services and no /.well-known/ucp;
// UCP-native publishes /.well-known/ucp, its bindings carrying the
// authorization policy in config (§7.2), and no /.well-known/usp. There,
// a service paid when booking is not booked directly (a UCP checkout
// books it, §7.5), while one paid at the property is.
func TestOneProfilePerMode(t *testing.T) {
	api := stripemock.Start(t)
	ctx := context.Background()
	open := func(t *testing.T, mode string) *payWorld {
		st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "usp.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return newPayWorldIn(t, st, api, mode)
	}

	t.Run("standalone", func(t *testing.T) {
		w := open(t, "")
		status, body := w.fetch(t, usp.ProfilePath)
		var p usp.BusinessProfile
		if status != http.StatusOK || json.Unmarshal(body, &p) != nil || !slices.Equal(p.USP.CheckoutSystems, []string{"acp", "embedded", "redirect"}) {
			t.Fatalf("profile = %d %s", status, body)
		}
		if status, _ := w.fetch(t, usp.UCPProfilePath); status != http.StatusNotFound {
			t.Fatalf("%s in Standalone mode = %d, want 404", usp.UCPProfilePath, status)
		}
	})

	t.Run("ucp_native", func(t *testing.T) {
		w := open(t, usp.ModeUCPNative)
		if status, _ := w.fetch(t, usp.ProfilePath); status != http.StatusNotFound {
			t.Fatalf("%s in UCP-native mode = %d, want 404", usp.ProfilePath, status)
		}
		status, body := w.fetch(t, usp.UCPProfilePath)
		var p struct {
			UCP struct {
				Version      string                       `json:"version"`
				Services     map[string][]json.RawMessage `json:"services"`
				Capabilities map[string]json.RawMessage   `json:"capabilities"`
			} `json:"ucp"`
			Authorization json.RawMessage `json:"authorization"`
		}
		if status != http.StatusOK || json.Unmarshal(body, &p) != nil || p.UCP.Version != usp.UCPVersion || p.Authorization != nil {
			t.Fatalf("ucp profile = %d %s", status, body)
		}
		bindings := p.UCP.Services["dev.usp-protocol.services"]
		if len(bindings) != 2 || p.UCP.Capabilities[string(usp.CapabilityBookings)] == nil {
			t.Fatalf("ucp profile = %s", body)
		}
		schemas := uspspec.Load(t)
		for _, b := range bindings {
			schemas.Check(t, uspspec.Def("usp.json", "ServiceBinding"), b)
			var sb usp.ServiceBinding
			if json.Unmarshal(b, &sb) != nil || sb.Config == nil || sb.Config.Authorization == nil || !sb.Config.Authorization.RequireAuthentication {
				t.Fatalf("binding without config.authorization: %s", b)
			}
		}

		s := w.slot(t, "svc_airport_shuttle", "2026-03-02")
		_, err := w.CreateBooking(ctx, w.call, usp.CreateRequest{ServiceID: s.ServiceID, SlotID: s.ID, Buyer: ada})
		if c := code(t, err); c != usp.CodeValidation {
			t.Fatalf("direct booking of a service paid when booking = %s, want validation_error", c)
		}
		if again := w.slot(t, "svc_airport_shuttle", "2026-03-02"); again.ID != s.ID {
			t.Fatal("the refused booking took the slot")
		}
		room := w.slot(t, "svc_riverside_single", "2026-03-10")
		res, err := w.CreateBooking(ctx, w.call, usp.CreateRequest{ServiceID: room.ServiceID, SlotID: room.ID, Buyer: ada})
		if err != nil || res.Booking == nil || len(res.Booking.Actions) != 0 || res.Booking.Payment.Status != "not_required" {
			t.Fatalf("booking paid at the property = %+v, %v", res, err)
		}
	})
}
