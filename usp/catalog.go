package usp

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"frontdesk/business"
	"frontdesk/internal/civil"
	"frontdesk/internal/money"
	"frontdesk/pricing"
)

// Service is a catalog entry (schemas/catalog.json Service).
type Service struct {
	ID          string     `json:"id"`
	BusinessID  string     `json:"business_id"`
	Name        string     `json:"name"`
	Description string     `json:"description"`
	Type        string     `json:"type"`
	Categories  []Category `json:"categories"`
	Duration    Duration   `json:"duration"`
	Pricing     Price      `json:"pricing"`
	Locations   []Place    `json:"locations"`
	Resources   []Resource `json:"resources,omitempty"`
	Channel     Channel    `json:"channel"`
	Policies    Policies   `json:"policies"`
	Capacity    *Capacity  `json:"capacity,omitempty"`
	Status      string     `json:"status"`

	// loc and unit point into the config, which outlives the catalog: a
	// copy of each in every service would double a large catalog.
	loc    *business.Location
	zone   *time.Location // loc's zone, loaded once
	unit   *business.Unit
	nights int // a lodging slot's length; 0 for timed units
	terms  business.Terms
}

// Category is a catalog category label.
type Category struct {
	Taxonomy string `json:"taxonomy"`
	ID       string `json:"id"`
	Name     string `json:"name"`
	Primary  bool   `json:"primary"`
}

// Duration is a fixed ISO 8601 duration.
type Duration struct {
	Fixed string `json:"fixed"`
}

// Price is a service's price in minor units; a free service (model
// free) has no amount (§3.11.2).
type Price struct {
	Model    string   `json:"model"`
	Amount   int64    `json:"amount,omitempty"`
	Currency string   `json:"currency"`
	Deposit  *Deposit `json:"deposit,omitempty"`
}

// Deposit is the part of the price taken when booking a
// deposit_required service: a fixed amount in minor units or a whole
// percentage of the price.
type Deposit struct {
	Type       string `json:"type"`
	Value      int64  `json:"value"`
	Refundable bool   `json:"refundable"`
}

// Place is a location a service is offered at.
type Place struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// Resource is a resource a service needs.
type Resource struct {
	Type string `json:"type"`
	Name string `json:"name"`
}

// Channel is where the service is delivered.
type Channel struct {
	Type string `json:"type"`
}

// Capacity is the places per slot of a group or reservation service.
type Capacity struct {
	Min int `json:"min"`
	Max int `json:"max"`
}

// Policies are a service's machine-readable policies.
type Policies struct {
	Cancellation     CancelPolicy     `json:"cancellation"`
	Rescheduling     ReschedulePolicy `json:"rescheduling"`
	NoShow           *NoShow          `json:"no_show,omitempty"`
	BookingWindow    BookingWindow    `json:"booking_window"`
	ConfirmationMode string           `json:"confirmation_mode"`
	RequiresPayment  bool             `json:"requires_payment"`
	PaymentTiming    string           `json:"payment_timing,omitempty"`
}

// CancelPolicy says whether a booking may be cancelled, until when for
// free (an ISO 8601 duration before the start) and the fee after that in
// minor units.
type CancelPolicy struct {
	Allowed   bool   `json:"allowed"`
	FreeUntil string `json:"free_cancellation_until,omitempty"`
	LateFee   int64  `json:"late_cancellation_fee,omitempty"`
}

// ReschedulePolicy says whether a booking may move and its fee in minor
// units.
type ReschedulePolicy struct {
	Allowed bool  `json:"allowed"`
	Fee     int64 `json:"fee,omitempty"`
}

// NoShow is what a guest who does not come forfeits: a fixed fee in
// minor units or a percentage of the price.
type NoShow struct {
	Fee           int64 `json:"fee,omitempty"`
	FeePercentage int64 `json:"fee_percentage,omitempty"`
}

