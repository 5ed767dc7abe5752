package web

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"frontdesk/channel"
	"frontdesk/staff"
)

// The channels page (/staff/channels): the listing sites' calendars kept
// in step with the inventory. Owners see each imported feed with its
// health (last success, last error, the next fetch, a feed that emptied
// and waits for them), the blocks in conflict with bookings already held
// here, both sides named, and each room's export address to paste into
// the channel, which they can rotate; they add and remove feeds, fetch
// one at once and accept a feed that emptied. Feed addresses and export
// tokens are secrets: the page is for owners only.

// channelsData is the page's data.
type channelsData struct {
	Feeds     []feedRow
	Conflicts []channel.Conflict
	Orphans   []channel.Orphan
	Exports   []exportRow
	Locations []locationUnits
	Form      feedForm
	Problem   string
	Field     string // the form field the problem is about
	Done      string
}

// feedRow is one feed with its times worded.
type feedRow struct {
	channel.Health
	Success, Attempt, Next, Suspected string
}

// exportRow is one room's export address.
type exportRow struct {
	channel.Listing
	Name string // the location's name
	URL  string
}

// locationUnits lists a location's night unit types, for the add form.
type locationUnits struct {
	Slug, Name string
	Units      []string
}

// feedForm is the add form as typed.
type feedForm struct {
	Name, URL, Location, Unit, Listing string
}

var channelDone = map[string]string{
	"added":    "The feed is added and was fetched once; its health is below.",
	"removed":  "The feed is removed and its blocks released.",
	"fetched":  "The feed was fetched; its health is below.",
	"accepted": "The empty feed is accepted: its blocks are released.",
	"released": "The blocks of the feed no longer configured are released.",
	"rotated":  "The export address changed: paste the new one into the channel; the old one answers nothing now.",
}

// channels shows the page.
func (s *StaffScreen) channels(w http.ResponseWriter, r *http.Request, v visit) {
	s.renderChannels(w, r, v, http.StatusOK, channelsData{Done: channelDone[r.URL.Query().Get("done")]})
}

func (s *StaffScreen) renderChannels(w http.ResponseWriter, r *http.Request, v visit, status int, d channelsData) {
	if s.channelsElsewhere(w) {
		return
	}
	if v.User.Role != staff.Owner || s.Channels == nil {
		http.Error(w, "Only owners manage the channel calendars.", http.StatusForbidden)
		return
	}
	ctx := r.Context()
	healths, err := s.Channels.Healths(ctx)
	if err != nil {
		s.fail(w, r, "read channel feeds", err)
		return
	}
	for _, h := range healths {
		d.Feeds = append(d.Feeds, feedRow{Health: h, Success: since(h.LastSuccess), Attempt: since(h.LastAttempt), Next: since(h.NextAt), Suspected: since(h.SuspectSince)})
	}
	if d.Conflicts, err = s.Channels.Conflicts(ctx); err != nil {
		s.fail(w, r, "read channel conflicts", err)
		return
	}
	if d.Orphans, err = s.Channels.Orphans(ctx); err != nil {
		s.fail(w, r, "read channel feeds no longer configured", err)
		return
	}
	listings, err := s.Channels.Listings(ctx)
	if err != nil {
		s.fail(w, r, "read channel exports", err)
		return
	}
	base := strings.TrimSuffix(s.Config.PublicURL, "/")
	for _, li := range listings {
		d.Exports = append(d.Exports, exportRow{Listing: li, Name: s.locationName(li.Location), URL: base + li.Path()})
	}
	for _, l := range s.Config.Locations {
		lu := locationUnits{Slug: l.Slug, Name: l.Name}
		for _, u := range l.NightUnits() {
			lu.Units = append(lu.Units, u.Type)
		}
		if len(lu.Units) > 0 {
			d.Locations = append(d.Locations, lu)
		}
	}
	s.render(w, r, v, status, "staff_channels.html", d)
}

// channelAction runs one of the page's forms, by its action field.
func (s *StaffScreen) channelAction(w http.ResponseWriter, r *http.Request, v visit) {
	if s.channelsElsewhere(w) {
		return
	}
	if v.User.Role != staff.Owner || s.Channels == nil {
		http.Error(w, "Only owners manage the channel calendars.", http.StatusForbidden)
		return
	}
	ctx := r.Context()
	f := r.PostForm
	name := f.Get("feed")
	var done string
	var err error
	switch f.Get("action") {
	case "add":
		form := feedForm{Name: strings.TrimSpace(f.Get("name")), URL: strings.TrimSpace(f.Get("url")), Location: f.Get("location"), Unit: f.Get("unit"), Listing: f.Get("listing")}
		n, _ := strconv.Atoi(form.Listing)
		err = s.Channels.AddFeed(ctx, channel.Feed{Name: form.Name, URL: form.URL, Location: form.Location, Unit: form.Unit, Listing: n}, s.ChannelRule, v.User.Username)
		if fe, ok := errors.AsType[*channel.FieldError](err); ok {
			s.renderChannels(w, r, v, http.StatusUnprocessableEntity, channelsData{Form: form, Field: fe.Field,
				Problem: "The feed was not added: " + fe.Field + " " + fe.Message + "."})
			return
		}
		if err == nil {
			// The first fetch tells at once whether the address works.
			if err = s.Channels.SyncNow(ctx, form.Name); err == nil {
				done = "added"
			}
		}
	case "remove":
		err = s.Channels.RemoveFeed(ctx, name, v.User.Username)
		if fe, ok := errors.AsType[*channel.FieldError](err); ok {
			s.renderChannels(w, r, v, http.StatusUnprocessableEntity, channelsData{Problem: "Nothing was removed: " + fe.Message + "."})
			return
		}
		done = "removed"
	case "fetch":
		err, done = s.Channels.SyncNow(ctx, name), "fetched"
	case "release-orphan":
		err = s.Channels.ReleaseOrphan(ctx, name, v.User.Username)
		if fe, ok := errors.AsType[*channel.FieldError](err); ok {
			s.renderChannels(w, r, v, http.StatusUnprocessableEntity, channelsData{Problem: "Nothing was released: " + fe.Message + "."})
			return
		}
		done = "released"
	case "accept":
		err, done = s.Channels.AcceptEmpty(ctx, name, v.User.Username), "accepted"
	case "rotate":
		n, _ := strconv.Atoi(f.Get("listing"))
		err, done = s.Channels.Rotate(ctx, f.Get("location"), f.Get("unit"), n), "rotated"
	default:
		http.Error(w, "Unknown action.", http.StatusBadRequest)
		return
	}
	if err != nil {
		s.fail(w, r, "channel "+f.Get("action"), err)
		return
	}
	http.Redirect(w, r, "/staff/channels?done="+done, http.StatusSeeOther)
}

// since words a time for the page: "never" for none.
func since(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

// channelsElsewhere answers the channels page of a split hub: each
// location imports its listing sites' calendars into its own inventory,
// so a feed added at the hub would block nothing. It says whether it
// answered.
func (s *StaffScreen) channelsElsewhere(w http.ResponseWriter) bool {
	if !s.atSplitHub() {
		return false
	}
	http.Error(w, "The listing sites' calendars are kept at each property: sign in at the property's own staff screen to manage them.", http.StatusNotFound)
	return true
}
