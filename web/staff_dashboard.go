package web

import (
	"fmt"
	"net/http"

	"frontdesk/referral"
	"frontdesk/staff/office"
)

// The dashboard's charts are SVG drawn on the server: bars with their
// numbers as titles and text, so they read without JavaScript or images.

// chartBar is one bar of a chart, in the SVG's user units.
type chartBar struct {
	X, Y, W, H float64
	Fill       string
	Title      string
}

// chartLabel is one text of a chart.
type chartLabel struct {
	X, Y   float64
	Text   string
	Anchor string
}

// chart is one SVG chart.
type chart struct {
	Title  string
	Width  float64
	Height float64
	Bars   []chartBar
	Labels []chartLabel
	Legend []chartLegend
}

type chartLegend struct{ Fill, Text string }

// Chart geometry: a plot 320 units wide fits a phone screen and scales
// up on a desktop.
const (
	chartWidth  = 360.0
	chartLeft   = 36.0
	chartTop    = 10.0
	chartPlot   = 120.0
	chartBottom = 24.0
)

// palette colours the sources of the stacked chart.
var palette = []string{"#2f6db5", "#d9822b", "#3a9a5b", "#8e44ad", "#c0392b", "#7f8c8d"}

// weekLabels are the charts' x labels: each week's first day.
func weekLabels(d office.Dashboard, slot float64) []chartLabel {
	var out []chartLabel
	for i, w := range d.Weeks {
		if i%2 == 0 {
			out = append(out, chartLabel{X: chartLeft + slot*(float64(i)+0.5), Y: chartTop + chartPlot + 16, Text: w.String()[5:], Anchor: "middle"})
		}
	}
	return out
}

// occupancyChart is one location's share of room-nights held per week.
func occupancyChart(name string, d office.Dashboard, occ []float64) chart {
	slot := (chartWidth - chartLeft) / float64(len(occ))
	c := chart{Title: "Occupancy, " + name, Width: chartWidth, Height: chartTop + chartPlot + chartBottom}
	c.Labels = append(c.Labels, chartLabel{X: chartLeft - 4, Y: chartTop + 4, Text: "100%", Anchor: "end"},
		chartLabel{X: chartLeft - 4, Y: chartTop + chartPlot, Text: "0%", Anchor: "end"})
	for i, share := range occ {
		h := chartPlot * min(share, 1)
		c.Bars = append(c.Bars, chartBar{X: chartLeft + slot*float64(i) + 2, Y: chartTop + chartPlot - h, W: slot - 4, H: h, Fill: palette[0],
			Title: fmt.Sprintf("week of %s: %.0f%% held", d.Weeks[i], share*100)})
	}
	c.Labels = append(c.Labels, weekLabels(d, slot)...)
	return c
}

// sourceChart stacks arrivals per week by source.
func sourceChart(d office.Dashboard) chart {
	slot := (chartWidth - chartLeft) / float64(len(d.Weeks))
	c := chart{Title: "Arrivals by source", Width: chartWidth, Height: chartTop + chartPlot + chartBottom}
	top := 1
	for w := range d.Weeks {
		sum := 0
		for _, src := range d.Sources {
			sum += d.BySource[src][w]
		}
		top = max(top, sum)
	}
	c.Labels = append(c.Labels, chartLabel{X: chartLeft - 4, Y: chartTop + 4, Text: fmt.Sprint(top), Anchor: "end"},
		chartLabel{X: chartLeft - 4, Y: chartTop + chartPlot, Text: "0", Anchor: "end"})
	for w := range d.Weeks {
		base := chartTop + chartPlot
		for i, src := range d.Sources {
			n := d.BySource[src][w]
			if n == 0 {
				continue
			}
			h := chartPlot * float64(n) / float64(top)
			base -= h
			c.Bars = append(c.Bars, chartBar{X: chartLeft + slot*float64(w) + 2, Y: base, W: slot - 4, H: h, Fill: palette[i%len(palette)],
				Title: fmt.Sprintf("week of %s: %d from %s", d.Weeks[w], n, src)})
		}
	}
	for i, src := range d.Sources {
		c.Legend = append(c.Legend, chartLegend{Fill: palette[i%len(palette)], Text: src})
	}
	c.Labels = append(c.Labels, weekLabels(d, slot)...)
	return c
}

type dashboardData struct {
	Dashboard office.Dashboard
	Charts    []chart
	Referrals *referral.Summary
	// Money is the owner's payment totals; nil for clerks.
	Money *moneyTotals
}

// dashboard shows the charts and today's counts for the user's scope.
func (s *StaffScreen) dashboard(w http.ResponseWriter, r *http.Request, v visit) {
	var slugs []string
	for _, l := range s.scope(v.User) {
		slugs = append(slugs, l.Slug)
	}
	d, err := s.Core.Dashboard(r.Context(), slugs)
	if err != nil {
		s.fail(w, r, "read dashboard", err)
		return
	}
	data := dashboardData{Dashboard: d}
	if data.Referrals, err = s.referralSummary(r.Context(), v.User); err != nil {
		s.fail(w, r, "read partner bookings", err)
		return
	}
	if data.Money, err = s.moneyTotals(r.Context(), v.User, r.URL.Query()); err != nil {
		s.fail(w, r, "read payment totals", err)
		return
	}
	for _, l := range s.scope(v.User) {
		if occ, ok := d.Occupancy[l.Slug]; ok {
			data.Charts = append(data.Charts, occupancyChart(l.Name, d, occ))
		}
	}
	if len(d.Weeks) > 0 {
		data.Charts = append(data.Charts, sourceChart(d))
	}
	s.render(w, r, v, http.StatusOK, "staff_dashboard.html", data)
}
