package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/honehq/hone/internal/suggestions"
	"github.com/honehq/hone/suggest"
)

// The /suggestions page: suggestion-tracking statistics with filters, SVG
// charts drawn on the server and tables.

// sgThree are the suggestions of every round.
var sgThree = []string{"@claude explain this error", "@bash cat logs.txt", "@python debug.py"}

// sgV2 is the second prompt version, named with markup that must be shown
// and not run.
const sgV2 = `v2 <img src=x onerror="window.__xss=true">&`

// sgSample is rounds of suggestions to record.
type sgSample struct {
	n               int
	server, version string
	model           string
	temperature     float64
	tokens, blocks  int
	steps           int // Next presses
	input           string
	think           time.Duration
	daysAgo         int
}

// sgNoon is noon UTC daysAgo days before today.
func sgNoon(daysAgo int) time.Time {
	return time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, -daysAgo).Add(12 * time.Hour)
}

// sgDay is the date (UTC) daysAgo days before today.
func sgDay(daysAgo int) string { return sgNoon(daysAgo).Format(time.DateOnly) }

// sgSamples are the records of the page tests (9 in all):
//
//	10 days ago, v1, local:  2 exact on #0 (1 s); 2 none after 6 presses and 20 s
//	2 days ago, v1, local:   2 exact on #0 (1 s); 1 prefix of #1 after 1 press (2 s)
//	yesterday, sgV2, prod:   1 partial of #0 (300 ms); 1 exact on #2 after 2 presses (3 s)
var sgSamples = []sgSample{
	{2, "local", "v1", "gpt-4o-mini", 0.7, 50, 2, 0, sgThree[0], time.Second, 10},
	{2, "local", "v1", "gpt-4o-mini", 0.7, 50, 2, 6, "rm -rf build", 20 * time.Second, 10},
	{2, "local", "v1", "gpt-4o-mini", 0.7, 150, 5, 0, sgThree[0], time.Second, 2},
	{1, "local", "v1", "gpt-4o-mini", 0.7, 150, 5, 1, "@bash cat", 2 * time.Second, 2},
	{1, "prod", sgV2, "gpt-4o", 0.2, 600, 25, 0, sgThree[0] + " now", 300 * time.Millisecond, 1},
	{1, "prod", sgV2, "gpt-4o", 0.2, 600, 25, 2, sgThree[2], 3 * time.Second, 1},
}

// sgNDJSON makes the samples' records with the suggest library, each
// group from noon of its day on, and returns them as NDJSON.
func sgNDJSON(t *testing.T, samples []sgSample) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for i, s := range samples {
		clock := sgNoon(s.daysAgo).Add(time.Duration(i) * time.Minute)
		for range s.n {
			tr := suggest.NewTracker(suggest.Options{Server: s.server, Session: "session-" + s.server, Now: func() time.Time { return clock }})
			blocks := make([]any, s.blocks)
			for j := range blocks {
				blocks[j] = map[string]any{"input": "x", "output": "y", "success": true}
			}
			tr.Fetched(map[string]any{"blocks": blocks}, sgThree, map[string]any{"model": s.model, "temperature": s.temperature},
				map[string]any{"usage": map[string]any{"total_tokens": s.tokens}}, s.version)
			for range s.steps {
				tr.Next()
			}
			clock = clock.Add(s.think)
			r := tr.Submit(s.input, nil)
			if r == nil {
				t.Fatal("the tracker made no record")
			}
			if err := enc.Encode(r); err != nil {
				t.Fatal(err)
			}
			clock = clock.Add(time.Second)
		}
	}
	return b.Bytes()
}

// sgSeed stores the records of sgSamples through the service.
func sgSeed(t *testing.T, svc *suggestions.Service) {
	t.Helper()
	res, err := svc.Ingest(context.Background(), bytes.NewReader(sgNDJSON(t, sgSamples)), "application/x-ndjson")
	if err != nil || res.Accepted != 9 || len(res.Errors) != 0 {
		t.Fatalf("ingest: %+v, %v", res, err)
	}
}

