package booking

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"frontdesk/config"
	"frontdesk/internal/civil"
	"frontdesk/inventory"
	"frontdesk/message"
	"frontdesk/pricing"
	"frontdesk/store"
)

var startFields = []string{"property", "roomtype", "checkin", "checkout", "guest_name", "email", "phone", "guests", "notes", "booking_id"}

// StartResult is what start_booking returns on success.
type StartResult struct {
	BookingID        string      `json:"booking_id"`
	Summary          StaySummary `json:"summary"`
	CodeExpiresAt    string      `json:"code_expires_at"`
	CodeExpiresLocal string      `json:"code_expires_local"`
	CodeSentTo       string      `json:"code_sent_to"`
	Channel          string      `json:"channel"`
	Message          string      `json:"message"`
	location         config.Location
}

// StaySummary describes the priced stay.
type StaySummary struct {
	Property string      `json:"property"`
	RoomType string      `json:"roomtype"`
	Checkin  string      `json:"checkin"`
	Checkout string      `json:"checkout"`
	Nights   int         `json:"nights"`
	Guests   int         `json:"guests"`
	Subtotal json.Number `json:"subtotal"`
	Tax      json.Number `json:"tax"`
	Total    json.Number `json:"total"`
	Currency string      `json:"currency"`
}

// startRequest is a validated new-mode start.
type startRequest struct {
	loc     config.Location
	unit    config.Unit
	data    intentData
	contact intentContact
	email   Email
	in, out civil.Date
}

// Start is start_booking: a new intent with an emailed code, or a resend.
func (s *Service) Start(ctx context.Context, c Caller, args Args) (*StartResult, error) {
	now := s.clock.Now()
	ctx, cancel := s.operation(ctx)
	defer cancel()
	if args == nil {
		return nil, assemble("not_object", sentNotObject, AssembleP, route{phone: s.cfg.Business.Phone})
	}
	rt := s.startRoute(args)
	if args.filled("booking_id") {
		// Resend mode: every other field, known or not, gets the resend
		// sentence, with the phone of the location the booking_id names.
		if phone := s.idRoute(args, "booking_id").phone; phone != s.cfg.Business.Phone {
			rt.phone = phone
		}
		f := args.unknownField(startFields)
		for _, known := range startFields {
			if f == "" && known != "booking_id" && args.filled(known) {
				f = known
			}
		}
		if f != "" {
			return nil, startWrapper(assemble("resend_only", sentResendOnly, AssembleP, rt, f), rt)
		}
		if r := s.checkDeployment(c, route{phone: rt.phone}); r != nil {
			return nil, r
		}
		return s.resend(ctx, now, args)
	}
	if f := args.unknownField(startFields); f != "" {
		return nil, startWrapper(assemble("unknown_field", sentUnknownField, AssembleP, rt, f, strings.Join(startFields, ", ")), rt)
	}
	if r := s.checkDeployment(c, rt); r != nil {
		return nil, startWrapper(r, rt)
	}
	req, refusal := s.validateStart(args, rt)
	if refusal != nil {
		return nil, startWrapper(refusal, rt)
	}
	return s.startNew(ctx, now, req, rt)
}

// startRoute is the phone and form a start refusal carries: the resolved
// location's phone, and its prefilled form when both dates are real.
func (s *Service) startRoute(args Args) route {
	rt := route{phone: s.cfg.Business.Phone}
	prop, _, _ := args.str("property", maxName)
	l, ok := s.resolve(prop)
	if !ok {
		return rt
	}
	rt.phone = l.Phone
	in, _, _ := args.str("checkin", maxDate)
	out, _, _ := args.str("checkout", maxDate)
	_, err1 := civil.Parse(in)
	_, err2 := civil.Parse(out)
	if err1 == nil && err2 == nil {
		typ, _, _ := args.str("roomtype", maxRoomType)
		rt.form = s.pricer.FormURL(l, strings.ToLower(strings.TrimSpace(typ)), in, out)
	}
	return rt
}

