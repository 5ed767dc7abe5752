// Package hub is the public front of a business with several locations:
// it resolves which property a call means and relays the call to that
// location's backend, in process today and over authenticated HTTP in a
// split deployment, where its Proxy also forwards the pages that name a
// property to that property's location.
//
// It imports business, location, pricing and the internal civil and clock
// helpers only.
package hub

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"frontdesk/business"
	"frontdesk/internal/civil"
	"frontdesk/internal/clock"
	"frontdesk/location"
	"frontdesk/pricing"
)

// Backend answers the read calls of the locations it serves. The
// in-process *location.Service is one; an HTTP relay is another.
type Backend interface {
	FindRooms(ctx context.Context, slug, checkin, checkout string) (location.Rooms, error)
	Quote(ctx context.Context, slug, roomType, checkin, checkout string) (pricing.Quote, error)
	Info(slug string) (location.Info, error)
}

var _ Backend = (*location.Service)(nil)

// Hub routes public calls to locations.
type Hub struct {
	cfg business.Portfolio
	// publicURL is where guests and agents reach this server.
	publicURL string
	pricer    *pricing.Pricer
	backend   Backend
	clock     clock.Clock
	// exact maps a location's slug, lowercased name and lowercased domain
	// to its index in cfg.Locations; the first location in config order
	// wins a shared key, as a scan would.
	exact map[string]int
}

// New returns a Hub.
func New(cfg business.Portfolio, publicURL string, pricer *pricing.Pricer, backend Backend, c clock.Clock) *Hub {
	exact := map[string]int{}
	for i, l := range cfg.Locations {
		for _, key := range []string{l.Slug, strings.ToLower(l.Name), strings.ToLower(l.Domain)} {
			if _, taken := exact[key]; key != "" && !taken {
				exact[key] = i
			}
		}
	}
	return &Hub{cfg: cfg, publicURL: publicURL, pricer: pricer, backend: backend, clock: c, exact: exact}
}

// Config returns the business the hub serves.
func (h *Hub) Config() business.Portfolio { return h.cfg }

// PublicURL is where guests and agents reach this server, such as
// "https://book.example.com", as the deployment states it.
func (h *Hub) PublicURL() string { return h.publicURL }

// Pricer returns the hub's pricer, for wording links and amounts.
func (h *Hub) Pricer() *pricing.Pricer { return h.pricer }

// Backend returns where calls are relayed.
func (h *Hub) Backend() Backend { return h.backend }

// ErrProperty is a property argument that names no single location. Its
// text is safe to show and lists the properties.
type ErrProperty struct{ Text string }

func (e *ErrProperty) Error() string { return e.Text }

// minShortName is the shortest text matched as a unique short name.
const minShortName = 3

// Resolve finds the location a property argument names: its slug, name or
// domain exactly (case-insensitive), or a unique short name of at least
// three characters that starts its slug, its domain or a word of its name.
func (h *Hub) Resolve(property string) (business.Location, error) {
	q := normalName(property)
	if i, ok := h.exact[q]; ok && q != "" {
		return h.cfg.Locations[i], nil
	}
	if len(q) >= minShortName {
		var found []business.Location
		for _, l := range h.cfg.Locations {
			if shortNameMatches(l, q) {
				found = append(found, l)
			}
		}
		if len(found) == 1 {
			return found[0], nil
		}
	}
	return business.Location{}, &ErrProperty{Text: fmt.Sprintf(
		"property must identify one property by name, slug or domain. Available properties: %s. Call %s.",
		h.LocationList(), h.cfg.Business.Phone)}
}

// normalName is a property as Resolve matches it: lowercased, its words
// one space apart. Every read call names a property, most often by its
// slug, which is returned as it is without building a copy.
func normalName(s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf || 'A' <= c && c <= 'Z' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' ||
			c == ' ' && (i == 0 || i == len(s)-1 || s[i-1] == ' ') {
			return strings.Join(strings.Fields(strings.ToLower(s)), " ")
		}
	}
	return s
}