// sgText is the text of the element with the id, unescaped; "" when the
// page has none.
func sgText(page, id string) string {
	m := regexp.MustCompile(`(?s)\bid="` + regexp.QuoteMeta(id) + `"[^>]*>(.*?)</`).FindStringSubmatch(page)
	if m == nil {
		return ""
	}
	return strings.Join(strings.Fields(html.UnescapeString(tagRE.ReplaceAllString(m[1], ""))), " ")
}

// sgElement is the markup of the element <tag id="id" …>…</tag> of a page.
func sgElement(page, tag, id string) string {
	return regexp.MustCompile(`(?s)<` + tag + `\b[^>]*\bid="` + regexp.QuoteMeta(id) + `"[^>]*>.*?</` + tag + `>`).FindString(page)
}

// sgAllText is the text of the element <tag id="id" …>…</tag> of a page,
// its markup left out.
func sgAllText(page, tag, id string) string {
	return strings.Join(strings.Fields(html.UnescapeString(tagRE.ReplaceAllString(sgElement(page, tag, id), " "))), " ")
}

// sgRows are the rows of a table by their data attribute attr (data-key or
// data-match): the text of each cell.
func sgRows(t *testing.T, page, id, attr string) (map[string][]string, []string) {
	t.Helper()
	table := sgElement(page, "table", id)
	if table == "" {
		t.Fatalf("the page has no table #%s", id)
	}
	rows := map[string][]string{}
	var order []string
	for _, m := range regexp.MustCompile(`(?s)<tr `+attr+`="([^"]*)">(.*?)</tr>`).FindAllStringSubmatch(table, -1) {
		key := html.UnescapeString(m[1])
		var cells []string
		for _, c := range cellRE.FindAllStringSubmatch(m[2], -1) {
			cells = append(cells, strings.Join(strings.Fields(html.UnescapeString(tagRE.ReplaceAllString(c[1], ""))), " "))
		}
		rows[key] = cells
		order = append(order, key)
	}
	return rows, order
}

// sgBars is a bar chart as drawn: the bars' labels, counts, heights and
// tooltips.
type sgBars struct {
	labels, values, titles []string
	heights                []float64
}

var (
	sgRectRE   = regexp.MustCompile(`<rect class="bar" [^>]*height="([0-9.]+)"><title>([^<]*)</title></rect>`)
	sgValueRE  = regexp.MustCompile(`<text class="value"[^>]*>([^<]*)</text>`)
	sgXTickRE  = regexp.MustCompile(`<text class="xtick"[^>]*>([^<]*)</text>`)
	sgCircleRE = regexp.MustCompile(`<circle class="point"[^>]*><title>([^<]*)</title></circle>`)
	sgLegendRE = regexp.MustCompile(`<span class="key s\d">([^<]*)</span>`)
)

func sgBarChart(t *testing.T, page, id string) sgBars {
	t.Helper()
	svg := sgElement(page, "svg", id)
	if svg == "" {
		t.Fatalf("the page has no chart #%s", id)
	}
	var c sgBars
	for _, m := range sgRectRE.FindAllStringSubmatch(svg, -1) {
		h, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			t.Fatal(err)
		}
		c.heights, c.titles = append(c.heights, h), append(c.titles, html.UnescapeString(m[2]))
	}
	for _, m := range sgValueRE.FindAllStringSubmatch(svg, -1) {
		c.values = append(c.values, m[1])
	}
	for _, m := range sgXTickRE.FindAllStringSubmatch(svg, -1) {
		c.labels = append(c.labels, html.UnescapeString(m[1]))
	}
	return c
}