// BookingWindow bounds how far ahead a slot may start.
type BookingWindow struct {
	MinAdvance   string `json:"min_advance"`
	MaxAdvance   string `json:"max_advance"`
	SlotInterval string `json:"slot_interval"`
}

// catalog is every service, in config order, built once.
type catalog struct {
	services []Service
	byID     map[string]int
	slots    *slotCache
}

func serviceID(loc business.Location, u business.Unit) string {
	return "svc_" + loc.Slug + "_" + u.Type
}

// businessID derives a stable id from the business name.
func businessID(name string) string {
	var b strings.Builder
	b.WriteString("biz_")
	under := false
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			under = false
		} else if !under && b.Len() > 4 {
			b.WriteByte('_')
			under = true
		}
	}
	return strings.TrimSuffix(b.String(), "_")
}

// stayNights is the length of a lodging slot: the unit's minimum stay, and
// a week for a weekly-only unit.
func stayNights(u business.Unit) int {
	n := max(u.MinNights, 1)
	if u.WeeklyOnly() && n < 7 {
		n = 7
	}
	return n
}

func buildCatalog(cfg Config, pricer *pricing.Pricer, checkout bool) (catalog, error) {
	n := 0
	for _, loc := range cfg.Locations {
		n += len(loc.Units)
	}
	c := catalog{services: make([]Service, 0, n), byID: make(map[string]int, n), slots: newSlotCache()}
	biz := businessID(cfg.Business.Name)
	currency := cfg.Business.Currency
	// Policies the reservation core enforces and the unit's terms; the
	// catalog states them.
	policies := func(u business.Unit, interval string) Policies {
		return Policies{
			Cancellation:     CancelPolicy{Allowed: true},
			Rescheduling:     ReschedulePolicy{Allowed: true},
			BookingWindow:    BookingWindow{MinAdvance: "PT0S", MaxAdvance: fmt.Sprintf("P%dD", cfg.Limits.AdvanceDays), SlotInterval: interval},
			ConfirmationMode: confirmationMode(u),
		}
	}
	for i, loc := range cfg.Locations {
		for j, u := range loc.Units {
			s := Service{
				ID: serviceID(loc, u), BusinessID: biz, Name: u.DisplayName() + " at " + loc.Name,
				Locations: []Place{{ID: loc.Slug, Name: loc.Name}},
				Channel:   Channel{Type: "at_business_location"}, Status: "active",
				loc: &cfg.Locations[i], zone: loc.Zone(), unit: &cfg.Locations[i].Units[j],
			}
			switch u.Kind {
			case business.KindTimed:
				amount, err := money.Parse(u.Price, currency)
				if err != nil {
					return catalog{}, fmt.Errorf("usp catalog: %s price: %w", s.ID, err)
				}
				length := time.Duration(u.DurationMinutes) * time.Minute
				s.Type = "appointment"
				if u.Count > 1 {
					s.Type = "group"
					s.Capacity = &Capacity{Min: 1, Max: u.Count}
				}
				s.Description = fmt.Sprintf("%s at %s: %d-minute slots from %s to %s local time (%s), %s per slot.",
					u.DisplayName(), loc.Name, u.DurationMinutes, u.Opens, u.Closes, loc.TimeZone, places(u.Count))
				s.Categories = []Category{{Taxonomy: "merchant", ID: "timed", Name: "Timed services", Primary: true}}
				s.Duration = Duration{Fixed: isoDuration(length)}
				s.Pricing = Price{Model: "fixed", Amount: amount, Currency: currency}
				s.Resources = []Resource{{Type: "equipment", Name: u.DisplayName()}}
				s.Policies = policies(u, isoDuration(length))
			default:
				n := stayNights(u)
				s.nights = n
				day := civil.Of(time.Date(2030, 1, 7, 12, 0, 0, 0, time.UTC), time.UTC)
				q, err := pricer.Quote(pricing.Stay{Location: loc, RoomType: u.Type, Checkin: day.String(), Checkout: day.AddDays(n).String()}, day)
				if err != nil {
					return catalog{}, fmt.Errorf("usp catalog: %s price: %w", s.ID, err)
				}
				s.Name = roomName(u) + " at " + loc.Name
				s.Type = "reservation"
				s.Capacity = &Capacity{Min: 1, Max: u.Count}
				s.Description = fmt.Sprintf("A %s room at %s, %s per booking from check-in at %s local time (%s). Each spot is one room; %d rooms of this type. The price is for the whole stay, %s included.",
					u.DisplayName(), loc.Name, nightsText(n), loc.CheckinHour, loc.TimeZone, u.Count, taxText(cfg.Business))
				s.Categories = []Category{{Taxonomy: "merchant", ID: "lodging", Name: "Lodging", Primary: true}}
				s.Duration = Duration{Fixed: fmt.Sprintf("P%dD", n)}
				s.Pricing = Price{Model: "fixed", Amount: q.Total, Currency: currency}
				s.Policies = policies(u, "P1D")
			}
			terms, err := u.Policy.Terms(currency)
			if err != nil {
				return catalog{}, fmt.Errorf("usp catalog: %s policy: %w", s.ID, err)
			}
			if !cfg.standalone() && terms.Timing == business.PayDeposit && s.Pricing.Amount > 0 && !checkout {
				// §7.6.1 fails closed: in UCP-Native Mode a deposit is
				// booked only through the UCP checkout with the payment
				// terms extension; without the checkout, the service is
				// not advertised at all.
				continue
			}
			s.applyTerms(terms)
			s.terms = terms
			c.byID[s.ID] = len(c.services)
			c.services = append(c.services, s)
		}
	}
	return c, nil
}

