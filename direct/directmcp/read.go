package directmcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"frontdesk/business"
	"frontdesk/direct"
	"frontdesk/direct/chatdoor"
	"frontdesk/hub"
	"frontdesk/internal/jsonappend"
	"frontdesk/location"
	"frontdesk/mcpfront"
	"frontdesk/pricing"
)

// Refusal is an answer the tool gives instead of a result: safe to show,
// worded for the guest.
type Refusal interface {
	error
	refusal()
}

// shown wraps a sentence that is safe to return as a tool error.
type shown struct{ text string }

func (s shown) Error() string { return s.text }
func (shown) refusal()        {}

// Show marks text as a refusal to return verbatim.
func Show(text string) error { return shown{text} }

// Read-tool descriptions. They say what the tool does for an agent; they
// never instruct it.
const (
	describeList         = "Lists the business's properties with their slugs, phones, room types, timed services and each property's own read-only MCP address, 25 to a page; the answer gives the total, the page count and the next page."
	describeFind         = "Shows which room types are free for every night of a stay, with the price of the whole stay where it can be quoted. Without a property it searches every property, 10 to a page; the answer gives the total, the page count and the next page. Nothing is held."
	describeFindLocation = "Shows which room types of this property are free for every night of a stay, with the price of the whole stay where it can be quoted. Nothing is held."
	describeQuote        = "Prices a stay in one room type: nights, subtotal, tax and total, in the business's currency. Minimum stays, weekly-only rooms, the stay cap and the booking horizon apply. Nothing is held."
	describeInfo         = "Describes a property: phone, time zone, check-in hour, office hours, room types with minimum stays and rates, timed services, policy and privacy pages and the booking form."
)

var (
	propertyArg = mcpfront.Str(120, "Property name, slug, domain or unique short name.")
	pageArg     = &jsonschema.Schema{Type: "integer", Minimum: ptr(1.0), Description: "Page of a long list of properties, from 1; default 1. The answer gives the page count and next_page."}
	checkinArg  = mcpfront.Str(10, "Arrival date, YYYY-MM-DD.")
	checkoutArg = mcpfront.Str(10, "Departure date, YYYY-MM-DD.")
)

func roomTypeArgs(props map[string]*jsonschema.Schema) []string {
	props["roomtype"] = mcpfront.Str(20, "Room type, such as single, double or studio; case-insensitive.")
	for _, alias := range []string{"roomType", "room_type", "type", "room"} {
		props[alias] = mcpfront.Str(20, "Read the same as roomtype.")
	}
	return []string{"roomtype", "roomType", "room_type", "type", "room"}
}

func ptr[T any](v T) *T { return &v }

func guestsArg() *jsonschema.Schema {
	one := 1.0
	return &jsonschema.Schema{Type: "integer", Minimum: &one, Description: "Guest count, subject to the room limit; default 1."}
}

type listIn struct {
	Page int `json:"page"`
}

type findIn struct {
	Property string `json:"property"`
	Checkin  string `json:"checkin"`
	Checkout string `json:"checkout"`
	Page     int    `json:"page"`
}

type quoteIn struct {
	Property  string `json:"property"`
	RoomType  string `json:"roomtype"`
	RoomTypeC string `json:"roomType"`
	RoomTypeS string `json:"room_type"`
	Type      string `json:"type"`
	Room      string `json:"room"`
	Checkin   string `json:"checkin"`
	Checkout  string `json:"checkout"`
	Guests    *int   `json:"guests"`
}

// roomType is the first room type given under any of its accepted names.
func (q quoteIn) roomType() string {
	for _, v := range []string{q.RoomType, q.RoomTypeC, q.RoomTypeS, q.Type, q.Room} {
		if v != "" {
			return v
		}
	}
	return ""
}

type quoteOut struct {
	Property  string      `json:"property"`
	Name      string      `json:"name"`
	RoomType  string      `json:"roomtype"`
	Checkin   string      `json:"checkin"`
	Checkout  string      `json:"checkout"`
	Nights    int         `json:"nights"`
	Subtotal  json.Number `json:"subtotal"`
	Tax       json.Number `json:"tax"`
	TaxLabel  string      `json:"tax_label"`
	Total     json.Number `json:"total"`
	Currency  string      `json:"currency"`
	RateBasis string      `json:"rate_basis" jsonschema:"nightly, weekly or weekly+nightly"`
	Form      string      `json:"booking_form"`
}