// sgPoints are the tooltips of the dots of the over-time chart, and its
// legend.
func sgPoints(t *testing.T, page string) (titles, legend []string) {
	t.Helper()
	svg := sgElement(page, "svg", "sg-over-time")
	if svg == "" {
		t.Fatal("the page has no over-time chart")
	}
	for _, m := range sgCircleRE.FindAllStringSubmatch(svg, -1) {
		titles = append(titles, html.UnescapeString(m[1]))
	}
	for _, m := range sgLegendRE.FindAllStringSubmatch(sgElement(page, "figcaption", "sg-legend"), -1) {
		legend = append(legend, html.UnescapeString(m[1]))
	}
	return titles, legend
}

// sgOptions are the values of the version select, and the selected one.
func sgOptions(page string) (values []string, selected string) {
	sel := sgElement(page, "select", "sg-version")
	for _, m := range regexp.MustCompile(`<option value="([^"]*)"( selected)?>`).FindAllStringSubmatch(sel, -1) {
		values = append(values, html.UnescapeString(m[1]))
		if m[2] != "" {
			selected = html.UnescapeString(m[1])
		}
	}
	return values, selected
}

// sgWithin reports whether got is within 1% of want.
func sgWithin(got, want float64) bool { return math.Abs(got-want) <= want/100 }

// sgShownMS reads a shown duration ("994 ms", "20.2 s") as milliseconds.
func sgShownMS(t *testing.T, s string) float64 {
	t.Helper()
	num, unit, ok := strings.Cut(s, " ")
	v, err := strconv.ParseFloat(num, 64)
	if !ok || err != nil || unit != "ms" && unit != "s" {
		t.Fatalf("%q is not a duration", s)
	}
	if unit == "s" {
		v *= 1000
	}
	return v
}

