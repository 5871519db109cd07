package workshop

import "slices"

// TraceFeedback is the feedback of one trace, aggregated: the spec's
// aggregation by trace_id, with the extracted texts.
type TraceFeedback struct {
	TraceID  string
	Position int
	Input    string
	Output   string
	Reviews  []Review
}

// Aggregate groups feedback by trace, in the order of the traces'
// positions; names gives members' names by id. Traces without feedback are
// left out.
func Aggregate(traces []*Trace, feedback []*Feedback, names map[string]string) []TraceFeedback {
	index := make(map[string]int, len(traces))
	for i, t := range traces {
		index[t.ID] = i
	}
	slot := make([]int, len(traces))
	for i := range slot {
		slot[i] = -1
	}
	var out []TraceFeedback
	for _, f := range feedback {
		i, ok := index[f.TraceID]
		if !ok {
			continue
		}
		if slot[i] < 0 {
			t := traces[i]
			slot[i] = len(out)
			out = append(out, TraceFeedback{TraceID: t.ID, Position: t.Position, Input: promptText(t.InputText), Output: promptText(t.OutputText)})
		}
		agg := &out[slot[i]]
		agg.Reviews = append(agg.Reviews, Review{UserID: f.UserID, Name: names[f.UserID], Label: f.Label, Comment: f.Comment,
			QnA: f.FollowupQnA})
	}
	slices.SortFunc(out, func(a, b TraceFeedback) int { return a.Position - b.Position })
	return out
}

// DetectDisagreements sorts the traces reviewed by two or more people into
// the spec's three tiers, deterministically, by label: GOOD and BAD is
// high, all BAD medium, all GOOD lower. A trace with one reviewer is no
// disagreement. Each holds the reviewers' labels and comments, without
// their follow-up answers.
func DetectDisagreements(agg []TraceFeedback) Disagreements {
	d := Disagreements{High: []Disagreement{}, Medium: []Disagreement{}, Lower: []Disagreement{}}
	for _, t := range agg {
		if len(t.Reviews) < 2 {
			continue
		}
		good, bad := 0, 0
		for _, r := range t.Reviews {
			if r.Label == LabelGood {
				good++
			} else {
				bad++
			}
		}
		// A disagreement records the reviewers' labels and comments; their
		// answers stay in the feedback, so that a record is read fast.
		reviews := make([]Review, len(t.Reviews))
		for i, r := range t.Reviews {
			r.QnA = nil
			reviews[i] = r
		}
		dis := Disagreement{TraceID: t.TraceID, Reviews: reviews}
		switch {
		case good > 0 && bad > 0:
			d.High = append(d.High, dis)
		case bad > 0:
			d.Medium = append(d.Medium, dis)
		default:
			d.Lower = append(d.Lower, dis)
		}
	}
	return d
}

// participants counts the distinct reviewers of agg.
func participants(agg []TraceFeedback) int {
	seen := map[string]bool{}
	for _, t := range agg {
		for _, r := range t.Reviews {
			seen[r.UserID] = true
		}
	}
	return len(seen)
}
