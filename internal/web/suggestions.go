package web

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/server"
	"github.com/honehq/hone/internal/suggestions"
	"github.com/honehq/hone/internal/timebound"
	"github.com/honehq/hone/suggest"
)

// sgForm is the filter form of /suggestions as the visitor filled it in.
type sgForm struct {
	Version, Server, Since string
}

// Query is the form as a query string, "" when it filters nothing.
func (f sgForm) Query() string {
	v := url.Values{}
	for _, p := range [][2]string{{"version", f.Version}, {"server", f.Server}, {"since", f.Since}} {
		if p[1] != "" {
			v.Set(p[0], p[1])
		}
	}
	return v.Encode()
}

// sgReadForm reads the filters of the query: version, server and since (an
// age such as 7d or 24h, a date or an RFC 3339 time). Other parameters are
// left alone.
func sgReadForm(q url.Values, now time.Time) (sgForm, suggestions.Filter, error) {
	form := sgForm{Version: strings.TrimSpace(hone.CleanText(q.Get("version"))),
		Server: strings.TrimSpace(hone.CleanText(q.Get("server"))), Since: strings.TrimSpace(hone.CleanText(q.Get("since")))}
	f := suggestions.Filter{Version: form.Version, Server: form.Server}
	for _, p := range []struct{ name, v string }{{"version", form.Version}, {"server", form.Server}} {
		if hone.Chars(p.v) > suggestions.MaxNameLength {
			return form, f, hone.FieldError(p.name, "%s is longer than %d characters", p.name, suggestions.MaxNameLength)
		}
	}
	var err error
	if f.Since, err = timebound.Parse("since", form.Since, now); err != nil {
		return form, f, err
	}
	return form, f, suggestions.CheckFilter(f)
}

// SuggestionPages are suggestion tracking's pages.
type SuggestionPages struct {
	UI          *UI
	Suggestions *suggestions.Service
}

// Routes are suggestion tracking's page routes.
func (p SuggestionPages) Routes() []server.Route {
	return []server.Route{{Method: "GET", Path: "/suggestions", Handler: p.suggestionsPage},
		{Method: "GET", Path: "/suggestions/export", Handler: p.exportSuggestions}}
}

// exportSuggestions downloads the records the page's filters pick as a
// training set, in the format asked for (sft by default), as hone
// suggestions export writes it.
func (p SuggestionPages) exportSuggestions(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	_, f, err := sgReadForm(q, time.Now())
	if err != nil {
		return err
	}
	o := suggestions.ExportOptions{Format: cmp.Or(strings.TrimSpace(q.Get("format")), suggestions.DefaultFormat), Filter: f,
		Accepted: q.Get("accepted") == "true"}
	if !slices.Contains(suggestions.Formats, o.Format) {
		return hone.FieldError("format", "format must be sft, ranking or dpo, not %q", o.Format)
	}
	return server.Download(w, "suggestions-"+o.Format+".jsonl", "application/x-ndjson", func(w io.Writer) error {
		_, err := p.Suggestions.Export(r.Context(), w, o)
		return err
	})
}

// suggestionsPage answers the suggestion-tracking spec's questions about
// the records the filters pick: acceptance, match types, negative signals,
// charts of acceptance over time, position and time to action, and the
// outcome by version, model, temperature, context size and tokens.
func (p SuggestionPages) suggestionsPage(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	form, f, ferr := sgReadForm(r.URL.Query(), time.Now())
	data := map[string]any{"Title": "Suggestions", "Form": form}
	if ferr != nil {
		if hone.ErrorCode(ferr) != hone.EINVALID {
			return ferr
		}
		// The form stays, with every version to pick from, and says what
		// to change.
		all, err := p.Suggestions.Stats(ctx, suggestions.Filter{})
		if err != nil {
			return err
		}
		picked := form.Version
		if hone.ErrorField(ferr) == "version" {
			picked = ""
		}
		data["Versions"] = sgVersions(all, picked)
		data["FilterError"], data["ErrorField"] = hone.ErrorMessage(ferr), hone.ErrorField(ferr)
		p.UI.Render(w, r, http.StatusBadRequest, "suggestions", data)
		return nil
	}
	// The versions to pick from are those of the other filters.
	others := f
	others.Version = ""
	base, err := p.Suggestions.Stats(ctx, others)
	if err != nil {
		return err
	}
	st := base
	if f.Version != "" {
		if st, err = p.Suggestions.Stats(ctx, f); err != nil {
			return err
		}
	}
	data["Versions"] = sgVersions(base, form.Version)
	data["Filtered"] = form.Query() != ""
	if st.Total > 0 {
		data["View"] = newSgView(st)
	}
	p.UI.Render(w, r, http.StatusOK, "suggestions", data)
	return nil
}

