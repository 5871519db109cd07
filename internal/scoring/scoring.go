package scoring

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/chat"
	"github.com/honehq/hone/internal/quality"
)

// Service scores turns with a metric set and keeps the human scores.
type Service struct {
	Set      *quality.Set
	Store    Store
	Sessions capture.Store
}

// New returns a service over store and the sessions of capture with set; a
// nil set is quality.Default().
func New(store Store, sessions capture.Store, set *quality.Set) *Service {
	if set == nil {
		set = quality.Default()
	}
	return &Service{Set: set, Store: store, Sessions: sessions}
}

// Input converts a turn as reported into the metrics package's input.
func Input(in *capture.TurnInput, isFirstResponse bool) quality.Input {
	return quality.Input{Query: in.UserMessage, Response: in.Response, SearchResults: in.SearchResults,
		AvgSimilarity: in.AvgSimilarity, ProcessingTimeMS: in.ProcessingTimeMS, IsFirstResponse: isFirstResponse}
}

// Measure implements capture.Measurer: it evaluates the turn with every
// objective metric of the set, as a later and, where that differs, as a
// first response.
func (s *Service) Measure(in *capture.TurnInput) (capture.Measurement, *capture.Measurement) {
	later, first := s.Set.EvaluateTurn(Input(in, false))
	m := measurement(later)
	if first == nil {
		return m, nil
	}
	f := measurement(*first)
	return m, &f
}

func measurement(r quality.Result) capture.Measurement {
	b, _ := r.MarshalJSON()
	return capture.Measurement{Metrics: b, Objective: r.Objective}
}

// maxScoreAttempts bounds the retries of a score change that met a
// concurrent change of the same turn.
const maxScoreAttempts = 20

// ScoreTurn validates human scores, merges them into those of the turn ref
// names (a name scored again is replaced) and recomputes its composites.
func (s *Service) ScoreTurn(ctx context.Context, ref TurnRef, scores map[string]int) (*TurnScores, error) {
	if err := s.Set.ValidateScores(scores); err != nil {
		return nil, err
	}
	short := make(map[string]int, len(scores))
	for k, v := range scores {
		short[strings.TrimSuffix(strings.ToLower(strings.TrimSpace(k)), "_score")] = v
	}
	for attempt := 1; ; attempt++ {
		ts, err := s.Store.TurnScores(ctx, ref)
		if err != nil {
			return nil, err
		}
		ref = TurnRef{TurnID: ts.TurnID}
		maps.Copy(ts.Scores, short)
		c := s.Set.Composite(ts.Objective, ts.Scores)
		ts.Subjective, ts.Overall = c.Subjective, c.Overall
		err = s.Store.SaveScores(ctx, ts)
		if err == nil {
			ts.Revision++
			return ts, nil
		}
		if hone.ErrorCode(err) != hone.ECONFLICT || attempt == maxScoreAttempts {
			return nil, err
		}
	}
}

// Replies of !score.
const (
	// ScoredText opens the reply to a successful !score.
	ScoredText = "✅ Subjective scores added!"
	// NoTurnText answers !score when there is no response to score.
	NoTurnText = "⚠️ No recent response to score. Ask me a question first, then use !score."
)

// Register adds the !score chat command to r.
func (s *Service) Register(r *chat.Router) {
	names := s.Set.SubjectiveNames()
	r.Register(chat.Command{Group: "Scoring", Name: "score", Args: names[0] + ":<1-5> …", Writes: true,
		Summary: fmt.Sprintf("score the latest response, any of %s, each a whole number from %d to %d",
			strings.Join(names, ", "), quality.ScoreMin, quality.ScoreMax),
		Run: s.score})
}

func (s *Service) score(ctx context.Context, m chat.Message, args string) (chat.Reply, error) {
	scores, err := s.Set.ParseScores(args)
	if err != nil {
		return chat.Reply{}, err
	}
	t, err := s.ScoreTurn(ctx, TurnRef{ConversationID: m.ConversationID}, scores)
	if errors.Is(err, capture.ErrNoTurn) {
		return chat.Reply{Text: NoTurnText}, nil
	} else if err != nil {
		return chat.Reply{}, err
	}
	return chat.Reply{Text: ScoredReply(t), SessionID: t.SessionID}, nil
}

// ScoredReply is the confirmation !score gives, with the turn's composites.
func ScoredReply(t *TurnScores) string {
	return fmt.Sprintf("%s\n\nObjective Quality: %s\nSubjective Quality: %s\nOverall Quality: %s",
		ScoredText, Format(t.Objective), Format(t.Subjective), Format(t.Overall))
}

// Format shows a score with two decimals, or N/A.
func Format(p *float64) string {
	if p == nil {
		return "N/A"
	}
	return fmt.Sprintf("%.2f", *p)
}

// Evaluate scores one response given directly (POST /score).
func (s *Service) Evaluate(in quality.Input) quality.Result { return s.Set.Evaluate(in) }

// versionNotFound is the error for a prompt version without turns.
func versionNotFound(v string) error {
	return hone.Errorf(hone.ENOTFOUND, "no turns of prompt version %q", v)
}

// decodeMetrics reads a sample's metrics JSON; unreadable JSON counts as none.
func decodeMetrics(b []byte) quality.Result {
	var r quality.Result
	if len(b) > 0 {
		_ = json.Unmarshal(b, &r)
	}
	return r
}

// Service is the Measurer capture calls.
var _ capture.Measurer = (*Service)(nil)
