package relay

import (
	"fmt"
	"io"
	"log/slog"
	"slices"

	"frontdesk/business"
	"frontdesk/direct"
	"frontdesk/internal/clock"
	"frontdesk/location"
	"frontdesk/referral"
	"frontdesk/staff/office"
)

// The roles of a split deployment's processes.
const (
	RoleHub      = "hub"
	RoleLocation = "location"
)

// SplitOptions are what a process of a split deployment is built from.
type SplitOptions struct {
	Role string // RoleHub or RoleLocation
	// Secret is the shared secret's versions, as ParseKeys reads them.
	Secret string
	// Origins are the hub's: each location's process, by slug.
	Origins map[string]string
	// Hub is a location's: the hub's origin, where the group's control
	// data is kept; Others are the group's other locations.
	Hub    string
	Others []string
	// ORPLocation is the location that hosts the ORP host; "" for the
	// hub's own, or in a location's file for its own.
	ORPLocation string
	Portfolio   business.Portfolio
	Deployment  business.Deployment
	Locations   *location.Service // this process's reads
	Bookings    *direct.Service   // this process's booking service
	Office      *office.Office    // this process's staff screen's reads and decisions
	Clock       clock.Clock
	Rand        io.Reader
	Log         *slog.Logger
}

// Split is what a split role adds to a process: a location's relay
// endpoint, or the hub's relayed reads, booking door and the proxy of
// the pages that name a property.
type Split struct {
	Server  *Server  // a location's, and the hub's control operations
	Backend *Backend // the hub's
	Door    *Door    // the hub's
	// orpHere says this location hosts the ORP host; reports, when set,
	// tells another location's of this one's attributed bookings.
	orpHere bool
	reports *reporter
	hub     *Client // a location's client of the hub, when it has one
	log     *slog.Logger
}

// UseReferrals makes bookings attribute to partners: on ledger's host,
// in one process, at the hub and at the location that hosts ORP, which
// also records the other locations' reports; at another location, by
// reporting each attributed booking and its end to that one.
func (s *Split) UseReferrals(bookings *direct.Service, ledger *referral.Ledger) {
	if s != nil && s.reports != nil {
		s.reports.attach(bookings)
		return
	}
	bookings.UseReferrals(ledger)
	if s != nil && s.orpHere {
		serveORPReports(s.Server, ledger)
	}
}

// Open builds the role o names; nil for none.
func Open(o SplitOptions) (*Split, error) {
	if o.Role == "" {
		return nil, nil
	}
	keys, err := ParseKeys(o.Secret)
	if err != nil {
		return nil, err
	}
	switch o.Role {
	case RoleLocation:
		s := NewServer(ServerOptions{Keys: keys, Clock: o.Clock, Deployment: o.Deployment, Phone: PhoneOf(o.Portfolio), Log: o.Log})
		ServeReads(s, o.Locations)
		ServeBookings(s, o.Bookings)
		ServeStaff(s, o.Office, o.Portfolio.Locations[0])
		split := &Split{Server: s, log: s.o.Log, orpHere: o.ORPLocation != "" && slices.ContainsFunc(o.Portfolio.Locations, func(l business.Location) bool { return l.Slug == o.ORPLocation })}
		if o.Hub == "" {
			return split, nil
		}
		hub, err := hubClient(o, keys)
		if err != nil {
			return nil, err
		}
		c, err := newControl(o, hub)
		if err != nil {
			return nil, err
		}
		split.hub = hub
		o.Bookings.UseControl(c, o.Others)
		if o.ORPLocation != "" && !split.orpHere {
			split.reports = &reporter{hub: hub, st: o.Bookings.Store()}
		}
		return split, nil
	case RoleHub:
		client, err := NewClient(ClientOptions{Origins: o.Origins, Keys: keys, Clock: o.Clock, Rand: o.Rand})
		if err != nil {
			return nil, err
		}
		s := NewServer(ServerOptions{Keys: keys, Clock: o.Clock, Deployment: o.Deployment, Phone: PhoneOf(o.Portfolio), Log: o.Log})
		ServeControl(s, direct.NewControlStore(o.Bookings))
		if o.ORPLocation != "" {
			forwardORPReports(s, client, o.ORPLocation)
		}
		o.Office.UseRemote(&StaffRemote{c: client})
		return &Split{Server: s, Backend: NewBackend(client), Door: NewDoor(client, o.Bookings)}, nil
	}
	return nil, fmt.Errorf("split role %q is neither %q nor %q", o.Role, RoleHub, RoleLocation)
}

// PhoneOf is the phone of a location by slug, the business's for
// another.
func PhoneOf(p business.Portfolio) func(slug string) string {
	return func(slug string) string {
		for _, l := range p.Locations {
			if l.Slug == slug {
				return l.Phone
			}
		}
		return p.Business.Phone
	}
}
