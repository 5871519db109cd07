package scoring

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/quality"
	"github.com/honehq/hone/internal/score"
)

// Follows reports whether c is one of the set's !score dimensions as the
// composites read them: a numeric config of the dimension's name, from 1 to
// 5 in whole steps.
func (s *Service) Follows(c *score.Config) bool {
	return c.DataType == score.Numeric && slices.Contains(s.Set.SubjectiveNames(), c.Name) &&
		c.Min != nil && *c.Min == quality.ScoreMin && c.Max != nil && *c.Max == quality.ScoreMax && c.Step != nil && *c.Step == 1
}

// ScoresChanged brings up to date the human scores and composites of the
// turns whose dimension scores changed, in the transaction of the change:
// each turn's scores are held (another change of them waits), its
// dimensions become the latest score of each, whoever gave it (a name the
// turn holds that no followed config has stays as it is), and its
// composites follow, its revision counted up.
func (s *Service) ScoresChanged(ctx context.Context, ch score.Change) error {
	var turns []string
	for _, t := range ch.Targets() {
		if t.TurnID != "" {
			turns = append(turns, t.TurnID)
		}
	}
	slices.Sort(turns)
	turns = slices.Compact(turns)
	configs, err := s.Scores.Configs(ctx, true)
	if err != nil {
		return err
	}
	var ids []string
	names := map[string]string{}
	for _, c := range configs {
		if s.Follows(c) {
			ids, names[c.ID] = append(ids, c.ID), c.Name
		}
	}
	locked, err := s.Store.LockTurns(ctx, turns)
	if err != nil {
		return err
	}
	latestOf, err := s.Scores.LatestOfTurns(ctx, turns, ids)
	if err != nil {
		return err
	}
	for _, ts := range locked {
		latest := latestOf[ts.TurnID]
		kept := ts.Scores
		ts.Scores = map[string]int{}
		for name, v := range kept {
			if !slices.Contains(slices.Collect(maps.Values(names)), name) {
				ts.Scores[name] = v // a name no followed config has: kept as it was
			}
		}
		at := map[string]time.Time{}
		for _, sc := range latest {
			name := names[sc.ConfigID]
			if prev, ok := at[name]; (ok && !sc.CreatedAt.After(prev)) || sc.Number == nil {
				continue
			}
			at[name], ts.Scores[name] = sc.CreatedAt, int(math.Round(*sc.Number))
		}
		c := s.Set.Composite(ts.Objective, ts.Scores)
		ts.Subjective, ts.Overall = c.Subjective, c.Overall
		if err := s.Store.SaveScores(ctx, ts); err != nil {
			return err
		}
	}
	return nil
}

// EnsureConfigs gives each !score dimension of the set a score config when
// none has its name (numeric, from 1 to 5 in whole steps): the built-in
// configs are the default set's, there from the first start; a metric set
// of its own may name others. A config of a dimension's name that the
// composites cannot read is an error. With the default set it reads
// nothing.
func (s *Service) EnsureConfigs(ctx context.Context) error {
	one, five := float64(quality.ScoreMin), float64(quality.ScoreMax)
	step := 1.0
	for _, n := range s.Set.SubjectiveNames() {
		if slices.Contains(score.Dimensions, n) {
			continue // built in: there from the first start
		}
		c, err := s.Scores.EnsureConfig(ctx, score.ConfigInput{Name: n, DataType: score.Numeric, Min: &one, Max: &five, Step: &step,
			Description: "A !score dimension of the metric set " + s.Set.Name() + "."})
		if err != nil {
			return fmt.Errorf("the score config of the !score dimension %s: %w", n, err)
		}
		if !s.Follows(c) {
			return hone.Errorf(hone.EINVALID, "the metric set's !score dimension %s is score config %s (%s, %s): the composites need "+
				"a whole number from 1 to 5; archive that config, or name the dimension otherwise", n, c.Name, c.DataType, c.Take())
		}
	}
	return nil
}

// Service follows the scores of the set's dimensions.
var _ score.Follower = (*Service)(nil)
