package learning

import (
	"context"
	"time"
)

// TurnRef is a recorded turn as the learning loop reads it.
type TurnRef struct {
	ID             string
	SessionID      string
	ConversationID string
	UserMessage    string
	Response       string
	CreatedAt      time.Time
}

// RatingFilter picks ratings.
type RatingFilter struct {
	Rating   string
	TesterID string
	Since    time.Time
	Limit    int
}

// LearningFilter picks learnings.
type LearningFilter struct {
	// TesterID, when set, picks the learnings that apply to that tester:
	// everyone's and theirs. Otherwise all are listed.
	TesterID string
	// Everyone picks the learnings that apply to everyone only.
	Everyone bool
}

// Merge adds evidence to an existing learning: a duplicate the synthesis
// found again.
type Merge struct {
	LearningID  string
	Corrections []string
	// Confidence is the learning's confidence after the merge.
	Confidence float64
}

// Outcome is what a synthesis run stores, all in one transaction.
type Outcome struct {
	RunID     string
	Learnings []*Learning
	Merges    []Merge
	// Processed are the corrections the run read: marked processed with
	// the outcome, and only then.
	Processed []string
}

// Store keeps ratings, corrections, learnings and synthesis runs. Every
// method is atomic.
type Store interface {
	// LatestTurn returns the latest turn of the conversation's current
	// session, or capture.ErrNoTurn.
	LatestTurn(ctx context.Context, conversationID string) (*TurnRef, error)
	// Turn returns a turn by id, or an ENOTFOUND error.
	Turn(ctx context.Context, id string) (*TurnRef, error)

	// SaveRating stores r as the rating of its turn by its tester,
	// replacing an earlier one (whose id and creation time are kept). With
	// ask, the same transaction makes it the correction the conversation's
	// tester is asked for; without, it ends any flow of theirs.
	SaveRating(ctx context.Context, r *Rating, ask bool) (*Rating, error)
	// SetRating makes r the rating of its turn by its tester, as the
	// tester's latest score of config thumbs says: its rating and update
	// time, keeping an earlier rating's id, creation time, intent and
	// context type. It joins the transaction ctx carries.
	SetRating(ctx context.Context, r *Rating) error
	// DropRating removes the tester's rating of the turn, when their last
	// score of config thumbs is gone; ECONFLICT when a correction was
	// given for it.
	DropRating(ctx context.Context, turnID, testerID string) error
	// Ratings lists ratings newest first, with their turns' texts.
	Ratings(ctx context.Context, f RatingFilter) ([]*Rating, error)
	// RatingStats counts the ratings since a time, by intent and context type.
	RatingStats(ctx context.Context, since time.Time) (*Stats, error)

	// Flow returns the correction the conversation's tester is asked for,
	// or an ENOTFOUND error.
	Flow(ctx context.Context, conversationID, testerID string) (*Flow, error)
	// EndFlow ends the flow of the rating feedbackID, if it is still the
	// conversation's.
	EndFlow(ctx context.Context, conversationID, testerID, feedbackID string) error
	// Rated returns the correction to be of a rating: FeedbackID and the
	// rated turn filled in; ENOTFOUND when the rating is gone.
	Rated(ctx context.Context, feedbackID string) (*Correction, error)
	// AddCorrection stores a correction and ends its flow; ECONFLICT when
	// the flow ended meanwhile (the correction was given twice).
	AddCorrection(ctx context.Context, c *Correction, conversationID, testerID string) error
	// Corrections lists corrections oldest first with their turns; only
	// the unprocessed ones when pending is set.
	Corrections(ctx context.Context, pending bool, limit int) ([]*Correction, error)
	// SessionCorrections lists the corrections of the turns of a session,
	// oldest first, with their turns.
	SessionCorrections(ctx context.Context, sessionID string) ([]*Correction, error)
	// CorrectionsByID returns the corrections with the ids, with their turns.
	CorrectionsByID(ctx context.Context, ids []string) ([]*Correction, error)

	// AddLearning stores a learning.
	AddLearning(ctx context.Context, l *Learning) error
	// Learning returns a learning by id, or an ENOTFOUND error.
	Learning(ctx context.Context, id string) (*Learning, error)
	// Learnings lists learnings oldest first.
	Learnings(ctx context.Context, f LearningFilter) ([]*Learning, error)
	// UpdateLearning saves a learning's text, confidence and state.
	UpdateLearning(ctx context.Context, l *Learning) error
	// DeleteLearning removes a learning; the learnings in conflict with it
	// are in conflict no more.
	DeleteLearning(ctx context.Context, id string) error

	// CreateRun stores a queued run.
	CreateRun(ctx context.Context, r *Run) error
	// ClaimRun marks a queued run running and returns it: the run id, or
	// the oldest queued one when id is "" (ENOTFOUND when there is none).
	// ECONFLICT when the run is not queued, or another run is running:
	// one synthesis runs at a time.
	ClaimRun(ctx context.Context, id string) (*Run, error)
	// Heartbeat tells that a running run is alive.
	Heartbeat(ctx context.Context, id string) error
	// FinishRun stores the outcome of a run and marks it done, and marks
	// its corrections processed, in one transaction.
	FinishRun(ctx context.Context, o Outcome) error
	// FailRun marks a run failed with the reason; nothing else changes.
	FailRun(ctx context.Context, id, reason string) error
	// RequeueStale queues again the runs left running without a heartbeat
	// since before, and fails those that were taken up maxAttempts times.
	RequeueStale(ctx context.Context, before time.Time, maxAttempts int) (int, error)
	// Run returns a run by id, or an ENOTFOUND error.
	Run(ctx context.Context, id string) (*Run, error)
	// Runs lists runs newest first.
	Runs(ctx context.Context, limit int) ([]*Run, error)

	// Setting returns a setting's value, "" when it was never set.
	Setting(ctx context.Context, name string) (string, error)
	// SetSetting stores a setting.
	SetSetting(ctx context.Context, name, value string) error
	// Generation is a number that changes whenever learnings or settings
	// change, so that a process can tell that its cached prompt is stale.
	Generation(ctx context.Context) (int64, error)
}