func TestSuggestionsPage(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		e := lnOpen(t, databaseURL, false)
		c := e.client()

		// No records: the page explains how to send them, and draws nothing.
		r := c.get("/suggestions")
		if r.StatusCode != http.StatusOK {
			t.Fatalf("GET /suggestions = %d:\n%s", r.StatusCode, r.body)
		}
		page := r.body
		if csp := r.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "style-src 'self'") {
			t.Errorf("Content-Security-Policy of /suggestions = %q", csp)
		}
		if !strings.Contains(page, "<title>Suggestions · hone</title>") || !strings.Contains(page, `<a href="/suggestions" aria-current="page">Suggestions</a>`) {
			t.Error("the page lacks its title or the nav link")
		}
		empty := sgAllText(page, "section", "suggestions-empty")
		for _, want := range []string{"No suggestion records yet", "POST /api/v1/suggestions", "hone suggestions import", "application/x-ndjson"} {
			if !strings.Contains(empty, want) {
				t.Errorf("the empty state does not say %q: %q", want, empty)
			}
		}
		if strings.Contains(page, "<svg") || sgText(page, "sg-total") != "" {
			t.Error("the empty page draws charts or figures")
		}
		if values, _ := sgOptions(page); !slices.Equal(values, []string{""}) {
			t.Errorf("the version select offers %q with no records", values)
		}
		if page := c.page("/learnings"); !strings.Contains(page, `<a href="/learnings" aria-current="page">Learnings</a>
    <a href="/suggestions">Suggestions</a>`) {
			t.Error("the nav of /learnings has no Suggestions link after Learnings")
		}

		sgSeed(t, suggestions.NewService(e.DB.Suggestions(), suggestions.Options{}))
		st, err := suggestions.NewService(e.DB.Suggestions(), suggestions.Options{}).Stats(context.Background(), suggestions.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		page = c.page("/suggestions")
		if strings.Contains(page, `id="suggestions-empty"`) {
			t.Error("the page shows the empty state with 9 records")
		}

		// Summary: 9 records, 7 accepted (5 exact, 1 partial, 1 prefix).
		for id, want := range map[string]string{"sg-total": "9", "sg-accepted": "7", "sg-acceptance": "77.8%", "sg-exact": "55.6%"} {
			if got := sgText(page, id); got != want {
				t.Errorf("#%s = %q, want %q", id, got, want)
			}
		}
		matches, order := sgRows(t, page, "sg-matches", "data-match")
		wantMatches := map[string][]string{"exact": {"exact", "5", "55.6%"}, "partial": {"partial", "1", "11.1%"},
			"prefix": {"prefix", "1", "11.1%"}, "none": {"none", "2", "22.2%"}}
		if !slices.Equal(order, []string{"exact", "partial", "prefix", "none"}) {
			t.Errorf("match types in the order %q", order)
		}
		for k, want := range wantMatches {
			if !slices.Equal(matches[k], want) {
				t.Errorf("match type %s: %q, want %q", k, matches[k], want)
			}
		}

		// Negative signals, with their thresholds explained.
		signals, order := sgRows(t, page, "sg-signals", "data-signal")
		if !slices.Equal(order, suggestions.Signals) {
			t.Errorf("signals in the order %q, want %q", order, suggestions.Signals)
		}
		for k, want := range map[string][]string{"viewed_but_rejected": {"4", "44.4%"}, "long_think_rejected": {"2", "22.2%"},
			"many_cycles": {"2", "22.2%"}, "partial_match": {"1", "11.1%"}, "cycled_back": {"2", "22.2%"}} {
			if got := signals[k]; len(got) != 4 || got[1] != want[0] || got[2] != want[1] || got[3] == "" {
				t.Errorf("signal %s: %q, want %q and a meaning", k, got, want)
			}
		}
		if got := signals["long_think_rejected"]; len(got) == 4 && !strings.Contains(got[3], "10.0 s or more") {
			t.Errorf("long_think_rejected does not give its threshold: %q", got[3])
		}
		if got := signals["many_cycles"]; len(got) == 4 && !strings.Contains(got[3], "5 times or more") {
			t.Errorf("many_cycles does not give its threshold: %q", got[3])
		}
		if got := sgText(page, "sg-thresholds"); !strings.Contains(got, "a long think is 10.0 s or more, many cycles 5 or more") {
			t.Errorf("the signals section does not state the thresholds: %q", got)
		}

		// Time to action: 300 ms, 1 s ×4, 2 s, 3 s, 20 s ×2; by nearest rank
		// p50 is the 5th (1 s), p90 and p99 the 9th (20 s), within 1%.
		for _, p := range []struct {
			id          string
			want, stats float64
		}{{"sg-p50", 1000, st.TimeToActionMS.P50}, {"sg-p90", 20000, st.TimeToActionMS.P90}, {"sg-p99", 20000, st.TimeToActionMS.P99}} {
			m := regexp.MustCompile(`id="` + p.id + `" data-ms="([^"]*)">([^<]*)<`).FindStringSubmatch(page)
			if m == nil {
				t.Errorf("the page has no #%s", p.id)
				continue
			}
			ms, err := strconv.ParseFloat(m[1], 64)
			if err != nil || ms != p.stats || !sgWithin(ms, p.want) {
				t.Errorf("#%s data-ms = %q, want the service's %v, within 1%% of %v", p.id, m[1], p.stats, p.want)
			}
			if shown := sgShownMS(t, m[2]); !sgWithin(shown, p.want) {
				t.Errorf("#%s shows %q, want %v ms within 1%%", p.id, m[2], p.want)
			}
		}

		// The time histogram: a bar for each bin, the tallest 4, zero bars
		// flat, heights in proportion.
		times := sgBarChart(t, page, "sg-times")
		wantLabels := []string{"<250 ms", "250–500 ms", "0.5–1 s", "1–2 s", "2–5 s", "5–10 s", "10–30 s", "30–60 s", "≥60 s"}
		if !slices.Equal(times.labels, wantLabels) || !slices.Equal(times.values, []string{"0", "1", "0", "4", "2", "0", "2", "0", "0"}) ||
			len(times.heights) != 9 {
			t.Errorf("time histogram: labels %q, counts %q, %d bars", times.labels, times.values, len(times.heights))
		} else {
			h := times.heights
			if h[0] != 0 || h[3] <= 0 || math.Abs(h[3]-2*h[4]) > 0.2 || math.Abs(h[3]-4*h[1]) > 0.2 || h[4] != h[6] {
				t.Errorf("bar heights %v are not in proportion to the counts", h)
			}
			if times.titles[3] != "1–2 s: 4 records (44.4%)" {
				t.Errorf("tooltip of 1–2 s = %q", times.titles[3])
			}
		}
		if !strings.Contains(sgElement(page, "svg", "sg-times"), `<text class="ytick"`) {
			t.Error("the time histogram has no y axis labels")
		}

		// Positions: #0 5 (4 exact, 1 partial), #1 1, #2 1.
		pos := sgBarChart(t, page, "sg-positions")
		if !slices.Equal(pos.labels, []string{"#0", "#1", "#2"}) || !slices.Equal(pos.values, []string{"5", "1", "1"}) || len(pos.heights) != 3 {
			t.Errorf("position chart: labels %q, counts %q, %d bars", pos.labels, pos.values, len(pos.heights))
		} else if pos.titles[0] != "Suggestion #0: 5 taken (71.4% of the suggestions taken)" || pos.heights[0] <= pos.heights[1] {
			t.Errorf("position #0: tooltip %q, heights %v", pos.titles[0], pos.heights)
		}

		// Acceptance over time: v1 on two days, v2 on one.
		titles, legend := sgPoints(t, page)
		wantTitles := []string{
			"v1 · " + sgDay(10) + ": 50.0% accepted (2 of 4)",
			"v1 · " + sgDay(2) + ": 100.0% accepted (3 of 3)",
			sgV2 + " · " + sgDay(1) + ": 100.0% accepted (2 of 2)",
		}
		if !slices.Equal(titles, wantTitles) {
			t.Errorf("over-time points:\n got %q\nwant %q", titles, wantTitles)
		}
		if !slices.Equal(legend, []string{"v1", sgV2}) {
			t.Errorf("legend %q", legend)
		}
		if n := strings.Count(sgElement(page, "svg", "sg-over-time"), "<polyline"); n != 1 {
			t.Errorf("%d lines in the over-time chart, want 1 (v1's two days)", n)
		}
		// Days are placed at their dates: yesterday is too close to the day
		// before to have a label of its own (its dot's tooltip names it).
		var days []string
		for _, m := range sgXTickRE.FindAllStringSubmatch(sgElement(page, "svg", "sg-over-time"), -1) {
			days = append(days, m[1])
		}
		if !slices.Equal(days, []string{sgDay(10), sgDay(2)}) {
			t.Errorf("the over-time chart labels the days %q, want %q", days, []string{sgDay(10), sgDay(2)})
		}

		// Tables.
		for _, tc := range []struct {
			id    string
			order []string
			rows  map[string][]string
		}{
			{"by-version", []string{"v1", sgV2}, map[string][]string{"v1": {"v1", "7", "5", "71.4%", "57.1%"}, sgV2: {sgV2, "2", "2", "100.0%", "50.0%"}}},
			{"by-model", []string{"gpt-4o", "gpt-4o-mini"}, map[string][]string{"gpt-4o": {"gpt-4o", "2", "2", "100.0%", "50.0%"},
				"gpt-4o-mini": {"gpt-4o-mini", "7", "5", "71.4%", "57.1%"}}},
			{"by-temperature", []string{"0.2", "0.7"}, map[string][]string{"0.2": {"0.2", "2", "2", "100.0%", "50.0%"}, "0.7": {"0.7", "7", "5", "71.4%", "57.1%"}}},
			{"by-context-size", []string{"2", "5-9", "20+"}, map[string][]string{"2": {"2", "4", "2", "50.0%", "50.0%"},
				"5-9": {"5-9", "3", "3", "100.0%", "66.7%"}, "20+": {"20+", "2", "2", "100.0%", "50.0%"}}},
			{"by-tokens", []string{"1-99", "100-199", "500-999"}, map[string][]string{"1-99": {"1-99", "4", "2", "50.0%", "50.0%"},
				"100-199": {"100-199", "3", "3", "100.0%", "66.7%"}, "500-999": {"500-999", "2", "2", "100.0%", "50.0%"}}},
		} {
			rows, order := sgRows(t, page, tc.id, "data-key")
			if !slices.Equal(order, tc.order) {
				t.Errorf("table %s: rows %q, want %q", tc.id, order, tc.order)
			}
			for k, want := range tc.rows {
				if !slices.Equal(rows[k], want) {
					t.Errorf("table %s, row %q: %q, want %q", tc.id, k, rows[k], want)
				}
			}
		}

		// The version with markup is text everywhere.
		if strings.Contains(page, `<img src=x`) || strings.Contains(page, `onerror="window`) {
			t.Error("the version's markup is in the page as markup")
		}
		escaped := html.EscapeString(sgV2)
		if n := strings.Count(page, escaped); n < 6 {
			t.Errorf("the escaped version is in the page %d times, want it in the select, the legend, the chart and the table", n)
		}
		values, selected := sgOptions(page)
		if !slices.Equal(values, []string{"", "v1", sgV2}) || selected != "" {
			t.Errorf("the version select offers %q, selected %q", values, selected)
		}

		// Filters: the version.
		page = c.page("/suggestions?version=v1")
		for id, want := range map[string]string{"sg-total": "7", "sg-accepted": "5", "sg-acceptance": "71.4%", "sg-exact": "57.1%"} {
			if got := sgText(page, id); got != want {
				t.Errorf("version v1: #%s = %q, want %q", id, got, want)
			}
		}
		if pos := sgBarChart(t, page, "sg-positions"); !slices.Equal(pos.labels, []string{"#0", "#1"}) || !slices.Equal(pos.values, []string{"4", "1"}) {
			t.Errorf("version v1: position chart %q %q", pos.labels, pos.values)
		}
		if titles, legend := sgPoints(t, page); len(titles) != 2 || !slices.Equal(legend, []string{"v1"}) {
			t.Errorf("version v1: over time %q, legend %q", titles, legend)
		}
		if _, order := sgRows(t, page, "by-version", "data-key"); !slices.Equal(order, []string{"v1"}) {
			t.Errorf("version v1: the version table has %q", order)
		}
		if values, selected := sgOptions(page); !slices.Equal(values, []string{"", "v1", sgV2}) || selected != "v1" {
			t.Errorf("version v1: the select offers %q, selected %q", values, selected)
		}
		page = c.page("/suggestions?" + url.Values{"version": {sgV2}}.Encode())
		if got := sgText(page, "sg-total"); got != "2" {
			t.Errorf("version %q: %s records, want 2", sgV2, got)
		}
		if _, selected := sgOptions(page); selected != sgV2 {
			t.Errorf("version %q: the select has %q selected", sgV2, selected)
		}

		// Since: the last 7 days leave out the 4 records of 10 days ago.
		page = c.page("/suggestions?since=7d")
		for id, want := range map[string]string{"sg-total": "5", "sg-accepted": "5", "sg-acceptance": "100.0%", "sg-exact": "60.0%"} {
			if got := sgText(page, id); got != want {
				t.Errorf("since 7d: #%s = %q, want %q", id, got, want)
			}
		}
		if times := sgBarChart(t, page, "sg-times"); !slices.Equal(times.values, []string{"0", "1", "0", "2", "2", "0", "0", "0", "0"}) {
			t.Errorf("since 7d: time histogram %q", times.values)
		}
		if titles, _ := sgPoints(t, page); len(titles) != 2 {
			t.Errorf("since 7d: over time %q", titles)
		}
		if got := regexp.MustCompile(`<input id="sg-since" name="since" value="([^"]*)"`).FindStringSubmatch(page); got == nil || got[1] != "7d" {
			t.Errorf("since 7d: the form shows %q", got)
		}
		page = c.page("/suggestions?since=" + sgDay(1))
		if got := sgText(page, "sg-total"); got != "2" {
			t.Errorf("since %s: %s records, want 2", sgDay(1), got)
		}
		page = c.page("/suggestions?server=prod&since=30d")
		if got := sgText(page, "sg-total"); got != "2" {
			t.Errorf("server prod: %s records, want 2", got)
		}
		if values, _ := sgOptions(page); !slices.Equal(values, []string{"", sgV2}) {
			t.Errorf("server prod: the select offers %q, want prod's versions", values)
		}

		// Filters that match nothing: the empty state says so.
		page = c.page("/suggestions?version=v9")
		if got := sgAllText(page, "section", "suggestions-empty"); !strings.Contains(got, "No suggestion records match these filters") ||
			!strings.Contains(got, "POST /api/v1/suggestions") {
			t.Errorf("version v9: the empty state says %q", got)
		}
		if _, selected := sgOptions(page); selected != "v9" {
			t.Errorf("version v9: the select has %q selected", selected)
		}

		// Bad filters: 400, the form kept, a message naming the field.
		for _, tc := range []struct {
			query, field, message string
		}{
			{"since=yesterday", "since", `since must be a time (2026-01-10T15:04:05Z), a date (2026-01-10) or an age (24h, 7d), not "yesterday"`},
			{"since=-3d", "since", `not "-3d"`},
			{"version=" + strings.Repeat("v", 201), "version", "version is longer than 200 characters"},
			{"server=" + strings.Repeat("s", 201), "server", "server is longer than 200 characters"},
		} {
			r := c.get("/suggestions?" + tc.query)
			if r.StatusCode != http.StatusBadRequest {
				t.Errorf("%s = %d, want 400", tc.query, r.StatusCode)
				continue
			}
			msg := regexp.MustCompile(`<p class="error sg-filter-error" id="filter-error" role="alert" data-field="([^"]*)">([^<]*)</p>`).FindStringSubmatch(r.body)
			if msg == nil || msg[1] != tc.field || !strings.Contains(html.UnescapeString(msg[2]), tc.message) {
				t.Errorf("%s: the error is %q, want %q on %s:\n%s", tc.query, msg, tc.message, tc.field, r.body)
			}
			if !regexp.MustCompile(`id="sg-` + tc.field + `" name="` + tc.field + `"[^>]*aria-invalid="true"`).MatchString(r.body) {
				t.Errorf("%s: the field %s is not marked invalid", tc.query, tc.field)
			}
			if strings.Contains(r.body, "<svg") || sgText(r.body, "sg-total") != "" || !strings.Contains(r.body, `<form method="get" action="/suggestions"`) {
				t.Errorf("%s: the page shows figures, or no form", tc.query)
			}
			if values, _ := sgOptions(r.body); !slices.Equal(values, []string{"", "v1", sgV2}) {
				t.Errorf("%s: the select offers %q", tc.query, values)
			}
		}
		r = c.get("/suggestions?since=yesterday")
		if got := regexp.MustCompile(`<input id="sg-since" name="since" value="([^"]*)"`).FindStringSubmatch(r.body); got == nil || got[1] != "yesterday" {
			t.Errorf("the bad since is not kept in the form: %q", got)
		}
	})
}