// sgVersions are the versions of the records in st, sorted, with the
// version picked when the records lack it, so that the select keeps it.
func sgVersions(st *suggestions.Stats, picked string) []string {
	var out []string
	for v := range st.ByVersion {
		if v != "" {
			out = append(out, v)
		}
	}
	if picked != "" && st.ByVersion[picked] == nil {
		out = append(out, picked)
	}
	sort.Strings(out)
	return out
}

// sgView is what the page shows of the statistics.
type sgView struct {
	Stats    *suggestions.Stats
	Accepted string
	Exact    string
	// LongThink is the threshold of long_think_rejected, as shown.
	LongThink   string
	Matches     []sgCount
	Signals     []sgSignal
	Percentiles []sgCount
	OverTime    chart
	Positions   sgBarChart
	Times       sgBarChart
	Tables      []sgTable
}

// sgCount is a named figure with its share of the records.
type sgCount struct {
	Name  string
	N     int64
	Share string
	// Text is the figure as shown, Value its number (percentiles).
	Text  string
	Value float64
}

// sgSignal is a negative signal: its count and what it means.
type sgSignal struct {
	Name    string
	N       int64
	Share   string
	Meaning string
}

// sgTable is the outcome by one kind of key (version, model …).
type sgTable struct {
	ID, Title, Key string
	Rows           []sgRow
}

// sgRow is one group of a table.
type sgRow struct {
	Key, Label             string
	Total, Accepted, Exact int64
	Acceptance, ExactRate  string
}

func newSgView(st *suggestions.Stats) *sgView {
	v := &sgView{Stats: st, Accepted: sgPercent(st.AcceptanceRate), Exact: sgPercent(st.ExactRate),
		LongThink: sgDuration(st.Thresholds.LongThinkMS)}
	share := func(n int64) string { return sgPercent(float64(n) / float64(st.Total)) }
	for _, m := range []string{suggest.MatchExact, suggest.MatchPartial, suggest.MatchPrefix, suggest.MatchNone} {
		v.Matches = append(v.Matches, sgCount{Name: m, N: st.ByMatchType[m], Share: share(st.ByMatchType[m])})
	}
	for _, name := range suggestions.Signals {
		v.Signals = append(v.Signals, sgSignal{Name: name, N: st.NegativeSignals[name], Share: share(st.NegativeSignals[name]),
			Meaning: sgSignalMeaning(name, st.Thresholds)})
	}
	p := st.TimeToActionMS
	for _, c := range []struct {
		name string
		ms   float64
	}{{"p50", p.P50}, {"p90", p.P90}, {"p99", p.P99}} {
		v.Percentiles = append(v.Percentiles, sgCount{Name: c.name, Text: sgDuration(c.ms), Value: c.ms})
	}
	v.OverTime = sgOverTime(st.OverTime)
	v.Positions = sgPositionChart(st)
	v.Times = sgTimeChart(st)
	v.Tables = []sgTable{
		{ID: "by-version", Title: "By version", Key: "Version", Rows: sgRows(st.ByVersion, nil, sgNone)},
		{ID: "by-model", Title: "By model", Key: "Model", Rows: sgRows(st.ByModel, nil, sgNone)},
		{ID: "by-temperature", Title: "By temperature", Key: "Temperature", Rows: sgRows(st.ByTemperature, sgNumeric, func(k string) string {
			if k == "" {
				return "not given"
			}
			return k
		})},
		{ID: "by-context-size", Title: "By context size", Key: "Blocks of context", Rows: sgRows(st.ByContextSize, sgOrder(suggestions.ContextClasses), nil)},
		{ID: "by-tokens", Title: "By tokens", Key: "Tokens of the call", Rows: sgRows(st.ByTokens, sgOrder(suggestions.TokenClasses), nil)},
	}
	return v
}

