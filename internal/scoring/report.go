package scoring

import (
	"context"
	"slices"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/quality"
)

// Names of the composite scores in reports.
const (
	ObjectiveName  = "objective_quality_score"
	SubjectiveName = "subjective_quality_score"
	OverallName    = "overall_quality_score"
)

// TestDescription says which statistical test decides significance.
const TestDescription = "bootstrap CI + Mann–Whitney: 95% percentile bootstrap confidence interval of the difference of means " +
	"(2000 resamples) and the two-sided Mann–Whitney U test; significant when each side has at least 5 turns, " +
	"p < 0.05 and the interval excludes 0"

// Stat is the mean of one score over some turns; N/A values are left out of
// both the mean and n.
type Stat struct {
	Name string   `json:"name"`
	N    int      `json:"n"`
	Mean *float64 `json:"mean"`
}

// SessionReport is the means of a session's scores.
type SessionReport struct {
	SessionID     string `json:"session_id"`
	PromptVersion string `json:"prompt_version"`
	Turns         int    `json:"turns"`
	// Metrics holds each objective metric, then the three composites.
	Metrics []Stat `json:"metrics"`
}

// Diff compares one score between two prompt versions, A (baseline) and B.
type Diff struct {
	Name  string   `json:"name"`
	NA    int      `json:"n_a"`
	NB    int      `json:"n_b"`
	MeanA *float64 `json:"mean_a"`
	MeanB *float64 `json:"mean_b"`
	// Difference is MeanB − MeanA; nil when a side has no values.
	Difference  *float64 `json:"difference"`
	CILow       *float64 `json:"ci_low"`
	CIHigh      *float64 `json:"ci_high"`
	PValue      float64  `json:"p_value"`
	Significant bool     `json:"significant"`
}

// Comparison compares two prompt versions score by score.
type Comparison struct {
	VersionA string `json:"version_a"`
	VersionB string `json:"version_b"`
	TurnsA   int    `json:"turns_a"`
	TurnsB   int    `json:"turns_b"`
	Test     string `json:"test"`
	// Metrics holds each objective metric, then the three composites.
	Metrics []Diff `json:"metrics"`
}

// Step compares a prompt version's overall score with the version before it.
type Step struct {
	Previous      string    `json:"previous_version"`
	Version       string    `json:"version"`
	PreviousStart time.Time `json:"previous_first_session_start"`
	Start         time.Time `json:"first_session_start"`
	Overall       Diff      `json:"overall"`
	// Regressed is set when the overall score fell significantly.
	Regressed bool `json:"regressed"`
}

// RegressionReport lists every step between consecutive prompt versions,
// ordered by their first session start, and the steps that regressed.
type RegressionReport struct {
	Test        string `json:"test"`
	Steps       []Step `json:"steps"`
	Regressions []Step `json:"regressions"`
}

// group is the samples of one session or version.
type group struct {
	name    string
	start   time.Time
	turns   int
	names   []string
	values  map[string][]float64
	present map[string]bool
}

func newGroup(name string) *group {
	return &group{name: name, values: map[string][]float64{}, present: map[string]bool{}}
}

func (g *group) add(s Sample) {
	g.turns++
	for _, v := range decodeMetrics(s.Metrics).Metrics {
		g.value(v.Name, v.Score)
	}
	g.value(ObjectiveName, s.Objective)
	g.value(SubjectiveName, s.Subjective)
	g.value(OverallName, s.Overall)
}

func (g *group) value(name string, p *float64) {
	if !g.present[name] {
		g.present[name] = true
		g.names = append(g.names, name)
	}
	if p != nil {
		g.values[name] = append(g.values[name], *p)
	}
}

