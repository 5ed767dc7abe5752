package reservation

import (
	"time"

	"frontdesk/business"
)

// Settings are the values of direct-booking.md §10 and §16 that owners
// change on the staff screen: the group's chat ceilings and closures, and
// each location's chat switch, ceilings and closures.
//
// Which source wins: a scope (the group, or one location) saved on the
// staff screen is kept whole in the store and wins over the config file
// for every value of that scope, across restarts; a scope never saved
// follows the file. The core reads the store's settings at every check
// that uses them, so every instance on one store sees an edit at once.
type Settings struct {
	Group     GroupSettings
	Locations map[string]LocationSettings // by slug; every configured location
	// Edited names the scopes saved on the staff screen: "group" and
	// location slugs.
	Edited []string
}

// GroupSettings are the hub's settings of §10 and the business closures.
type GroupSettings struct {
	EmailHourly int                `json:"chatPortfolioEmailHourly"`
	EmailDaily  int                `json:"chatPortfolioEmailDaily"`
	CancelDaily int                `json:"chatPortfolioCancelDaily"`
	Pending     int                `json:"chatPortfolioPendingLimit"`
	Closures    []business.Closure `json:"closures"`
	// OfficeHours are the weekly hours in force; a group saved before
	// they could be edited here keeps the file's.
	OfficeHours business.OfficeHours `json:"officeHours,omitzero"`
}

// LocationSettings are one location's settings of §10 and §16.
type LocationSettings struct {
	BookingEnabled bool               `json:"bookingEnabled"`
	EmailHourly    int                `json:"chatEmailHourly"`
	Pending        int                `json:"chatPendingLimit"`
	Closures       []business.Closure `json:"closures"`
}

// SettingsChange is one line of the settings audit: who saved which
// scope when, and each value that changed.
type SettingsChange struct {
	At      time.Time `json:"at"`
	By      string    `json:"by"`
	Scope   string    `json:"scope"` // "group" or a location slug
	Changes []string  `json:"changes"`
}

// ScopeGroup names the group's settings in Edited and SettingsChange.
const ScopeGroup = "group"

// EditedSettings is the stored record: only the scopes saved on the
// screen.
type EditedSettings struct {
	Group     *GroupSettings              `json:"group,omitempty"`
	Locations map[string]LocationSettings `json:"locations,omitempty"`
}
