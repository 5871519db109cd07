package tuning

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/honehq/hone"
)

// Turn is one exchange: what the tester said and what the application answered.
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
	Improvements     []Improvement   `json:"improvements"`
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
	// Measure, when set, scores the turn once the store knows whether it is
	// the first of its session; the store calls it inside its transaction.
	Measure func(isFirstResponse bool) Measurement `json:"-"`
}

// Limits on the size of identifiers and texts.
const (
	MaxIDLength   = 200
	MaxTextLength = 1 << 20
)

// Validate reports the first field of in that is missing or malformed.
func (in *TurnInput) Validate() error {
	if err := validateIdentity(in.ConversationID, in.TesterID, in.TesterEmail); err != nil {
		return err
	}
	switch {
	case strings.TrimSpace(in.UserMessage) == "":
		return hone.FieldError("user_message", "user_message is required")
	case len(in.UserMessage) > MaxTextLength:
		return hone.FieldError("user_message", "user_message is longer than %d bytes", MaxTextLength)
	case strings.TrimSpace(in.Response) == "":
		return hone.FieldError("response", "response is required")
	case len(in.Response) > MaxTextLength:
		return hone.FieldError("response", "response is longer than %d bytes", MaxTextLength)
	case len(in.PromptVersion) > MaxIDLength:
		return hone.FieldError("prompt_version", "prompt_version is longer than %d characters", MaxIDLength)
	case len(in.Branch) > MaxIDLength:
		return hone.FieldError("branch", "branch is longer than %d characters", MaxIDLength)
	}
	if in.AvgSimilarity != nil {
		if v := *in.AvgSimilarity; math.IsNaN(v) || v < 0 || v > 1 {
			return hone.FieldError("avg_similarity", "avg_similarity must be between 0 and 1, got %v", v)
		}
	}
	if in.ProcessingTimeMS != nil {
		if v := *in.ProcessingTimeMS; math.IsNaN(v) || v < 0 {
			return hone.FieldError("processing_time_ms", "processing_time_ms must be 0 or more, got %v", v)
		}
	}
	if len(in.SearchResults) > 0 && !json.Valid(in.SearchResults) {
		return hone.FieldError("search_results", "search_results is not valid JSON")
	}
	if len(in.Metadata) > 0 {
		var m map[string]any
		if err := json.Unmarshal(in.Metadata, &m); err != nil || m == nil {
			return hone.FieldError("metadata", "metadata must be a JSON object")
		}
	}
	return nil
}

func validateIdentity(conversationID, testerID, testerEmail string) error {
	switch {
	case strings.TrimSpace(conversationID) == "":
		return hone.FieldError("conversation_id", "conversation_id is required")
	case len(conversationID) > MaxIDLength:
		return hone.FieldError("conversation_id", "conversation_id is longer than %d characters", MaxIDLength)
	case strings.TrimSpace(testerID) == "":
		return hone.FieldError("tester_id", "tester_id is required")
	case len(testerID) > MaxIDLength:
		return hone.FieldError("tester_id", "tester_id is longer than %d characters", MaxIDLength)
	case len(testerEmail) > MaxIDLength:
		return hone.FieldError("tester_email", "tester_email is longer than %d characters", MaxIDLength)
	case testerEmail != "" && !strings.Contains(testerEmail, "@"):
		return hone.FieldError("tester_email", "tester_email %q is not an email address", testerEmail)
	}
	return nil
}

// Tester identifies who is talking in a conversation.
type Tester struct {
	ConversationID string
	TesterID       string
	TesterEmail    string
}

// Validate reports the first identity field that is missing or malformed.
func (t Tester) Validate() error {
	return validateIdentity(t.ConversationID, t.TesterID, t.TesterEmail)
}

func (t Tester) String() string {
	return fmt.Sprintf("conversation=%s tester=%s", t.ConversationID, t.TesterID)
}
