package quality

import (
	"encoding/json"
	"math"
	"testing"
)

func TestComposite(t *testing.T) {
	all := map[string]int{"professionalism": 4, "empathy": 5, "clarity": 5, "actionability": 4, "compliance": 5}
	tests := []struct {
		name               string
		objective          *float64
		scores             map[string]int
		obj, subj, overall float64
	}{
		// The spec's !score example: 23/25 = 0.92; 0.4*0.85 + 0.6*0.92 = 0.892.
		{"spec example", ptr(0.85), all, 0.85, 0.92, 0.892},
		{"subset", ptr(0.5), map[string]int{"empathy": 5, "clarity_score": 3}, 0.5, 0.8, 0.4*0.5 + 0.6*0.8},
		{"all ones", ptr(0), map[string]int{"empathy": 1}, 0, 0.2, 0.12},
		{"no human scores", ptr(0.85), nil, 0.85, na, na},
		{"no objective score", nil, all, na, 0.92, na},
		{"neither", nil, nil, na, na, na},
		{"invalid scores ignored", ptr(1), map[string]int{"empathy": 9, "warmth": 2}, 1, na, na},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := era().Composite(tc.objective, tc.scores)
			for _, c := range []struct {
				what string
				v    *float64
				want float64
			}{{"objective", got.Objective, tc.obj}, {"subjective", got.Subjective, tc.subj}, {"overall", got.Overall, tc.overall}} {
				switch {
				case c.want == na && c.v != nil:
					t.Errorf("%s = %v, want N/A", c.what, *c.v)
				case c.want != na && (c.v == nil || math.Abs(*c.v-c.want) > 1e-9):
					t.Errorf("%s = %v, want %v", c.what, c.v, c.want)
				}
			}
		})
	}
}

func TestCompositeUsesSetWeights(t *testing.T) {
	s, err := Parse([]byte("composite: {objective_weight: 0.7}\nmetrics: [{name: a, kind: pattern_any, patterns: [x]}]"), "yaml")
	if err != nil {
		t.Fatal(err)
	}
	got := s.Composite(ptr(1), map[string]int{"empathy": 5, "clarity": 0})
	if got.Overall == nil || math.Abs(*got.Overall-1) > 1e-12 {
		t.Fatalf("overall = %v, want 1", got.Overall)
	}
	got = s.Composite(ptr(0), map[string]int{"empathy": 5})
	if math.Abs(*got.Overall-0.3) > 1e-12 {
		t.Fatalf("overall = %v, want 0.3", *got.Overall)
	}
}

func TestScoresJSON(t *testing.T) {
	b, _ := json.Marshal(era().Composite(ptr(0.5), nil))
	if string(b) != `{"objective_quality_score":0.5,"subjective_quality_score":null,"overall_quality_score":null}` {
		t.Errorf("got %s", b)
	}
}
