package web_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/honehq/hone/internal/browsertest"
	"github.com/honehq/hone/internal/suggestions"
)

// sbChart is a chart as the browser lays it out.
type sbChart struct {
	Visible bool
	Width   float64
	Height  float64
	// Bars are the rendered heights of the bars (rect.bar), Points the
	// dots of the over-time chart.
	Bars   []float64
	Points int
	// Fill is the computed fill of the first bar or dot: the stylesheet
	// reached the SVG.
	Fill string
}

func sbLayout(b *browsertest.Browser, id string) sbChart {
	return browsertest.Eval[sbChart](b, `(() => {
		const svg = document.getElementById(`+bwJS(id)+`);
		if (!svg) return {Visible: false, Width: 0, Height: 0, Bars: [], Points: 0, Fill: ""};
		const r = svg.getBoundingClientRect();
		const first = svg.querySelector("rect.bar, circle.point");
		return {Visible: svg.checkVisibility(), Width: r.width, Height: r.height,
			Bars: Array.from(svg.querySelectorAll("rect.bar"), e => e.getBoundingClientRect().height),
			Points: svg.querySelectorAll("circle.point").length,
			Fill: first ? getComputedStyle(first).fill : ""};
	})()`)
}

// sbPick chooses a version in the filter form, as a person does with the
// select, and submits the form.
func sbPick(t *testing.T, b *browsertest.Browser, version string) {
	t.Helper()
	if !browsertest.Eval[bool](b, `(() => { const s = document.getElementById("sg-version");
		s.value = `+bwJS(version)+`; s.dispatchEvent(new Event("change", {bubbles: true})); return s.value === `+bwJS(version)+`; })()`) {
		t.Fatalf("the version select has no option %q", version)
	}
	if status := b.ClickNavigate("#sg-apply"); status != http.StatusOK {
		t.Fatalf("filtering by version %q led to status %d", version, status)
	}
}

// sbTexts is the textContent of the elements sel (SVG text has no
// innerText).
func sbTexts(b *browsertest.Browser, sel string) []string {
	return browsertest.Eval[[]string](b, `Array.from(document.querySelectorAll(`+bwJS(sel)+`), e => e.textContent.trim())`)
}