// AppendJSON appends q as json.Marshal writes it: quote_stay answers with
// one on every call (TestQuoteJSONIsEncodingJSONs).
func (q quoteOut) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"property":`...)
	b = jsonappend.String(b, q.Property)
	b = append(b, `,"name":`...)
	b = jsonappend.String(b, q.Name)
	b = append(b, `,"roomtype":`...)
	b = jsonappend.String(b, q.RoomType)
	b = append(b, `,"checkin":`...)
	b = jsonappend.String(b, q.Checkin)
	b = append(b, `,"checkout":`...)
	b = jsonappend.String(b, q.Checkout)
	b = append(b, `,"nights":`...)
	b = jsonappend.Int(b, q.Nights)
	b = append(b, `,"subtotal":`...)
	b, err := jsonappend.Number(b, q.Subtotal)
	if err != nil {
		return b, err
	}
	b = append(b, `,"tax":`...)
	if b, err = jsonappend.Number(b, q.Tax); err != nil {
		return b, err
	}
	b = append(b, `,"tax_label":`...)
	b = jsonappend.String(b, q.TaxLabel)
	b = append(b, `,"total":`...)
	if b, err = jsonappend.Number(b, q.Total); err != nil {
		return b, err
	}
	b = append(b, `,"currency":`...)
	b = jsonappend.String(b, q.Currency)
	b = append(b, `,"rate_basis":`...)
	b = jsonappend.String(b, q.RateBasis)
	b = append(b, `,"booking_form":`...)
	b = jsonappend.String(b, q.Form)
	return append(b, '}'), nil
}

type infoIn struct {
	Property string `json:"property"`
}

// readTools answers the read tools for the hub (every location) or for one
// location (slug set).
type readTools struct {
	hub  *hub.Hub
	slug string // empty on the hub
	// hours, when set, gives the office hours in force, which win over
	// the file's that the hub's Info reports.
	hours hoursInForce
	// defs, when set, are the tool Definitions every location server
	// shares; nil derives them for this server alone.
	defs *mcpfront.Definitions
	// infos keeps the property_info answers this server gave.
	infos *infoCache
}

// hoursInForce gives the office hours in force: the file's, or those an
// owner saved on the settings page.
type hoursInForce interface {
	OfficeHours(ctx context.Context) (business.OfficeHours, error)
}

// hoursFrom is the source of the hours in force, none without bookings
// (the file's hours are then the only ones).
func hoursFrom(bookings *direct.Service) hoursInForce {
	if bookings == nil {
		return nil
	}
	return bookings
}

func (r readTools) property(arg string) string {
	if r.slug != "" {
		return r.slug
	}
	return arg
}

func (r readTools) list(ctx context.Context, in listIn) (hub.PropertyPage, string, error) {
	page, err := r.hub.Properties(in.Page)
	if err != nil {
		return page, "", err
	}
	var names []string
	for _, p := range page.Properties {
		names = append(names, fmt.Sprintf("%s (%s)", p.Name, p.Property))
	}
	if page.Pages == 1 {
		return page, fmt.Sprintf("%d properties: %s.", page.Total, strings.Join(names, ", ")), nil
	}
	return page, fmt.Sprintf("%d properties; %s: %s.%s", page.Total, pageWords(page.Page), strings.Join(names, ", "), nextWords("list_properties", page.Page)), nil
}

// pageWords and nextWords word a page of a long list: "page 2 of 40"
// and how to ask for the next one.
func pageWords(p hub.Page) string {
	return fmt.Sprintf("page %d of %d", p.Number, p.Pages)
}

func nextWords(tool string, p hub.Page) string {
	if p.NextPage == 0 {
		return ""
	}
	return fmt.Sprintf(" Call %s with page %d for more.", tool, p.NextPage)
}

func (r readTools) find(ctx context.Context, in findIn) (hub.Search, string, error) {
	s, err := r.hub.FindRooms(ctx, r.property(in.Property), in.Checkin, in.Checkout, in.Page)
	if err != nil {
		return s, "", err
	}
	free, bookable := 0, 0
	for _, p := range s.Properties {
		for _, room := range p.Rooms {
			free += room.Free
			if room.Bookable {
				bookable++
			}
		}
	}
	var where string
	switch {
	case s.Pages > 1:
		where = fmt.Sprintf("across %d of %d properties (%s)", len(s.Properties), s.Total, pageWords(s.Page))
	case len(s.Properties) == 1:
		where = "at " + s.Properties[0].Name
	default:
		where = "across " + strconv.Itoa(len(s.Properties)) + " properties"
	}
	unread := ""
	for _, u := range s.Unread {
		unread += fmt.Sprintf(" %s could not be read just now: call %s or try again.", u.Name, u.Phone)
	}
	// Joined, not formatted: every call says it, and fmt costs a read
	// call about a microsecond more.
	return s, s.Checkin + " to " + s.Checkout + ", " + direct.NightsWord(s.Nights) + ": " + strconv.Itoa(free) + " rooms free " +
		where + "; " + strconv.Itoa(bookable) + " room types bookable for these dates." + unread + nextWords("find_rooms", s.Page), nil
}

func (r readTools) quote(ctx context.Context, in quoteIn) (quoteOut, string, error) {
	max := r.hub.Config().Limits.MaxGuests
	if in.Guests != nil && (*in.Guests < 1 || *in.Guests > max) {
		return quoteOut{}, "", Show(fmt.Sprintf("guests must be a whole-number count from 1 to %d.", max))
	}
	l, q, err := r.hub.Quote(ctx, r.property(in.Property), in.roomType(), in.Checkin, in.Checkout)
	if err != nil {
		return quoteOut{}, "", err
	}
	p := r.hub.Pricer()
	tax := r.hub.Config().Business.TaxLabel
	out := quoteOut{
		Property: l.Slug, Name: l.Name, RoomType: q.RoomType,
		Checkin: q.Checkin.String(), Checkout: q.Checkout.String(), Nights: q.Nights,
		Subtotal: p.Amount(q.Subtotal), Tax: p.Amount(q.Tax), TaxLabel: tax, Total: p.Amount(q.Total),
		Currency: q.Currency, RateBasis: q.RateBasis,
		Form: p.FormURL(l, q.RoomType, q.Checkin.String(), q.Checkout.String()),
	}
	summary := l.Name + ", " + q.RoomType + ", " + out.Checkin + " to " + out.Checkout + ", " + direct.NightsWord(q.Nights) + ": " +
		p.Display(q.Subtotal) + " + " + p.Display(q.Tax) + " " + tax + " = " + p.Display(q.Total) + "."
	return out, summary, nil
}

func (r readTools) info(ctx context.Context, in infoIn) (location.Info, string, error) {
	l, err := r.hub.Resolve(r.property(in.Property))
	if err != nil {
		return location.Info{}, "", err
	}
	var hours *business.OfficeHours
	if r.hours != nil {
		h, err := r.hours.OfficeHours(ctx)
		if err != nil {
			return location.Info{}, "", err
		}
		hours = &h
	}
	if a, ok := r.infos.get(l.Slug, hours); ok {
		return a.info, a.summary, nil
	}
	info, err := r.hub.Info(l.Slug)
	if err != nil {
		return info, "", err
	}
	if hours != nil {
		info.OfficeHours = location.OfficeHoursText(*hours)
	}
	var types []string
	for _, u := range info.UnitTypes {
		types = append(types, u.RoomType)
	}
	summary := fmt.Sprintf("%s, %s, check-in %s %s, sells %s.", info.Name, info.Phone, info.CheckinHour, info.TimeZone, strings.Join(types, ", "))
	r.infos.put(l.Slug, hours, infoAnswer{info: info, summary: summary})
	return info, summary, nil
}

// infoCache keeps each property's property_info answer. Everything in
// it comes from the config, which does not change while the process
// runs, except the office hours in force, which an owner may save at any
// time, on any instance: so the hours are read from the store on every
// call, as before, and an answer is reused only for the very hours it was
// built with. It holds one answer per configured property.
type infoCache struct {
	mu      sync.Mutex
	answers map[string]infoAnswer // by slug
}

type infoAnswer struct {
	hours   business.OfficeHours
	noHours bool // built without hours in force: the file's stand
	info    location.Info
	summary string
}

func newInfoCache() *infoCache { return &infoCache{answers: map[string]infoAnswer{}} }

// get returns the answer kept for slug if it was built with hours (nil:
// no hours in force).
func (c *infoCache) get(slug string, hours *business.OfficeHours) (infoAnswer, bool) {
	c.mu.Lock()
	a, ok := c.answers[slug]
	c.mu.Unlock()
	if !ok || a.noHours != (hours == nil) || hours != nil && a.hours != *hours {
		return infoAnswer{}, false
	}
	return a, true
}

func (c *infoCache) put(slug string, hours *business.OfficeHours, a infoAnswer) {
	a.noHours = hours == nil
	if hours != nil {
		a.hours = *hours
	}
	c.mu.Lock()
	c.answers[slug] = a
	c.mu.Unlock()
}

// safe words an error for the caller. Refusals are shown as they are,
// coded by their kind; anything else is an internal fault, worded
// without detail.
func (r readTools) safe(err error) (string, string, bool) {
	var refusal *pricing.Refusal
	var property *hub.ErrProperty
	var page *hub.ErrPage
	var show shown
	switch {
	case errors.As(err, &refusal):
		return refusal.Text, string(refusal.Kind), refusal.Kind == pricing.RefusalQuoteOutage
	case errors.As(err, &property):
		return property.Text, "unknown_property", false
	case errors.As(err, &page):
		return page.Text, "bad_page", false
	case errors.As(err, &show):
		return show.text, "refused", false
	}
	phone := r.hub.Config().Business.Phone
	if l, lerr := r.hub.Resolve(r.slug); r.slug != "" && lerr == nil {
		phone = l.Phone
	}
	return fmt.Sprintf("Availability cannot be checked right now. Try again in a few minutes or call %s.", phone), mcpfront.CodeInternal, true
}

// NewHub returns the hub's MCP server: the read tools and, when bookings
// is set, the four booking tools. door, when set, is what the booking
// tools call instead of the chat door over bookings: the relay of a
// split deployment's hub.
func NewHub(h *hub.Hub, bookings *direct.Service, door Door, opts mcpfront.Options) *mcp.Server {
	s := mcpfront.NewServer(&mcp.Implementation{Name: "frontdesk", Title: h.Config().Business.Name, Version: opts.Version},
		hubInstructions(h.Config().Business.Name, h.Config().Business.ConfirmHours, bookings != nil), "hub", opts)
	r := readTools{hub: h, hours: hoursFrom(bookings), infos: newInfoCache()}
	env := mcpfront.Env{Server: "hub", Log: opts.Log(), Metrics: opts.Metrics, Safe: r.safe}
	addReadTools(s, env, r)
	if bookings != nil {
		if door == nil {
			door = chatdoor.New(bookings)
		}
		addBookingTools(s, env, bookingTools{door: door, phone: h.Config().Business.Phone})
	}
	return s
}

// newLocation returns one location's public MCP server: read tools only,
// never a booking tool.
func newLocation(h *hub.Hub, hours hoursInForce, slug string, opts mcpfront.Options, defs *mcpfront.Definitions) (*mcp.Server, error) {
	l, err := h.Resolve(slug)
	if err != nil || l.Slug != slug {
		return nil, fmt.Errorf("location server: unknown slug %q", slug)
	}
	s := mcpfront.NewServer(&mcp.Implementation{Name: "frontdesk-" + slug, Title: l.Name, Version: opts.Version},
		locationInstructions(l.Name, h.PublicURL()+"/mcp"), "location:"+slug, opts)
	r := readTools{hub: h, slug: slug, defs: defs, hours: hours, infos: newInfoCache()}
	env := mcpfront.Env{Server: "location:" + slug, Log: opts.Log(), Metrics: opts.Metrics, Safe: r.safe}
	addReadTools(s, env, r)
	return s, nil
}

// Locations serves every location's public MCP server on the route
// /locations/{slug}/mcp. A location's server is built on its first
// request, from tool Definitions that all of them share, so a business
// of a thousand properties starts as fast as one of three and holds
// servers only for the properties asked about. Their office hours are
// those in force in bookings, when set, as on the hub's server.
func Locations(h *hub.Hub, bookings *direct.Service, opts mcpfront.Options, httpOpts mcpfront.HTTPOptions) http.Handler {
	return &locationServers{hub: h, hours: hoursFrom(bookings), opts: opts, httpOpts: httpOpts, defs: mcpfront.NewDefinitions(), handlers: map[string]http.Handler{}}
}

type locationServers struct {
	hub      *hub.Hub
	hours    hoursInForce
	opts     mcpfront.Options
	httpOpts mcpfront.HTTPOptions
	defs     *mcpfront.Definitions
	mu       sync.Mutex
	handlers map[string]http.Handler // by slug, built on first request
}

func (l *locationServers) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h, err := l.handler(r.PathValue("slug"))
	if err != nil {
		mcpfront.WriteError(w, http.StatusNotFound, -32600, "Not Found: no property is served at this address.")
		return
	}
	h.ServeHTTP(w, r)
}

func (l *locationServers) handler(slug string) (http.Handler, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if h, ok := l.handlers[slug]; ok {
		return h, nil
	}
	s, err := newLocation(l.hub, l.hours, slug, l.opts, l.defs)
	if err != nil {
		return nil, err
	}
	h := mcpfront.Handler(s, l.httpOpts)
	l.handlers[slug] = h
	return h, nil
}

func addReadTools(s *mcp.Server, env mcpfront.Env, r readTools) {
	onHub := r.slug == ""
	withProperty := func(order []string, props map[string]*jsonschema.Schema) []string {
		if onHub {
			props["property"] = propertyArg
			return append([]string{"property"}, order...)
		}
		return order
	}
	if onHub {
		mcpfront.AddShared(s, env, r.defs, mcpfront.Tool[listIn, hub.PropertyPage]{
			Name: "list_properties", Title: "List properties", Description: describeList,
			ReadOnly: true, Idempotent: true, Input: mcpfront.Object([]string{"page"}, map[string]*jsonschema.Schema{"page": pageArg}),
			NeverNull: true, Run: r.list,
		})
	}

	findDescription := describeFindLocation
	if onHub {
		findDescription = describeFind
	}
	findProps := map[string]*jsonschema.Schema{"checkin": checkinArg, "checkout": checkoutArg}
	findOrder := withProperty([]string{"checkin", "checkout"}, findProps)
	if onHub {
		findProps["page"] = pageArg
		findOrder = append(findOrder, "page")
	}
	mcpfront.AddShared(s, env, r.defs, mcpfront.Tool[findIn, hub.Search]{
		Name: "find_rooms", Title: "Find free rooms", Description: findDescription,
		ReadOnly: true, Idempotent: true, Input: mcpfront.Object(findOrder, findProps, "checkin", "checkout"),
		NeverNull: true, Run: r.find,
	})

	quoteProps := map[string]*jsonschema.Schema{"checkin": checkinArg, "checkout": checkoutArg, "guests": guestsArg()}
	quoteOrder := withProperty(append(roomTypeArgs(quoteProps), "checkin", "checkout", "guests"), quoteProps)
	quoteRequired := []string{"checkin", "checkout"}
	if onHub {
		quoteRequired = append([]string{"property"}, quoteRequired...)
	}
	mcpfront.AddShared(s, env, r.defs, mcpfront.Tool[quoteIn, quoteOut]{
		Name: "quote_stay", Title: "Quote a stay", Description: describeQuote,
		ReadOnly: true, Idempotent: true, Input: mcpfront.Object(quoteOrder, quoteProps, quoteRequired...),
		NeverNull: true, Run: r.quote,
	})

	infoProps := map[string]*jsonschema.Schema{}
	infoOrder := withProperty(nil, infoProps)
	var infoRequired []string
	if onHub {
		infoRequired = []string{"property"}
	}
	mcpfront.AddShared(s, env, r.defs, mcpfront.Tool[infoIn, location.Info]{
		Name: "property_info", Title: "Property information", Description: describeInfo,
		ReadOnly: true, Idempotent: true, Input: mcpfront.Object(infoOrder, infoProps, infoRequired...),
		NeverNull: true, Run: r.info,
	})
}
