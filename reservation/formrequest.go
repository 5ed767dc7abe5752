package reservation

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"frontdesk/business"
	"frontdesk/internal/signature"
	"frontdesk/inventory"
	"frontdesk/message"
	"frontdesk/pricing"
	"frontdesk/quota"
	"frontdesk/store"
)

// The signed booking form (direct-booking.md §2) is the route every
// refusal of the booking tools points to. A form request holds no room:
// it is a requested reservation with source "form" that staff accept,
// which then holds the unit through the same conditional write as every
// other door, or decline. Its two mails go straight out when the request
// is saved, apart from the chat notices and their bookkeeping.

// errFormSentAlready is the refusal of a request whose form token saved
// another one first.
var errFormSentAlready = errors.New("booking: this form was sent already")

// errNoKeys is the error of a form request on a core wired without the
// keys of its limits and mailboxes (UseKeys).
var errNoKeys = errors.New("reservation: the form's keys are not wired")

// Form limits: per client address and per normalized email address.
const (
	FormPerAddressHourly = 5
	FormPerEmailDaily    = 3
	maxGuestsText        = 3
	maxNotes             = 500
)

// Submit checks a form request, claims the form's rate limits, saves it as
// a requested reservation and mails the guest and staff. Every problem of
// the request is reported at once as FormProblems.
func (c *Core) Submit(ctx context.Context, f FormRequest) (FormResult, error) {
	now := c.clock.Now()
	l, ok := c.Location(f.Location)
	if !ok {
		return FormResult{}, FormProblems{"location": "This property is not taken in bookings here."}
	}
	if !GuestTokenFor(f.Token, l) {
		return FormResult{}, FormProblems{"token": "This form has expired. It was loaded again: check the fields, sign and send it once more."}
	}
	if first, err := c.formAgain(ctx, f.Token); err == nil || !errors.Is(err, ErrNoReservation) {
		return first, err
	}
	q, problems, err := c.formStay(l, f, now)
	if err != nil {
		return FormResult{}, err
	}
	name := CleanName(f.Name)
	if name == "" || len([]rune(name)) > maxName {
		problems["name"] = "Give the guest's name, up to 120 characters."
	}
	email, ok := ParseEmail(f.Email)
	if !ok {
		problems["email"] = "Give an email address such as name@example.com."
	}
	phone, ok := ParsePhone(f.Phone, c.portfolio.Business.PhoneCountryCode)
	if !ok {
		problems["phone"] = "Give a phone number with 10 to 15 digits, with the country code for numbers outside the country."
	}
	guests := 1
	if g := strings.TrimSpace(f.Guests); g != "" {
		n, err := strconv.Atoi(g)
		if err != nil || len(g) > maxGuestsText || n < 1 || n > c.portfolio.Limits.MaxGuests {
			problems["guests"] = fmt.Sprintf("Guests must be a whole number from 1 to %d.", c.portfolio.Limits.MaxGuests)
		}
		guests = n
	}
	if u, ok := l.Unit(strings.ToLower(strings.TrimSpace(f.RoomType))); ok && problems["guests"] == "" && guests > c.portfolio.Sleeps(u) {
		problems["guests"] = fmt.Sprintf("A %s here sleeps at most %d: choose a larger room, or send a request for each room.", u.DisplayName(), c.portfolio.Sleeps(u))
	}
	if len([]rune(f.Notes)) > maxNotes {
		problems["notes"] = "Notes may be at most 500 characters."
	}
	png, err := signature.Check(f.Signature)
	if err != nil {
		problems["signature"] = err.Error()
	}
	mark := Mark{Click: strings.TrimSpace(f.Via), Code: strings.TrimSpace(f.Code)}
	if mark.Code != "" && c.validCode != nil && !c.validCode(mark.Code) {
		problems["code"] = "A partner code is 4 to 32 letters or digits; leave it empty if you have none."
	}
	if mark.Code != "" {
		mark.Click = "" // a code the guest typed names the partner they meant
	}
	if f.Trap != "" {
		problems["trap"] = "Leave the last field empty."
	}
	if len(problems) > 0 {
		return FormResult{}, problems
	}

	// Limits are claimed before anything is saved or mailed.
	perAddress := quota.Budget{Kind: "form.address", Limit: FormPerAddressHourly, Window: time.Hour}
	perEmail := quota.Budget{Kind: "form.email", Limit: FormPerEmailDaily, Window: 24 * time.Hour}
	if c.keys == nil {
		return FormResult{}, errNoKeys
	}
	emailKey, err := c.keys.Keyed(ctx, now, "form-email", email.Normalized)
	if err != nil {
		return FormResult{}, err
	}
	for _, claim := range []struct {
		b   quota.Budget
		key string
	}{{perAddress, f.Address}, {perEmail, emailKey}} {
		err := claim.b.Claim(ctx, c.st, claim.key, now)
		if spent, ok := errors.AsType[*quota.ErrSpent](err); ok {
			return FormResult{}, &FormLimited{Until: spent.Until}
		}
		if err != nil {
			return FormResult{}, err
		}
	}

	mailbox, err := c.keys.Keyed(ctx, now, "mailbox", email.Normalized)
	if err != nil {
		return FormResult{}, err
	}
	detail, _ := json.Marshal(FormDetail{Signature: base64.StdEncoding.EncodeToString(png), PhoneDigits: phone.Digits})
	unit, _ := l.Unit(q.RoomType)
	req := New{
		Kind: KindRequest, Unit: UnitOf(l, unit), Slots: inventory.Nights(q.Checkin, q.Nights), Guests: guests,
		Contact:    Contact{Name: name, Email: email.Delivery, Phone: phone.Formatted},
		ContactKey: mailbox, Source: SourceForm,
		Total: q.Total, Notes: strings.TrimSpace(f.Notes), Detail: detail, By: "guest", What: "requested", At: now,
	}
	// The token's page rides along: of two posts of one form, one saves
	// the request and the other finds it.
	guestPage := Addition{Build: func(r Reservation) []store.Write {
		return []store.Write{GuestPageWrite(f.Token, r.Reference, now)}
	}, Refused: errFormSentAlready}
	var r Reservation
	for range maxAttempts {
		if req.Reference, err = c.NewReference(l); err != nil {
			return FormResult{}, err
		}
		var attributed []Addition
		if attributed, err = c.Attribution(ctx, mark, req); err != nil {
			return FormResult{}, err
		}
		req.Also = append([]Addition{guestPage}, attributed...)
		r, err = c.desk.Create(ctx, req)
		if errors.Is(err, errFormSentAlready) {
			// A parallel post of the same form saved it first.
			return c.formAgain(ctx, f.Token)
		}
		if ErrorCode(err) != CodeInternal && !raced(err, attributed) {
			break // a taken reference, or an attribution raced, is drawn again
		}
	}
	if err != nil {
		return FormResult{}, fmt.Errorf("save form request: %w", err)
	}
	c.log.InfoContext(ctx, "form request saved", "location", l.Slug)
	res := FormResult{Reference: r.Reference, Location: l, Quote: q}
	if c.formMail == nil || c.send == nil {
		return res, nil
	}
	guestMail, staffMail := c.formMail.FormEmails(r, l, f.Token, now)
	if err := c.send.Send(ctx, guestMail); err != nil {
		c.log.WarnContext(ctx, "form acknowledgement not sent", "location", l.Slug, "not_sent", message.NotSent(err), "err", err)
	} else {
		res.Mailed = true
	}
	if err := c.send.Send(ctx, staffMail); err != nil {
		c.log.WarnContext(ctx, "form staff notice not sent", "location", l.Slug, "not_sent", message.NotSent(err), "err", err)
	}
	return res, nil
}

