package usp

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"frontdesk/business"
	"frontdesk/internal/money"
	"frontdesk/reservation"
	"frontdesk/store"
)

// The UCP checkout with the paid-bookings extension (§7.4, §7.5): in
// UCP-Native Mode a service paid in full when booking is booked by a
// checkout, never by create_booking. Creating the checkout creates the
// booking in requires_action, holding its places for PaymentWindow as a
// Standalone paid booking does, but with no payment action: the
// checkout is how it is paid. Completing the checkout with the payment
// the platform's checkout system reports (the payment handler below)
// pays and confirms that booking in one write, so the booking is
// confirmed exactly when the checkout is completed. A checkout not
// completed by its expires_at gives its places back (the sweep) but
// stays open, reading incomplete, until its slot starts: the platform
// may hold the slot again and complete the same checkout (flow vector
// 101). A canceled one ends its booking with checkout_abandoned. The
// checkout id names the booking: there is no second record to fall out
// of step.

// UCPPath is the base path of the UCP shopping binding (the checkout
// sessions).
const UCPPath = "/ucp/v1"

// viaCheckout marks a booking a UCP checkout made.
const viaCheckout = "ucp_checkout"

// The UCP checkout operations. They are privileged platform operations
// (§7.3: §10.1.6 applies to the UCP endpoints too); a platform reaches
// only its own checkouts.
const (
	ucpCheckoutCreate   = "ucp_checkout_create"
	ucpCheckoutGet      = "ucp_checkout_get"
	ucpCheckoutComplete = "ucp_checkout_complete"
	ucpCheckoutCancel   = "ucp_checkout_cancel"
)

// UCP capability names of the checkout and its paid-bookings extension.
const (
	CapabilityUCPCheckout  Capability = "dev.ucp.shopping.checkout"
	CapabilityPaidBookings Capability = "dev.usp-protocol.services.paid_bookings"
	CapabilityPaymentTerms Capability = "dev.ucp.common.payment.terms"
)

// checkoutPrefix and orderPrefix start a checkout id and an order id;
// the rest is the booking's reference.
const (
	checkoutPrefix = "chk_"
	orderPrefix    = "ord_"
)

// The payment handler a checkout offers: the platform's checkout system
// takes the payment and reports it as a payment_result credential
// (§8.5.3's shape), which this business records; that checkout system
// refunds it (§5.5.1).
const (
	HandlerName    = "dev.frontdesk.payment_result"
	HandlerID      = "platform_checkout"
	HandlerVersion = "2026-08-20"
	InstrumentType = "payment_result"
)

// UCPMethods are the checkout operations, served in UCP-Native Mode when
// CheckoutServed.
func UCPMethods() []Method {
	return []Method{
		{Name: ucpCheckoutCreate, HTTPMethod: http.MethodPost, Path: "/checkout-sessions", Capability: CapabilityBookings, Access: PrivilegedPlatform},
		{Name: ucpCheckoutGet, HTTPMethod: http.MethodGet, Path: "/checkout-sessions/{checkout_id}", Capability: CapabilityBookings, Access: PrivilegedPlatform},
		{Name: ucpCheckoutComplete, HTTPMethod: http.MethodPost, Path: "/checkout-sessions/{checkout_id}/complete", Capability: CapabilityBookings, Access: PrivilegedPlatform},
		{Name: ucpCheckoutCancel, HTTPMethod: http.MethodPost, Path: "/checkout-sessions/{checkout_id}/cancel", Capability: CapabilityBookings, Access: PrivilegedPlatform},
	}
}

// checkoutPays reports whether a UCP checkout books s (checkoutBooks).
func (b *Business) checkoutPays(s Service) bool {
	return checkoutBooks(b.cfg, s.terms, s.Pricing.Amount)
}

// checkoutBooks reports whether a UCP checkout books a service of terms
// t and price amount: in UCP-Native Mode, a service paid in full when
// booking, or one that takes a deposit then, whose checkout offers UCP
// payment terms (§7.6.1: the deposit now, the balance at the slot's
// start).
func checkoutBooks(cfg Config, t business.Terms, amount int64) bool {
	timing := t.Timing == business.PayAtBooking || t.Timing == business.PayDeposit
	return !cfg.standalone() && timing && t.TakesMoney() && amount > 0
}

