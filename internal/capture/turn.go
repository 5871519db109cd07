package capture

import (
	"encoding/json"
	"math"
	"time"

	"github.com/honehq/hone"
)

// Turn is one exchange: what the tester said, what the application
// answered, and how it was measured and scored.
type Turn struct {
	ID               string          `json:"id"`
	SessionID        string          `json:"session_id"`
	Number           int             `json:"turn_number"`
	UserMessage      string          `json:"user_message"`
	Response         string          `json:"response"`
	Timestamp        time.Time       `json:"timestamp"`
	SearchResults    json.RawMessage `json:"search_results,omitempty"`
	AvgSimilarity    *float64        `json:"avg_similarity"`
	ProcessingTimeMS *float64        `json:"processing_time_ms"`
	Metadata         json.RawMessage `json:"metadata"`
	// Metrics are the turn's objective metrics, a JSON object keyed by metric
	// name (N/A as null) with objective_quality_score; null when the turn was
	// not measured.
	Metrics json.RawMessage `json:"metrics"`
	// Scores are the human (subjective) scores, 1 to 5, keyed by short name.
	Scores map[string]int `json:"scores"`
	// The composite quality scores, each in [0, 1] or nil when N/A.
	ObjectiveScore  *float64 `json:"objective_quality_score"`
	SubjectiveScore *float64 `json:"subjective_quality_score"`
	OverallScore    *float64 `json:"overall_quality_score"`
}

// TurnInput is a turn as an application reports it.
type TurnInput struct {
	// ID, when the client gives one, becomes the turn's id; recording the
	// same id again with the same content returns the turn already recorded.
	ID               string          `json:"id,omitempty"`
	ConversationID   string          `json:"conversation_id"`
	TesterID         string          `json:"tester_id"`
	TesterEmail      string          `json:"tester_email"`
	UserMessage      string          `json:"user_message"`
	Response         string          `json:"response"`
	PromptVersion    string          `json:"prompt_version,omitempty"`
	Branch           string          `json:"branch,omitempty"`
	SearchResults    json.RawMessage `json:"search_results,omitempty"`
	AvgSimilarity    *float64        `json:"avg_similarity,omitempty"`
	ProcessingTimeMS *float64        `json:"processing_time_ms,omitempty"`
	Metadata         json.RawMessage `json:"metadata,omitempty"`
}

// MaxTurnIDLength is the longest id a client may give a turn.
const MaxTurnIDLength = 128

// TurnIDPattern is the form of a turn id a client gives, as a regular expression.
const TurnIDPattern = `^[A-Za-z0-9][A-Za-z0-9._:-]*$`

// Tester returns who is talking in the turn's conversation.
func (in *TurnInput) Tester() Tester {
	return Tester{ConversationID: in.ConversationID, TesterID: in.TesterID, TesterEmail: in.TesterEmail}
}

// Clean replaces what no database can store in every text and JSON field
// (see hone.CleanText and hone.CleanJSON), and treats an explicit JSON null
// like a field left out.
func (in *TurnInput) Clean() {
	for _, p := range []*string{&in.ID, &in.ConversationID, &in.TesterID, &in.TesterEmail, &in.UserMessage,
		&in.Response, &in.PromptVersion, &in.Branch} {
		*p = hone.CleanText(*p)
	}
	for _, p := range []*json.RawMessage{&in.SearchResults, &in.Metadata} {
		if string(*p) == "null" {
			*p = nil
		}
		if len(*p) > 0 {
			*p = hone.CleanJSON(*p)
		}
	}
}

// Validate reports the first field of in that is missing or malformed.
func (in *TurnInput) Validate() error {
	if in.ID != "" && !validTurnID(in.ID) {
		return hone.FieldError("id", "id must be 1 to %d letters, digits, '.', '_', ':' or '-', starting with a letter or digit", MaxTurnIDLength)
	}
	if err := in.Tester().Validate(); err != nil {
		return err
	}
	switch {
	case blank(in.UserMessage):
		return hone.FieldError("user_message", "user_message is required")
	case hone.Chars(in.UserMessage) > MaxTextLength:
		return tooLong("user_message", MaxTextLength)
	case blank(in.Response):
		return hone.FieldError("response", "response is required")
	case hone.Chars(in.Response) > MaxTextLength:
		return tooLong("response", MaxTextLength)
	case hone.Chars(in.PromptVersion) > MaxIDLength:
		return tooLong("prompt_version", MaxIDLength)
	case hone.Chars(in.Branch) > MaxIDLength:
		return tooLong("branch", MaxIDLength)
	}
	if in.AvgSimilarity != nil {
		if v := *in.AvgSimilarity; math.IsNaN(v) || v < 0 || v > 1 {
			return hone.FieldError("avg_similarity", "avg_similarity must be between 0 and 1, got %v", v)
		}
	}
	if in.ProcessingTimeMS != nil {
		if v := *in.ProcessingTimeMS; math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return hone.FieldError("processing_time_ms", "processing_time_ms must be 0 or more, got %v", v)
		}
	}
	if len(in.SearchResults) > 0 && !json.Valid(in.SearchResults) {
		return hone.FieldError("search_results", "search_results is not valid JSON")
	}
	if len(in.Metadata) > 0 {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(in.Metadata, &m); err != nil || m == nil {
			return hone.FieldError("metadata", "metadata must be a JSON object")
		}
	}
	return nil
}

func validTurnID(id string) bool {
	if len(id) > MaxTurnIDLength {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case i > 0 && (c == '.' || c == '_' || c == ':' || c == '-'):
		default:
			return false
		}
	}
	return id != ""
}