// formAgain is the result of the request a form token saved already, or
// ErrNoReservation when the token saved none.
func (c *Core) formAgain(ctx context.Context, token string) (FormResult, error) {
	ref, err := c.GuestReference(ctx, token)
	if err != nil {
		return FormResult{}, err
	}
	r, err := Get(ctx, c.st, ref)
	if err != nil {
		return FormResult{}, fmt.Errorf("read form request: %w", err)
	}
	l, _ := c.Location(r.Location)
	res := FormResult{Reference: ref, Location: l, Again: true}
	res.Quote.Total, res.Quote.Nights, res.Quote.RoomType = r.Total, len(r.Slots), r.Unit
	if in, out, err := r.Stay(); err == nil {
		res.Quote.Checkin, res.Quote.Checkout = in, out
	}
	return res, nil
}

// FormQuote prices the form's stay without saving anything, for the
// form to show before it is sent. Problems name the fields to fix.
func (c *Core) FormQuote(ctx context.Context, f FormRequest) (pricing.Quote, error) {
	l, ok := c.Location(f.Location)
	if !ok {
		return pricing.Quote{}, FormProblems{"location": "This property is not taken in bookings here."}
	}
	q, problems, err := c.formStay(l, f, c.clock.Now())
	if err != nil {
		return pricing.Quote{}, err
	}
	if len(problems) > 0 {
		return pricing.Quote{}, problems
	}
	return q, nil
}