// applyTerms publishes a unit's payment and cancellation terms (§3.11):
// a service whose price is zero takes no money and is free, with no
// amount and no timing; any other requires payment at its timing, with
// its deposit, the no-show forfeit of what was paid when booking, and
// the late-cancellation and rescheduling fees.
func (s *Service) applyTerms(t business.Terms) {
	if s.Pricing.Amount == 0 {
		s.Pricing = Price{Model: "free", Currency: s.Pricing.Currency}
		return
	}
	s.Policies.RequiresPayment = true
	s.Policies.PaymentTiming = t.Timing
	if t.Timing == business.PayDeposit {
		s.Pricing.Deposit = &Deposit{Type: t.DepositKind, Value: t.DepositValue, Refundable: true}
	}
	if t.LateCancelFee > 0 || t.FreeCancel > 0 {
		s.Policies.Cancellation.FreeUntil = isoDuration(t.FreeCancel)
		s.Policies.Cancellation.LateFee = t.LateCancelFee
	}
	s.Policies.Rescheduling.Fee = t.RescheduleFee
	switch {
	case !t.NoShowKeeps || !t.TakesMoney():
	case t.Timing == business.PayAtBooking:
		s.Policies.NoShow = &NoShow{FeePercentage: 100}
	case t.DepositKind == business.DepositPercent:
		s.Policies.NoShow = &NoShow{FeePercentage: t.DepositValue}
	default:
		s.Policies.NoShow = &NoShow{Fee: min(t.DepositValue, s.Pricing.Amount)}
	}
}

// roomName is a room type's name for people: its display name, or its
// type as "Double room".
func roomName(u business.Unit) string {
	if u.Name != "" {
		return u.Name
	}
	return strings.ToUpper(u.Type[:1]) + u.Type[1:] + " room"
}

func places(n int) string {
	if n == 1 {
		return "1 place"
	}
	return fmt.Sprintf("%d places", n)
}

func nightsText(n int) string {
	if n == 1 {
		return "1 night"
	}
	return fmt.Sprintf("%d nights", n)
}

func taxText(b business.Business) string {
	if b.TaxLabel != "" {
		return b.TaxLabel
	}
	return "tax"
}