func shortNameMatches(l business.Location, q string) bool {
	if strings.HasPrefix(l.Slug, q) || (l.Domain != "" && strings.HasPrefix(strings.ToLower(l.Domain), q)) {
		return true
	}
	words := strings.Fields(strings.ToLower(l.Name))
	for i := range words {
		if strings.HasPrefix(strings.Join(words[i:], " "), q) {
			return true
		}
	}
	return false
}

// maxListed is how many properties a sentence names before it points to
// list_properties for the rest.
const maxListed = 10

// LocationList names the properties for people: "Riverside Inn
// (riverside), Old Town Lodge (oldtown)", the first ten of a longer list
// followed by how many more list_properties gives.
func (h *Hub) LocationList() string {
	var names []string
	for _, l := range h.cfg.Locations[:min(len(h.cfg.Locations), maxListed)] {
		names = append(names, fmt.Sprintf("%s (%s)", l.Name, l.Slug))
	}
	if more := len(h.cfg.Locations) - maxListed; more > 0 {
		names = append(names, fmt.Sprintf("and %d more (list_properties names them all)", more))
	}
	return strings.Join(names, ", ")
}

// Page sizes of the answers that list properties. The demo's three fit
// on one page.
const (
	FindPageSize = 10
	ListPageSize = 25
)

// Page says which part of a long list of properties an answer holds.
type Page struct {
	Total    int `json:"total_properties" jsonschema:"properties in the whole list"`
	Number   int `json:"page" jsonschema:"this page, from 1"`
	Pages    int `json:"pages"`
	NextPage int `json:"next_page,omitempty" jsonschema:"pass as page to get the next properties; absent on the last page"`
}

// ErrPage is a page argument past the last page. Its text is safe to show.
type ErrPage struct{ Text string }

func (e *ErrPage) Error() string { return e.Text }

// paginate returns the bounds of page (from 1; 0 means 1) of total items
// in pages of size.
func paginate(total, page, size int) (from, to int, p Page, err error) {
	pages := max(1, (total+size-1)/size)
	if page == 0 {
		page = 1
	}
	if page < 1 || page > pages {
		return 0, 0, Page{}, &ErrPage{Text: fmt.Sprintf("page must be from 1 to %d.", pages)}
	}
	p = Page{Total: total, Number: page, Pages: pages}
	if page < pages {
		p.NextPage = page + 1
	}
	from = (page - 1) * size
	return from, min(total, from+size), p, nil
}

// PropertyPage is one page of list_properties.
type PropertyPage struct {
	Properties []Property `json:"properties"`
	Page
}

// Property is one entry of list_properties.
type Property struct {
	Property  string   `json:"property" jsonschema:"slug to pass as the property argument"`
	Name      string   `json:"name"`
	Domain    string   `json:"domain,omitempty"`
	Phone     string   `json:"phone"`
	TimeZone  string   `json:"time_zone"`
	RoomTypes []string `json:"roomtypes"`
	Services  []string `json:"timed_services"`
	MCPURL    string   `json:"mcp_url" jsonschema:"this property's own read-only MCP server"`
}

// Properties lists one page of the locations, in config order.
func (h *Hub) Properties(page int) (PropertyPage, error) {
	from, to, p, err := paginate(len(h.cfg.Locations), page, ListPageSize)
	if err != nil {
		return PropertyPage{}, err
	}
	out := []Property{}
	for _, l := range h.cfg.Locations[from:to] {
		prop := Property{Property: l.Slug, Name: l.Name, Domain: l.Domain, Phone: l.Phone, TimeZone: l.TimeZone,
			RoomTypes: []string{}, Services: []string{}, MCPURL: h.pricer.URL("/locations/" + l.Slug + "/mcp")}
		for _, u := range l.Units {
			if u.Kind == business.KindTimed {
				prop.Services = append(prop.Services, u.Type)
			} else {
				prop.RoomTypes = append(prop.RoomTypes, u.Type)
			}
		}
		out = append(out, prop)
	}
	return PropertyPage{Properties: out, Page: p}, nil
}

