package reservation

import (
	"encoding/base64"
	"encoding/json"
	"sort"
	"strings"
	"time"

	"frontdesk/business"
	"frontdesk/pricing"
)

// The booking form's request, its problems and its result: what the
// guest site posts and reads back whichever door takes the request.

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
	// Token is the form's one-time token (NewGuestToken): a request is
	// saved once per token, and a resubmission answers with the first.
	// It then opens the guest's own page of the request.
	Token string
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
	Location  business.Location
	Quote     pricing.Quote
	// Mailed says whether the guest's acknowledgement was accepted by the
	// mail provider.
	Mailed bool
	// Again says the token had sent this request already: nothing new
	// was saved or mailed.
	Again bool
}

// FormDetail is what a form request keeps beyond the reservation.
type FormDetail struct {
	Signature   string `json:"signature_png"` // base64 PNG, as drawn
	PhoneDigits string `json:"phone_digits"`
}

// FormSignature is the signature drawn on a form request, as a PNG data
// URL of checked base64 for the staff screen to show, or "" for a
// reservation without one.
func FormSignature(r Reservation) string {
	if r.Source != SourceForm || len(r.Detail) == 0 {
		return ""
	}
	var d FormDetail
	if err := json.Unmarshal(r.Detail, &d); err != nil || d.Signature == "" {
		return ""
	}
	if _, err := base64.StdEncoding.DecodeString(d.Signature); err != nil {
		return "" // only base64 reaches the page's address
	}
	return "data:image/png;base64," + d.Signature
}
