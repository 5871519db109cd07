package tuning

import (
	"context"

	"github.com/honehq/hone/internal/capture"
)

// Turn is a turn with the improvement notes attached to it.
type Turn struct {
	capture.Turn
	Improvements []Improvement `json:"improvements"`
	// Judgments are every rating, score and correction of the turn, in the
	// session exports of a hone that reads them.
	Judgments []Judgment `json:"judgments,omitempty"`
}

// Store keeps improvement notes. Every method is atomic, and a session's
// total of improvements stays correct when several notes arrive at once.
type Store interface {
	// AddImprovement attaches a note to the latest turn of the conversation's
	// current session; capture.ErrNoTurn when there is none.
	AddImprovement(ctx context.Context, conversationID, category, note string) (*Improvement, error)
	// AddTurnImprovement attaches a note to the turn turnID names; an
	// ENOTFOUND error when there is no such turn.
	AddTurnImprovement(ctx context.Context, turnID, category, note string) (*Improvement, error)
	// SearchSessions returns the sessions q selects (checked already), in
	// its order, filtered, sorted and paged by the database.
	SearchSessions(ctx context.Context, q SessionSearch) ([]*SessionRow, error)
	// EachTurn calls fn with every turn of a session, in order, with its
	// improvements, without holding the whole session in memory.
	EachTurn(ctx context.Context, sessionID string, fn func(*Turn) error) error
	// ListTurns returns up to limit turns of a session with their
	// improvements, numbered from the turn number from on.
	ListTurns(ctx context.Context, sessionID string, from, limit int) ([]*Turn, error)
}
