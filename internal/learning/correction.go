package learning

import "time"

// Correction is what a tester said should have been done differently after
// a 👎: the spec's corrections record, linked to the rating.
type Correction struct {
	ID         string    `json:"id"`
	FeedbackID string    `json:"feedback_id"`
	Text       string    `json:"correction_text"`
	Processed  bool      `json:"processed"`
	CreatedAt  time.Time `json:"created_at"`
	// The rated turn, for reading and for synthesis.
	TurnID         string `json:"turn_id"`
	SessionID      string `json:"session_id"`
	TurnNumber     int    `json:"turn_number"`
	ConversationID string `json:"conversation_id"`
	TesterID       string `json:"tester_id"`
	UserMessage    string `json:"user_message"`
	Response       string `json:"response"`
}

// Flow is a correction the conversation waits for: a tester gave 👎 and was
// asked what should have been done differently.
type Flow struct {
	ConversationID string
	TesterID       string
	FeedbackID     string
	StartedAt      time.Time
}
