package config

import (
	"fmt"
	"regexp"

	"frontdesk/business"
	"frontdesk/internal/outbound"
)

// Channels are the iCalendar feeds that keep the inventory in step with
// the listing sites (Airbnb, Booking.com, Vrbo…); docs/channels.md.
type Channels struct {
	// EveryMinutes is how often each feed is fetched, jittered; 0 means 15.
	EveryMinutes int `toml:"every_minutes"`
	// TimeoutSeconds bounds one fetch; 0 means 10.
	TimeoutSeconds int `toml:"timeout_seconds"`
	// MaxBytes is the largest feed read; 0 means 4 MiB.
	MaxBytes int64         `toml:"max_bytes"`
	Feeds    []ChannelFeed `toml:"feeds"`
}

// ChannelFeed is one channel listing's calendar imported into one unit
// type: its blocks become holds with source "ical:" and the name.
type ChannelFeed struct {
	Name     string `toml:"name"`
	URL      string `toml:"url"`
	Location string `toml:"location"`
	Unit     string `toml:"unit"`
	// Listing is which unit of the type (1 to its count) the channel's
	// listing is; that unit's export feed leaves this feed's blocks out.
	Listing int `toml:"listing"`
}

var channelName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,39}$`)

// OutboundRule is the address rule of every outbound fetch under this
// configuration: loopback only for development.
func (c Config) OutboundRule() outbound.Rule {
	return outbound.Rule{Loopback: c.AllowPrivate()}
}

func (c Config) validateChannels(v *validator) {
	ch := c.Channels
	if ch.EveryMinutes < 0 || ch.EveryMinutes > 1440 {
		v.add("channels.every_minutes", "must be 0 (the default, 15) or from 1 to 1440, got %d", ch.EveryMinutes)
	}
	if ch.TimeoutSeconds != 0 && (ch.TimeoutSeconds < 1 || ch.TimeoutSeconds > 20) {
		v.add("channels.timeout_seconds", "must be 0 (the default, 10) or from 1 to 20, got %d", ch.TimeoutSeconds)
	}
	if ch.MaxBytes != 0 && (ch.MaxBytes < 64<<10 || ch.MaxBytes > 64<<20) {
		v.add("channels.max_bytes", "must be 0 (the default, 4194304) or from 65536 to 67108864, got %d", ch.MaxBytes)
	}
	rule := c.OutboundRule()
	seen := map[string]int{}
	for i, f := range ch.Feeds {
		at := fmt.Sprintf("channels.feeds[%d]", i)
		if !channelName.MatchString(f.Name) {
			v.add(at+".name", "must be 1 to 40 lowercase letters, digits and dashes, such as \"airbnb-garden\", got %q", f.Name)
		} else if j, dup := seen[f.Name]; dup {
			v.add(at+".name", "%q is the name of channels.feeds[%d] too; each feed needs its own", f.Name, j)
		} else {
			seen[f.Name] = i
		}
		if err := rule.CheckURL(f.URL); err != nil {
			v.add(at+".url", "is refused: %v (give the https address of the channel's calendar export; a feed on this machine is fetched only in development, with outbound.allow_private = true; private networks never)", err)
		}
		var loc *business.Location
		for j := range c.Locations {
			if c.Locations[j].Slug == f.Location {
				loc = &c.Locations[j]
			}
		}
		if loc == nil {
			v.add(at+".location", "%q is no location's slug", f.Location)
			continue
		}
		u, ok := loc.Unit(f.Unit)
		switch {
		case !ok:
			v.add(at+".unit", "%q is no unit type of location %q", f.Unit, f.Location)
		case u.Kind == business.KindTimed:
			v.add(at+".unit", "%q is sold by the slot; channel feeds block nights", f.Unit)
		case f.Listing < 1 || f.Listing > u.Count:
			v.add(at+".listing", "must be one of the %d units of %q (1 to %d), got %d", u.Count, f.Unit, u.Count, f.Listing)
		}
	}
}
