package learning

import "time"

// Statuses of a learning.
const (
	// StatusActive learnings are in the prompt.
	StatusActive = "active"
	// StatusBelowThreshold learnings have a confidence under the threshold:
	// kept and listed, not applied.
	StatusBelowThreshold = "below_threshold"
	// StatusConflict learnings contradict another learning and wait until
	// the owner keeps one of the two.
	StatusConflict = "conflict"
	// StatusRejected learnings contradict the protected rules of the base
	// prompt: kept with the reason, never applied.
	StatusRejected = "rejected"
)

// States a learning is stored in; its status follows from its state and
// its confidence.
const (
	StateOK       = "ok"
	StateConflict = "conflict"
	StateRejected = "rejected"
)

// Learning is a learning statement: a pattern seen in corrections and the
// prompt adjustment that answers it.
type Learning struct {
	ID               string  `json:"id"`
	Pattern          string  `json:"pattern"`
	PromptAdjustment string  `json:"prompt_adjustment"`
	Confidence       float64 `json:"confidence"`
	Status           string  `json:"status"`
	// Reason says why a learning is rejected or in conflict.
	Reason string `json:"reason,omitempty"`
	// ConflictsWith is the learning a conflicting one contradicts.
	ConflictsWith string `json:"conflicts_with,omitempty"`
	// SourceCorrections are the corrections it was learned from, its
	// evidence; a duplicate found later adds its own.
	SourceCorrections []string `json:"source_corrections"`
	// TesterID scopes a learning to one tester; "" applies to everyone.
	TesterID string `json:"tester_id,omitempty"`
	// Manual is set for a learning someone added by hand.
	Manual    bool      `json:"manual"`
	RunID     string    `json:"run_id,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// State is how the learning is stored: StateOK, StateConflict or
	// StateRejected; Status follows from it and the confidence.
	State string `json:"-"`
}

// LearningInput adds a learning by hand.
type LearningInput struct {
	PromptAdjustment string   `json:"prompt_adjustment"`
	Pattern          string   `json:"pattern,omitempty"`
	TesterID         string   `json:"tester_id,omitempty"`
	Confidence       *float64 `json:"confidence,omitempty"`
}

// LearningUpdate edits a learning; nil fields stay as they are.
type LearningUpdate struct {
	PromptAdjustment *string  `json:"prompt_adjustment,omitempty"`
	Pattern          *string  `json:"pattern,omitempty"`
	Confidence       *float64 `json:"confidence,omitempty"`
}

// Statuses of a synthesis run.
const (
	RunQueued  = "queued"
	RunRunning = "running"
	RunDone    = "done"
	RunFailed  = "failed"
)

// Run is one synthesis of the pending corrections.
type Run struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
	// Corrections counts the corrections the run read.
	Corrections int `json:"corrections"`
	// Learnings are the learnings it made or added evidence to, with their
	// status.
	Learnings []*Learning `json:"learnings"`
	// LearningIDs are the ids of Learnings, as stored.
	LearningIDs []string  `json:"-"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
}