// validateStart checks a new-mode start in the catalogue's order.
func (s *Service) validateStart(args Args, rt route) (startRequest, *Error) {
	var req startRequest
	field := func(code, sentence string, extra ...any) (startRequest, *Error) {
		return req, assemble(code, sentence, AssembleP, rt, extra...)
	}
	prop, _, ok := args.str("property", maxName)
	if !ok || strings.TrimSpace(prop) == "" {
		return field("bad_property", sentBadProperty)
	}
	l, found := s.resolve(prop)
	if !found {
		return field("no_property", sentNoProperty, s.locationList())
	}
	req.loc = l
	typ, _, ok := args.str("roomtype", maxRoomType)
	unit, sold := l.Unit(strings.TrimSpace(typ))
	if !ok || !sold || unit.Kind != config.KindNight {
		return field("bad_roomtype", sentBadRoomType, roomTypeList(l))
	}
	req.unit = unit
	in, _, ok := args.str("checkin", maxDate)
	checkin, err := civil.Parse(in)
	if !ok || err != nil {
		return field("bad_checkin", sentBadCheckin)
	}
	out, _, ok := args.str("checkout", maxDate)
	checkout, err := civil.Parse(out)
	if !ok || err != nil || !checkin.Before(checkout) {
		return field("bad_checkout", sentBadCheckout)
	}
	req.in, req.out = checkin, checkout
	name, _, ok := args.str("guest_name", maxName)
	name = CleanName(name)
	if !ok || name == "" {
		return field("bad_name", sentBadName)
	}
	emailText, _, ok := args.str("email", maxEmail)
	email, valid := ParseEmail(emailText)
	if !ok || !valid {
		return field("bad_email", sentBadEmail)
	}
	req.email = email
	phoneText, _, ok := args.str("phone", maxPhone)
	phone, valid := ParsePhone(phoneText, s.cfg.Business.PhoneCountryCode)
	if !ok || !valid {
		return field("bad_phone", sentBadPhone)
	}
	notes, _, ok := args.str("notes", maxNotes)
	if !ok {
		return field("bad_notes", sentBadNotes)
	}
	guests, present, ok := args.integer("guests")
	if !ok || (present && guests < 1) {
		return field("bad_guests", sentBadGuests, s.cfg.Limits.MaxGuests)
	}
	if !present {
		guests = 1
	}
	if guests > s.cfg.Limits.MaxGuests {
		return field("guest_range", sentGuestRange, s.cfg.Limits.MaxGuests)
	}
	req.data = intentData{
		Name: name, Email: email.Delivery, Phone: phone.Formatted, Notes: notes, Guests: guests,
		RoomType: unit.Type, Checkin: checkin.String(), Checkout: checkout.String(),
	}
	req.contact = intentContact{Email: email.Normalized, Phone: phone.Digits}
	return req, nil
}

