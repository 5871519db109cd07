package workshop

import (
	"encoding/json"
	"time"
)

// Trace is one exchange a workshop reviews. Input and Output are kept as
// imported (a JSON string, or any JSON value); InputText and OutputText are
// what is shown and sent to the LLM: the workshop's JSONPath extraction of
// them when it has one, else the string itself or the compact JSON.
type Trace struct {
	ID         string          `json:"id"`
	WorkshopID string          `json:"workshop_id"`
	Position   int             `json:"position"`
	Input      json.RawMessage `json:"input"`
	Output     json.RawMessage `json:"output"`
	Context    json.RawMessage `json:"context,omitempty"`
	Metadata   json.RawMessage `json:"metadata,omitempty"`
	InputText  string          `json:"input_text"`
	OutputText string          `json:"output_text"`
	CreatedAt  time.Time       `json:"created_at"`
}

// TraceInput is a trace as imported. Input and Output are any JSON value;
// a CSV cell is a JSON string unless it holds a JSON object or array.
type TraceInput struct {
	ID       string          `json:"id,omitempty"`
	Input    json.RawMessage `json:"input"`
	Output   json.RawMessage `json:"output"`
	Context  json.RawMessage `json:"context,omitempty"`
	Metadata json.RawMessage `json:"metadata,omitempty"`
}

// LineError is a trace of an import file that cannot be imported, with the
// line it starts on (the header of a CSV file is line 1).
type LineError struct {
	Line    int    `json:"line"`
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
}

// ImportResult says what an import did.
type ImportResult struct {
	Imported int      `json:"imported"`
	IDs      []string `json:"ids"`
	// Skipped lists the first ndjson.ListedErrors traces left out;
	// ErrorsNotListed counts the others.
	Skipped         []LineError `json:"skipped,omitempty"`
	ErrorsNotListed int         `json:"errors_not_listed,omitempty"`
}
