package alerts

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// Defaults of BudgetRules.
const (
	DefaultBudget      = 5
	DefaultBudgetMin   = 1
	DefaultBudgetMax   = 10
	DefaultScoreWindow = 20
	DefaultGrace       = 24 * time.Hour
	DefaultPauseAfter  = 3
)

// BudgetSwing is how far the alert_quality_score moves the daily budget
// from its base: by half the base at a score of 1 or −1.
const BudgetSwing = 0.5

// BudgetPeriod is the rolling window the daily budget counts alerts in: an
// alert sent exactly BudgetPeriod ago has left it.
const BudgetPeriod = 24 * time.Hour

// Values of the reactions to an alert in the alert_quality_score; an alert
// nobody reacted to within the grace period is worth IgnoredValue.
const (
	UpValue      = 1.0
	AckValue     = 0.5
	DownValue    = -1.0
	IgnoredValue = 0.0
)

// BudgetRules are the reach-out budget's parameters. A zero field takes its
// default (see WithDefaults).
type BudgetRules struct {
	// Base is the daily budget at a score of 0.
	Base int
	// Min and Max bound the budget. Min is at least 1: a conversation
	// that may receive no alert gives no feedback that could raise its
	// budget again.
	Min int
	Max int
	// Window is how many of a conversation's latest rated or ignored
	// alerts the score averages.
	Window int
	// Grace is how long an alert waits for a reaction before it counts as
	// ignored.
	Grace time.Duration
	// PauseAfter is how many 👎 in a row, the latest reactions to a type's
	// alerts across all conversations, pause the type.
	PauseAfter int
}

// WithDefaults returns r with its zero fields set to the defaults.
func (r BudgetRules) WithDefaults() BudgetRules {
	if r.Base <= 0 {
		r.Base = DefaultBudget
	}
	if r.Min <= 0 {
		r.Min = DefaultBudgetMin
	}
	if r.Max <= 0 {
		r.Max = DefaultBudgetMax
	}
	if r.Window <= 0 {
		r.Window = DefaultScoreWindow
	}
	if r.Grace <= 0 {
		r.Grace = DefaultGrace
	}
	if r.PauseAfter <= 0 {
		r.PauseAfter = DefaultPauseAfter
	}
	return r
}

// Formula is the budget rule in words, with r's numbers.
func (r BudgetRules) Formula() string {
	return fmt.Sprintf("clamp(round(%d × (1 + %g × alert_quality_score)), %d, %d)", r.Base, BudgetSwing, r.Min, r.Max)
}

// ReactionValue is what one reaction is worth in the score, and false for
// a reaction hone does not know.
func ReactionValue(reaction string) (float64, bool) {
	switch reaction {
	case ReactionUp:
		return UpValue, true
	case ReactionAck:
		return AckValue, true
	case ReactionDown:
		return DownValue, true
	}
	return 0, false
}

// ScoredAlert is an alert as the score reads it: when it was sent and the
// reactions its testers gave it.
type ScoredAlert struct {
	ID        string
	SentAt    time.Time
	Reactions []string
}

// Expired reports whether an alert sent at sentAt has waited the whole
// grace period by now: from exactly grace after it was sent on.
func Expired(sentAt, now time.Time, grace time.Duration) bool {
	return !now.Before(sentAt.Add(grace))
}

// AlertValue is an alert's worth in the score: the mean value of its
// reactions (one per tester); IgnoredValue when it has none and its grace
// period is over. counted is false for an alert that still waits for a
// reaction: it does not count yet.
func AlertValue(a ScoredAlert, now time.Time, grace time.Duration) (value float64, counted bool) {
	sum, n := 0.0, 0
	for _, r := range a.Reactions {
		if v, ok := ReactionValue(r); ok {
			sum += v
			n++
		}
	}
	if n > 0 {
		return sum / float64(n), true
	}
	return IgnoredValue, Expired(a.SentAt, now, grace)
}

// QualityScore is the alert_quality_score of alerts: the mean value of the
// latest window of them that count (rated, or ignored past the grace
// period), from −1 to 1; 0 when none counts. n is how many it averaged.
func QualityScore(alerts []ScoredAlert, now time.Time, grace time.Duration, window int) (score float64, n int) {
	latest := slices.Clone(alerts)
	slices.SortStableFunc(latest, func(a, b ScoredAlert) int { return b.SentAt.Compare(a.SentAt) })
	sum := 0.0
	for _, a := range latest {
		if n >= window {
			break
		}
		if v, ok := AlertValue(a, now, grace); ok {
			sum += v
			n++
		}
	}
	if n == 0 {
		return 0, 0
	}
	return math.Max(-1, math.Min(1, roundTo(sum/float64(n), 1e-9))), n
}

// DailyBudget is how many alerts a conversation with the score may get in
// BudgetPeriod: clamp(round(Base × (1 + BudgetSwing × score)), Min, Max),
// halves rounded up. A score outside −1 to 1 counts as its bound, NaN as 0.
func DailyBudget(score float64, r BudgetRules) int {
	r = r.WithDefaults()
	if math.IsNaN(score) {
		score = 0
	}
	score = math.Max(-1, math.Min(1, score))
	// Rounding to 1e-9 first keeps a product such as 5 × 1.1 = 5.5000000000000001
	// from rounding differently from the 5.5 it stands for.
	b := int(math.Round(roundTo(float64(r.Base)*(1+BudgetSwing*score), 1e-9)))
	return max(r.Min, min(r.Max, b))
}

// roundTo rounds x to a multiple of unit.
func roundTo(x, unit float64) float64 { return math.Round(x/unit) * unit }

// WindowStart is the time from which (exclusive) alerts count against the
// daily budget at now.
func WindowStart(now time.Time) time.Time { return now.Add(-BudgetPeriod) }

// RetryAt is when a conversation whose daily budget is spent may get an
// alert again, at the same budget: when the budget-th newest of the alerts
// in its window (send times newest first) leaves the window. false when
// the budget is not spent.
func RetryAt(newestFirst []time.Time, budget int) (time.Time, bool) {
	if budget < 1 || len(newestFirst) < budget {
		return time.Time{}, false
	}
	return newestFirst[budget-1].Add(BudgetPeriod), true
}

// ConsistentlyNegative reports whether the latest reactions to a type's
// alerts, newest first, are at least k and the k latest all 👎: the type
// is then paused.
func ConsistentlyNegative(latest []string, k int) bool {
	if k < 1 || len(latest) < k {
		return false
	}
	for _, r := range latest[:k] {
		if r != ReactionDown {
			return false
		}
	}
	return true
}

// PauseReason says why a type was paused after k 👎 in a row.
func PauseReason(k int) string {
	if k == 1 {
		return "its latest reaction was 👎"
	}
	return fmt.Sprintf("its %d latest reactions were all 👎", k)
}