// isoDuration writes d as an ISO 8601 duration in hours and minutes.
func isoDuration(d time.Duration) string {
	h, m := int(d/time.Hour), int(d%time.Hour/time.Minute)
	switch {
	case h == 0 && m == 0:
		return "PT0S"
	case m == 0:
		return fmt.Sprintf("PT%dH", h)
	case h == 0:
		return fmt.Sprintf("PT%dM", m)
	}
	return fmt.Sprintf("PT%dH%dM", h, m)
}

func (c catalog) get(id string) (Service, bool) {
	i, ok := c.byID[id]
	if !ok {
		return Service{}, false
	}
	return c.services[i], true
}

// ListRequest is usp_services_list / POST /services/list.
type ListRequest struct {
	Query   string `json:"query"`
	Filters struct {
		Type       string   `json:"type"`
		CategoryID string   `json:"category_id"`
		Categories []string `json:"categories"`
		LocationID string   `json:"location_id"`
		Price      struct {
			Min *int64 `json:"min"`
			Max *int64 `json:"max"`
		} `json:"price"`
	} `json:"filters"`
	Pagination struct {
		Limit  *int    `json:"limit"`
		Cursor *string `json:"cursor"`
	} `json:"pagination"`
	Context *BuyerContext `json:"context"`
}

// ListResult answers a list.
type ListResult struct {
	USP        Meta       `json:"usp"`
	Services   []Service  `json:"services"`
	Pagination Pagination `json:"pagination"`
	Messages   []Message  `json:"messages"`
}

// Page sizes of service lists (§9.1.2 suggests 20).
const (
	defaultServicePage = 20
	maxServicePage     = 100
)

// ListServices returns the services that pass every filter, ranked by
// how many words of the query they contain when there is one, a page at
// a time.
func (b *Business) ListServices(ctx context.Context, call Call, in ListRequest) (*ListResult, error) {
	meta, _, outcome, err := b.begin(ctx, "usp_services_list", call)
	if err != nil {
		return nil, err
	}
	if err := in.Context.check(); err != nil {
		return nil, err
	}
	res := &ListResult{USP: meta, Services: []Service{}, Messages: []Message{}}
	if outcome != nil {
		res.Messages = append(res.Messages, *outcome)
		return res, nil
	}
	limit := defaultServicePage
	if in.Pagination.Limit != nil {
		if *in.Pagination.Limit < 1 {
			return nil, fail(CodeValidation, "pagination.limit must be 1 or more.")
		}
		limit = min(*in.Pagination.Limit, maxServicePage)
	}
	f := in.Filters
	cats := f.Categories
	if len(cats) == 0 && f.CategoryID != "" {
		cats = []string{f.CategoryID}
	}
	words := strings.Fields(strings.ToLower(in.Query))
	type ranked struct {
		s     Service
		score int
	}
	var matches []ranked
	for _, s := range b.catalog.services {
		switch {
		case f.Type != "" && s.Type != f.Type,
			len(cats) > 0 && !slices.ContainsFunc(s.Categories, func(c Category) bool { return slices.Contains(cats, c.ID) }),
			f.LocationID != "" && s.loc.Slug != f.LocationID,
			f.Price.Min != nil && s.Pricing.Amount < *f.Price.Min,
			f.Price.Max != nil && s.Pricing.Amount > *f.Price.Max:
			continue
		}
		score := 0
		if len(words) > 0 {
			text := strings.ToLower(s.Name + " " + s.Description + " " + s.Categories[0].Name + " " + s.unit.Type)
			for _, w := range words {
				if strings.Contains(text, w) {
					score++
				}
			}
			if score == 0 {
				continue
			}
		}
		matches = append(matches, ranked{s, score})
	}
	slices.SortStableFunc(matches, func(a, b ranked) int { return b.score - a.score })
	digest := digestOf("services", in.Query, f.Type, strings.Join(cats, ","), f.LocationID, ptrText(f.Price.Min), ptrText(f.Price.Max))
	offset := 0
	if in.Pagination.Cursor != nil && *in.Pagination.Cursor != "" {
		if offset, err = decodeOffsetCursor(*in.Pagination.Cursor, digest); err != nil {
			return nil, err
		}
	}
	for i := offset; i < len(matches) && i < offset+limit; i++ {
		res.Services = append(res.Services, matches[i].s)
	}
	if offset+limit < len(matches) {
		next := encodeOffsetCursor(digest, offset+limit)
		res.Pagination = Pagination{Cursor: &next, HasMore: true}
	}
	return res, nil
}