// Search is find_rooms across one or every location.
type Search struct {
	Checkin    string           `json:"checkin"`
	Checkout   string           `json:"checkout"`
	Nights     int              `json:"nights"`
	Properties []location.Rooms `json:"properties"`
	// Unread are the properties of the page that could not be read just
	// now: the search says so rather than claiming they have no room.
	Unread []Unread `json:"unread_properties,omitempty" jsonschema:"properties that could not be asked just now; call them or try again"`
	Page
}

// Unread is a property a search could not read.
type Unread struct {
	Property string `json:"property"`
	Name     string `json:"name"`
	Phone    string `json:"phone"`
}

// FindRooms searches one location when property is given, else one page
// of every location, in config order. A stay over the cap across every
// location gets the request-only cap wording; other date refusals are the
// location's.
func (h *Hub) FindRooms(ctx context.Context, property, checkin, checkout string, page int) (Search, error) {
	locs := h.cfg.Locations
	if strings.TrimSpace(property) != "" {
		l, err := h.Resolve(property)
		if err != nil {
			return Search{}, err
		}
		locs = []business.Location{l}
	} else if refusal := h.overCapEverywhere(checkin, checkout); refusal != nil {
		return Search{}, refusal
	}
	from, to, p, err := paginate(len(locs), page, FindPageSize)
	if err != nil {
		return Search{}, err
	}
	locs = locs[from:to]
	out := Search{Checkin: checkin, Checkout: checkout, Properties: []location.Rooms{}, Page: p}
	var failed error
	for _, l := range locs {
		rooms, err := h.backend.FindRooms(ctx, l.Slug, checkin, checkout)
		var refusal *pricing.Refusal
		switch {
		case err != nil && (len(locs) == 1 || errors.As(err, &refusal)):
			return Search{}, err
		case err != nil:
			// One location that cannot be read does not hide the others'
			// rooms; it is named as unread.
			failed = errors.Join(failed, err)
			out.Unread = append(out.Unread, Unread{Property: l.Slug, Name: l.Name, Phone: l.Phone})
			continue
		}
		out.Properties = append(out.Properties, rooms)
	}
	if len(out.Properties) == 0 && failed != nil {
		return Search{}, failed
	}
	in, _ := civil.Parse(checkin)
	outDate, _ := civil.Parse(checkout)
	out.Nights = in.DaysUntil(outDate)
	return out, nil
}

// overCapEverywhere returns the request-only cap refusal when both dates
// are real and the stay is longer than any location takes.
func (h *Hub) overCapEverywhere(checkin, checkout string) *pricing.Refusal {
	in, err1 := civil.Parse(checkin)
	out, err2 := civil.Parse(checkout)
	if err1 != nil || err2 != nil || in.DaysUntil(out) <= h.cfg.Limits.MaxStayNights {
		return nil
	}
	return h.pricer.StayCap(in, out)
}

// Quote prices a stay at the named property.
func (h *Hub) Quote(ctx context.Context, property, roomType, checkin, checkout string) (business.Location, pricing.Quote, error) {
	l, err := h.Resolve(property)
	if err != nil {
		return l, pricing.Quote{}, err
	}
	q, err := h.backend.Quote(ctx, l.Slug, roomType, checkin, checkout)
	var refusal *pricing.Refusal
	if err != nil && !errors.As(err, &refusal) {
		// The location could not answer: say so without guessing a figure.
		reason := "did not answer in time"
		if !errors.Is(err, context.DeadlineExceeded) {
			reason = "no quote in its answer"
		}
		return l, q, fmt.Errorf("%w: %w", h.pricer.QuoteOutage(l, reason), err)
	}
	return l, q, err
}

// Info describes the named property.
func (h *Hub) Info(property string) (location.Info, error) {
	l, err := h.Resolve(property)
	if err != nil {
		return location.Info{}, err
	}
	return h.backend.Info(l.Slug)
}
