package office

import "strings"

// Setting is one adjustable setting as people read it: the settings form
// labels its field with Label and Unit, and the audit words its changes
// the same way, so both speak of a setting in the same words.
type Setting struct {
	Key   string // as the config file and the audit's stored lines name it
	Label string
	Unit  string // what its number counts; empty when it has none
}

// settings lists every setting the staff screen edits, by key.
var settings = map[string]Setting{
	"officeHours":               {Key: "officeHours", Label: "Office hours, local time"},
	"chatPortfolioEmailHourly":  {Key: "chatPortfolioEmailHourly", Label: "Chat booking codes all properties together may email in one hour", Unit: "codes per hour"},
	"chatPortfolioEmailDaily":   {Key: "chatPortfolioEmailDaily", Label: "Chat booking codes all properties together may email in one day", Unit: "codes per day"},
	"chatPortfolioCancelDaily":  {Key: "chatPortfolioCancelDaily", Label: "Cancellation codes all properties together may email in one day", Unit: "codes per day"},
	"chatPortfolioPendingLimit": {Key: "chatPortfolioPendingLimit", Label: "Chat reservations that may wait for staff across all properties at once", Unit: "reservations"},
	"bookingEnabled":            {Key: "bookingEnabled", Label: "Chat booking on at this property"},
	"chatEmailHourly":           {Key: "chatEmailHourly", Label: "Chat booking codes this property may email in one hour", Unit: "codes per hour"},
	"chatPendingLimit":          {Key: "chatPendingLimit", Label: "Chat reservations that may wait for staff at this property at once", Unit: "reservations"},
	"closures":                  {Key: "closures", Label: "Office closures"},
}

// SettingNamed is the setting a key names; an unknown key comes back as
// its own label, so nothing is hidden.
func SettingNamed(key string) Setting {
	if s, ok := settings[key]; ok {
		return s
	}
	return Setting{Key: key, Label: key}
}

// AuditText words one stored audit line, "key: old → new", with the
// setting's label and unit, as "Label: old → new unit". Switches read
// on and off.
func AuditText(line string) string {
	key, change, ok := strings.Cut(line, ": ")
	if !ok {
		return line
	}
	s := SettingNamed(key)
	if s.Key == "bookingEnabled" {
		change = strings.NewReplacer("true", "on", "false", "off").Replace(change)
	}
	if s.Unit != "" {
		change += " " + s.Unit
	}
	return s.Label + ": " + change
}
