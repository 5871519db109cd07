package suggestions

import (
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/honehq/hone/suggest"
)

// Group is the outcome of the records of one kind (a version, a model …).
type Group struct {
	Total    int64 `json:"total"`
	Accepted int64 `json:"accepted"`
	Exact    int64 `json:"exact"`
	// AcceptanceRate is Accepted / Total, ExactRate Exact / Total (0 to 1).
	AcceptanceRate float64          `json:"acceptance_rate"`
	ExactRate      float64          `json:"exact_rate"`
	ByMatchType    map[string]int64 `json:"by_match_type"`
}

func newGroup() *Group { return &Group{ByMatchType: matchCounts()} }

func matchCounts() map[string]int64 {
	return map[string]int64{suggest.MatchExact: 0, suggest.MatchPartial: 0, suggest.MatchPrefix: 0, suggest.MatchNone: 0}
}

func (g *Group) add(match string, n int64) {
	g.Total += n
	g.ByMatchType[match] += n
	if match != suggest.MatchNone {
		g.Accepted += n
	}
	if match == suggest.MatchExact {
		g.Exact += n
	}
}

func (g *Group) rates() {
	if g.Total > 0 {
		g.AcceptanceRate = float64(g.Accepted) / float64(g.Total)
		g.ExactRate = float64(g.Exact) / float64(g.Total)
	}
}

// Percentiles of the time to action, in milliseconds.
type Percentiles struct {
	P50 float64 `json:"p50"`
	P90 float64 `json:"p90"`
	P99 float64 `json:"p99"`
}

// Point is the acceptance of one version on one day.
type Point struct {
	Day            string  `json:"day"`
	Version        string  `json:"version"`
	Total          int64   `json:"total"`
	Accepted       int64   `json:"accepted"`
	AcceptanceRate float64 `json:"acceptance_rate"`
}

// Bin is one bar of the time-to-action histogram: the records from FromMS
// up to ToMS.
type Bin struct {
	FromMS float64 `json:"from_ms"`
	ToMS   float64 `json:"to_ms"`
	N      int64   `json:"n"`
}

// Thresholds are the negative signals' thresholds in force.
type Thresholds struct {
	LongThinkMS float64 `json:"long_think_ms"`
	ManyCycles  int     `json:"many_cycles"`
}

// Stats answer the spec's questions about the records a filter picks.
type Stats struct {
	Total    int64 `json:"total"`
	Accepted int64 `json:"accepted"`
	// AcceptanceRate counts a record accepted when a suggestion was taken
	// (exact, partial or prefix); ExactRate only the exact ones.
	AcceptanceRate float64          `json:"acceptance_rate"`
	ExactRate      float64          `json:"exact_rate"`
	ByMatchType    map[string]int64 `json:"by_match_type"`
	// ByPosition counts the accepted records by the position of the
	// suggestion taken ("0" is the first shown): the position bias.
	ByPosition    map[string]int64  `json:"by_position"`
	ByVersion     map[string]*Group `json:"by_version"`
	ByModel       map[string]*Group `json:"by_model"`
	ByTemperature map[string]*Group `json:"by_temperature"`
	// TimeToActionMS are percentiles within 1% (read from buckets 2%
	// wide).
	TimeToActionMS Percentiles `json:"time_to_action_ms"`
	// CycleCount counts the records by Next/Prev presses, "10" for 10 or
	// more.
	CycleCount map[string]int64 `json:"cycle_count"`
	// ByContextSize and ByTokens compare the outcome by the blocks of
	// context sent and by the tokens of the call.
	ByContextSize   map[string]*Group `json:"by_context_size"`
	ByTokens        map[string]*Group `json:"by_tokens"`
	NegativeSignals map[string]int64  `json:"negative_signals"`
	Thresholds      Thresholds        `json:"thresholds"`
	// OverTime is the acceptance by version and day (UTC), for charts.
	OverTime []Point `json:"over_time"`
	// TimeHistogram is the time to action in bars, for charts.
	TimeHistogram []Bin `json:"time_histogram"`
}

// Filter picks records.
type Filter struct {
	Server  string
	Session string
	Version string
	Model   string
	// Since and Until bound the submit time; the statistics count whole
	// days, UTC (Since rounded down, Until up).
	Since, Until time.Time
	// MatchType picks one match type (exports).
	MatchType string
	Limit     int
}

