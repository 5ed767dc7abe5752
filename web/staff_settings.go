package web

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"frontdesk/booking"
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
	Problems                       booking.FormProblems
}

type settingsData struct {
	Forms []settingsForm
	Audit []booking.SettingsChange
	Saved string
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
	forms := []settingsForm{{Scope: booking.ScopeGroup, Name: "the group", Edited: edited[booking.ScopeGroup],
		EmailHourly: strconv.Itoa(g.EmailHourly), EmailDaily: strconv.Itoa(g.EmailDaily), CancelDaily: strconv.Itoa(g.CancelDaily),
		Pending: strconv.Itoa(g.Pending), Closures: office.ClosureLines(g.Closures)}}
	for _, l := range s.Config.Locations {
		ls := set.Locations[l.Slug]
		forms = append(forms, settingsForm{Scope: l.Slug, Name: l.Name, Location: true, Edited: edited[l.Slug], BookingEnabled: ls.BookingEnabled,
			EmailHourly: strconv.Itoa(ls.EmailHourly), Pending: strconv.Itoa(ls.Pending), Closures: office.ClosureLines(ls.Closures)})
	}
	if posted != nil {
		for i := range forms {
			if forms[i].Scope == posted.Scope {
				posted.Name, posted.Edited = forms[i].Name, forms[i].Edited
				forms[i] = *posted
			}
		}
	}
	return settingsData{Forms: forms, Audit: audit}, nil
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
	form := settingsForm{Scope: scope, Location: scope != booking.ScopeGroup, BookingEnabled: p.Get("booking_enabled") == "on",
		EmailHourly: p.Get("email_hourly"), EmailDaily: p.Get("email_daily"), CancelDaily: p.Get("cancel_daily"),
		Pending: p.Get("pending"), Closures: p.Get("closures")}
	closures := office.ParseClosures(form.Closures)
	var err error
	if scope == booking.ScopeGroup {
		err = s.Core.SaveGroupSettings(r.Context(), v.User.Username, booking.GroupSettings{EmailHourly: number(form.EmailHourly),
			EmailDaily: number(form.EmailDaily), CancelDaily: number(form.CancelDaily), Pending: number(form.Pending), Closures: closures})
	} else {
		if !s.known(scope) {
			http.NotFound(w, r)
			return
		}
		err = s.Core.SaveLocationSettings(r.Context(), v.User.Username, scope, booking.LocationSettings{BookingEnabled: form.BookingEnabled,
			EmailHourly: number(form.EmailHourly), Pending: number(form.Pending), Closures: closures})
	}
	if problems, ok := err.(booking.FormProblems); ok {
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
