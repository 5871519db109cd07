package quality

import (
	"encoding/json"
	"testing"
)

func TestEvaluateTurnMatchesEvaluate(t *testing.T) {
	s := era()
	slow := 4200.0
	for _, in := range []Input{
		{Query: "My employee is late", Response: "Is it the first time?"},
		{Query: "What is the policy on lateness?", Response: "Per our Attendance policy, call first."},
		{Query: "My employee quit", Response: "Got it. Here's what to do next: 1. Document it.", ProcessingTimeMS: &slow},
	} {
		later, first := s.EvaluateTurn(in)
		in.IsFirstResponse = false
		wantLater := s.Evaluate(in)
		in.IsFirstResponse = true
		wantFirst := s.Evaluate(in)
		if a, b := mustMarshal(t, later), mustMarshal(t, wantLater); a != b {
			t.Errorf("%q later: %s, want %s", in.Response, a, b)
		}
		got := later
		if first != nil {
			got = *first
		}
		if a, b := mustMarshal(t, got), mustMarshal(t, wantFirst); a != b {
			t.Errorf("%q first: %s, want %s", in.Response, a, b)
		}
		if (first != nil) != (mustMarshal(t, wantFirst) != mustMarshal(t, wantLater)) {
			t.Errorf("%q: first given %v though the scorings are %s and %s", in.Response, first != nil,
				mustMarshal(t, wantFirst), mustMarshal(t, wantLater))
		}
	}
}

func mustMarshal(t *testing.T, r Result) string {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