// takesDeposits reports whether a checkout books a deposit service, so
// the profile declares UCP's payment terms extension (§7.2, §7.6.1).
func (b *Business) takesDeposits() bool { return b.catalog.deposits }

// CheckoutServed reports whether this business serves the UCP checkout:
// in UCP-Native Mode, for authenticated platforms, with a service a
// checkout books. The profile declares the checkout and the
// paid-bookings extension exactly when it is served.
func (b *Business) CheckoutServed() bool {
	return !b.cfg.standalone() && b.privileged() && b.catalog.checkout
}

// PaymentHandler is one handler instance (§7.4).
type PaymentHandler struct {
	ID                   string       `json:"id"`
	Version              string       `json:"version"`
	AvailableInstruments []Instrument `json:"available_instruments"`
}

// Instrument is an instrument type a handler accepts.
type Instrument struct {
	Type string `json:"type"`
}

func (b *Business) paymentHandlers() map[string][]PaymentHandler {
	return map[string][]PaymentHandler{HandlerName: {{ID: HandlerID, Version: HandlerVersion, AvailableInstruments: []Instrument{{Type: InstrumentType}}}}}
}

// checkoutEntries are the profile's checkout capability and its
// paid-bookings extension (§7.2), with UCP's payment terms extension
// when a deposit is booked through the checkout (§7.6.1).
func (b *Business) checkoutEntries() map[Capability][]CapabilityEntry {
	out := map[Capability][]CapabilityEntry{
		CapabilityUCPCheckout: {{Version: UCPVersion, Spec: "https://ucp.dev/latest/specification/shopping/checkout/",
			Schema: "https://ucp.dev/latest/schemas/shopping/checkout.json"}},
		CapabilityPaidBookings: {{Version: Version, Spec: "https://usp-protocol.dev/specification#7-ucp-native-mode",
			Schema: "https://usp-protocol.dev/schemas/services/paid_bookings.json", Extends: CapabilityUCPCheckout}},
	}
	if b.takesDeposits() {
		// This business has no order capability, so the extension
		// extends the checkout alone; the accepted term rides on the
		// completed checkout's order.
		out[CapabilityPaymentTerms] = []CapabilityEntry{{Version: UCPVersion, Spec: "https://ucp.dev/latest/specification/payment/extensions/terms/",
			Schema: "https://ucp.dev/" + UCPVersion + "/schemas/common/payment_terms.json", Extends: CapabilityUCPCheckout}}
	}
	return out
}

// shoppingBinding is the profile's dev.ucp.shopping service binding.
func (b *Business) shoppingBinding() ServiceBinding {
	return ServiceBinding{Version: UCPVersion, Spec: "https://ucp.dev/latest/specification/overview/", Transport: "rest",
		Endpoint: strings.TrimSuffix(b.origin, "/") + UCPPath, Schema: "https://ucp.dev/latest/services/shopping/rest.openapi.json"}
}

// CheckoutItem is a line item's item.
type CheckoutItem struct {
	ID    string `json:"id"`
	Title string `json:"title,omitempty"`
	Price int64  `json:"price"`
}

// CheckoutLineItem is one line of a checkout.
type CheckoutLineItem struct {
	ID       string       `json:"id"`
	Item     CheckoutItem `json:"item"`
	Quantity int          `json:"quantity"`
}

// BookingContext is the checkout's booking (paid_bookings.json).
type BookingContext struct {
	BookingID        string         `json:"booking_id,omitempty"`
	ServiceID        string         `json:"service_id"`
	ServiceType      string         `json:"service_type"`
	Slot             SlotRef        `json:"slot"`
	HoldID           string         `json:"hold_id,omitempty"`
	PartySize        *int           `json:"party_size,omitempty"`
	ConfirmationMode string         `json:"confirmation_mode,omitempty"`
	BookingStatus    string         `json:"booking_status,omitempty"`
	Notes            string         `json:"notes,omitempty"`
	Recipient        *Buyer         `json:"recipient,omitempty"`
	Resources        []SlotResource `json:"resources,omitempty"`
}

// CheckoutRequest is create_checkout with the paid-bookings extension.
type CheckoutRequest struct {
	LineItems []CheckoutLineItem `json:"line_items"`
	Currency  string             `json:"currency"`
	Buyer     *Buyer             `json:"buyer"`
	Booking   *BookingContext    `json:"booking"`
}

