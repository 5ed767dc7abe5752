package web

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"frontdesk/business"
	"frontdesk/reservation"
	"frontdesk/staff"
	"frontdesk/staff/office"
)

// settingsForm is one scope's settings as the page shows them.
type settingsForm struct {
	Scope, Name                    string
	Location                       bool // a location's form, with its switch
	BookingEnabled                 bool
	EmailHourly, EmailDaily        string
	CancelDaily, Pending, Closures string
	Edited                         bool // saved here, so it wins over the file
	Problems                       reservation.FormProblems
	// InForce is the scope's values in force, shown beside what was
	// typed.
	InForce settingsInForce
	// Hours are the group's office hours, a field a weekday.
	Hours []dayHours
}

// settingsInForce are the values the booking core applies now.
type settingsInForce struct {
	BookingEnabled                                bool
	EmailHourly, EmailDaily, CancelDaily, Pending int
}

type settingsData struct {
	Forms []settingsForm
	Audit []auditLine
	Saved string
	Zone  *time.Location // the business's, for the audit's times
}

// dayHours is one weekday's office hours as the page shows them: typed,
// and in force.
type dayHours struct{ Key, Day, Hours, InForce string }

// officeHours lists the week's office hours, Monday first.
func officeHours(typed, inForce business.OfficeHours) []dayHours {
	var out []dayHours
	for _, d := range office.Weekdays() {
		out = append(out, dayHours{Key: office.DayKey(d), Day: d.String(), Hours: typed.ForDay(d), InForce: inForce.ForDay(d)})
	}
	return out
}

// postedOfficeHours is the week as the form typed it.
func postedOfficeHours(days []dayHours) business.OfficeHours {
	v := url.Values{}
	for _, d := range days {
		v.Set("hours_"+d.Key, d.Hours)
	}
	return postedHours(v)
}

// postedHours reads the group form's office hours.
func postedHours(p url.Values) business.OfficeHours {
	get := func(d string) string { return strings.TrimSpace(p.Get("hours_" + d)) }
	return business.OfficeHours{Mon: get("mon"), Tue: get("tue"), Wed: get("wed"), Thu: get("thu"), Fri: get("fri"), Sat: get("sat"), Sun: get("sun")}
}

// auditLine is one change of settings as the page words it: the scope
// by its name, each change by its setting's label and unit.
type auditLine struct {
	At        time.Time
	By, Scope string
	Changes   []string
}

// auditLines words the stored audit for the page.
func (s *StaffScreen) auditLines(stored []reservation.SettingsChange) []auditLine {
	names := map[string]string{reservation.ScopeGroup: "the group"}
	for _, l := range s.Config.Locations {
		names[l.Slug] = l.Name
	}
	out := make([]auditLine, 0, len(stored))
	for _, c := range stored {
		line := auditLine{At: c.At, By: c.By, Scope: c.Scope}
		if name, ok := names[c.Scope]; ok {
			line.Scope = name
		}
		for _, change := range c.Changes {
			line.Changes = append(line.Changes, office.AuditText(change))
		}
		out = append(out, line)
	}
	return out
}

// auditShown is how many lines of the settings audit the page shows.
const auditShown = 50

// settings shows the settings in force and the audit; owners only.
func (s *StaffScreen) settings(w http.ResponseWriter, r *http.Request, v visit) {
	if v.User.Role != staff.Owner {
		http.Error(w, "Only owners change settings.", http.StatusForbidden)
		return
	}
	d, err := s.settingsData(r, nil)
	if err != nil {
		s.fail(w, r, "read settings", err)
		return
	}
	if scope := r.URL.Query().Get("saved"); scope != "" {
		for _, f := range d.Forms {
			if f.Scope == scope {
				d.Saved = "Saved the settings of " + f.Name + "."
			}
		}
	}
	s.render(w, r, v, http.StatusOK, "staff_settings.html", d)
}

