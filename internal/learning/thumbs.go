package learning

import (
	"context"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/score"
)

// Replies of the correction flow, in the spec's words.
const (
	// AskCorrectionText answers a 👎.
	AskCorrectionText = "Thanks for the feedback. What should I have done differently?"
	// ThanksText closes a correction; the middle says what was noted.
	ThanksText = "Got it! I noted: “%s”. Thanks for helping me improve!"
)

// RateTurn rates a turn by id, as an application with its own buttons does.
// A 👎 asks the tester for a correction: the answer's Ask says so, and the
// tester's next message in the conversation is taken as the correction.
func (s *Service) RateTurn(ctx context.Context, turnID string, in RatingInput) (*Rating, error) {
	if err := in.clean(); err != nil {
		return nil, err
	}
	t, err := s.store.Turn(ctx, turnID)
	if err != nil {
		return nil, err
	}
	return s.rate(ctx, t, in)
}

// RateLatest rates the latest response of the tester's conversation, as 👍
// and 👎 in chat do; capture.ErrNoTurn when there is none.
func (s *Service) RateLatest(ctx context.Context, t capture.Tester, rating string) (*Rating, error) {
	in := RatingInput{TesterID: t.TesterID, Rating: rating, Source: score.SourceChat}
	if err := in.clean(); err != nil {
		return nil, err
	}
	turn, err := s.store.LatestTurn(ctx, t.ConversationID)
	if err != nil {
		return nil, err
	}
	return s.rate(ctx, turn, in)
}

// rate records the rating as a score of config thumbs, the one path of
// judgments, and in the same transaction what the learning loop keeps
// beside it: the intent and context type, and the correction flow a 👎
// starts.
func (s *Service) rate(ctx context.Context, t *TurnRef, in RatingInput) (*Rating, error) {
	if s.opts.Scores == nil {
		return nil, errNoScores
	}
	if in.Source == "" {
		in.Source = score.SourceAPI
	}
	var out *Rating
	err := s.opts.Scores.Atomically(ctx, func(ctx context.Context) error {
		_, _, err := s.opts.Scores.Record(ctx, score.Input{TurnID: t.ID, Config: score.Thumbs, Value: score.Bool(in.Rating == RatingUp),
			Source: in.Source, Author: in.TesterID})
		if err != nil {
			return err
		}
		now := s.now()
		r := &Rating{ID: hone.NewID(idLength), TurnID: t.ID, SessionID: t.SessionID, ConversationID: t.ConversationID,
			TesterID: in.TesterID, Rating: in.Rating, Intent: in.Intent, ContextType: in.ContextType, CreatedAt: now, UpdatedAt: now}
		out, err = s.store.SaveRating(ctx, r, in.Rating == RatingDown)
		return err
	})
	return out, err
}

// errNoScores answers a rating when hone runs without its score capability.
var errNoScores = hone.Errorf(hone.EUNAVAILABLE, "ratings are not available: hone runs without its score capability")

// idLength is the length of the ids the learning loop makes.
const idLength = 12

// Stats sums up the ratings of the last days (30 when 0).
func (s *Service) Stats(ctx context.Context, days int) (*Stats, error) {
	if days <= 0 {
		days = DefaultStatsDays
	}
	st, err := s.store.RatingStats(ctx, s.now().Add(-time.Duration(days)*24*time.Hour))
	if err != nil {
		return nil, err
	}
	if st.Total > 0 {
		st.Percent = 100 * float64(st.Up) / float64(st.Total)
	}
	for _, list := range [][]Approval{st.ByIntent, st.ByContextType} {
		for i := range list {
			list[i].percent()
		}
	}
	return st, nil
}

// Negative lists the latest 👎 with their turns, newest first.
func (s *Service) Negative(ctx context.Context, limit int) ([]*Rating, error) {
	return s.store.Ratings(ctx, RatingFilter{Rating: RatingDown, Limit: clampLimit(limit)})
}

// PendingCorrections lists the corrections not synthesised yet, oldest first.
func (s *Service) PendingCorrections(ctx context.Context, limit int) ([]*Correction, error) {
	return s.store.Corrections(ctx, true, clampLimit(limit))
}

// SessionCorrections lists the corrections given on the turns of a
// session, oldest first: the session page and its exports show them.
func (s *Service) SessionCorrections(ctx context.Context, sessionID string) ([]*Correction, error) {
	return s.store.SessionCorrections(ctx, sessionID)
}

// clampLimit is limit within 1 to MaxList, MaxList for 0.
func clampLimit(limit int) int {
	if limit <= 0 || limit > MaxList {
		return MaxList
	}
	return limit
}

// DefaultStatsDays is how many days of ratings Stats sums up when not told.
const DefaultStatsDays = 30

// MaxList is the most records a list answers at once.
const MaxList = 1000

// TesterRatings are a tester's latest ratings by turn id, for a face that
// shows which answers they rated.
func (s *Service) TesterRatings(ctx context.Context, testerID string, limit int) (map[string]string, error) {
	list, err := s.store.Ratings(ctx, RatingFilter{TesterID: testerID, Limit: clampLimit(limit)})
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(list))
	for _, r := range list {
		out[r.TurnID] = r.Rating
	}
	return out, nil
}