// startNew runs §8 steps 2 to 4 for a validated request.
func (s *Service) startNew(ctx context.Context, now time.Time, req startRequest, rt route) (*StartResult, error) {
	l := req.loc
	q, err := s.pricer.Quote(pricing.Stay{Location: l, RoomType: req.unit.Type, Checkin: req.data.Checkin, Checkout: req.data.Checkout}, s.today(l, now))
	var quoteRefusal *pricing.Refusal
	if errors.As(err, &quoteRefusal) {
		return nil, s.inheritedRefusal(quoteRefusal, rt)
	}
	if err != nil {
		return nil, assemble("cannot_check", sentCannotCheck, AssembleL, rt).because(err)
	}
	free, err := s.freeNights(ctx, l, req.in, q.Nights)
	if err != nil {
		return nil, assemble("cannot_check", sentCannotCheck, AssembleL, rt).because(err)
	}
	if freeOf(free, req.unit.Type) == 0 {
		return nil, assemble("no_room", sentNoRoom, AssembleF, rt)
	}
	set, err := s.policy(ctx)
	if err != nil {
		return nil, assemble("cannot_check", sentCannotCheck, AssembleL, rt).because(err)
	}
	if !set.Locations[l.Slug].BookingEnabled {
		return nil, assemble("switched_off", sentSwitchedOff, AssembleF, rt)
	}
	if full, err := s.pendingFull(ctx, now, set, l.Slug); err != nil {
		return nil, assemble("cannot_check", sentCannotCheck, AssembleL, rt).because(err)
	} else if full {
		return nil, assemble("paused_for_staff", sentPausedForStaff, AssembleF, rt)
	}

	mailbox, err := s.keyed(ctx, now, "mailbox", req.contact.Email)
	if err != nil {
		return nil, assemble("cannot_check", sentCannotCheck, AssembleL, rt).because(err)
	}
	fingerprint, err := s.keyed(ctx, now, "start", strings.Join([]string{
		req.contact.Email, req.contact.Phone, l.Slug, req.data.RoomType, req.data.Checkin, req.data.Checkout,
		fmt.Sprint(req.data.Guests), req.data.Name, req.data.Notes,
	}, "\x00"))
	if err != nil {
		return nil, assemble("cannot_check", sentCannotCheck, AssembleL, rt).because(err)
	}
	// The intent, its fingerprint and the charges to the group, mailbox
	// and location budgets commit together, right before the send: of
	// identical concurrent starts exactly one creates them and sends, the
	// others wait for its answer and charge nothing.
	//
	// The admission has its own deadline, started at the first budget
	// read: a charge acknowledged after it is no allowance, and no code
	// is sent.
	var in intent
	var code string
	var adm admission
	admitting := s.admitDeadline(ctx)
	defer admitting.stop()
	for attempt := 0; ; attempt++ {
		if res, ok, err := s.identicalStart(ctx, now, fingerprint, l); err != nil {
			return nil, assemble("cannot_check", sentCannotCheck, AssembleL, rt).because(err)
		} else if ok {
			return res, nil
		}
		charges, a, err := s.chargeWrites(admitting.context(), now, s.groupBookingBudget(set), s.mailboxBudget(mailbox), s.locationBudget(set, l.Slug))
		if refusal := s.admissionRefusal(err, rt); refusal != nil {
			return nil, refusal
		}
		id, err := s.newBookingID(l)
		if err != nil {
			return nil, assemble("cannot_check", sentCannotCheck, AssembleL, rt).because(err)
		}
		var salt string
		if code, salt, err = s.codeAndSalt(); err != nil {
			return nil, assemble("cannot_check", sentCannotCheck, AssembleL, rt).because(err)
		}
		in = intent{
			ID: id, Location: l.Slug, Data: &req.data, Contact: &req.contact,
			Price: intentPrice{Nights: q.Nights, Subtotal: q.Subtotal, Tax: q.Tax, Total: q.Total, RateBasis: q.RateBasis},
			Salt:  salt, Digest: digest(salt, id, code), Expires: now.Add(codeLifetime),
			State: stateSending, Fingerprint: fingerprint, Mailbox: mailbox,
		}
		_, err = s.st.Apply(admitting.context(), append([]store.Write{
			{Op: store.OpCreate, Record: record(kindIntent, id, in, 0, now)},
			{Op: store.OpCreate, Record: record(kindFingerprint, fingerprint, id, 0, now)},
		}, charges...))
		var we *store.WriteError
		switch {
		case err == nil && admitting.passed():
			// Acknowledged too late: no allowance, so no send. The
			// charges are known unused and go back, and the intent goes
			// so that no identical start reports a code never sent.
			s.refund(ctx, a, now)
			s.removeIntent(ctx, in)
			return nil, s.admissionRefusal(errLateAdmission, rt)
		case err == nil:
			adm = a
		case errors.As(err, &we) && attempt < maxCASAttempts:
			continue // an identical start or another charge came first: re-read
		default:
			// The write may have committed: its charges stay, since an
			// uncertain charge is kept, but no code is sent, so an intent
			// it created goes rather than be opened by an identical
			// start as if its code had been mailed.
			s.removeIntent(ctx, in)
			return nil, s.admissionRefusal(err, rt)
		}
		break
	}
	admitting.stop()
	if refusal := s.sendCode(ctx, now, &in, code, adm, rt); refusal != nil {
		return nil, refusal
	}
	return s.startResult(in, l), nil
}

func freeOf(free []inventory.Free, typ string) int {
	for _, f := range free {
		if f.Unit.Type == typ {
			return f.Free
		}
	}
	return 0
}

func (s *Service) codeAndSalt() (code, salt string, err error) {
	if code, err = s.newCode(); err != nil {
		return "", "", err
	}
	salt, err = s.randomHex(16)
	return code, salt, err
}

