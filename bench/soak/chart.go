package main

import (
	"fmt"
	"strings"
	"time"
)

// chart draws the samples as an SVG of two panels sharing the time axis:
// latency percentiles above, the child's RSS below. Hand-written so the
// bench needs no plotting dependency.
func chart(title string, samples []sample) []byte {
	const width, left, right, panel, gap, top = 760.0, 60.0, 20.0, 180.0, 50.0, 40.0
	plotW := width - left - right
	height := top + 2*panel + gap + 40
	var maxT float64
	var maxLat, maxRSS float64
	for _, s := range samples {
		maxT = max(maxT, s.at.Seconds())
		maxLat = max(maxLat, ms(s.p99))
		maxRSS = max(maxRSS, float64(s.rssKiB)/1024)
	}
	maxT, maxLat, maxRSS = max(maxT, 1), niceCeil(maxLat), niceCeil(maxRSS)
	x := func(t time.Duration) float64 { return left + plotW*t.Seconds()/maxT }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="11">`+"\n", width, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="%.0f" y="20" font-size="13">%s</text>`+"\n", left, escape(title))
	axes := func(y0 float64, maxV float64, unit string) {
		fmt.Fprintf(&b, `<rect x="%.0f" y="%.0f" width="%.0f" height="%.0f" fill="none" stroke="#888"/>`+"\n", left, y0, plotW, panel)
		for i := 0; i <= 4; i++ {
			v := maxV * float64(i) / 4
			y := y0 + panel - panel*float64(i)/4
			fmt.Fprintf(&b, `<line x1="%.0f" x2="%.0f" y1="%.1f" y2="%.1f" stroke="#eee"/>`, left, left+plotW, y, y)
			fmt.Fprintf(&b, `<text x="%.0f" y="%.1f" text-anchor="end">%g</text>`+"\n", left-4, y+4, v)
		}
		fmt.Fprintf(&b, `<text x="12" y="%.0f" transform="rotate(-90 12 %.0f)" text-anchor="middle">%s</text>`+"\n", y0+panel/2, y0+panel/2, unit)
	}
	line := func(y0, maxV float64, color, label string, n int, v func(sample) float64) {
		var pts []string
		for _, s := range samples {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(s.at), y0+panel-panel*v(s)/maxV))
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"/>`+"\n", color, strings.Join(pts, " "))
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" fill="%s">%s</text>`+"\n", left+8+float64(n)*70, y0+14, color, label)
	}
	y1 := top
	axes(y1, maxLat, "latency (ms)")
	line(y1, maxLat, "#1b9e77", "p50", 0, func(s sample) float64 { return ms(s.p50) })
	line(y1, maxLat, "#d95f02", "p95", 1, func(s sample) float64 { return ms(s.p95) })
	line(y1, maxLat, "#7570b3", "p99", 2, func(s sample) float64 { return ms(s.p99) })
	y2 := top + panel + gap
	axes(y2, maxRSS, "RSS (MiB)")
	line(y2, maxRSS, "#333", "RSS", 0, func(s sample) float64 { return float64(s.rssKiB) / 1024 })
	for i := 0; i <= 5; i++ {
		t := maxT * float64(i) / 5
		fmt.Fprintf(&b, `<text x="%.1f" y="%.0f" text-anchor="middle">%.0f s</text>`+"\n", left+plotW*float64(i)/5, y2+panel+16, t)
	}
	b.WriteString("</svg>\n")
	return []byte(b.String())
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// niceCeil rounds v up to 1, 2 or 5 times a power of ten, for round
// axis labels.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := 1.0
	for p*10 <= v {
		p *= 10
	}
	for p > v {
		p /= 10
	}
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

func escape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