// CheckoutTotal is one of a checkout's totals.
type CheckoutTotal struct {
	Type   string `json:"type"`
	Amount int64  `json:"amount"`
}

// Order is a completed checkout's order; Payment carries the accepted
// payment term of a deposit (§7.6.1).
type Order struct {
	ID      string        `json:"id"`
	Payment *OrderPayment `json:"payment,omitempty"`
}

// OrderPayment is an order's accepted payment term.
type OrderPayment struct {
	AcceptedTerm PaymentTerm `json:"accepted_term"`
}

// CheckoutPayment is a checkout's payment terms (UCP's payment terms
// extension): one term, selected.
type CheckoutPayment struct {
	SelectedTermID string        `json:"selected_term_id"`
	Terms          []PaymentTerm `json:"terms"`
}

// PaymentTerm is a set of schedules whose amounts sum to the checkout
// total.
type PaymentTerm struct {
	ID        string     `json:"id"`
	Title     string     `json:"title"`
	Schedules []Schedule `json:"schedules"`
}

// Schedule is one payment of a term: immediate is charged when the
// checkout completes; at_service falls due at DueAt, the slot's start.
type Schedule struct {
	ID          string    `json:"id"`
	Type        string    `json:"type"`
	Description PlainText `json:"description"`
	DueAt       string    `json:"due_at,omitempty"`
	Amount      int64     `json:"amount"`
}

// PlainText is a buyer-facing text.
type PlainText struct {
	Plain string `json:"plain"`
}

// CheckoutMeta is a checkout's ucp object.
type CheckoutMeta struct {
	Version         string                           `json:"version"`
	Capabilities    map[Capability][]CapabilityEntry `json:"capabilities"`
	PaymentHandlers map[string][]PaymentHandler      `json:"payment_handlers,omitempty"`
}

// Checkout is a UCP checkout as this business answers it. ID is empty
// when create_checkout made none; messages[] then says why.
type Checkout struct {
	UCP       CheckoutMeta       `json:"ucp"`
	ID        string             `json:"id,omitempty"`
	Status    string             `json:"status,omitempty"`
	Currency  string             `json:"currency,omitempty"`
	LineItems []CheckoutLineItem `json:"line_items,omitempty"`
	Buyer     *Buyer             `json:"buyer,omitempty"`
	Booking   *BookingContext    `json:"booking,omitempty"`
	Totals    []CheckoutTotal    `json:"totals,omitempty"`
	Payment   *CheckoutPayment   `json:"payment,omitempty"`
	ExpiresAt string             `json:"expires_at,omitempty"`
	Order     *Order             `json:"order,omitempty"`
	Messages  []Message          `json:"messages"`
}

// Created reports whether create_checkout made a checkout (REST 201).
func (c *Checkout) Created() bool { return c.ID != "" && c.Status == "ready_for_complete" }

// PaymentCredential is the credential of this business's instrument: the
// payment the platform's checkout system took.
type PaymentCredential struct {
	Type string `json:"type"`
	PaymentResult
}

// PaymentInstrument is one instrument of complete_checkout.
type PaymentInstrument struct {
	ID         string             `json:"id"`
	HandlerID  string             `json:"handler_id"`
	Type       string             `json:"type"`
	Selected   bool               `json:"selected,omitempty"`
	Credential *PaymentCredential `json:"credential"`
}

// CompleteCheckoutRequest is complete_checkout.
type CompleteCheckoutRequest struct {
	Payment struct {
		Instruments []PaymentInstrument `json:"instruments"`
	} `json:"payment"`
}

// result is the payment the selected instrument reports.
func (in CompleteCheckoutRequest) result() (*PaymentResult, error) {
	var chosen []PaymentInstrument
	for _, i := range in.Payment.Instruments {
		if i.Selected || len(in.Payment.Instruments) == 1 {
			chosen = append(chosen, i)
		}
	}
	switch {
	case len(chosen) != 1:
		return nil, fail(CodeInvalidRequest, "payment.instruments needs exactly one selected instrument.")
	case chosen[0].HandlerID != HandlerID || chosen[0].Type != InstrumentType:
		return nil, fail(CodeValidation, "payment.instruments[].handler_id must be %q with type %q, the handler this checkout offers.", HandlerID, InstrumentType)
	case chosen[0].Credential == nil || chosen[0].Credential.Type != InstrumentType:
		return nil, fail(CodeInvalidRequest, "payment.instruments[].credential must be a %s credential.", InstrumentType)
	}
	pr := chosen[0].Credential.PaymentResult
	if err := pr.check(); err != nil {
		return nil, err
	}
	if pr.Status != "paid" && pr.Status != "deposit_paid" {
		return nil, fail(CodeValidation, "credential.status must be paid, or deposit_paid for a deposit: the amount is the checkout's immediate schedule.")
	}
	return &pr, nil
}