// metricNames returns the objective metric names of the groups, those of
// order (the set's) first and in its order, the others as they appear (a
// PostgreSQL JSONB column does not keep the order of keys), followed by the
// three composites.
func metricNames(order []string, gs ...*group) []string {
	var out []string
	for _, g := range gs {
		for _, n := range g.names {
			if n != ObjectiveName && n != SubjectiveName && n != OverallName && !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	rank := func(n string) int {
		if i := slices.Index(order, n); i >= 0 {
			return i
		}
		return len(order)
	}
	slices.SortStableFunc(out, func(a, b string) int { return rank(a) - rank(b) })
	return append(out, ObjectiveName, SubjectiveName, OverallName)
}

func meanOf(xs []float64) *float64 {
	if len(xs) == 0 {
		return nil
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	m := s / float64(len(xs))
	return &m
}

// SessionReport returns the means of a session's scores.
func (s *Service) SessionReport(ctx context.Context, id string) (*SessionReport, error) {
	sess, err := s.Sessions.FindSession(ctx, id)
	if err != nil {
		return nil, err
	}
	samples, err := s.Store.Samples(ctx, SampleFilter{SessionID: id})
	if err != nil {
		return nil, err
	}
	g := newGroup(id)
	for _, x := range samples {
		g.add(x)
	}
	r := &SessionReport{SessionID: sess.ID, PromptVersion: sess.PromptVersion, Turns: g.turns, Metrics: []Stat{}}
	for _, n := range metricNames(s.Set.MetricNames(), g) {
		r.Metrics = append(r.Metrics, Stat{Name: n, N: len(g.values[n]), Mean: meanOf(g.values[n])})
	}
	return r, nil
}

// diff compares the values of one score with quality.Compare.
func diff(name string, a, b []float64) Diff {
	d := Diff{Name: name, NA: len(a), NB: len(b), MeanA: meanOf(a), MeanB: meanOf(b), PValue: 1}
	if len(a) == 0 || len(b) == 0 {
		return d
	}
	c := quality.Compare(a, b)
	d.Difference, d.CILow, d.CIHigh = &c.Diff, &c.CILow, &c.CIHigh
	d.PValue, d.Significant = c.PValue, c.Significant
	return d
}

// Compare compares prompt version b with version a, score by score.
func (s *Service) Compare(ctx context.Context, a, b string) (*Comparison, error) {
	if a == "" {
		return nil, hone.FieldError("a", "give the baseline prompt version as a")
	}
	if b == "" {
		return nil, hone.FieldError("b", "give the candidate prompt version as b")
	}
	samples, err := s.Store.Samples(ctx, SampleFilter{Versions: []string{a, b}})
	if err != nil {
		return nil, err
	}
	ga, gb := newGroup(a), newGroup(b)
	for _, x := range samples {
		if x.Version == a {
			ga.add(x)
		}
		if x.Version == b {
			gb.add(x)
		}
	}
	for _, g := range []*group{ga, gb} {
		if g.turns == 0 {
			return nil, versionNotFound(g.name)
		}
	}
	c := &Comparison{VersionA: a, VersionB: b, TurnsA: ga.turns, TurnsB: gb.turns, Test: TestDescription, Metrics: []Diff{}}
	for _, n := range metricNames(s.Set.MetricNames(), ga, gb) {
		c.Metrics = append(c.Metrics, diff(n, ga.values[n], gb.values[n]))
	}
	return c, nil
}

// Regressions compares each prompt version's overall score with the version
// before it (by first session start) and flags those that fell significantly.
func (s *Service) Regressions(ctx context.Context) (*RegressionReport, error) {
	samples, err := s.Store.Samples(ctx, SampleFilter{})
	if err != nil {
		return nil, err
	}
	var order []*group
	byName := map[string]*group{}
	for _, x := range samples {
		g := byName[x.Version]
		if g == nil {
			g = newGroup(x.Version)
			g.start = x.SessionStart
			byName[x.Version] = g
			order = append(order, g)
		}
		g.turns++
		g.value(OverallName, x.Overall)
	}
	r := &RegressionReport{Test: TestDescription, Steps: []Step{}, Regressions: []Step{}}
	for i := 1; i < len(order); i++ {
		prev, cur := order[i-1], order[i]
		st := Step{Previous: prev.name, Version: cur.name, PreviousStart: prev.start, Start: cur.start,
			Overall: diff(OverallName, prev.values[OverallName], cur.values[OverallName])}
		st.Regressed = st.Overall.Significant && st.Overall.Difference != nil && *st.Overall.Difference < 0
		r.Steps = append(r.Steps, st)
		if st.Regressed {
			r.Regressions = append(r.Regressions, st)
		}
	}
	return r, nil
}
