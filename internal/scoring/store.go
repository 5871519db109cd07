// Package scoring puts the metrics package to work on hone's data: it scores
// every turn as it is recorded (a capture.Measurer), takes human scores (the
// !score chat command and the API), and compares prompt versions. The flow
// stays capture → judge (!improve, !score) → measure (metrics).
package scoring

import (
	"context"
	"time"
)

// TurnRef names the turn to score: by TurnID, or else the latest turn of
// the current session of ConversationID.
type TurnRef struct {
	TurnID         string
	ConversationID string
}

// TurnScores are a turn's human scores and composite scores.
type TurnScores struct {
	TurnID     string         `json:"turn_id"`
	SessionID  string         `json:"session_id"`
	TurnNumber int            `json:"turn_number"`
	Scores     map[string]int `json:"scores"`
	Objective  *float64       `json:"objective_quality_score"`
	Subjective *float64       `json:"subjective_quality_score"`
	Overall    *float64       `json:"overall_quality_score"`
	// Revision counts the changes of the turn's human scores, so that a
	// change computed from stale scores is refused.
	Revision int64 `json:"-"`
}

// Sample is one turn's scores, with the session and prompt version it
// belongs to.
type Sample struct {
	Version      string
	SessionID    string
	SessionStart time.Time
	TurnNumber   int
	// Metrics is the turn's objective metrics JSON (nil when not measured).
	Metrics    []byte
	Objective  *float64
	Subjective *float64
	Overall    *float64
}

// SampleFilter selects samples: of one session, or of some prompt versions.
type SampleFilter struct {
	SessionID string
	Versions  []string
}

// VersionSummary is what SQL averages over the turns of one prompt version.
// N/A scores are left out of the means and of the counts beside them.
type VersionSummary struct {
	Version    string    `json:"prompt_version"`
	FirstStart time.Time `json:"first_session_start"`
	Sessions   int       `json:"sessions"`
	Turns      int       `json:"turns"`
	// NObjective, NSubjective and NOverall count the turns that have each score.
	NObjective  int      `json:"n_objective"`
	NSubjective int      `json:"n_subjective"`
	NOverall    int      `json:"n_overall"`
	Objective   *float64 `json:"objective_quality_score"`
	Subjective  *float64 `json:"subjective_quality_score"`
	Overall     *float64 `json:"overall_quality_score"`
}

// Store keeps turn scores.
type Store interface {
	// TurnScores returns the scores of the turn ref names, with their
	// revision; capture.ErrNoTurn when a conversation has no turn, an
	// ENOTFOUND error for an unknown turn id.
	TurnScores(ctx context.Context, ref TurnRef) (*TurnScores, error)
	// LockTurns holds the human scores of the turns until the transaction
	// ctx carries ends (another change of them waits) and returns them with
	// their revisions, in the order of ids, which are sorted so that two
	// changes lock in the same order. ENOTFOUND names an unknown turn.
	LockTurns(ctx context.Context, ids []string) ([]*TurnScores, error)
	// SaveScores replaces the turn's human scores and its subjective and
	// overall scores when its scores are still at ts.Revision, and counts
	// the revision up; an ECONFLICT error when they changed in between.
	SaveScores(ctx context.Context, ts *TurnScores) error
	// Samples returns the scores of the selected turns, ordered by session
	// start and turn number.
	Samples(ctx context.Context, f SampleFilter) ([]Sample, error)
	// VersionSummaries averages the scores per prompt version, ordered by
	// the version's first session start.
	VersionSummaries(ctx context.Context) ([]VersionSummary, error)
}