// CreateCheckout is create_checkout (§7.5 step 4): it checks the line
// item against the catalog and creates the checkout's booking, holding
// its places (converting hold_id's hold when given) until the checkout
// expires.
func (b *Business) CreateCheckout(ctx context.Context, call Call, in CheckoutRequest) (*Checkout, error) {
	bc := in.Booking
	if bc == nil || bc.ServiceID == "" || bc.Slot.ID == "" {
		return nil, fail(CodeInvalidRequest, "booking needs service_id, service_type and slot.id.")
	}
	if len(in.LineItems) != 1 || in.LineItems[0].Item.ID != bc.ServiceID || in.LineItems[0].Quantity != 1 {
		return nil, fail(CodeValidation, "line_items must be one line of quantity 1 whose item.id is booking.service_id: this business sells no products.")
	}
	s, ok := b.catalog.get(bc.ServiceID)
	if !ok {
		return nil, fail(CodeValidation, "booking.service_id %q names no service of this business.", bc.ServiceID)
	}
	if !b.checkoutPays(s) {
		return nil, fail(CodeValidation, "booking.service_id %q is not paid in full when booking; book it with create_booking.", s.ID)
	}
	out := &Checkout{UCP: b.checkoutMeta(), Messages: []Message{}}
	if in.LineItems[0].Item.Price != s.Pricing.Amount || !strings.EqualFold(in.Currency, s.Pricing.Currency) {
		out.Messages = append(out.Messages, *outcomeMsg("price_mismatch", fmt.Sprintf("line_items[0].item.price must be the catalog price, %d %s in minor units.", s.Pricing.Amount, s.Pricing.Currency), "recoverable"))
		return out, nil
	}
	res, err := b.createBooking(ctx, call, CreateRequest{ServiceID: bc.ServiceID, SlotID: bc.Slot.ID, HoldID: bc.HoldID, Buyer: in.Buyer,
		Recipient: bc.Recipient, PartySize: bc.PartySize, Notes: bc.Notes, via: viaCheckout})
	if err != nil {
		return nil, err
	}
	return b.checkoutView(res), nil
}

// checkoutRef is the booking reference a checkout id names.
func checkoutRef(id string) (string, error) {
	ref, ok := strings.CutPrefix(id, checkoutPrefix)
	if !ok || ref == "" {
		return "", fail(CodeBookingNotFound, "%q names no checkout of this platform.", id)
	}
	return ref, nil
}

// GetCheckout is get_checkout: the checkout's settled state (§7.5 A4).
func (b *Business) GetCheckout(ctx context.Context, call Call, id string) (res *Checkout, err error) {
	ref, err := checkoutRef(id)
	if err != nil {
		return nil, err
	}
	meta, p, _, err := b.begin(ctx, ucpCheckoutGet, call)
	defer func() { err = b.admit(ctx, p, call, res, err) }()
	if err != nil {
		return nil, err
	}
	r, d, err := b.ownBooking(ctx, p, ref)
	if err == nil && (d.Pay == nil || d.Pay.Via != viaCheckout) {
		err = fail(CodeBookingNotFound, "%q names no checkout of this platform.", id)
	}
	if err != nil {
		return nil, err
	}
	return b.checkoutView(&BookingResult{USP: meta, Booking: b.view(r, d), Messages: []Message{}}), nil
}

