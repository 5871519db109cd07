package alerts

import (
	"context"
	"time"

	"github.com/honehq/hone/internal/capture"
)

// Store keeps proactive alerts, the reactions to them and the state of
// their types. Every method is atomic.
type Store interface {
	// AddAlert stores a sent alert; when one with its id exists, it
	// changes nothing and returns that one.
	AddAlert(ctx context.Context, a *Alert) (*Alert, error)
	// Alert returns an alert by id with its reactions, or an ENOTFOUND
	// error.
	Alert(ctx context.Context, id string) (*Alert, error)
	// LatestAlert returns the conversation's latest alert, or an
	// ENOTFOUND error.
	LatestAlert(ctx context.Context, conversationID string) (*Alert, error)
	// ScoredAlerts returns, newest first, up to limit of the
	// conversation's alerts that count in its score: those with a
	// reaction, and those sent at or before expired (their grace period
	// is over).
	ScoredAlerts(ctx context.Context, conversationID string, expired time.Time, limit int) ([]ScoredAlert, error)
	// SentSince counts the conversation's alerts sent after since and
	// returns the send times of the newest limit of them, newest first.
	SentSince(ctx context.Context, conversationID string, since time.Time, limit int) (int, []time.Time, error)
	// React stores a tester's reaction to an alert, replacing theirs.
	React(ctx context.Context, r *AlertReaction) error
	// TypeReactions returns the reactions to the type's alerts given after
	// since, newest first, up to limit.
	TypeReactions(ctx context.Context, typ string, since time.Time, limit int) ([]string, error)
	// AlertType returns a type's state and counts; a type never seen is
	// returned with zero counts.
	AlertType(ctx context.Context, typ string) (*AlertType, error)
	// AlertTypes lists every type that was sent or paused, by name.
	AlertTypes(ctx context.Context) ([]*AlertType, error)
	// PauseType pauses a type with the reason, unless it is paused.
	PauseType(ctx context.Context, typ, reason string, at time.Time) error
	// EnableType ends a type's pause; reactions before at no longer count
	// towards pausing it.
	EnableType(ctx context.Context, typ string, at time.Time) error
}

// Turns is what alerts read of the conversations hone captured: when the
// latest response of a conversation came.
type Turns interface {
	// CurrentSession returns the conversation's open session, or an ENOTFOUND error.
	CurrentSession(ctx context.Context, conversationID string) (*capture.Session, error)
	// RecentTurns returns up to limit of the latest turns of a session, oldest first.
	RecentTurns(ctx context.Context, sessionID string, limit int) ([]*capture.Turn, error)
}
