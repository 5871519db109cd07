package suggestions

import (
	"encoding/json"
	"time"
)

// Record is a suggestion record as hone keeps it: the figures it counts
// by, and the record itself, exactly as received (Raw), with every field.
type Record struct {
	ID      string
	TS      time.Time
	Server  string
	Session string
	Version string
	// Model is the llm_request's model, else the llm_response's.
	Model string
	// Temperature is the llm_request's, nil when it gave none.
	Temperature *float64
	MatchType   string
	// AcceptedIndex is the position of the suggestion taken, nil for none.
	AcceptedIndex     *int
	Suggestions       int
	CycleCount        int
	TimeToActionMS    float64
	ContextBlockCount int
	// TotalTokens is the llm_response's usage, 0 when it gave none.
	TotalTokens int
	// ViewedButRejected and CycledBack are two of the negative signals,
	// read from viewed_indices.
	ViewedButRejected bool
	CycledBack        bool
	Raw               json.RawMessage
}

// Accepted reports whether a suggestion was taken (exact, partial or
// prefix).
func (r *Record) Accepted() bool { return r.AcceptedIndex != nil }
