package relay

import (
	"fmt"
	"io"
	"log/slog"

	"frontdesk/business"
	"frontdesk/direct"
	"frontdesk/internal/clock"
	"frontdesk/location"
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
	Hub        string
	Others     []string
	Portfolio  business.Portfolio
	Deployment business.Deployment
	Locations  *location.Service // this process's reads
	Bookings   *direct.Service   // this process's booking service
	Office     *office.Office    // this process's staff screen's reads and decisions
	Clock      clock.Clock
	Rand       io.Reader
	Log        *slog.Logger
}

// Split is what a split role adds to a process: a location's relay
// endpoint, or the hub's relayed reads, booking door and the proxy of
// the pages that name a property.
type Split struct {
	Server  *Server  // a location's, and the hub's control operations
	Backend *Backend // the hub's
	Door    *Door    // the hub's
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
		if o.Hub != "" {
			c, err := newControl(o, keys)
			if err != nil {
				return nil, err
			}
			o.Bookings.UseControl(c, o.Others)
		}
		return &Split{Server: s}, nil
	case RoleHub:
		client, err := NewClient(ClientOptions{Origins: o.Origins, Keys: keys, Clock: o.Clock, Rand: o.Rand})
		if err != nil {
			return nil, err
		}
		s := NewServer(ServerOptions{Keys: keys, Clock: o.Clock, Deployment: o.Deployment, Phone: PhoneOf(o.Portfolio), Log: o.Log})
		ServeControl(s, direct.NewControlStore(o.Bookings))
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
