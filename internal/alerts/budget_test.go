package alerts_test

import (
	"math"
	"testing"
	"time"

	"github.com/honehq/hone/internal/alerts"
)

func TestDailyBudget(t *testing.T) {
	def := alerts.BudgetRules{}
	for _, c := range []struct {
		name  string
		score float64
		rules alerts.BudgetRules
		want  int
	}{
		{"no feedback yet", 0, def, 5},
		{"all 👍", 1, def, 8},                        // 5 × 1.5 = 7.5, rounded up
		{"all 👎", -1, def, 3},                       // 5 × 0.5 = 2.5, rounded up
		{"all acks", 0.5, def, 6},                   // 5 × 1.25 = 6.25
		{"a half exactly, rounded up", 0.2, def, 6}, // 5 × 1.1 = 5.5
		{"a tenth", 0.1, def, 5},                    // 5.25
		{"slightly negative", -0.2, def, 5},         // 4.5 rounds up to 5
		{"below −1 counts as −1", -7, def, 3},
		{"above 1 counts as 1", 3, def, 8},
		{"NaN counts as 0", math.NaN(), def, 5},
		{"clamped at the max", 1, alerts.BudgetRules{Base: 9}, 10},     // 13.5
		{"clamped at the min", -1, alerts.BudgetRules{Base: 1}, 1},     // 0.5 → 1
		{"a min above the formula", -1, alerts.BudgetRules{Min: 4}, 4}, // 2.5 → 3 → 4
		{"a max below the formula", 1, alerts.BudgetRules{Max: 6}, 6},
	} {
		if got := alerts.DailyBudget(c.score, c.rules); got != c.want {
			t.Errorf("%s: DailyBudget(%v) = %d, want %d", c.name, c.score, got, c.want)
		}
	}
	if got := (alerts.BudgetRules{}).WithDefaults().Formula(); got != "clamp(round(5 × (1 + 0.5 × alert_quality_score)), 1, 10)" {
		t.Errorf("the formula reads %q", got)
	}
}

func TestQualityScore(t *testing.T) {
	now := time.Date(2026, 1, 10, 12, 0, 0, 0, time.UTC)
	grace := 24 * time.Hour
	at := func(hoursAgo float64) time.Time { return now.Add(-time.Duration(hoursAgo * float64(time.Hour))) }
	alert := func(hoursAgo float64, reactions ...string) alerts.ScoredAlert {
		return alerts.ScoredAlert{SentAt: at(hoursAgo), Reactions: reactions}
	}
	many := func(n int, a alerts.ScoredAlert) []alerts.ScoredAlert {
		out := make([]alerts.ScoredAlert, n)
		for i := range out {
			out[i] = a
			out[i].SentAt = a.SentAt.Add(-time.Duration(i) * time.Minute)
		}
		return out
	}
	for _, c := range []struct {
		name   string
		alerts []alerts.ScoredAlert
		score  float64
		n      int
	}{
		{"none", nil, 0, 0},
		{"one 👍", []alerts.ScoredAlert{alert(1, "up")}, 1, 1},
		{"one ack", []alerts.ScoredAlert{alert(1, "ack")}, 0.5, 1},
		{"one 👎", []alerts.ScoredAlert{alert(1, "down")}, -1, 1},
		{"unanswered within the grace period does not count", []alerts.ScoredAlert{alert(23.9), alert(30, "up")}, 1, 1},
		{"unanswered exactly at the end of the grace period counts as 0", []alerts.ScoredAlert{alert(24), alert(30, "up")}, 0.5, 2},
		{"ignored past the grace period counts as 0", []alerts.ScoredAlert{alert(48), alert(49)}, 0, 2},
		{"two testers: the mean of their reactions", []alerts.ScoredAlert{alert(1, "up", "down")}, 0, 1},
		{"unknown reactions are skipped", []alerts.ScoredAlert{alert(1, "meh", "up")}, 1, 1},
		{"mixed", []alerts.ScoredAlert{alert(1, "up"), alert(2, "ack"), alert(3, "down"), alert(50)}, 0.125, 4},
		{"only the latest 20 count", append(many(20, alert(1, "up")), many(5, alert(40, "down"))...), 1, 20},
		{"the 21st latest drops out", append(many(19, alert(1, "up")), many(2, alert(40, "down"))...), 0.9, 20},
	} {
		score, n := alerts.QualityScore(c.alerts, now, grace, 20)
		if math.Abs(score-c.score) > 1e-9 || n != c.n {
			t.Errorf("%s: score %v over %d, want %v over %d", c.name, score, n, c.score, c.n)
		}
	}
}

func TestRetryAtAndPauses(t *testing.T) {
	now := time.Date(2026, 1, 10, 12, 0, 0, 0, time.UTC)
	times := []time.Time{now.Add(-time.Hour), now.Add(-2 * time.Hour), now.Add(-5 * time.Hour)}
	if _, spent := alerts.RetryAt(times, 4); spent {
		t.Errorf("3 alerts spent a budget of 4")
	}
	if at, spent := alerts.RetryAt(times, 3); !spent || !at.Equal(now.Add(19*time.Hour)) {
		t.Errorf("RetryAt with a budget of 3 = %v %v, want in 19 hours", at, spent)
	}
	if at, spent := alerts.RetryAt(times, 1); !spent || !at.Equal(now.Add(23*time.Hour)) {
		t.Errorf("RetryAt with a budget of 1 = %v %v, want in 23 hours", at, spent)
	}
	for _, c := range []struct {
		latest []string
		want   bool
	}{
		{[]string{"down", "down", "down"}, true},
		{[]string{"down", "down", "down", "up"}, true},
		{[]string{"down", "down"}, false},
		{[]string{"down", "ack", "down"}, false},
		{[]string{"up", "down", "down", "down"}, false},
		{nil, false},
	} {
		if got := alerts.ConsistentlyNegative(c.latest, 3); got != c.want {
			t.Errorf("ConsistentlyNegative(%v) = %v", c.latest, got)
		}
	}
	if !alerts.Expired(now.Add(-24*time.Hour), now, 24*time.Hour) || alerts.Expired(now.Add(-24*time.Hour+time.Microsecond), now, 24*time.Hour) {
		t.Errorf("the grace period ends exactly 24 hours after the alert")
	}
}
