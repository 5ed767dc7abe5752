package booking

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"frontdesk/config"
	"frontdesk/internal/signature"
	"frontdesk/inventory"
	"frontdesk/message"
	"frontdesk/pricing"
	"frontdesk/quota"
	"frontdesk/referral"
	"frontdesk/reservation"
)

// The signed booking form (direct-booking.md §2) is the route every
// refusal of the booking tools points to. A form request holds no room:
// it is a requested reservation with source "form" that staff accept,
// which then holds the unit through the same conditional write as every
// other door, or decline. Its two mails go straight out when the request
// is saved, apart from the chat notices and their bookkeeping.

// FormRequest is what the form posts, as typed. Nothing in it can choose
// the source: a form request is always a form request.
type FormRequest struct {
	Location  string // the slug in the form's address
	RoomType  string
	Checkin   string
	Checkout  string
	Name      string
	Email     string
	Phone     string
	Guests    string
	Notes     string
	Signature string // the drawing pad's PNG data URL
	Trap      string // a field people never see; only bots fill it
	// Via is the click id a partner's tracked link appended to the form's
	// address, carried in a hidden field; Code is a partner's code the
	// guest typed (T9). Neither is shown to staff nor mailed.
	Via     string
	Code    string
	Address string // the client's network address, for the rate limit
}

// FormProblems maps each form field that needs fixing to a sentence for
// the page. A request with problems changes nothing.
type FormProblems map[string]string

func (p FormProblems) Error() string {
	fields := make([]string, 0, len(p))
	for f := range p {
		fields = append(fields, f)
	}
	sort.Strings(fields)
	return "form: fix " + strings.Join(fields, ", ")
}

// FormLimited means a rate limit refused the request; Until says when it
// lifts.
type FormLimited struct{ Until time.Time }

func (e *FormLimited) Error() string {
	return "form: too many requests until " + e.Until.Format(time.RFC3339)
}

// FormResult is a saved request.
type FormResult struct {
	Reference string
	Location  config.Location
	Quote     pricing.Quote
	// Mailed says whether the guest's acknowledgement was accepted by the
	// mail provider.
	Mailed bool
}

// Form limits: per client address and per normalized email address.
const (
	formPerAddressHourly = 5
	formPerEmailDaily    = 3
	maxGuestsText        = 3
)

// formDetail is what a form request keeps beyond the reservation.
type formDetail struct {
	Signature   string `json:"signature_png"` // base64 PNG, as drawn
	PhoneDigits string `json:"phone_digits"`
}

