package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/honehq/hone/internal/quality"
	"github.com/honehq/hone/internal/scoring"
)

// metricList reads a turn's metrics JSON for the session page.
func metricList(raw json.RawMessage) []quality.Value {
	if len(raw) == 0 {
		return nil
	}
	var r quality.Result
	if json.Unmarshal(raw, &r) != nil {
		return nil
	}
	return r.Metrics
}

// metricHelp is what the metric of that name checks, as its set describes
// it, for the chip's tooltip; its name when the set does not know it.
func (u *UI) metricHelp(name string) string {
	if u.Scoring != nil && u.Scoring.Set != nil {
		for _, m := range u.Scoring.Set.Metrics() {
			if m.Name == name && m.Description != "" {
				return name + ": " + m.Description
			}
		}
	}
	return name
}

// Chart geometry of the metrics page, in SVG user units.
const (
	chartW, chartH       = 720, 260
	chartLeft, chartTop  = 48, 16
	chartRight, chartBot = 16, 48
)

// series is one line of the chart.
type series struct {
	Name, Class string
	Points      string
	Dots        []dot
}

// dot is one version's mean on a line.
type dot struct {
	X, Y  float64
	Title string
}

// tick is a label on an axis.
type tick struct {
	X, Y  float64
	Label string
}

// chart is the server-rendered SVG of the mean scores per prompt version.
type chart struct {
	W, H, Left, Top, Right, Bottom float64
	Series                         []series
	XTicks, YTicks                 []tick
}

// newChart places each version, in order of its first session, along the x
// axis and its mean overall, objective and subjective scores on the y axis
// (0 to 1); a version without a mean has no dot on that line.
func newChart(vs []scoring.VersionSummary) chart {
	c := chart{W: chartW, H: chartH, Left: chartLeft, Top: chartTop, Right: chartW - chartRight, Bottom: chartH - chartBot}
	x := func(i int) float64 {
		if len(vs) == 1 {
			return (c.Left + c.Right) / 2
		}
		return c.Left + float64(i)*(c.Right-c.Left)/float64(len(vs)-1)
	}
	y := func(v float64) float64 { return c.Bottom - v*(c.Bottom-c.Top) }
	for _, v := range []float64{0, 0.25, 0.5, 0.75, 1} {
		c.YTicks = append(c.YTicks, tick{X: c.Left - 6, Y: y(v), Label: fmt.Sprintf("%.2f", v)})
	}
	for i, v := range vs {
		c.XTicks = append(c.XTicks, tick{X: x(i), Y: c.Bottom + 16, Label: versionLabel(v.Version)})
	}
	for _, s := range []struct {
		name, class string
		get         func(scoring.VersionSummary) *float64
	}{
		{"Overall", "overall", func(v scoring.VersionSummary) *float64 { return v.Overall }},
		{"Objective", "objective", func(v scoring.VersionSummary) *float64 { return v.Objective }},
		{"Subjective", "subjective", func(v scoring.VersionSummary) *float64 { return v.Subjective }},
	} {
		line := series{Name: s.name, Class: s.class}
		for i, v := range vs {
			m := s.get(v)
			if m == nil {
				continue
			}
			d := dot{X: x(i), Y: y(*m), Title: fmt.Sprintf("%s %s: %.2f", versionLabel(v.Version), s.name, *m)}
			line.Dots = append(line.Dots, d)
			if line.Points != "" {
				line.Points += " "
			}
			line.Points += fmt.Sprintf("%.1f,%.1f", d.X, d.Y)
		}
		c.Series = append(c.Series, line)
	}
	return c
}

func versionLabel(v string) string {
	if v == "" {
		return "(none)"
	}
	return v
}

// qualityPage charts the mean scores per prompt version.
func (u *UI) qualityPage(w http.ResponseWriter, r *http.Request) error {
	vs, err := u.Scoring.Store.VersionSummaries(r.Context())
	if err != nil {
		return err
	}
	u.Render(w, r, http.StatusOK, "quality", map[string]any{
		"Title": "Metrics", "Versions": vs, "Chart": newChart(vs), "Now": time.Now(),
	})
	return nil
}

// QualityMoved sends a browser from the quality page's old address,
// /metrics, to /quality, query and all. /metrics is Prometheus' now: its
// face hands over only the requests that prefer HTML.
func QualityMoved(w http.ResponseWriter, r *http.Request) {
	to := "/quality"
	if r.URL.RawQuery != "" {
		to += "?" + r.URL.RawQuery
	}
	http.Redirect(w, r, to, http.StatusMovedPermanently)
}