// sgSignalMeaning explains a negative signal, with its threshold.
func sgSignalMeaning(name string, th suggestions.Thresholds) string {
	switch name {
	case "viewed_but_rejected":
		return "A suggestion was shown, and the input took another one or none."
	case "long_think_rejected":
		return "No suggestion was taken after " + sgDuration(th.LongThinkMS) + " or more of thought."
	case "many_cycles":
		return fmt.Sprintf("The person cycled through the suggestions %d times or more (Tab/Shift-Tab): none was helpful at first sight.", th.ManyCycles)
	case "partial_match":
		return "A suggestion was taken and then changed: close, not quite right."
	case "cycled_back":
		return "The person came back to a suggestion already seen (viewed_indices repeat): indecision."
	}
	return ""
}

// sgNone names the empty key of a version or model.
func sgNone(k string) string {
	if k == "" {
		return "(none)"
	}
	return k
}

// sgNumeric orders keys as numbers, the empty key last.
func sgNumeric(a, b string) bool {
	x, errA := strconv.ParseFloat(a, 64)
	y, errB := strconv.ParseFloat(b, 64)
	switch {
	case errA == nil && errB == nil:
		return x < y
	case errA == nil:
		return true
	case errB == nil:
		return false
	}
	return a < b
}

// sgOrder orders keys as in classes, others after them by name.
func sgOrder(classes []string) func(a, b string) bool {
	rank := func(k string) int {
		for i, c := range classes {
			if c == k {
				return i
			}
		}
		return len(classes)
	}
	return func(a, b string) bool {
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra < rb
		}
		return a < b
	}
}

// sgRows are the groups of m in order (by name when less is nil), each
// labelled by label (the key itself when nil).
func sgRows(m map[string]*suggestions.Group, less func(a, b string) bool, label func(string) string) []sgRow {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	if less == nil {
		less = func(a, b string) bool { return a < b }
	}
	sort.Slice(keys, func(i, j int) bool { return less(keys[i], keys[j]) })
	rows := make([]sgRow, 0, len(keys))
	for _, k := range keys {
		g := m[k]
		l := k
		if label != nil {
			l = label(k)
		}
		rows = append(rows, sgRow{Key: k, Label: l, Total: g.Total, Accepted: g.Accepted, Exact: g.Exact,
			Acceptance: sgPercent(g.AcceptanceRate), ExactRate: sgPercent(g.ExactRate)})
	}
	return rows
}

// sgPercent shows a rate from 0 to 1 as a percentage.
func sgPercent(rate float64) string {
	if math.IsNaN(rate) || math.IsInf(rate, 0) {
		return "—"
	}
	return strconv.FormatFloat(rate*100, 'f', 1, 64) + "%"
}

// sgDuration shows a time in milliseconds: 994 ms, 1.25 s, 20.1 s.
func sgDuration(ms float64) string {
	switch {
	case ms < 1000:
		return strconv.FormatFloat(ms, 'f', 0, 64) + " ms"
	case ms < 10000:
		return strconv.FormatFloat(ms/1000, 'f', 2, 64) + " s"
	}
	return strconv.FormatFloat(ms/1000, 'f', 1, 64) + " s"
}

// sgEdge shows an edge of the histogram, in unit (ms or s).
func sgEdge(ms float64, unit string) string {
	if unit == "s" {
		ms /= 1000
	}
	return strconv.FormatFloat(ms, 'f', -1, 64)
}

// sgBinLabel names a bar of the time histogram: "<250 ms", "1–2 s", "≥60 s".
func sgBinLabel(b suggestions.Bin) string {
	unit := func(ms float64) string {
		if ms >= 1000 {
			return "s"
		}
		return "ms"
	}
	switch {
	case b.ToMS < 0:
		u := unit(b.FromMS)
		return "≥" + sgEdge(b.FromMS, u) + " " + u
	case b.FromMS <= 0:
		u := unit(b.ToMS)
		return "<" + sgEdge(b.ToMS, u) + " " + u
	}
	u := unit(b.ToMS)
	return sgEdge(b.FromMS, u) + "–" + sgEdge(b.ToMS, u) + " " + u
}

