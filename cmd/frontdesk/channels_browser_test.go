package main

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"frontdesk/config"
	"frontdesk/internal/browsertest"
)

// TestChannelsPagesInABrowser: with a channel's block in conflict with a
// walk-in, the Channels page (feeds, conflict, add form, exports) and the
// calendar showing the block fit desktop and phone widths and pass
// axe-core.
func TestChannelsPagesInABrowser(t *testing.T) {
	for _, width := range []int{browsertest.Desktop, browsertest.Phone} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			feed := newFeedServer(t)
			m := startMain(t, "", func(c *config.Config) {
				c.Channels.Feeds = []config.ChannelFeed{{Name: "vrbo-studio", URL: feed.URL + "/ical/123.ics", Location: "riverside", Unit: "studio", Listing: 1}}
			})
			addStaff(t, m)
			olga := signIn(t, m, "olga")
			walkIn := url.Values{"csrf": {olga.csrf}, "location": {"riverside"}, "roomtype": {"studio"}, "checkin": {"2027-01-04"},
				"checkout": {"2027-01-11"}, "name": {"Walk In"}, "phone": {"+1 303 555 0100"}}
			if status, _, _ := olga.do("POST", "/staff/reservations/new", walkIn); status != http.StatusSeeOther {
				t.Fatalf("walk-in = %d", status)
			}
			feed.set(studioWeek)
			if err := m.channels.SyncNow(context.Background(), "vrbo-studio"); err != nil {
				t.Fatal(err)
			}
			ctx := browsertest.New(t, width)
			staffSignIn(t, ctx, m, "olga", staffPassword, "/staff/channels")
			browsertest.Do(t, ctx, chromedp.WaitVisible("#conflicts"))
			checkPage(t, ctx, width, "the channels page")
			if got := browsertest.Get(t, ctx, chromedp.Text("#conflicts")); !strings.Contains(got, "2027-01-04, 2027-01-05") {
				t.Fatalf("conflicts = %q", got)
			}
			browsertest.Do(t, ctx, chromedp.Navigate(m.URL+"/staff/calendar?location=riverside&from=2026-12-30&days=14"), chromedp.WaitVisible("#calendar"))
			checkPage(t, ctx, width, "the calendar with a channel's block")
			if got := browsertest.Get(t, ctx, chromedp.Text("#calendar")); !strings.Contains(got, "vrbo-studio (channel)") {
				t.Fatalf("calendar = %q", got)
			}
		})
	}
}
