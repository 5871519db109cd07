package app

import (
	"context"
	"slices"

	"github.com/honehq/hone/internal/learning"
	"github.com/honehq/hone/internal/score"
	"github.com/honehq/hone/internal/tuning"
)

// sessionJudgments reads the judgments of a session's turns through the
// capabilities that own them: ratings and scores through the score
// service, corrections through the learning loop.
type sessionJudgments struct {
	scores   *score.Service
	learning *learning.Service
}

// SessionJudgments returns the judgments of the session's turns by turn id,
// each turn's oldest first.
func (j sessionJudgments) SessionJudgments(ctx context.Context, sessionID string) (map[string][]tuning.Judgment, error) {
	out := map[string][]tuning.Judgment{}
	scores, err := j.scores.OfSession(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	for _, s := range scores {
		jd := tuning.Judgment{Kind: tuning.JudgmentScore, Config: s.Config, DataType: s.DataType, Value: s.Value, Text: s.Comment,
			Source: s.Source, Author: s.Author, CreatedAt: s.CreatedAt}
		if s.ConfigID == score.BuiltInID(score.Thumbs) {
			jd.Kind, jd.Value = tuning.JudgmentRating, learning.RatingDown
			if up, _ := s.Value.(bool); up {
				jd.Value = learning.RatingUp
			}
		}
		out[s.TurnID] = append(out[s.TurnID], jd)
	}
	corrections, err := j.learning.SessionCorrections(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	for _, c := range corrections {
		out[c.TurnID] = append(out[c.TurnID], tuning.Judgment{Kind: tuning.JudgmentCorrection, Text: c.Text, Author: c.TesterID,
			CreatedAt: c.CreatedAt})
	}
	for id := range out {
		slices.SortStableFunc(out[id], func(a, b tuning.Judgment) int { return a.CreatedAt.Compare(b.CreatedAt) })
	}
	return out, nil
}