// admissionRefusal words a refused or failed admission. A store failure
// means no acknowledged allowance, so no code is sent.
func (s *Service) admissionRefusal(err error, rt route) *Error {
	var full *errBudget
	switch {
	case err == nil:
		return nil
	case errors.As(err, &full) && full.b.refusal == "contact":
		// A mailbox over its own limit gets the contact sentence, never
		// the pause sentence, so the answer reveals nothing about others.
		return assemble("contact", sentCannotBook, AssembleL, rt)
	case errors.As(err, &full):
		return assemble("paused", sentPaused, AssembleF, rt)
	default:
		return assemble("paused_call", sentPausedCall, AssembleL, rt).because(fmt.Errorf("mail admission: %w", err))
	}
}

// notSent words a code email that certainly did not leave: the address
// refusal only when the mail server refused the recipient, otherwise a
// mail outage (an unreachable provider, a failed login) that says nothing
// against the address the guest gave.
func notSent(err error, rt route) *Error {
	if message.RecipientRefused(err) {
		return assemble("email_rejected", sentEmailRejected, AssembleF, rt)
	}
	return assemble("cannot_check", sentCannotCheck, AssembleL, rt).because(fmt.Errorf("send code: %w", err))
}

// sendCode sends the code and marks the intent open, replacing earlier
// open intents of the same mailbox at the location. A known failure
// refunds the charges and removes the intent; an uncertain one keeps both,
// since the code may have arrived.
func (s *Service) sendCode(ctx context.Context, now time.Time, in *intent, code string, adm admission, rt route) *Error {
	l, _ := s.location(in.Location)
	err := s.send(ctx, s.codeEmail(*in, l, code, now))
	if message.NotSent(err) {
		s.refund(ctx, adm, now)
		s.removeIntent(ctx, *in)
		return notSent(err, rt)
	}
	if err != nil {
		s.log.WarnContext(ctx, "code email uncertain", "location", l.Slug, "err", err)
	}
	opened, older, err := s.openIntent(ctx, now, *in)
	if err != nil {
		// The code left (or may have): the intent stays sending, which
		// confirm_booking accepts and an identical start opens.
		return assemble("cannot_check", sentCannotCheck, AssembleL, rt).because(err)
	}
	for _, id := range older {
		if old, _, err := getJSON[intent](ctx, s.st, kindIntent, id); err == nil && (old.State == stateOpen || old.State == stateSending) {
			s.removeIntent(ctx, old)
		}
	}
	*in = opened
	return nil
}

// openIntent marks a sent intent open and makes it the mailbox's one open
// intent at its location, in one transaction. It starts from the intent
// as the caller created it, at version 1, and reads it again only when a
// write was refused. It returns the intents it replaced.
func (s *Service) openIntent(ctx context.Context, now time.Time, in intent) (intent, []string, error) {
	version := int64(1) // a create stores version 1
	for range maxCASAttempts {
		if in.State != stateSending {
			return in, nil, nil
		}
		key := in.Mailbox + "/" + in.Location
		open, listVersion, err := getJSON[openIntents](ctx, s.st, kindMailbox, key)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return intent{}, nil, err
		}
		var older []string
		for _, other := range open.IDs {
			if other != in.ID {
				older = append(older, other)
			}
		}
		opened := in
		opened.State = stateOpen
		opened.SentAt = append(slices.Clone(in.SentAt), now)
		_, err = s.st.Apply(ctx, []store.Write{
			{Op: store.OpSwap, Record: record(kindIntent, in.ID, opened, version, now)},
			upsert(kindMailbox, key, openIntents{IDs: []string{in.ID}}, listVersion, now),
		})
		var we *store.WriteError
		if errors.As(err, &we) {
			irec, err := s.st.Get(ctx, kindIntent, in.ID)
			if err != nil {
				return intent{}, nil, err
			}
			in = intent{}
			if err := json.Unmarshal(irec.Value, &in); err != nil {
				return intent{}, nil, err
			}
			version = irec.Version
			continue
		}
		return opened, older, err
	}
	return intent{}, nil, store.ErrConflict
}