func TestBrowserSuggestions(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		e := lnOpen(t, databaseURL, false)
		sgSeed(t, suggestions.NewService(e.DB.Suggestions(), suggestions.Options{}))
		b := browsertest.New(t)
		b.OnNewDocument(recordAlerts)
		if status := b.NavigateStatus(e.base + "/learnings"); status != http.StatusOK {
			t.Fatalf("GET /learnings = %d", status)
		}
		if status := b.ClickNavigate(`nav a[href="/suggestions"]`); status != http.StatusOK {
			t.Fatalf("the Suggestions link led to status %d", status)
		}
		if got := b.Title(); got != "Suggestions · hone" {
			t.Errorf("title = %q", got)
		}
		if got := b.Text("#sg-total"); got != "9" {
			t.Errorf("records = %q, want 9", got)
		}

		// The three charts are drawn, visible, styled, with their bars and
		// dots; a bar of 0 is flat, the others are not.
		want := map[string]struct{ bars, points int }{"sg-over-time": {0, 3}, "sg-positions": {3, 0}, "sg-times": {9, 0}}
		for id, w := range want {
			c := sbLayout(b, id)
			if !c.Visible || c.Width < 100 || c.Height < 50 {
				t.Errorf("chart #%s is not visible: %+v", id, c)
			}
			if len(c.Bars) != w.bars || c.Points != w.points {
				t.Errorf("chart #%s has %d bars and %d dots, want %d and %d", id, len(c.Bars), c.Points, w.bars, w.points)
			}
			if c.Fill == "" || c.Fill == "none" || c.Fill == "rgb(0, 0, 0)" {
				t.Errorf("chart #%s: the first mark's fill is %q: the stylesheet did not apply", id, c.Fill)
			}
		}
		if h := sbLayout(b, "sg-times").Bars; len(h) == 9 && (h[0] != 0 || h[3] <= h[4] || h[4] <= 0 || h[1] <= 0) {
			t.Errorf("rendered heights of the time bars %v, want 0 for <250 ms and the 1–2 s bar the tallest", h)
		}
		if got := sbTexts(b, "#sg-times text.xtick"); len(got) != 9 || got[0] != "<250 ms" || got[3] != "1–2 s" || got[8] != "≥60 s" {
			t.Errorf("time bar labels %q", got)
		}
		if got := sbTexts(b, "#sg-positions text.value"); !slices.Equal(got, []string{"5", "1", "1"}) {
			t.Errorf("position counts %q", got)
		}
		if got := browsertest.Eval[string](b, `document.querySelector("#sg-times g.bar-group[data-key='3'] title").textContent`); got != "1–2 s: 4 records (44.4%)" {
			t.Errorf("tooltip of the 1–2 s bar = %q", got)
		}
		if got := b.Texts("#sg-legend .key"); !slices.Equal(got, []string{"v1", sgV2}) {
			t.Errorf("legend %q", got)
		}
		if got := b.Text("#sg-p50"); got == "" {
			t.Error("p50 is not shown")
		}
		bwNoXSS(t, b, "/suggestions")

		// The version filter changes the figures and the charts.
		sbPick(t, b, "v1")
		if got, want := b.Location(), e.base+"/suggestions?version=v1&server=&since="; got != want {
			t.Errorf("after filtering the browser is at %s, want %s", got, want)
		}
		for sel, want := range map[string]string{"#sg-total": "7", "#sg-acceptance": "71.4%", "#sg-exact": "57.1%"} {
			if got := b.Text(sel); got != want {
				t.Errorf("version v1: %s = %q, want %q", sel, got, want)
			}
		}
		if c := sbLayout(b, "sg-positions"); len(c.Bars) != 2 || !c.Visible {
			t.Errorf("version v1: position chart %+v, want 2 bars", c)
		}
		if c := sbLayout(b, "sg-over-time"); c.Points != 2 {
			t.Errorf("version v1: %d dots over time, want 2", c.Points)
		}
		if got := b.Texts("#sg-legend .key"); !slices.Equal(got, []string{"v1"}) {
			t.Errorf("version v1: legend %q", got)
		}
		if got := browsertest.Eval[string](b, `document.getElementById("sg-version").value`); got != "v1" {
			t.Errorf("version v1: the select shows %q", got)
		}

		sbPick(t, b, sgV2)
		if got := b.Text("#sg-total"); got != "2" {
			t.Errorf("version %q: %s records, want 2", sgV2, got)
		}
		if got := b.Texts("#by-version tbody td:first-child"); !slices.Equal(got, []string{sgV2}) {
			t.Errorf("version %q: the version table shows %q", sgV2, got)
		}
		bwNoXSS(t, b, "/suggestions?version=…")

		if logs := b.Logs(); len(logs) != 0 {
			t.Errorf("the pages wrote to the console: %q", logs)
		}

		// A bad since: the message names the field, the form stays.
		b.Navigate(e.base + "/suggestions")
		lbFill(b, "#sg-since", "yesterday")
		if status := b.ClickNavigate("#sg-apply"); status != http.StatusBadRequest {
			t.Errorf("a bad since led to status %d, want 400", status)
		}
		if got := b.Text("#filter-error"); got != `since must be a time (2026-01-10T15:04:05Z), a date (2026-01-10) or an age (24h, 7d), not "yesterday"` {
			t.Errorf("the error says %q", got)
		}
		if b.Count("svg") != 0 {
			t.Error("charts are drawn with a bad filter")
		}

		if got := browsertest.Eval[[]string](b, `window.__alerts`); len(got) != 0 {
			t.Errorf("alert was called with %q", got)
		}
		// The 400 page shown on purpose is logged as a failed load, and
		// nothing else.
		if logs := b.Logs(); len(logs) != 1 || !strings.Contains(logs[0], "status of 400 (Bad Request)") ||
			!strings.Contains(logs[0], "since=yesterday") {
			t.Errorf("the pages wrote to the console: %q", logs)
		}
	})
}