// Submit checks a form request, claims the form's rate limits, saves it as
// a requested reservation and mails the guest and staff. Every problem of
// the request is reported at once as FormProblems.
func (s *Service) Submit(ctx context.Context, f FormRequest) (FormResult, error) {
	now := s.clock.Now()
	l, ok := s.location(f.Location)
	if !ok {
		return FormResult{}, FormProblems{"location": "This property is not taken in bookings here."}
	}
	problems := FormProblems{}
	q, qErr := s.pricer.Quote(pricing.Stay{Location: l, RoomType: strings.ToLower(strings.TrimSpace(f.RoomType)), Checkin: strings.TrimSpace(f.Checkin), Checkout: strings.TrimSpace(f.Checkout)}, s.today(l, now))
	if refusal, isRefusal := errors.AsType[*pricing.Refusal](qErr); isRefusal {
		problems["stay"] = refusal.Text
	} else if qErr != nil {
		return FormResult{}, fmt.Errorf("quote form request: %w", qErr)
	}
	name := CleanName(f.Name)
	if name == "" || len([]rune(name)) > maxName {
		problems["name"] = "Give the guest's name, up to 120 characters."
	}
	email, ok := ParseEmail(f.Email)
	if !ok {
		problems["email"] = "Give an email address such as name@example.com."
	}
	phone, ok := ParsePhone(f.Phone, s.cfg.Business.PhoneCountryCode)
	if !ok {
		problems["phone"] = "Give a phone number with 10 to 15 digits, with the country code for numbers outside the country."
	}
	guests := 1
	if g := strings.TrimSpace(f.Guests); g != "" {
		n, err := strconv.Atoi(g)
		if err != nil || len(g) > maxGuestsText || n < 1 || n > s.cfg.Limits.MaxGuests {
			problems["guests"] = fmt.Sprintf("Guests must be a whole number from 1 to %d.", s.cfg.Limits.MaxGuests)
		}
		guests = n
	}
	if len([]rune(f.Notes)) > maxNotes {
		problems["notes"] = "Notes may be at most 500 characters."
	}
	png, err := signature.Check(f.Signature)
	if err != nil {
		problems["signature"] = err.Error()
	}
	mark := referral.Mark{Click: strings.TrimSpace(f.Via), Code: strings.TrimSpace(f.Code)}
	if mark.Code != "" && !referral.ValidCode(mark.Code) {
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
	perAddress := quota.Budget{Kind: "form.address", Limit: formPerAddressHourly, Window: time.Hour}
	perEmail := quota.Budget{Kind: "form.email", Limit: formPerEmailDaily, Window: 24 * time.Hour}
	emailKey, err := s.keyed(ctx, now, "form-email", email.Normalized)
	if err != nil {
		return FormResult{}, err
	}
	for _, claim := range []struct {
		b   quota.Budget
		key string
	}{{perAddress, f.Address}, {perEmail, emailKey}} {
		err := claim.b.Claim(ctx, s.st, claim.key, now)
		if spent, ok := errors.AsType[*quota.ErrSpent](err); ok {
			return FormResult{}, &FormLimited{Until: spent.Until}
		}
		if err != nil {
			return FormResult{}, err
		}
	}

	mailbox, err := s.keyed(ctx, now, "mailbox", email.Normalized)
	if err != nil {
		return FormResult{}, err
	}
	detail, _ := json.Marshal(formDetail{Signature: base64.StdEncoding.EncodeToString(png), PhoneDigits: phone.Digits})
	unit, _ := l.Unit(q.RoomType)
	req := reservation.New{
		Kind: reservation.KindRequest, Unit: deskUnit(l, unit), Slots: inventory.Nights(q.Checkin, q.Nights), Guests: guests,
		Contact:    reservation.Contact{Name: name, Email: email.Delivery, Phone: phone.Formatted},
		ContactKey: mailbox, Source: reservation.SourceForm,
		Total: q.Total, Notes: strings.TrimSpace(f.Notes), Detail: detail, By: "guest", What: "requested", At: now,
	}
	var r reservation.Reservation
	for range maxCASAttempts {
		if req.Reference, err = s.newReference(l); err != nil {
			return FormResult{}, err
		}
		if req.Also, err = s.Attribution(ctx, mark, req); err != nil {
			return FormResult{}, err
		}
		r, err = s.desk.Create(ctx, req)
		if reservation.ErrorCode(err) != reservation.CodeInternal && !errors.Is(err, referral.ErrRaced) {
			break // a taken reference, or an attribution raced, is drawn again
		}
	}
	if err != nil {
		return FormResult{}, fmt.Errorf("save form request: %w", err)
	}
	s.log.InfoContext(ctx, "form request saved", "location", l.Slug)
	guestMail, staffMail := s.formEmails(r, l, now)
	res := FormResult{Reference: r.Reference, Location: l, Quote: q}
	if err := s.mail.Send(ctx, guestMail); err != nil {
		s.log.WarnContext(ctx, "form acknowledgement not sent", "location", l.Slug, "not_sent", message.NotSent(err), "err", err)
	} else {
		res.Mailed = true
	}
	if err := s.mail.Send(ctx, staffMail); err != nil {
		s.log.WarnContext(ctx, "form staff notice not sent", "location", l.Slug, "not_sent", message.NotSent(err), "err", err)
	}
	return res, nil
}

// formEmails are the form's direct-send mails: the guest's
// acknowledgement and the staff notice with a link into the staff screen.
// Guest text is data on its own lines; the web path keeps names as typed
// (direct-booking.md §15 leaves its repair for separate work).
func (s *Service) formEmails(r reservation.Reservation, l config.Location, now time.Time) (guest, staff message.Email) {
	b := booked{Reservation: r}
	var g strings.Builder
	fmt.Fprintf(&g, "We received your booking request at %s.\n\n", l.Name)
	g.WriteString(s.stayLines(b, l))
	fmt.Fprintf(&g, "\nNo room is held yet: staff will answer in writing within %d hours. Nothing is charged now.\n", s.cfg.Business.ConfirmHours)
	fmt.Fprintf(&g, "Questions: call %s.\n", l.Phone)
	var st strings.Builder
	fmt.Fprintf(&st, "A guest sent a booking request through the web form (source: form). It holds no room until you accept it.\n\n")
	st.WriteString(s.stayLines(b, l))
	fmt.Fprintf(&st, "Guest name: %s\n", r.Contact.Name)
	fmt.Fprintf(&st, "Guest email: %s\n", r.Contact.Email)
	fmt.Fprintf(&st, "Guest phone: %s\n", r.Contact.Phone)
	if r.Notes != "" {
		fmt.Fprintf(&st, "Guest notes:\n%s\n", r.Notes)
	}
	fmt.Fprintf(&st, "\nThe guest signed the agreement on the form. Accept or decline it (sign-in required):\n%s\n", s.staffLink(r.Reference))
	return message.Email{
			ID: "form-" + r.Reference + "-guest", From: s.from(), To: []string{r.Contact.Email},
			Subject: fmt.Sprintf("Booking request %s at %s", r.Reference, l.Name), Text: g.String(), Date: now,
		}, message.Email{
			ID: "form-" + r.Reference + "-staff", From: s.from(), To: []string{s.cfg.Mail.Staff}, ReplyTo: r.Contact.Email,
			Subject: fmt.Sprintf("Booking request %s at %s (web form)", r.Reference, l.Name), Text: st.String(), Date: now,
		}
}