// identicalStart returns the answer of a live identical intent, waiting
// for one still sending. ok is false when there is none.
func (s *Service) identicalStart(ctx context.Context, now time.Time, fingerprint string, l config.Location) (*StartResult, bool, error) {
	id, _, err := getJSON[string](ctx, s.st, kindFingerprint, fingerprint)
	if errors.Is(err, store.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	for range 100 {
		in, _, err := getJSON[intent](ctx, s.st, kindIntent, id)
		if errors.Is(err, store.ErrNotFound) || (err == nil && !in.live(now)) {
			s.dropFingerprint(ctx, fingerprint, id)
			return nil, false, nil
		}
		if err != nil {
			return nil, false, err
		}
		if in.State == stateOpen {
			return s.startResult(in, l), true, nil
		}
		if !now.Before(in.Expires.Add(-codeLifetime).Add(sendWindow)) {
			// The start that created it stopped after its send, or lost
			// the answer: the code may have arrived, so the intent opens
			// as it is, with its charge kept and no second mail.
			opened, _, err := s.openIntent(ctx, now, in)
			if err != nil {
				return nil, false, err
			}
			return s.startResult(opened, l), true, nil
		}
		select {
		case <-ctx.Done():
			return nil, false, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return nil, false, fmt.Errorf("identical start: still sending")
}

func (s *Service) dropFingerprint(ctx context.Context, fingerprint, id string) {
	r, err := s.st.Get(ctx, kindFingerprint, fingerprint)
	if err == nil && string(r.Value) == fmt.Sprintf("%q", id) {
		_ = s.st.Delete(ctx, kindFingerprint, fingerprint, r.Version)
	}
}

// removeIntent deletes an unproved intent and its fingerprint.
func (s *Service) removeIntent(ctx context.Context, in intent) {
	if r, err := s.st.Get(ctx, kindIntent, in.ID); err == nil {
		_ = s.st.Delete(ctx, kindIntent, in.ID, r.Version)
	}
	s.dropFingerprint(ctx, in.Fingerprint, in.ID)
}

// openIntents lists the open intent ids of one mailbox at one location.
type openIntents struct {
	IDs []string `json:"ids"`
}

func (s *Service) startResult(in intent, l config.Location) *StartResult {
	d := in.Data
	return &StartResult{
		BookingID: in.ID,
		Summary: StaySummary{
			Property: l.Name, RoomType: d.RoomType, Checkin: d.Checkin, Checkout: d.Checkout,
			Nights: in.Price.Nights, Guests: d.Guests,
			Subtotal: s.pricer.Amount(in.Price.Subtotal), Tax: s.pricer.Amount(in.Price.Tax),
			Total: s.pricer.Amount(in.Price.Total), Currency: s.cfg.Business.Currency,
		},
		CodeExpiresAt:    in.Expires.UTC().Format(time.RFC3339),
		CodeExpiresLocal: localTime(in.Expires, l),
		CodeSentTo:       MaskEmail(d.Email),
		Channel:          "email",
		Message: fmt.Sprintf("A six-digit code was emailed to %s. It expires at %s. No room is held until confirm_booking accepts the code.",
			MaskEmail(d.Email), localTime(in.Expires, l)),
		location: l,
	}
}

// Location is the location the result is for.
func (r *StartResult) Location() config.Location { return r.location }

// inheritedRefusal adds the booking wrapper's phone, and the prefilled
// form only when the inherited answer has no form of its own.
func (s *Service) inheritedRefusal(r *pricing.Refusal, rt route) *Error {
	text := r.Text
	if !r.HasPhone {
		text = withPhone(text, rt.phone)
	}
	if !r.HasForm && rt.form != "" {
		text += "\n" + rt.form
	}
	return &Error{Code: "quote_" + string(r.Kind), Message: text}
}

// resolve finds a location by slug, name, domain or unique short name.
func (s *Service) resolve(property string) (config.Location, bool) {
	if s.resolveProperty == nil {
		return config.Location{}, false
	}
	return s.resolveProperty(property)
}

func (s *Service) locationList() string {
	var names []string
	for _, l := range s.cfg.Locations {
		names = append(names, fmt.Sprintf("%s (%s)", l.Name, l.Slug))
	}
	return strings.Join(names, ", ")
}

// roomTypeList words the location's room types: "single, double or studio".
func roomTypeList(l config.Location) string {
	var types []string
	for _, u := range l.NightUnits() {
		types = append(types, u.Type)
	}
	if len(types) < 2 {
		return strings.Join(types, "")
	}
	return strings.Join(types[:len(types)-1], ", ") + " or " + types[len(types)-1]
}
