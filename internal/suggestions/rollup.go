package suggestions

import (
	"math"
	"strconv"
	"time"

	"github.com/honehq/hone/suggest"
)

// Kinds of rollup: the question each count answers.
const (
	KindMatch       = "match"       // K1 match type
	KindPosition    = "position"    // K1 position of the suggestion taken
	KindModel       = "model"       // K1 model, K2 match type
	KindTemperature = "temperature" // K1 temperature, K2 match type
	KindTimeBucket  = "tta"         // K1 time-to-action bucket
	KindTimeBin     = "tta_bin"     // K1 bar of the time-to-action histogram
	KindCycles      = "cycles"      // K1 cycle count, 10 for 10 or more
	KindContext     = "context"     // K1 context size class, K2 match type
	KindTokens      = "tokens"      // K1 token class, K2 match type
	KindSignal      = "signal"      // K1 negative signal
)

// Day is the time unit of the rollups: the statistics count whole days
// (UTC).
const Day = 24 * time.Hour

// Rollup is one count: of the records of a day (UTC), server and version
// under one question's key.
type Rollup struct {
	Kind    string
	Day     time.Time
	Server  string
	Version string
	K1, K2  string
	N       int64
}

// rollupKey is a Rollup without its count.
type rollupKey struct {
	kind    string
	day     int64
	server  string
	version string
	k1, k2  string
}

// Thresholds of the negative signals that are a matter of degree.
const (
	// LongThinkMS is the time to action from which a rejection counts as
	// long_think_rejected.
	LongThinkMS = 10_000
	// ManyCycles is the cycle count from which a round counts as
	// many_cycles.
	ManyCycles = 5
)

// CycleCap is the cycle count the statistics count every higher one as.
const CycleCap = 10

// Signals are the spec's five negative signals, by name.
var Signals = []string{"viewed_but_rejected", "long_think_rejected", "many_cycles", "partial_match", "cycled_back"}

// signals are the negative signals of a record.
func signals(r *Record) []string {
	var out []string
	if r.ViewedButRejected {
		out = append(out, "viewed_but_rejected")
	}
	if r.TimeToActionMS >= LongThinkMS && r.MatchType == suggest.MatchNone {
		out = append(out, "long_think_rejected")
	}
	if r.CycleCount >= ManyCycles {
		out = append(out, "many_cycles")
	}
	if r.MatchType == suggest.MatchPartial {
		out = append(out, "partial_match")
	}
	if r.CycledBack {
		out = append(out, "cycled_back")
	}
	return out
}

// Rollups are the counts the records add, or with sign −1 take away.
func Rollups(recs []*Record, sign int64) []Rollup {
	counts := map[rollupKey]int64{}
	for _, r := range recs {
		base := rollupKey{day: r.TS.Truncate(Day).Unix(), server: r.Server, version: r.Version}
		add := func(kind, k1, k2 string) {
			k := base
			k.kind, k.k1, k.k2 = kind, k1, k2
			counts[k] += sign
		}
		add(KindMatch, r.MatchType, "")
		if r.AcceptedIndex != nil {
			add(KindPosition, strconv.Itoa(*r.AcceptedIndex), "")
		}
		add(KindModel, r.Model, r.MatchType)
		temp := ""
		if r.Temperature != nil {
			temp = strconv.FormatFloat(*r.Temperature, 'g', -1, 64)
		}
		add(KindTemperature, temp, r.MatchType)
		add(KindTimeBucket, strconv.Itoa(TimeBucket(r.TimeToActionMS)), "")
		add(KindTimeBin, strconv.Itoa(timeBin(r.TimeToActionMS)), "")
		add(KindCycles, strconv.Itoa(min(r.CycleCount, CycleCap)), "")
		add(KindContext, ContextClass(r.ContextBlockCount), r.MatchType)
		add(KindTokens, TokenClass(r.TotalTokens), r.MatchType)
		for _, s := range signals(r) {
			add(KindSignal, s, "")
		}
	}
	out := make([]Rollup, 0, len(counts))
	for k, n := range counts {
		out = append(out, Rollup{Kind: k.kind, Day: time.Unix(k.day, 0).UTC(), Server: k.server, Version: k.version, K1: k.k1, K2: k.k2, N: n})
	}
	return out
}

// bucketRatio is the width of a time-to-action bucket: each is 2% wider
// than the one before, so a percentile read from them is within 1%.
const bucketRatio = 1.02

var logRatio = math.Log(bucketRatio)

// TimeBucket is the bucket of a time to action: 0 below 1 ms, else
// 1 + ⌊ln(ms) / ln(1.02)⌋.
func TimeBucket(ms float64) int {
	if ms < 1 || math.IsNaN(ms) {
		return 0
	}
	return 1 + int(math.Floor(math.Log(ms)/logRatio))
}

// BucketBounds are the times a bucket holds, [low, high).
func BucketBounds(b int) (low, high float64) {
	if b <= 0 {
		return 0, 1
	}
	return math.Exp(float64(b-1) * logRatio), math.Exp(float64(b) * logRatio)
}

// bucketValue is the value a bucket stands for: its geometric middle, at
// most the largest float64 (a bucket past it, which only a rollup written
// by hand holds, stands for that).
func bucketValue(b int) float64 {
	if b <= 0 {
		return 0
	}
	return min(math.Exp((float64(b)-0.5)*logRatio), math.MaxFloat64)
}

// ContextClasses are the context sizes (blocks sent to the model) the
// statistics compare.
var ContextClasses = []string{"0", "1", "2", "3-4", "5-9", "10-19", "20+"}

// ContextClass is the class of a context of n blocks.
func ContextClass(n int) string {
	switch {
	case n <= 2:
		return ContextClasses[max(n, 0)]
	case n <= 4:
		return "3-4"
	case n <= 9:
		return "5-9"
	case n <= 19:
		return "10-19"
	}
	return "20+"
}

// TokenClasses are the token counts of the LLM call the statistics compare.
var TokenClasses = []string{"unknown", "1-99", "100-199", "200-499", "500-999", "1000-1999", "2000+"}

// TokenClass is the class of a call of n tokens (0: unknown).
func TokenClass(n int) string {
	switch {
	case n <= 0:
		return "unknown"
	case n < 100:
		return "1-99"
	case n < 200:
		return "100-199"
	case n < 500:
		return "200-499"
	case n < 1000:
		return "500-999"
	case n < 2000:
		return "1000-1999"
	}
	return "2000+"
}