// Geometry of the page's charts, in SVG user units.
const (
	sgW, sgH          = 720, 260
	sgLeft, sgTop     = 52, 20
	sgRight, sgBottom = 16, 52
	// sgSeriesColours is how many colours the version lines take turns
	// with (classes s0 … s7 of hone.css).
	sgSeriesColours = 8
	// sgMaxDayLabels bounds the day labels under the over-time chart,
	// sgDayLabelWidth is the room a label takes, and sgInset keeps the
	// first and last days' labels inside the chart.
	sgMaxDayLabels  = 7
	sgDayLabelWidth = 72
	sgInset         = 36
)

// sgBar is one bar: its box, its label under the axis, its count above it
// and its tooltip.
type sgBar struct {
	X, Y, W, H     float64
	LabelX, LabelY float64
	ValueY         float64
	Label, Value   string
	Title          string
	Key            string
}

// sgBarChart is a server-drawn bar chart.
type sgBarChart struct {
	W, H, Left, Top, Right, Bottom float64
	Bars                           []sgBar
	YTicks                         []tick
	// Empty says why there is nothing to draw, when there is not.
	Empty string
}

// sgStep is a round step of an axis of counts up to most: 1, 2 or 5 times a
// power of ten, at most five steps to the top.
func sgStep(most int64) int64 {
	step := int64(1)
	for {
		for _, m := range []int64{1, 2, 5} {
			if most <= m*step*5 {
				return m * step
			}
		}
		step *= 10
	}
}

// newSgBarChart draws counts as bars of equal width.
func newSgBarChart(labels, keys, titles []string, counts []int64) sgBarChart {
	c := sgBarChart{W: sgW, H: sgH, Left: sgLeft, Top: sgTop, Right: sgW - sgRight, Bottom: sgH - sgBottom}
	var most int64
	for _, n := range counts {
		most = max(most, n)
	}
	step := sgStep(most)
	top := step * ((most + step - 1) / step)
	if top == 0 {
		top = step
	}
	y := func(n int64) float64 { return c.Bottom - float64(n)/float64(top)*(c.Bottom-c.Top) }
	for n := int64(0); n <= top; n += step {
		c.YTicks = append(c.YTicks, tick{X: c.Left - 6, Y: y(n), Label: strconv.FormatInt(n, 10)})
	}
	slot := (c.Right - c.Left) / float64(len(counts))
	for i, n := range counts {
		x := c.Left + float64(i)*slot
		c.Bars = append(c.Bars, sgBar{X: x + slot*0.15, W: slot * 0.7, Y: y(n), H: c.Bottom - y(n),
			LabelX: x + slot/2, LabelY: c.Bottom + 16, ValueY: y(n) - 4,
			Label: labels[i], Value: strconv.FormatInt(n, 10), Title: titles[i], Key: keys[i]})
	}
	return c
}

// sgPositionChart is the accepted records by the position of the
// suggestion taken: a bar for each position from #0 to the last taken
// (only those taken when that is over 20 bars).
func sgPositionChart(st *suggestions.Stats) sgBarChart {
	var positions []int
	maxPos := -1
	for k, n := range st.ByPosition {
		if p, err := strconv.Atoi(k); err == nil && p >= 0 && n > 0 {
			positions = append(positions, p)
			maxPos = max(maxPos, p)
		}
	}
	if maxPos < 0 {
		return sgBarChart{Empty: "No suggestion was taken."}
	}
	sort.Ints(positions)
	if maxPos < 20 {
		positions = positions[:0]
		for p := 0; p <= maxPos; p++ {
			positions = append(positions, p)
		}
	}
	var accepted int64
	for _, n := range st.ByPosition {
		accepted += n
	}
	var labels, keys, titles []string
	var counts []int64
	for _, p := range positions {
		k := strconv.Itoa(p)
		n := st.ByPosition[k]
		labels, keys, counts = append(labels, "#"+k), append(keys, k), append(counts, n)
		titles = append(titles, fmt.Sprintf("Suggestion #%d: %d taken (%s of the suggestions taken)", p, n, sgPercent(float64(n)/float64(accepted))))
	}
	return newSgBarChart(labels, keys, titles, counts)
}

