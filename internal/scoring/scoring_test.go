package scoring

import (
	"encoding/json"
	"testing"

	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/quality"
)

// The metrics spec's examples, measured with its set (era-hr).
func TestMeasure(t *testing.T) {
	s := New(nil, nil, quality.Builtin("era-hr"))
	slow, fast := 4200.0, 800.0
	for _, tt := range []struct {
		name      string
		in        capture.TurnInput
		first     bool
		metric    string
		want      *float64
		objective bool
	}{
		{"citation found", capture.TurnInput{UserMessage: "q", Response: "Per our No Call No Show policy, employees who miss three shifts..."}, false, "has_policy_citation", ptr(1), true},
		{"no citation", capture.TurnInput{UserMessage: "q", Response: "You should call the employee and document the absence."}, false, "has_policy_citation", ptr(0), true},
		{"slow", capture.TurnInput{UserMessage: "q", Response: "ok", ProcessingTimeMS: &slow}, false, "processing_time_acceptable", ptr(0), true},
		{"fast", capture.TurnInput{UserMessage: "q", Response: "ok", ProcessingTimeMS: &fast}, false, "processing_time_acceptable", ptr(1), true},
		{"no timing is N/A", capture.TurnInput{UserMessage: "q", Response: "ok"}, false, "processing_time_acceptable", nil, true},
		{"not first response is N/A", capture.TurnInput{UserMessage: "My employee is late", Response: "Is it the first time?"}, false, "asks_clarifying_questions", nil, true},
		{"first response asks", capture.TurnInput{UserMessage: "My employee is late", Response: "Is it the first time?"}, true, "asks_clarifying_questions", ptr(1), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			later, first := s.Measure(&tt.in)
			m := later
			if tt.first && first != nil {
				m = *first
			}
			var got map[string]*float64
			if err := json.Unmarshal(m.Metrics, &got); err != nil {
				t.Fatal(err)
			}
			v, ok := got[tt.metric]
			if !ok || (v == nil) != (tt.want == nil) || (v != nil && *v != *tt.want) {
				t.Fatalf("%s = %v, want %v (%s)", tt.metric, show(v), show(tt.want), m.Metrics)
			}
			if (m.Objective != nil) != tt.objective || got["objective_quality_score"] == nil || *got["objective_quality_score"] != *m.Objective {
				t.Fatalf("objective %v vs %s", show(m.Objective), m.Metrics)
			}
		})
	}
}

func TestScoredReply(t *testing.T) {
	got := ScoredReply(&TurnScores{Objective: ptr(0.85), Subjective: ptr(0.9), Overall: nil})
	want := "✅ Subjective scores added!\n\nObjective Quality: 0.85\nSubjective Quality: 0.90\nOverall Quality: N/A"
	if got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func ptr(f float64) *float64 { return &f }

func show(p *float64) any {
	if p == nil {
		return "N/A"
	}
	return *p
}
