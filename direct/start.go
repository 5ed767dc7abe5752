package direct

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"frontdesk/business"
	"frontdesk/internal/civil"
	"frontdesk/inventory"
	"frontdesk/message"
	"frontdesk/pricing"
	"frontdesk/reservation"
	"frontdesk/store"
)

// StartResult is what start_booking returns on success.
type StartResult struct {
	BookingID        string      `json:"booking_id"`
	Summary          StaySummary `json:"summary"`
	CodeExpiresAt    string      `json:"code_expires_at"`
	CodeExpiresLocal string      `json:"code_expires_local"`
	CodeSentTo       string      `json:"code_sent_to"`
	Channel          string      `json:"channel"`
	Message          string      `json:"message"`
	location         business.Location
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

// StartRequest is start_booking's request: a new stay, or, with
// BookingID, a new code for an open intent, when the other fields stay
// empty. A door checks and normalizes every field first (the catalogue's
// field checks live with the door's wording); Start refuses a request
// that is still not a stay it can book, without naming a field.
type StartRequest struct {
	BookingID string

	Location          business.Location
	RoomType          string // a night unit of Location
	Checkin, Checkout civil.Date
	Name              string // cleaned by reservation.CleanName
	Email             reservation.Email
	Phone             reservation.Phone
	Notes             string
	Guests            int
}

// startRequest is a checked new-mode start.
type startRequest struct {
	loc     business.Location
	unit    business.Unit
	data    intentData
	contact intentContact
	in, out civil.Date
}

// Start is start_booking: a new intent with an emailed code, or a resend.
func (s *Service) Start(ctx context.Context, c reservation.Caller, req StartRequest) (*StartResult, error) {
	now := s.clock.Now()
	ctx, cancel := s.operation(ctx)
	defer cancel()
	if req.BookingID != "" {
		_, rt := s.referenceRoute(req.BookingID)
		if r := s.CheckDeployment(c, rt.phone, ""); r != nil {
			return nil, r
		}
		return s.resend(ctx, now, req.BookingID)
	}
	l := req.Location
	_, known := s.location(l.Slug)
	rt := route{phone: s.cfg.Business.Phone}
	if known {
		rt = route{phone: l.Phone, form: s.pricer.FormURL(l, req.RoomType, req.Checkin.String(), req.Checkout.String())}
	}
	if r := s.CheckDeployment(c, rt.phone, rt.form); r != nil {
		return nil, r
	}
	unit, sold := l.Unit(req.RoomType)
	if !known || !sold || unit.Kind != business.KindNight || !req.Checkin.Before(req.Checkout) ||
		req.Name == "" || req.Email.Normalized == "" || req.Phone.Digits == "" || req.Guests < 1 || req.Guests > s.cfg.Limits.MaxGuests {
		return nil, refuse(CodeUnbookable, rt)
	}
	if takesMoney(unit, s.cfg.Business.Currency) || pricing.HasFees(unit) {
		// Chat takes no payment (§1, §6): a unit that takes money when
		// booking is booked on the site, which takes it. Chat's price has
		// no place for fees (§2): a unit with fees is booked on the site,
		// which shows them.
		return nil, refuse(CodeUnbookable, rt)
	}
	return s.startNew(ctx, now, startRequest{
		loc: l, unit: unit, in: req.Checkin, out: req.Checkout,
		data: intentData{
			Name: req.Name, Email: req.Email.Delivery, Phone: req.Phone.Formatted, Notes: req.Notes, Guests: req.Guests,
			RoomType: unit.Type, Checkin: req.Checkin.String(), Checkout: req.Checkout.String(),
		},
		contact: intentContact{Email: req.Email.Normalized, Phone: req.Phone.Digits},
	}, rt)
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
		return nil, because(refuse(CodeCannotCheck, rt), err)
	}
	// The keyed names of the mailbox and of this exact request are worked
	// out first, so that the records they name (an identical start's
	// fingerprint, the mailbox's open intent here) come with the settings
	// in one read; a failure to work them out is judged where it always
	// was, after the checks below.
	mailbox, mailboxErr := s.keyed(ctx, now, "mailbox", req.contact.Email)
	fingerprint, fingerprintErr := s.keyed(ctx, now, "start", strings.Join([]string{
		req.contact.Email, req.contact.Phone, l.Slug, req.data.RoomType, req.data.Checkin, req.data.Checkout,
		fmt.Sprint(req.data.Guests), req.data.Name, req.data.Notes,
	}, "\x00"))
	keyErr := cmp.Or(mailboxErr, fingerprintErr)
	var also []store.Key
	if keyErr == nil {
		also = []store.Key{{Kind: kindFingerprint, Key: fingerprint}, {Kind: kindMailbox, Key: openKey(mailbox, l.Slug)}}
	}
	// The availability, the settings and the pending counts do not
	// depend on one another, so they are read at once and judged in the
	// order of §8: the answer is the one reading them in turn would give,
	// in the time of the slowest read instead of the sum.
	var (
		known           []store.Record // the records of also, as read with the settings
		free            []inventory.Free
		set             reservation.Settings
		pending         pendingCount
		freeErr, setErr error
		pendingErr      error
		reads           sync.WaitGroup
	)
	reads.Go(func() { free, freeErr = s.freeNights(ctx, l, req.in, q.Nights) })
	reads.Go(func() { set, known, setErr = s.policyAnd(ctx, also...) })
	reads.Go(func() { pending, pendingErr = s.pendingCounts(ctx, now, l.Slug) })
	reads.Wait()
	if freeErr != nil {
		return nil, because(refuse(CodeCannotCheck, rt), freeErr)
	}
	if freeOf(free, req.unit.Type) == 0 {
		return nil, refuse(CodeNoRoom, rt)
	}
	if setErr != nil {
		return nil, because(refuse(CodeCannotCheck, rt), setErr)
	}
	if !set.Locations[l.Slug].BookingEnabled {
		return nil, refuse(CodeSwitchedOff, rt)
	}
	if pendingErr != nil {
		return nil, because(refuse(CodeCannotCheck, rt), pendingErr)
	} else if pending.full(set, l.Slug) || s.groupFull(ctx, set) {
		return nil, refuse(CodePausedForStaff, rt)
	}

	if keyErr != nil {
		return nil, because(refuse(CodeCannotCheck, rt), keyErr)
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
	var hub *Admitted // the hub's admission, in a split deployment
	admitting := s.admitDeadline(ctx)
	defer admitting.stop()
	var answer *StartResult
	var refusal error // an answer that is not a start
	var written bool  // the intent and its charges committed
	attempt := 0
	err = store.Retrier{Attempts: maxCASAttempts + 1}.Run(ctx, func() error {
		// The first attempt goes on the fingerprint read with the
		// settings; a later one, after a refused write, reads it again.
		var fingerprintRead *store.Record
		if attempt == 0 {
			fingerprintRead = &known[0]
		}
		attempt++
		if res, ok, err := s.identicalStart(ctx, now, fingerprint, fingerprintRead, l); err != nil {
			refusal = because(refuse(CodeCannotCheck, rt), err)
			return store.Final(refusal)
		} else if ok {
			answer = res
			return nil
		}
		if hub == nil && s.control != nil {
			// The hub's budgets are charged once, before the location's,
			// so a full group answers first.
			var hubErr error
			if hub, hubErr = s.admitAtHub(ctx, req.contact.Email); hubErr != nil {
				refusal = s.admissionRefusal(hubErr, rt)
				return store.Final(refusal)
			}
		}
		charges, a := s.chargeWrites(now, s.groupBookingBudget(set), s.mailboxBudget(mailbox), s.locationBudget(set, l.Slug))
		a.hub = hub
		id, err := s.newBookingID(l)
		if err != nil {
			refusal = because(refuse(CodeCannotCheck, rt), err)
			return store.Final(refusal)
		}
		var salt string
		if code, salt, err = s.codeAndSalt(); err != nil {
			refusal = because(refuse(CodeCannotCheck, rt), err)
			return store.Final(refusal)
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
		if full := a.full(err); full != nil {
			refusal = s.admissionRefusal(full, rt) // nothing was written
			return store.Final(refusal)
		}
		if err == nil {
			adm, written = a, true
		}
		return err // an identical start or another charge came first: read again
	})
	if answer != nil || refusal != nil || err != nil || admitting.passed() {
		// No code is sent under the hub's admission: it is known unused.
		s.refundAtHub(ctx, hub)
		adm.hub = nil
	}
	switch {
	case answer != nil:
		return answer, nil
	case refusal != nil:
		return nil, refusal
	case written && admitting.passed():
		// Acknowledged too late: no allowance, so no send. The charges
		// are known unused and go back, and the intent goes so that no
		// identical start reports a code never sent.
		s.refund(ctx, adm, now)
		s.removeIntent(ctx, in)
		return nil, s.admissionRefusal(errLateAdmission, rt)
	case err != nil:
		// The write may have committed: its charges stay, since an
		// uncertain charge is kept, but no code is sent, so an intent it
		// created goes rather than be opened by an identical start as if
		// its code had been mailed.
		s.removeIntent(ctx, in)
		return nil, s.admissionRefusal(err, rt)
	}
	admitting.stop()
	if refusal := s.sendCode(ctx, now, &in, code, adm, &known[1], rt); refusal != nil {
		return nil, refusal
	}
	return s.startResult(in, l), nil
}

// openKey names the record of a mailbox's open intents at a location.
func openKey(mailbox, location string) string { return mailbox + "/" + location }

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

// admissionRefusal words a refused or failed admission. A failed write
// of the shared code counter (a store fault, or an acknowledgement past
// the admission's deadline) means no acknowledged allowance, so no code
// is sent, and §13 fixes its answer: the pause sentence, with no local
// fallback. Contention that outlasted every attempt is a pause too, with
// the phone and the form (§10).
func (s *Service) admissionRefusal(err error, rt route) *Error {
	var full *errBudget
	switch {
	case err == nil:
		return nil
	case errors.As(err, &full) && full.b.refusal == "contact":
		// A mailbox over its own limit gets the contact sentence, never
		// the pause sentence, so the answer reveals nothing about others.
		return refuse(CodeContact, rt)
	case errors.As(err, &full):
		return refuse(CodePaused, rt)
	case errors.Is(err, store.ErrConflict):
		return because(refuse(CodePausedCall, rt), fmt.Errorf("mail admission: %w", err))
	default:
		return because(refuse(CodePaused, rt), fmt.Errorf("mail admission: %w", err))
	}
}

// notSent words a code email that certainly did not leave: the address
// refusal only when the mail server refused the recipient, otherwise a
// mail outage (an unreachable provider, a failed login) that says nothing
// against the address the guest gave.
func notSent(err error, rt route) *Error {
	if message.RecipientRefused(err) {
		return refuse(CodeEmailRejected, rt)
	}
	return because(refuse(CodeCannotCheck, rt), fmt.Errorf("send code: %w", err))
}

// sendCode sends the code and marks the intent open, replacing earlier
// open intents of the same mailbox at the location. A known failure
// refunds the charges and removes the intent; an uncertain one keeps both,
// since the code may have arrived. open is the mailbox's open intents at
// the location as read before the send.
func (s *Service) sendCode(ctx context.Context, now time.Time, in *intent, code string, adm admission, open *store.Record, rt route) *Error {
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
	opened, older, err := s.openIntent(ctx, now, *in, open)
	if err != nil {
		// The code left (or may have): the intent stays sending, which
		// confirm_booking accepts and an identical start opens.
		return because(refuse(CodeCannotCheck, rt), err)
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
// write was refused. It returns the intents it replaced. known, when
// set, is the mailbox's record as read earlier (Version 0 when absent),
// used by the first attempt in place of a read: a stale one only makes
// the write refused and the next attempt read again.
func (s *Service) openIntent(ctx context.Context, now time.Time, in intent, known *store.Record) (intent, []string, error) {
	version := int64(1) // a create stores version 1
	var opened intent
	var older []string
	refused := false
	var failed error // the write's, when it failed for another reason
	err := store.Retry(ctx, func() error {
		if refused {
			irec, err := s.st.Get(ctx, kindIntent, in.ID)
			if err != nil {
				return err
			}
			in = intent{}
			if err := json.Unmarshal(irec.Value, &in); err != nil {
				return err
			}
			version = irec.Version
		}
		opened, older = intent{}, nil
		if in.State != stateSending {
			opened = in
			return nil
		}
		key := openKey(in.Mailbox, in.Location)
		var open openIntents
		var listVersion int64
		var err error
		if known != nil {
			if known.Version > 0 {
				err = jsonValue(*known, &open)
			}
			listVersion, known = known.Version, nil
		} else {
			open, listVersion, err = getJSON[openIntents](ctx, s.st, kindMailbox, key)
		}
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		for _, other := range open.IDs {
			if other != in.ID {
				older = append(older, other)
			}
		}
		opened = in
		opened.State = stateOpen
		opened.SentAt = append(slices.Clone(in.SentAt), now)
		_, err = s.st.Apply(ctx, []store.Write{
			{Op: store.OpSwap, Record: record(kindIntent, in.ID, opened, version, now)},
			upsert(kindMailbox, key, openIntents{IDs: []string{in.ID}}, listVersion, now),
		})
		_, refused = errors.AsType[*store.WriteError](err)
		if !refused && err != nil {
			// The write failed for another reason: it may have committed.
			failed = err
			return store.Final(err)
		}
		return err
	})
	switch {
	case failed != nil:
		return opened, older, failed
	case errors.As(err, new(*store.LostRaces)):
		return intent{}, nil, store.ErrConflict
	case err != nil:
		return intent{}, nil, err
	}
	return opened, older, nil
}

// identicalStart returns the answer of a live identical intent, waiting
// for one still sending. ok is false when there is none.
func (s *Service) identicalStart(ctx context.Context, now time.Time, fingerprint string, known *store.Record, l business.Location) (*StartResult, bool, error) {
	var r store.Record
	if known != nil {
		r = *known
	} else {
		var err error
		if r, err = s.st.Get(ctx, kindFingerprint, fingerprint); err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, false, err
		}
	}
	if r.Version == 0 {
		return nil, false, nil
	}
	var id string
	if err := jsonValue(r, &id); err != nil {
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
			opened, _, err := s.openIntent(ctx, now, in, nil)
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

func (s *Service) startResult(in intent, l business.Location) *StartResult {
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
func (r *StartResult) Location() business.Location { return r.location }

// inheritedRefusal is a refusal of the pricing rules, worded there: the
// booking wrapper adds its phone when the text has none, and the
// prefilled form only when the text has no form of its own.
func (s *Service) inheritedRefusal(r *pricing.Refusal, rt route) *Error {
	if r.HasForm {
		rt.form = ""
	}
	return refuse(QuoteCode(r.Kind), rt, r.Text)
}

// Resolve finds the location a property argument names, by slug, name,
// domain or unique short name.
func (s *Service) Resolve(property string) (business.Location, bool) {
	if s.resolveProperty == nil {
		return business.Location{}, false
	}
	return s.resolveProperty(property)
}

// FormURL is the booking form of location l, prefilled with the stay.
func (s *Service) FormURL(l business.Location, roomType, checkin, checkout string) string {
	return s.pricer.FormURL(l, roomType, checkin, checkout)
}

// takesMoney reports whether u's terms take money when booking; terms
// that cannot be read are taken to, so chat never books them.
func takesMoney(u business.Unit, currency string) bool {
	t, err := u.Policy.Terms(currency)
	return err != nil || t.TakesMoney()
}