// sgTimeChart is the time-to-action histogram.
func sgTimeChart(st *suggestions.Stats) sgBarChart {
	if len(st.TimeHistogram) == 0 {
		return sgBarChart{Empty: "No time to action was recorded."}
	}
	var labels, keys, titles []string
	var counts []int64
	for i, b := range st.TimeHistogram {
		l := sgBinLabel(b)
		labels, keys, counts = append(labels, l), append(keys, strconv.Itoa(i)), append(counts, b.N)
		titles = append(titles, fmt.Sprintf("%s: %d records (%s)", l, b.N, sgPercent(float64(b.N)/float64(st.Total))))
	}
	return newSgBarChart(labels, keys, titles, counts)
}

// sgOverTime draws the acceptance rate of each version by day: a line of
// dots per version, the days along the x axis at their dates.
func sgOverTime(points []suggestions.Point) chart {
	c := chart{W: sgW, H: sgH, Left: sgLeft, Top: sgTop, Right: sgW - sgRight, Bottom: sgH - sgBottom}
	var days []string
	seen := map[string]bool{}
	var versions []string
	byVersion := map[string][]suggestions.Point{}
	for _, p := range points {
		if !seen[p.Day] {
			seen[p.Day] = true
			days = append(days, p.Day)
		}
		if byVersion[p.Version] == nil {
			versions = append(versions, p.Version)
		}
		byVersion[p.Version] = append(byVersion[p.Version], p)
	}
	sort.Strings(days)
	sort.Strings(versions)
	if len(days) == 0 {
		return c
	}
	first, _ := time.Parse(time.DateOnly, days[0])
	last, _ := time.Parse(time.DateOnly, days[len(days)-1])
	span := last.Sub(first).Hours() / 24
	x := func(day string) float64 {
		d, err := time.Parse(time.DateOnly, day)
		if err != nil || span == 0 {
			return (c.Left + c.Right) / 2
		}
		return c.Left + sgInset + d.Sub(first).Hours()/24/span*(c.Right-c.Left-2*sgInset)
	}
	y := func(rate float64) float64 { return c.Bottom - rate*(c.Bottom-c.Top) }
	for _, v := range []float64{0, 0.25, 0.5, 0.75, 1} {
		c.YTicks = append(c.YTicks, tick{X: c.Left - 6, Y: y(v), Label: strconv.Itoa(int(v*100)) + "%"})
	}
	labelled := days
	if len(days) > sgMaxDayLabels {
		labelled = nil
		for i := range sgMaxDayLabels {
			labelled = append(labelled, days[i*(len(days)-1)/(sgMaxDayLabels-1)])
		}
	}
	// A label closer to the one before than its width is left out (the
	// dots' tooltips name their days).
	prev := math.Inf(-1)
	for _, d := range labelled {
		if x(d)-prev < sgDayLabelWidth {
			continue
		}
		prev = x(d)
		c.XTicks = append(c.XTicks, tick{X: x(d), Y: c.Bottom + 16, Label: d})
	}
	for i, v := range versions {
		s := series{Name: sgNone(v), Class: "s" + strconv.Itoa(i%sgSeriesColours)}
		var pts []string
		for _, p := range byVersion[v] {
			px, py := x(p.Day), y(p.AcceptanceRate)
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", px, py))
			s.Dots = append(s.Dots, dot{X: px, Y: py, Title: fmt.Sprintf("%s · %s: %s accepted (%d of %d)",
				sgNone(v), p.Day, sgPercent(p.AcceptanceRate), p.Accepted, p.Total)})
		}
		if len(pts) > 1 {
			s.Points = strings.Join(pts, " ")
		}
		c.Series = append(c.Series, s)
	}
	return c
}