// CompleteCheckout is complete_checkout (§7.5 step 7): the checks of A1
// come first (a lapsed checkout is refused before anything is recorded),
// then the reported payment pays and confirms the booking in one write.
// Completing a completed checkout with the same payment answers it
// unchanged (A4); with another payment, it is refused and nothing
// changes.
func (b *Business) CompleteCheckout(ctx context.Context, call Call, id string, in CompleteCheckoutRequest) (*Checkout, error) {
	ref, err := checkoutRef(id)
	if err != nil {
		return nil, err
	}
	pr, err := in.result()
	if err != nil {
		return nil, err
	}
	res, err := b.change(ctx, call, ucpCheckoutComplete, ref, in, func(ctx context.Context, p Principal, r reservation.Reservation, d detail, now time.Time) (func(reservation.Addition) (reservation.Reservation, error), detail, *Message, error) {
		switch {
		case d.Pay == nil || d.Pay.Via != viaCheckout:
			return nil, d, nil, fail(CodeBookingNotFound, "%q names no checkout of this platform.", id)
		case !d.payPending() && d.Pay.TransactionID == pr.TransactionID:
			return nil, d, nil, nil // completed already by this payment
		case d.checkoutLapsed() && r.State == reservation.Requested:
			return b.retake(ctx, p, r, d, pr, now)
		case !d.payPending():
			return nil, d, b.lapsed(ctx, r, d), nil
		case r.State != reservation.Reserved:
			return nil, d, outcomeMsg("slot_unavailable", "The checkout's booking ended; choose a slot again.", "recoverable"), nil
		case pr.amount() != d.Pay.Due || !strings.EqualFold(pr.Currency, d.Pay.Currency):
			return nil, d, outcomeMsg("payment_amount_mismatch", fmt.Sprintf("amount_paid must be what the checkout takes now, %d %s in minor units.", d.Pay.Due, d.Pay.Currency), "requires_buyer_input"), nil
		}
		nd := b.paidDetail(d, paidBy{taker: takerPlatform, amount: d.Pay.Due, provider: pr.Provider, txn: pr.TransactionID, order: orderPrefix + r.Reference})
		return func(a reservation.Addition) (reservation.Reservation, error) {
			return b.applyPaid(ctx, r, nd, "usp:"+p.Platform, now, a)
		}, nd, nil, nil
	})
	if err != nil {
		return nil, err
	}
	return b.checkoutView(res), nil
}

// retake completes a checkout whose places went back unpaid (flow
// vector 101's retry): the platform held the slot again, and the
// checkout's booking takes that hold's places, is paid and confirmed in
// one write, using the hold up. Without a live hold of the slot nothing
// is recorded, and the answer says whether the slot can be held again.
func (b *Business) retake(ctx context.Context, p Principal, r reservation.Reservation, d detail, pr *PaymentResult, now time.Time) (func(reservation.Addition) (reservation.Reservation, error), detail, *Message, error) {
	s, _ := b.catalog.get(d.ServiceID)
	w, ok := b.resolveSlot(s, d.SlotID)
	if !ok || !now.Before(w.start) {
		return nil, d, outcomeMsg("slot_unavailable", "The checkout's slot has started; choose another slot.", "recoverable"), nil
	}
	hr, hd, found, err := b.liveHold(ctx, p, s, w, r.Guests, now)
	switch {
	case err != nil:
		return nil, d, nil, err
	case !found:
		return nil, d, b.lapsed(ctx, r, d), nil
	case pr.amount() != d.Pay.Due || !strings.EqualFold(pr.Currency, d.Pay.Currency):
		return nil, d, outcomeMsg("payment_amount_mismatch", fmt.Sprintf("amount_paid must be what the checkout takes now, %d %s in minor units.", d.Pay.Due, d.Pay.Currency), "requires_buyer_input"), nil
	}
	nd := b.paidDetail(d, paidBy{taker: takerPlatform, amount: d.Pay.Due, provider: pr.Provider, txn: pr.TransactionID, order: orderPrefix + r.Reference})
	to := reservation.Reserved
	if nd.mode() == business.ConfirmAuto {
		to = reservation.Confirmed
	}
	hd.HoldEnd = HoldConverted
	return func(a reservation.Addition) (reservation.Reservation, error) {
		return b.desk().TakeHold(ctx, reservation.Change{Read: r, By: "usp:" + p.Platform, Note: "paid", At: now,
			Unit: reservation.Unit{Location: s.loc.Slug, Type: s.unit.Type, Capacity: s.unit.Count}, Units: max(r.Guests, 1),
			Also: []reservation.Addition{a}, Edit: func(m *reservation.Reservation) { m.Detail = nd.raw() }},
			hr, func(m *reservation.Reservation) { m.Detail = hd.raw() }, to)
	}, nd, nil, nil
}