func ptrText(p *int64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprint(*p)
}

// GetResult answers a get. Service is nil only with a
// capabilities_incompatible message.
type GetResult struct {
	USP      Meta      `json:"usp"`
	Service  *Service  `json:"service,omitempty"`
	Messages []Message `json:"messages"`
}

// GetService returns one service; an unknown id is service_not_found.
func (b *Business) GetService(ctx context.Context, call Call, id string) (*GetResult, error) {
	meta, _, outcome, err := b.begin(ctx, "usp_services_get", call)
	if err != nil {
		return nil, err
	}
	res := &GetResult{USP: meta, Messages: []Message{}}
	if outcome != nil {
		res.Messages = append(res.Messages, *outcome)
		return res, nil
	}
	if id == "" {
		return nil, fail(CodeInvalidRequest, "service_id is required.")
	}
	s, ok := b.catalog.get(id)
	if !ok {
		return nil, fail(CodeServiceNotFound, "No service has the id %q.", id)
	}
	res.Service = &s
	return res, nil
}

// LookupRequest is usp_services_lookup / POST /services/lookup.
type LookupRequest struct {
	IDs     []string      `json:"ids"`
	Context *BuyerContext `json:"context"`
}

// LookupResult answers a lookup.
type LookupResult struct {
	USP      Meta      `json:"usp"`
	Services []Service `json:"services"`
	Messages []Message `json:"messages"`
}

// MaxLookup is the most ids one lookup may name (§3.12.4 asks for at
// least 50).
const MaxLookup = 100

// LookupServices returns the services named, each once; unknown ids are
// reported as service_not_found warnings pointing at the id.
func (b *Business) LookupServices(ctx context.Context, call Call, in LookupRequest) (*LookupResult, error) {
	meta, _, outcome, err := b.begin(ctx, "usp_services_lookup", call)
	if err != nil {
		return nil, err
	}
	if len(in.IDs) == 0 {
		return nil, fail(CodeInvalidRequest, "ids must name at least one service.")
	}
	if len(in.IDs) > MaxLookup {
		return nil, fail(CodeValidation, "ids may name at most %d services; this request names %d.", MaxLookup, len(in.IDs))
	}
	if err := in.Context.check(); err != nil {
		return nil, err
	}
	res := &LookupResult{USP: meta, Services: []Service{}, Messages: []Message{}}
	if outcome != nil {
		res.Messages = append(res.Messages, *outcome)
		return res, nil
	}
	seen := map[string]bool{}
	for i, id := range in.IDs {
		if seen[id] {
			continue
		}
		seen[id] = true
		if s, ok := b.catalog.get(id); ok {
			res.Services = append(res.Services, s)
			continue
		}
		res.Messages = append(res.Messages, Message{
			Type: "warning", Code: "service_not_found", Content: fmt.Sprintf("Service ID %q was not found.", id),
			Path: fmt.Sprintf("$.ids[%d]", i),
		})
	}
	return res, nil
}

// confirmationMode is the spec's confirmation_mode of a unit's service:
// auto when the owner set it, manual otherwise.
func confirmationMode(u business.Unit) string {
	if u.AutoConfirms() {
		return business.ConfirmAuto
	}
	return business.ConfirmManual
}
