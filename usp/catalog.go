package usp

import (
	"context"
	"fmt"
	"iter"
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

// catalog is every service of the config, in config order. It keeps
// where each service's unit is in the config and its price, and writes a
// service out when one is asked for: 30,000 services written out once
// and kept took 27 MB of a large business's memory.
type catalog struct {
	entries []entry
	byLoc   map[string]int // a location's slug: the index of its first entry
	slots   *slotCache

	biz, currency, tax, maxAdvance string
	// pays says some service takes money; checkout that a UCP checkout
	// books some service (checkoutBooks), and deposits that it books one
	// that takes a deposit.
	pays, checkout, deposits bool
}

// entry is one service. Its location and unit point into the config,
// which outlives the catalog.
type entry struct {
	loc    *business.Location
	unit   *business.Unit
	zone   *time.Location // loc's zone, loaded once
	amount int64          // the price in minor units
}

func serviceID(slug, unitType string) string {
	return "svc_" + slug + "_" + unitType
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

// serviceType is the spec's type of a unit's service.
func serviceType(u business.Unit) string {
	switch {
	case u.Kind != business.KindTimed:
		return "reservation"
	case u.Count > 1:
		return "group"
	}
	return "appointment"
}

// category is the primary category of a unit's service.
func category(u business.Unit) Category {
	if u.Kind == business.KindTimed {
		return Category{Taxonomy: "merchant", ID: "timed", Name: "Timed services", Primary: true}
	}
	return Category{Taxonomy: "merchant", ID: "lodging", Name: "Lodging", Primary: true}
}

// buildCatalog checks and prices every service of cfg once; a service
// whose price or terms cannot be read fails the build, so writing one
// out later cannot fail.
func buildCatalog(cfg Config, pricer *pricing.Pricer, checkout bool) (catalog, error) {
	n := 0
	for _, loc := range cfg.Locations {
		n += len(loc.Units)
	}
	c := catalog{
		entries: make([]entry, 0, n), byLoc: make(map[string]int, len(cfg.Locations)), slots: newSlotCache(),
		biz: businessID(cfg.Business.Name), currency: cfg.Business.Currency, tax: taxText(cfg.Business),
		maxAdvance: fmt.Sprintf("P%dD", cfg.Limits.AdvanceDays),
	}
	for i := range cfg.Locations {
		loc := &cfg.Locations[i]
		zone := loc.Zone()
		for j := range loc.Units {
			u := &loc.Units[j]
			amount, err := price(*loc, *u, c.currency, pricer)
			if err != nil {
				return catalog{}, fmt.Errorf("usp catalog: %s price: %w", serviceID(loc.Slug, u.Type), err)
			}
			terms, err := u.Policy.Terms(c.currency)
			if err != nil {
				return catalog{}, fmt.Errorf("usp catalog: %s policy: %w", serviceID(loc.Slug, u.Type), err)
			}
			if !cfg.standalone() && terms.Timing == business.PayDeposit && amount > 0 && !checkout {
				// §7.6.1 fails closed: in UCP-Native Mode a deposit is
				// booked only through the UCP checkout with the payment
				// terms extension; without the checkout, the service is
				// not advertised at all.
				continue
			}
			c.pays = c.pays || terms.TakesMoney() && amount > 0
			if checkoutBooks(cfg, terms, amount) {
				c.checkout = true
				c.deposits = c.deposits || terms.Timing == business.PayDeposit
			}
			if _, ok := c.byLoc[loc.Slug]; !ok {
				c.byLoc[loc.Slug] = len(c.entries)
			}
			c.entries = append(c.entries, entry{loc: loc, unit: u, zone: zone, amount: amount})
		}
	}
	return c, nil
}

// price is a unit's price in minor units: a timed unit's per slot, a
// lodging unit's for a slot of its shortest stay.
func price(loc business.Location, u business.Unit, currency string, pricer *pricing.Pricer) (int64, error) {
	if u.Kind == business.KindTimed {
		return money.Parse(u.Price, currency)
	}
	n := stayNights(u)
	day := civil.Of(time.Date(2030, 1, 7, 12, 0, 0, 0, time.UTC), time.UTC)
	q, err := pricer.Quote(pricing.Stay{Location: loc, RoomType: u.Type, Checkin: day.String(), Checkout: day.AddDays(n).String()}, day)
	if err != nil {
		return 0, err
	}
	return q.Total, nil
}

// service writes out the service of e.
func (c *catalog) service(e entry) Service {
	loc, u := e.loc, e.unit
	name, description := c.words(e)
	s := Service{
		ID: serviceID(loc.Slug, u.Type), BusinessID: c.biz, Name: name, Description: description,
		Type: serviceType(*u), Categories: []Category{category(*u)},
		Pricing:   Price{Model: "fixed", Amount: e.amount, Currency: c.currency},
		Locations: []Place{{ID: loc.Slug, Name: loc.Name}},
		Channel:   Channel{Type: "at_business_location"}, Status: "active",
		loc: loc, zone: e.zone, unit: u,
	}
	// Policies the reservation core enforces and the unit's terms; the
	// catalog states them.
	policies := func(interval string) Policies {
		return Policies{
			Cancellation:     CancelPolicy{Allowed: true},
			Rescheduling:     ReschedulePolicy{Allowed: true},
			BookingWindow:    BookingWindow{MinAdvance: "PT0S", MaxAdvance: c.maxAdvance, SlotInterval: interval},
			ConfirmationMode: confirmationMode(*u),
		}
	}
	if u.Kind == business.KindTimed {
		length := isoDuration(time.Duration(u.DurationMinutes) * time.Minute)
		if u.Count > 1 {
			s.Capacity = &Capacity{Min: 1, Max: u.Count}
		}
		s.Duration = Duration{Fixed: length}
		s.Resources = []Resource{{Type: "equipment", Name: u.DisplayName()}}
		s.Policies = policies(length)
	} else {
		s.nights = stayNights(*u)
		s.Capacity = &Capacity{Min: 1, Max: u.Count}
		s.Duration = Duration{Fixed: fmt.Sprintf("P%dD", s.nights)}
		s.Policies = policies("P1D")
	}
	terms, _ := u.Policy.Terms(c.currency) // read without error by buildCatalog
	s.applyTerms(terms)
	s.terms = terms
	return s
}

// words are the name and description of e's service, which a list's
// query searches.
func (c *catalog) words(e entry) (name, description string) {
	loc, u := e.loc, e.unit
	if u.Kind == business.KindTimed {
		return u.DisplayName() + " at " + loc.Name, fmt.Sprintf("%s at %s: %d-minute slots from %s to %s local time (%s), %s per slot.",
			u.DisplayName(), loc.Name, u.DurationMinutes, u.Opens, u.Closes, loc.TimeZone, places(u.Count))
	}
	return roomName(*u) + " at " + loc.Name, fmt.Sprintf("A %s room at %s, %s per booking from check-in at %s local time (%s). Each spot is one room; %d rooms of this type. The price is for the whole stay, %s included.",
		u.DisplayName(), loc.Name, nightsText(stayNights(*u)), loc.CheckinHour, loc.TimeZone, u.Count, c.tax)
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

// get writes out the service of id.
func (c *catalog) get(id string) (Service, bool) {
	i, ok := c.find(id)
	if !ok {
		return Service{}, false
	}
	return c.service(c.entries[i]), true
}

// find returns the index of the entry of a service id. A slug holds no
// underscore (config.Validate); a unit type may.
func (c *catalog) find(id string) (int, bool) {
	slug, unitType, ok := strings.Cut(strings.TrimPrefix(id, "svc_"), "_")
	first, known := c.byLoc[slug]
	if !ok || !known || !strings.HasPrefix(id, "svc_") {
		return 0, false
	}
	for i := first; i < len(c.entries) && c.entries[i].loc == c.entries[first].loc; i++ {
		if c.entries[i].unit.Type == unitType {
			return i, true
		}
	}
	return 0, false
}

// all yields every service, written out one at a time.
func (c *catalog) all() iter.Seq[Service] {
	return func(yield func(Service) bool) {
		for _, e := range c.entries {
			if !yield(c.service(e)) {
				return
			}
		}
	}
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
		entry int
		score int
	}
	var matches []ranked
	for i, e := range b.catalog.entries {
		switch {
		case f.Type != "" && serviceType(*e.unit) != f.Type,
			len(cats) > 0 && !slices.Contains(cats, category(*e.unit).ID),
			f.LocationID != "" && e.loc.Slug != f.LocationID,
			f.Price.Min != nil && e.amount < *f.Price.Min,
			f.Price.Max != nil && e.amount > *f.Price.Max:
			continue
		}
		score := 0
		if len(words) > 0 {
			name, description := b.catalog.words(e)
			text := strings.ToLower(name + " " + description + " " + category(*e.unit).Name + " " + e.unit.Type)
			for _, w := range words {
				if strings.Contains(text, w) {
					score++
				}
			}
			if score == 0 {
				continue
			}
		}
		matches = append(matches, ranked{i, score})
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
		res.Services = append(res.Services, b.catalog.service(b.catalog.entries[matches[i].entry]))
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