// liveHold finds the platform's live hold of w for at least spots
// places, to complete a lapsed checkout with.
func (b *Business) liveHold(ctx context.Context, p Principal, s Service, w wantSlot, spots int, now time.Time) (reservation.Reservation, detail, bool, error) {
	f := store.ReservationFilter{Location: s.loc.Slug, From: w.core[0], States: []string{string(reservation.OnHold)}, Source: string(reservation.USP(p.Platform)), Limit: 500}
	for {
		rows, err := reservation.List(ctx, b.st, f)
		if err != nil {
			return reservation.Reservation{}, detail{}, false, fmt.Errorf("read holds: %w", err)
		}
		for _, r := range rows {
			if d, ok := detailOf(r); ok && d.Kind == "hold" && d.ServiceID == s.ID && d.SlotID == w.id && d.Spots >= spots && now.Before(r.HoldExpires) {
				return r, d, true, nil
			}
		}
		if len(rows) < f.Limit {
			return reservation.Reservation{}, detail{}, false, nil
		}
		last := rows[len(rows)-1]
		f.After = store.ReservationCursor{FirstSlot: last.FirstSlot(), Reference: last.Reference}
	}
}

// lapsed is the outcome of completing a checkout that can no longer be
// completed: completed by another payment, or ended. A checkout whose
// places went back answers hold_expired while its slot still has room
// and slot_unavailable otherwise (§7.5).
func (b *Business) lapsed(ctx context.Context, r reservation.Reservation, d detail) *Message {
	if d.Pay.TransactionID != "" {
		return outcomeMsg("invalid_transition", "This checkout was completed with another payment; nothing was recorded.", "")
	}
	s, _ := b.catalog.get(d.ServiceID)
	if w, ok := b.resolveSlot(s, d.SlotID); ok {
		if n, err := b.remaining(ctx, s, w); err == nil && n >= r.Guests {
			if d.checkoutLapsed() {
				return outcomeMsg("hold_expired", "The checkout's hold lapsed and its slot was released; the slot is still free: hold it again and complete this checkout.", "recoverable")
			}
			return outcomeMsg("hold_expired", "The checkout expired and its slot was released; the slot is still free: hold it and check out again.", "recoverable")
		}
	}
	return outcomeMsg("slot_unavailable", "The checkout expired and its slot is no longer available; choose another slot.", "recoverable")
}

// CancelCheckout is cancel_checkout (§7.5): the checkout is canceled and
// its booking ends with checkout_abandoned, releasing its places, in one
// write. A canceled checkout answers unchanged; a completed one is not
// canceled (the booking is cancelled with cancel_booking).
func (b *Business) CancelCheckout(ctx context.Context, call Call, id string) (*Checkout, error) {
	ref, err := checkoutRef(id)
	if err != nil {
		return nil, err
	}
	res, err := b.change(ctx, call, ucpCheckoutCancel, ref, struct{}{}, func(ctx context.Context, p Principal, r reservation.Reservation, d detail, now time.Time) (func(reservation.Addition) (reservation.Reservation, error), detail, *Message, error) {
		switch {
		case d.Pay == nil || d.Pay.Via != viaCheckout:
			return nil, d, nil, fail(CodeBookingNotFound, "%q names no checkout of this platform.", id)
		case d.Pay.TransactionID != "":
			return nil, d, outcomeMsg("invalid_transition", "A completed checkout cannot be canceled; cancel its booking instead.", ""), nil
		case !d.checkoutLapsed() && (!d.payPending() || r.State != reservation.Reserved):
			return nil, d, nil, nil // ended already
		}
		c, err := b.cancellation(ctx, r, d, "The checkout was canceled before it was completed.", now)
		if err != nil {
			return nil, d, nil, err
		}
		d.Cancellation = c
		return func(a reservation.Addition) (reservation.Reservation, error) {
			return b.desk().Cancel(ctx, reservation.Change{Read: r, By: "platform", Note: "checkout canceled", At: now,
				Also: []reservation.Addition{a}, Edit: func(m *reservation.Reservation) { m.Detail = d.raw() }})
		}, d, nil, nil
	})
	if err != nil {
		return nil, err
	}
	if res.Booking != nil && res.Booking.Status == "canceled" {
		b.offerSlot(ctx, res.Booking.ServiceID, res.Booking.Slot.ID)
	}
	return b.checkoutView(res), nil
}