// settingsData builds the page from the settings in force; posted, when
// set, replaces its scope's form with what was typed.
func (s *StaffScreen) settingsData(r *http.Request, posted *settingsForm) (settingsData, error) {
	set, err := s.Core.Settings(r.Context())
	if err != nil {
		return settingsData{}, err
	}
	audit, _, err := s.Core.SettingsAudit(r.Context(), "", auditShown)
	if err != nil {
		return settingsData{}, err
	}
	edited := map[string]bool{}
	for _, e := range set.Edited {
		edited[e] = true
	}
	g := set.Group
	forms := []settingsForm{{Scope: reservation.ScopeGroup, Name: "the group", Edited: edited[reservation.ScopeGroup],
		EmailHourly: strconv.Itoa(g.EmailHourly), EmailDaily: strconv.Itoa(g.EmailDaily), CancelDaily: strconv.Itoa(g.CancelDaily),
		Pending: strconv.Itoa(g.Pending), Closures: office.ClosureLines(g.Closures),
		InForce: settingsInForce{EmailHourly: g.EmailHourly, EmailDaily: g.EmailDaily, CancelDaily: g.CancelDaily, Pending: g.Pending},
		Hours:   officeHours(g.OfficeHours, g.OfficeHours)}}
	for _, l := range s.Config.Locations {
		ls := set.Locations[l.Slug]
		forms = append(forms, settingsForm{Scope: l.Slug, Name: l.Name, Location: true, Edited: edited[l.Slug], BookingEnabled: ls.BookingEnabled,
			EmailHourly: strconv.Itoa(ls.EmailHourly), Pending: strconv.Itoa(ls.Pending), Closures: office.ClosureLines(ls.Closures),
			InForce: settingsInForce{BookingEnabled: ls.BookingEnabled, EmailHourly: ls.EmailHourly, Pending: ls.Pending}})
	}
	if posted != nil {
		for i := range forms {
			if forms[i].Scope == posted.Scope {
				posted.Name, posted.Edited, posted.InForce = forms[i].Name, forms[i].Edited, forms[i].InForce
				if !posted.Location {
					posted.Hours = officeHours(postedOfficeHours(posted.Hours), g.OfficeHours)
				}
				forms[i] = *posted
			}
		}
	}
	// The audit's times read in the first property's zone, which is the
	// business's unless it names its own.
	zone := time.UTC
	if len(s.Config.Locations) > 0 {
		zone = s.Config.Locations[0].Zone()
	}
	return settingsData{Forms: forms, Audit: s.auditLines(audit), Zone: zone}, nil
}

// saveSettings validates and saves one scope's settings; the core keeps
// the audit. Problems come back on the page with the input kept.
func (s *StaffScreen) saveSettings(w http.ResponseWriter, r *http.Request, v visit) {
	if v.User.Role != staff.Owner {
		http.Error(w, "Only owners change settings.", http.StatusForbidden)
		return
	}
	scope := r.PathValue("scope")
	p := r.PostForm
	form := settingsForm{Scope: scope, Location: scope != reservation.ScopeGroup, BookingEnabled: p.Get("booking_enabled") == "on",
		EmailHourly: p.Get("email_hourly"), EmailDaily: p.Get("email_daily"), CancelDaily: p.Get("cancel_daily"),
		Pending: p.Get("pending"), Closures: p.Get("closures")}
	closures := office.ParseClosures(form.Closures)
	var err error
	if scope == reservation.ScopeGroup {
		hours := postedHours(p)
		form.Hours = officeHours(hours, hours)
		err = s.Core.SaveGroupSettings(r.Context(), v.User.Username, reservation.GroupSettings{EmailHourly: number(form.EmailHourly),
			EmailDaily: number(form.EmailDaily), CancelDaily: number(form.CancelDaily), Pending: number(form.Pending), Closures: closures,
			OfficeHours: hours})
	} else {
		if !s.known(scope) {
			http.NotFound(w, r)
			return
		}
		err = s.Core.SaveLocationSettings(r.Context(), v.User.Username, scope, reservation.LocationSettings{BookingEnabled: form.BookingEnabled,
			EmailHourly: number(form.EmailHourly), Pending: number(form.Pending), Closures: closures})
	}
	if problems, ok := err.(reservation.FormProblems); ok {
		form.Problems = problems
		d, err := s.settingsData(r, &form)
		if err != nil {
			s.fail(w, r, "read settings", err)
			return
		}
		s.render(w, r, v, http.StatusUnprocessableEntity, "staff_settings.html", d)
		return
	}
	if err != nil {
		s.fail(w, r, "save settings", err)
		return
	}
	http.Redirect(w, r, "/staff/settings?saved="+url.QueryEscape(scope), http.StatusSeeOther)
}

func (s *StaffScreen) known(slug string) bool {
	for _, l := range s.Config.Locations {
		if l.Slug == slug {
			return true
		}
	}
	return false
}

// number reads a typed whole number; anything else is 0, which every
// range refuses.
func number(text string) int {
	n, err := strconv.Atoi(strings.TrimSpace(text))
	if err != nil {
		return 0
	}
	return n
}
