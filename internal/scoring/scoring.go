package scoring

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/chat"
	"github.com/honehq/hone/internal/quality"
	"github.com/honehq/hone/internal/score"
)

// Service scores turns with a metric set and keeps, as each turn's
// composites, what the human scores of the set's dimensions give.
type Service struct {
	Set      *quality.Set
	Store    Store
	Sessions capture.Store
	// Scores is the one path human scores are recorded through, as scores
	// of the dimensions' configs; the service follows them (Follows,
	// ScoresChanged). Without it no human score is taken.
	Scores *score.Service
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

// Judge says who made human scores and where.
type Judge struct {
	// Source is a score source: score.SourceChat, score.SourceAPI, ….
	Source string
	// Author is the tester, "" when unknown.
	Author string
}

// ScoreTurn records human scores of the turn ref names, as
// POST /turns/{id}/scores does: the set's dimensions only, each a whole
// number from 1 to 5 (a name scored again replaces it in the composites).
// Each is recorded as a score of its dimension's config; the composites
// follow in the same transaction.
func (s *Service) ScoreTurn(ctx context.Context, ref TurnRef, scores map[string]int, by Judge) (*TurnScores, error) {
	if err := s.Set.ValidateScores(scores); err != nil {
		return nil, err
	}
	values := make([]named, 0, len(scores))
	for k, v := range scores {
		values = append(values, named{name: strings.TrimSuffix(strings.ToLower(strings.TrimSpace(k)), "_score"), value: score.Number(float64(v))})
	}
	slices.SortFunc(values, func(a, b named) int { return strings.Compare(a.name, b.name) })
	return s.record(ctx, ref, values, by)
}

// named is a value for the config of that name.
type named struct {
	name  string
	value json.RawMessage
}

// record records values as scores of the turn ref names, all or none, and
// returns the turn's scores as they are then.
func (s *Service) record(ctx context.Context, ref TurnRef, values []named, by Judge) (*TurnScores, error) {
	if s.Scores == nil {
		return nil, hone.Errorf(hone.EUNAVAILABLE, "human scores are not available: hone runs without its score capability")
	}
	ts, err := s.Store.TurnScores(ctx, ref)
	if err != nil {
		return nil, err
	}
	ins := make([]score.Input, len(values))
	for i, v := range values {
		ins[i] = score.Input{TurnID: ts.TurnID, Config: v.name, Value: v.value, Source: by.Source, Author: by.Author}
	}
	if _, err := s.Scores.RecordAll(ctx, ins); err != nil {
		if f := hone.ErrorField(err); f == "config" || f == "value" {
			return nil, hone.FieldError("scores", "%s", hone.ErrorMessage(err))
		}
		return nil, err
	}
	return s.Store.TurnScores(ctx, TurnRef{TurnID: ts.TurnID})
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
		Summary: fmt.Sprintf("score the latest response, any of %s, each a whole number from %d to %d, "+
			"and any numeric score config added (hone scores configs add NAME --type numeric)",
			strings.Join(names, ", "), quality.ScoreMin, quality.ScoreMax),
		Run: s.score})
}

func (s *Service) score(ctx context.Context, m chat.Message, args string) (chat.Reply, error) {
	values, err := s.parseScores(ctx, args)
	if err != nil {
		return chat.Reply{}, err
	}
	t, err := s.record(ctx, TurnRef{ConversationID: m.ConversationID}, values, Judge{Source: score.SourceChat, Author: m.TesterID})
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