func (b *Business) checkoutMeta() CheckoutMeta {
	return CheckoutMeta{Version: UCPVersion, Capabilities: b.checkoutEntries(), PaymentHandlers: b.paymentHandlers()}
}

// checkoutView is the checkout of a booking result. Its status follows
// the booking (§7.5): requires_action is ready_for_complete; paid is
// completed, its booking_status confirmed for an auto service and
// pending (for staff) for a manual one; ended unpaid is canceled.
func (b *Business) checkoutView(res *BookingResult) *Checkout {
	out := &Checkout{UCP: b.checkoutMeta(), Messages: res.Messages}
	if out.Messages == nil {
		out.Messages = []Message{}
	}
	bk := res.Booking
	if bk == nil {
		return out
	}
	s, _ := b.catalog.get(bk.ServiceID)
	party := bk.PartySize
	out.ID, out.Currency, out.Buyer = checkoutPrefix+bk.ID, s.Pricing.Currency, &bk.Buyer
	ctxt := &BookingContext{BookingID: bk.ID, ServiceID: bk.ServiceID, ServiceType: s.Type, Slot: bk.Slot, PartySize: &party,
		ConfirmationMode: bk.ConfirmationMode, Notes: bk.Notes, Recipient: bk.Recipient, Resources: bk.Resources}
	var total int64
	if p := bk.Payment; p != nil {
		total = p.Amount + p.TaxAmount
		if p.Currency != "" {
			out.Currency = p.Currency
		}
	}
	out.LineItems = []CheckoutLineItem{{ID: "li_1", Item: CheckoutItem{ID: s.ID, Title: s.Name, Price: s.Pricing.Amount}, Quantity: 1}}
	out.Totals = []CheckoutTotal{{Type: "subtotal", Amount: total}, {Type: "total", Amount: total}}
	term := b.depositTerm(bk, total)
	if term != nil {
		out.Payment = &CheckoutPayment{SelectedTermID: term.ID, Terms: []PaymentTerm{*term}}
	}
	switch p := bk.Payment; {
	case p != nil && p.TransactionID != "":
		out.Status, out.Order = "completed", &Order{ID: p.OrderReference}
		if term != nil {
			out.Order.Payment = &OrderPayment{AcceptedTerm: *term}
		}
		ctxt.BookingStatus = "pending"
		if bk.ConfirmationMode == business.ConfirmAuto {
			ctxt.BookingStatus = "confirmed"
		}
	case bk.Status == "requires_action":
		out.Status, out.ExpiresAt, ctxt.BookingStatus = "ready_for_complete", bk.ExpiresAt, "pending"
	case bk.Status == "pending":
		// Its places went back unpaid: a new hold of the slot completes
		// it (flow vector 101).
		out.Status, ctxt.BookingStatus = "incomplete", "pending"
	default:
		out.Status, ctxt.BookingStatus = "canceled", "canceled"
	}
	out.Booking = ctxt
	return out
}

// depositTerm is the payment term of a deposit booking's checkout
// (§7.6.1): the deposit now, the balance at the slot's start; nil for a
// booking paid in full when booking.
func (b *Business) depositTerm(bk *Booking, total int64) *PaymentTerm {
	p := bk.Payment
	if p == nil || p.Timing != business.PayDeposit || p.DepositAmount <= 0 || p.DepositAmount >= total {
		return nil
	}
	cur, balance := p.Currency, total-p.DepositAmount
	id := "pt_fixed_deposit"
	if s, _ := b.catalog.get(bk.ServiceID); s.Pricing.Deposit != nil && s.Pricing.Deposit.Type == "percentage" {
		id = "pt_percent_deposit"
	}
	return &PaymentTerm{ID: id, Title: "Deposit now, balance at the appointment", Schedules: []Schedule{
		{ID: "sched_deposit", Type: "immediate", Amount: p.DepositAmount,
			Description: PlainText{Plain: money.Display(p.DepositAmount, cur) + " due now to hold the booking."}},
		{ID: "sched_balance", Type: "at_service", Amount: balance, DueAt: bk.Slot.Start,
			Description: PlainText{Plain: money.Display(balance, cur) + " due at the start of the booking, " + bk.Slot.Start + "."}},
	}}
}

// refused reports whether a checkout answer refused the call.
func (c *Checkout) refused() bool { return c == nil || refusedBy(c.Messages) }