// TestSuggestionsPageManyPositions: past 20 positions only those taken get
// a bar; a filter picking only rejections says that none was taken.
func TestSuggestionsPageManyPositions(t *testing.T) {
	e := lnOpen(t, "", false)
	many := make([]string, 30)
	for i := range many {
		many[i] = fmt.Sprintf("suggestion %02d", i)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for _, s := range []struct {
		version, input string
	}{{"wide", many[0]}, {"wide", many[25]}, {"wide", many[25]}, {"rejected", "something else"}} {
		tr := suggest.NewTracker(suggest.Options{Server: "local", Session: "s"})
		tr.Fetched(map[string]any{}, many, nil, nil, s.version)
		if err := enc.Encode(tr.Submit(s.input, nil)); err != nil {
			t.Fatal(err)
		}
	}
	if res, err := suggestions.NewService(e.DB.Suggestions(), suggestions.Options{}).Ingest(context.Background(), &b, "application/x-ndjson"); err != nil || res.Accepted != 4 {
		t.Fatalf("ingest %+v %v", res, err)
	}
	c := e.client()
	pos := sgBarChart(t, c.page("/suggestions?version=wide"), "sg-positions")
	if !slices.Equal(pos.labels, []string{"#0", "#25"}) || !slices.Equal(pos.values, []string{"1", "2"}) || len(pos.heights) != 2 {
		t.Errorf("positions %q %q, want #0 and #25 only", pos.labels, pos.values)
	}
	page := c.page("/suggestions?version=rejected")
	if got := sgText(page, "sg-positions-empty"); got != "No suggestion was taken." {
		t.Errorf("with no suggestion taken the position chart says %q", got)
	}
	if strings.Contains(page, `id="sg-positions"`) {
		t.Error("a position chart is drawn with no suggestion taken")
	}
	if n := len(sgBarChart(t, page, "sg-times").heights); n != 9 {
		t.Errorf("the time histogram has %d bars", n)
	}
}

// The page offers its records as a training set: the export form keeps
// the filters, sft is the default, and a bad format is refused naming it.
func TestSuggestionsPageExport(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		e := lnOpen(t, databaseURL, false)
		c := e.client()
		if strings.Contains(c.page("/suggestions"), `id="suggestion-export"`) {
			t.Error("the empty page offers an export")
		}
		svc := suggestions.NewService(e.DB.Suggestions(), suggestions.Options{})
		sgSeed(t, svc)
		page := c.page("/suggestions?server=local")
		form := sgAllText(page, "form", "suggestion-export")
		if !strings.Contains(page, `<form method="get" action="/suggestions/export" class="sg-export" id="suggestion-export">`) ||
			!strings.Contains(page, `<input type="hidden" name="server" value="local">`) || !strings.Contains(form, "Download JSONL") {
			t.Fatalf("the export form: %q", form)
		}
		var want strings.Builder
		if _, err := svc.Export(context.Background(), &want, suggestions.ExportOptions{Format: suggestions.FormatRanking,
			Filter: suggestions.Filter{Server: "local"}}); err != nil {
			t.Fatal(err)
		}
		r := c.get("/suggestions/export?server=local&version=&since=&format=ranking")
		if r.StatusCode != http.StatusOK || r.body != want.String() || want.Len() == 0 ||
			!strings.Contains(r.Header.Get("Content-Disposition"), "suggestions-ranking.jsonl") {
			t.Fatalf("GET /suggestions/export = %d %q %q, want the ranking export %q", r.StatusCode, r.Header.Get("Content-Disposition"), r.body, want.String())
		}
		if r := c.get("/suggestions/export?server=local"); r.StatusCode != http.StatusOK ||
			!strings.Contains(r.Header.Get("Content-Disposition"), "suggestions-sft.jsonl") {
			t.Fatalf("the export without a format = %d %q, want sft", r.StatusCode, r.Header.Get("Content-Disposition"))
		}
		if r := c.get("/suggestions/export?format=csv"); r.StatusCode != http.StatusBadRequest || !strings.Contains(r.body, "format must be sft, ranking or dpo") {
			t.Fatalf("a bad format = %d %q", r.StatusCode, r.body)
		}
	})
}