// formStay checks the form's room and dates and prices them. Each
// problem is a full sentence for the field it concerns: roomtype,
// checkin or checkout.
func (c *Core) formStay(l business.Location, f FormRequest, now time.Time) (pricing.Quote, FormProblems, error) {
	problems := FormProblems{}
	roomType := strings.ToLower(strings.TrimSpace(f.RoomType))
	unit, ok := l.Unit(roomType)
	if !ok || unit.Kind != business.KindNight {
		problems["roomtype"] = "Choose a room from the list."
	}
	in, out, dates := stayDates(f.Checkin, f.Checkout)
	for k, v := range dates {
		problems[k] = v
	}
	if len(problems) > 0 {
		return pricing.Quote{}, problems, nil
	}
	today := today(l, now)
	// Fees per guest are priced for the guests asked for; a count that
	// does not read is a problem of its own field and priced as one.
	guests, _ := strconv.Atoi(strings.TrimSpace(f.Guests))
	q, err := c.pricer.Quote(pricing.Stay{Location: l, RoomType: roomType, Checkin: in.String(), Checkout: out.String(), Guests: max(guests, 1)}, today)
	refusal, isRefusal := errors.AsType[*pricing.Refusal](err)
	if err != nil && !isRefusal {
		return pricing.Quote{}, nil, fmt.Errorf("quote form request: %w", err)
	}
	if !isRefusal {
		return q, problems, nil
	}
	if p := stayRefusal(c.portfolio, refusal, in, today); p != nil {
		return pricing.Quote{}, p, nil
	}
	switch refusal.Kind {
	case pricing.RefusalMinimumStay:
		if unit.WeeklyOnly() {
			problems["checkout"] = fmt.Sprintf("A %s here is sold by the week, for %d nights or more: choose a departure date on or after %s.", unit.DisplayName(), unit.MinNights, in.AddDays(unit.MinNights))
			break
		}
		problems["checkout"] = fmt.Sprintf("A %s here is booked for %d nights or more: choose a departure date on or after %s.", unit.DisplayName(), unit.MinNights, in.AddDays(unit.MinNights))
	case pricing.RefusalWeeklyOnly:
		problems["roomtype"] = fmt.Sprintf("A %s here is sold by the week only. Choose another room, or stay 7 nights or more.", unit.DisplayName())
	default:
		problems["roomtype"] = "This room cannot be priced for these dates. Choose another room or other dates, or call " + l.Phone + "."
	}
	return pricing.Quote{}, problems, nil
}
