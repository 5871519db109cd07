package scoring

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/metrics"
	"github.com/honehq/hone/internal/tuning"
)

// Service scores turns with a metric set and keeps the human scores.
type Service struct {
	Set   *metrics.Set
	Store Store
}

// New returns a service over store with set; a nil set is metrics.Default().
func New(store Store, set *metrics.Set) *Service {
	if set == nil {
		set = metrics.Default()
	}
	return &Service{Set: set, Store: store}
}

// Input converts a turn as reported into the metrics package's input.
func Input(in tuning.TurnInput, isFirstResponse bool) metrics.Input {
	return metrics.Input{Query: in.UserMessage, Response: in.Response, SearchResults: in.SearchResults,
		AvgSimilarity: in.AvgSimilarity, ProcessingTimeMS: in.ProcessingTimeMS, IsFirstResponse: isFirstResponse}
}

// Measure implements tuning.Measurer: it evaluates the turn with every
// objective metric of the set.
func (s *Service) Measure(in tuning.TurnInput, isFirstResponse bool) tuning.Measurement {
	r := s.Set.Evaluate(Input(in, isFirstResponse))
	b, _ := r.MarshalJSON()
	return tuning.Measurement{Metrics: b, Objective: r.Objective}
}

// ScoreTurn validates human scores and merges them into the turn ref names.
func (s *Service) ScoreTurn(ctx context.Context, ref TurnRef, scores map[string]int) (*tuning.Turn, error) {
	if err := s.Set.ValidateScores(scores); err != nil {
		return nil, err
	}
	short := make(map[string]int, len(scores))
	for k, v := range scores {
		short[strings.TrimSuffix(strings.ToLower(strings.TrimSpace(k)), "_score")] = v
	}
	return s.Store.ScoreTurn(ctx, ref, short, s.Set)
}

// Replies of !score.
const (
	// ScoredText opens the reply to a successful !score.
	ScoredText = "✅ Subjective scores added!"
	// NoTurnText answers !score when there is no response to score.
	NoTurnText = "⚠️ No recent response to score. Ask me a question first, then use !score."
)

// Register adds the !score chat command to engine.
func (s *Service) Register(engine *tuning.Engine) {
	names := s.Set.SubjectiveNames()
	engine.Register(tuning.Command{Name: "score", Args: names[0] + ":<1-5> …", Writes: true,
		Summary: fmt.Sprintf("score the latest response, any of %s, each a whole number from %d to %d",
			strings.Join(names, ", "), metrics.ScoreMin, metrics.ScoreMax),
		Run: s.score})
}

func (s *Service) score(ctx context.Context, m tuning.Message, args string) (tuning.Reply, error) {
	scores, err := s.Set.ParseScores(args)
	if err != nil {
		return tuning.Reply{}, err
	}
	t, err := s.Store.ScoreTurn(ctx, TurnRef{ConversationID: m.ConversationID}, scores, s.Set)
	if err == tuning.ErrNoTurn {
		return tuning.Reply{Text: NoTurnText}, nil
	} else if err != nil {
		return tuning.Reply{}, err
	}
	return tuning.Reply{Text: ScoredReply(t), SessionID: t.SessionID}, nil
}

// ScoredReply is the confirmation !score gives, with the turn's composites.
func ScoredReply(t *tuning.Turn) string {
	return fmt.Sprintf("%s\n\nObjective Quality: %s\nSubjective Quality: %s\nOverall Quality: %s",
		ScoredText, Format(t.ObjectiveScore), Format(t.SubjectiveScore), Format(t.OverallScore))
}

// Format shows a score with two decimals, or N/A.
func Format(p *float64) string {
	if p == nil {
		return "N/A"
	}
	return fmt.Sprintf("%.2f", *p)
}

// Evaluate scores one response given directly (POST /score).
func (s *Service) Evaluate(in metrics.Input) metrics.Result { return s.Set.Evaluate(in) }

// versionNotFound is the error for a prompt version without turns.
func versionNotFound(v string) error {
	return hone.Errorf(hone.ENOTFOUND, "no turns of prompt version %q", v)
}

// decodeMetrics reads a sample's metrics JSON; unreadable JSON counts as none.
func decodeMetrics(b []byte) metrics.Result {
	var r metrics.Result
	if len(b) > 0 {
		_ = json.Unmarshal(b, &r)
	}
	return r
}

// Service is the Measurer the tuning engine calls.
var _ tuning.Measurer = (*Service)(nil)
