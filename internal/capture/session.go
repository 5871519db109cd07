package capture

import (
	"encoding/json"
	"time"
)

// Session is one run of a tester's conversation with one prompt version,
// from a start (the first turn, !reset or a new deployment) to an end.
type Session struct {
	ID                string     `json:"id"`
	ConversationID    string     `json:"conversation_id"`
	Start             time.Time  `json:"session_start"`
	End               *time.Time `json:"session_end"`
	PromptVersion     string     `json:"prompt_version"`
	Branch            string     `json:"branch"`
	TotalTurns        int        `json:"total_turns"`
	TotalImprovements int        `json:"total_improvements"`
	TesterID          string     `json:"tester_id"`
	TesterEmail       string     `json:"tester_email"`
	// TesterName is the tester's display name (see Names), "" when none is
	// known.
	TesterName string          `json:"tester_name,omitempty"`
	Metadata   json.RawMessage `json:"metadata"`
}

// Duration is how long the session has lasted, up to its end or to now.
func (s *Session) Duration(now time.Time) time.Duration {
	end := now
	if s.End != nil {
		end = *s.End
	}
	return end.Sub(s.Start)
}

// SessionFilter selects sessions for a listing, newest first.
type SessionFilter struct {
	TesterID      string
	PromptVersion string
	Offset        int
	Limit         int
}

// DefaultSessionLimit is how many sessions a listing returns when no limit is given.
const DefaultSessionLimit = 50
