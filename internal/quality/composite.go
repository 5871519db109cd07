package quality

// Scores are the composite quality scores of a turn, each in [0, 1] or nil
// when it cannot be computed.
type Scores struct {
	Objective  *float64 `json:"objective_quality_score"`
	Subjective *float64 `json:"subjective_quality_score"`
	Overall    *float64 `json:"overall_quality_score"`
}

// Composite combines the objective quality score (from Evaluate) with human
// scores:
//
//   - Subjective is the mean of the given human scores divided by 5, nil when
//     none is given;
//   - Overall is objective_weight × Objective + subjective_weight × Subjective
//     with the set's weights, and nil unless both sides are present: a turn
//     nobody has scored yet has no overall score, rather than one that silently
//     means something else.
//
// Score names are matched like ValidateScores does; names the set does not
// know and values outside 1–5 are ignored, so validate first.
func (s *Set) Composite(objective *float64, scores map[string]int) Scores {
	var out Scores
	if objective != nil {
		o := *objective
		out.Objective = &o
	}
	var sum, n float64
	for k, v := range scores {
		if _, ok := s.scoreName(k); ok && v >= ScoreMin && v <= ScoreMax {
			sum += float64(v)
			n++
		}
	}
	if n > 0 {
		subj := sum / n / ScoreMax
		out.Subjective = &subj
	}
	if out.Objective != nil && out.Subjective != nil {
		overall := s.objW**out.Objective + s.subjW**out.Subjective
		out.Overall = &overall
	}
	return out
}
