package tuning

import (
	"context"
	"errors"
)

// ErrNoTurn is returned by Store.AddImprovement when the conversation's
// current session has no turn to attach a note to.
var ErrNoTurn = errors.New("no turn to attach the note to")

// Store keeps sessions, turns and improvements. Every method is atomic, and
// totals stay correct when several calls for one conversation run at once.
type Store interface {
	// RecordTurn appends a turn to the conversation's current session. It
	// starts a session when there is none, or when the turn's prompt version
	// differs from the current session's (a new deployment).
	RecordTurn(ctx context.Context, in TurnInput) (*Turn, error)
	// CurrentSession returns the conversation's open session, or an ENOTFOUND error.
	CurrentSession(ctx context.Context, conversationID string) (*Session, error)
	// AddImprovement attaches a note to the latest turn of the conversation's
	// current session; ErrNoTurn when there is none.
	AddImprovement(ctx context.Context, conversationID, category, note string) (*Improvement, error)
	// ResetSession ends the conversation's current session (if any) and starts
	// a new one with the same prompt version and branch.
	ResetSession(ctx context.Context, t Tester) (previous, next *Session, err error)
	// OpenSession returns the conversation's current session when it has the
	// prompt version, and otherwise ends it and starts one that has.
	OpenSession(ctx context.Context, t Tester, promptVersion, branch string) (*Session, error)
	// ResumeSession makes the tester's session id the conversation's current
	// session again, ending the one that was current.
	ResumeSession(ctx context.Context, t Tester, sessionID string) (*Session, error)
	// FindSession returns a session by id, or an ENOTFOUND error.
	FindSession(ctx context.Context, id string) (*Session, error)
	// ListSessions returns sessions newest first.
	ListSessions(ctx context.Context, f SessionFilter) ([]*Session, error)
	// EachTurn calls fn with every turn of a session, in order, with its
	// improvements, without holding the whole session in memory.
	EachTurn(ctx context.Context, sessionID string, fn func(*Turn) error) error
	// ListTurns returns up to limit turns of a session with their
	// improvements, numbered from the turn number from on.
	ListTurns(ctx context.Context, sessionID string, from, limit int) ([]*Turn, error)
	// RecentTurns returns up to limit of the latest turns of a session, oldest first.
	RecentTurns(ctx context.Context, sessionID string, limit int) ([]*Turn, error)
}
