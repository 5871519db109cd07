package capture

import (
	"context"
	"errors"
)

// ErrNoTurn is returned when a conversation's current session has no turn
// to act on (a note, a score, a rating).
var ErrNoTurn = errors.New("no turn in the conversation's current session")

// TurnRecord is a validated, cleaned and measured turn for the store to write.
type TurnRecord struct {
	Input TurnInput
	// Measured is the turn measured as a later response of its session;
	// First, when not nil, is used instead when the turn is the first of its
	// session.
	Measured Measurement
	First    *Measurement
	// Messages is Input.Messages as JSON, nil when there are none.
	Messages []byte
	// Key is the client's idempotency key, "" for none.
	Key string
	// Fingerprint identifies the turn's content, so that a retry of the same
	// turn (same Key or Input.ID) is recognised and a different turn under a
	// used key or id is refused; "" when there is neither.
	Fingerprint string
}

// TurnResult is what became of one TurnRecord.
type TurnResult struct {
	Turn *Turn
	// Replayed is set when the turn had already been recorded under the same
	// key or id; Turn is then the turn recorded first.
	Replayed bool
	Err      error
}

// Store keeps conversations, sessions and turns. Every method is atomic, and
// turn numbers and totals stay gapless and correct when several calls for
// one conversation run at once, from one process or several.
type Store interface {
	// RecordTurns appends turns to their conversations' current sessions in
	// one transaction, each turn on its own: one that fails (a used id, say)
	// is reported in its result and changes nothing, the others are kept. A
	// turn starts a session when its conversation has none, or when its
	// prompt version differs from the current session's (a new deployment).
	// The error is for a failure of the whole transaction, when nothing was
	// kept.
	RecordTurns(ctx context.Context, recs []TurnRecord) ([]TurnResult, error)
	// CurrentSession returns the conversation's open session, or an ENOTFOUND error.
	CurrentSession(ctx context.Context, conversationID string) (*Session, error)
	// OpenSession returns the conversation's current session when it has the
	// prompt version, and otherwise ends it and starts one that has.
	OpenSession(ctx context.Context, t Tester, promptVersion, branch string) (*Session, error)
	// ResetSession ends the conversation's current session (if any) and starts
	// a new one with the same prompt version and branch.
	ResetSession(ctx context.Context, t Tester) (previous, next *Session, err error)
	// ResumeSession makes the tester's session id the conversation's current
	// session again, ending the one that was current.
	ResumeSession(ctx context.Context, t Tester, sessionID string) (*Session, error)
	// FindSession returns a session by id, or an ENOTFOUND error.
	FindSession(ctx context.Context, id string) (*Session, error)
	// ListSessions returns sessions newest first.
	ListSessions(ctx context.Context, f SessionFilter) ([]*Session, error)
	// EachTurn calls fn with every turn of a session, in order, without
	// holding the whole session in memory.
	EachTurn(ctx context.Context, sessionID string, fn func(*Turn) error) error
	// RecentTurns returns up to limit of the latest turns of a session, oldest first.
	RecentTurns(ctx context.Context, sessionID string, limit int) ([]*Turn, error)
}