// Compute turns rollups into statistics.
func Compute(rows []Rollup) *Stats {
	s := &Stats{ByMatchType: matchCounts(), ByPosition: map[string]int64{}, ByVersion: map[string]*Group{},
		ByModel: map[string]*Group{}, ByTemperature: map[string]*Group{}, CycleCount: map[string]int64{},
		ByContextSize: map[string]*Group{}, ByTokens: map[string]*Group{}, NegativeSignals: map[string]int64{},
		Thresholds: Thresholds{LongThinkMS: LongThinkMS, ManyCycles: ManyCycles}, OverTime: []Point{}, TimeHistogram: []Bin{}}
	for _, name := range Signals {
		s.NegativeSignals[name] = 0
	}
	group := func(m map[string]*Group, key string) *Group {
		g := m[key]
		if g == nil {
			g = newGroup()
			m[key] = g
		}
		return g
	}
	type dayVersion struct{ day, version string }
	days := map[dayVersion]*Point{}
	buckets := map[int]int64{}
	bins := make([]int64, len(histogramEdges)-1)
	for _, r := range rows {
		switch r.Kind {
		case KindMatch:
			s.Total += r.N
			s.ByMatchType[r.K1] += r.N
			group(s.ByVersion, r.Version).add(r.K1, r.N)
			k := dayVersion{r.Day.UTC().Format(time.DateOnly), r.Version}
			p := days[k]
			if p == nil {
				p = &Point{Day: k.day, Version: k.version}
				days[k] = p
			}
			p.Total += r.N
			if r.K1 != suggest.MatchNone {
				p.Accepted += r.N
			}
		case KindPosition:
			s.ByPosition[r.K1] += r.N
		case KindModel:
			group(s.ByModel, r.K1).add(r.K2, r.N)
		case KindTemperature:
			group(s.ByTemperature, r.K1).add(r.K2, r.N)
		case KindTimeBucket:
			b, _ := strconv.Atoi(r.K1)
			buckets[b] += r.N
		case KindTimeBin:
			if b, err := strconv.Atoi(r.K1); err == nil && b >= 0 && b < len(histogramEdges)-1 {
				bins[b] += r.N
			}
		case KindCycles:
			s.CycleCount[r.K1] += r.N
		case KindContext:
			group(s.ByContextSize, r.K1).add(r.K2, r.N)
		case KindTokens:
			group(s.ByTokens, r.K1).add(r.K2, r.N)
		case KindSignal:
			s.NegativeSignals[r.K1] += r.N
		}
	}
	s.Accepted = s.Total - s.ByMatchType[suggest.MatchNone]
	if s.Total > 0 {
		s.AcceptanceRate = float64(s.Accepted) / float64(s.Total)
		s.ExactRate = float64(s.ByMatchType[suggest.MatchExact]) / float64(s.Total)
	}
	for _, m := range []map[string]*Group{s.ByVersion, s.ByModel, s.ByTemperature, s.ByContextSize, s.ByTokens} {
		for _, g := range m {
			g.rates()
		}
	}
	for _, p := range days {
		if p.Total > 0 {
			p.AcceptanceRate = float64(p.Accepted) / float64(p.Total)
		}
		s.OverTime = append(s.OverTime, *p)
	}
	sort.Slice(s.OverTime, func(i, j int) bool {
		a, b := s.OverTime[i], s.OverTime[j]
		if a.Day != b.Day {
			return a.Day < b.Day
		}
		return a.Version < b.Version
	})
	s.TimeToActionMS = percentiles(buckets)
	for i, n := range bins {
		to := histogramEdges[i+1]
		if math.IsInf(to, 1) {
			to = -1
		}
		s.TimeHistogram = append(s.TimeHistogram, Bin{FromMS: histogramEdges[i], ToMS: to, N: n})
	}
	return s
}

// timeBin is the bar of the histogram a time to action falls in.
func timeBin(ms float64) int {
	for i := 1; i < len(histogramEdges); i++ {
		if ms < histogramEdges[i] {
			return i - 1
		}
	}
	return len(histogramEdges) - 2
}

// histogramEdges are the bars of the time-to-action histogram, in ms.
var histogramEdges = []float64{0, 250, 500, 1000, 2000, 5000, 10000, 30000, 60000, math.Inf(1)}

// tenth is ms rounded to 0.1, or ms itself when it is too large for
// rounding to matter (or to be computed without overflowing).
func tenth(ms float64) float64 {
	if ms >= 1e15 {
		return ms
	}
	return math.Round(ms*10) / 10
}

// percentiles reads the percentiles from the buckets (nearest rank).
func percentiles(buckets map[int]int64) Percentiles {
	keys := make([]int, 0, len(buckets))
	var total int64
	for b, n := range buckets {
		if n > 0 {
			keys = append(keys, b)
			total += n
		}
	}
	sort.Ints(keys)
	var p Percentiles
	if total == 0 {
		return p
	}
	rank := func(q float64) int64 { return int64(math.Ceil(q * float64(total))) }
	targets := []struct {
		rank int64
		into *float64
		done bool
	}{{rank: rank(0.5), into: &p.P50}, {rank: rank(0.9), into: &p.P90}, {rank: rank(0.99), into: &p.P99}}
	var seen int64
	for _, b := range keys {
		seen += buckets[b]
		for i := range targets {
			if t := &targets[i]; !t.done && seen >= t.rank {
				*t.into, t.done = tenth(bucketValue(b)), true
			}
		}
	}
	return p
}
