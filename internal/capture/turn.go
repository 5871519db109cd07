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
	// The OpenAI-style and OpenTelemetry facts of the turn, each left out
	// when it was not recorded (see TurnInput). Messages is a JSON array of
	// Message.
	Messages  json.RawMessage `json:"messages,omitempty"`
	Model     string          `json:"model,omitempty"`
	Usage     *Usage          `json:"usage,omitempty"`
	LatencyMS *float64        `json:"latency_ms,omitempty"`
	Source    string          `json:"source,omitempty"`
	TraceID   string          `json:"trace_id,omitempty"`
	SpanID    string          `json:"span_id,omitempty"`
	ParentID  string          `json:"parent_id,omitempty"`
}

// TurnInput is a turn as an application reports it. Every field but
// ConversationID is optional: TesterID defaults to AnonymousTester, and
// UserMessage and Response are taken from Messages when left out (see
// Derive).
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
	// Messages is the whole chat of the turn in OpenAI's format: the system
	// prompt, the history, the user's message, tool calls and results, and
	// the final answer.
	Messages Messages `json:"messages,omitempty"`
	// Model is the model that answered.
	Model string `json:"model,omitempty"`
	Usage *Usage `json:"usage,omitempty"`
	// LatencyMS is how long the model took to answer, in milliseconds;
	// ProcessingTimeMS, the application's whole time, takes its value when
	// left out.
	LatencyMS *float64 `json:"latency_ms,omitempty"`
	// Source is how the turn reached hone, one of Sources; "" when unknown.
	Source string `json:"source,omitempty"`
	// TraceID, SpanID and ParentID are the turn's W3C trace context: its
	// trace, its span and its parent span.
	TraceID  string `json:"trace_id,omitempty"`
	SpanID   string `json:"span_id,omitempty"`
	ParentID string `json:"parent_id,omitempty"`
}

// MaxMetadataBytes is the largest metadata a turn may carry, as JSON text.
const MaxMetadataBytes = 64 << 10

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
		&in.Response, &in.PromptVersion, &in.Branch, &in.Model, &in.Source, &in.TraceID, &in.SpanID, &in.ParentID} {
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
	for i := range in.Messages {
		in.Messages[i].clean()
	}
}

// Validate reports the first field of in that is missing or malformed. A
// user_message or response left out must be derivable from messages.
func (in *TurnInput) Validate() error {
	if in.ID != "" && !validTurnID(in.ID) {
		return hone.FieldError("id", "id must be 1 to %d letters, digits, '.', '_', ':' or '-', starting with a letter or digit", MaxTurnIDLength)
	}
	t := in.Tester()
	switch {
	case t.TesterID == "":
		t.TesterID = AnonymousTester
	case blank(t.TesterID) && !blank(t.ConversationID):
		return hone.FieldError("tester_id", "tester_id is only white space: leave it out to record the turn under the tester %q", AnonymousTester)
	}
	if err := t.Validate(); err != nil {
		return err
	}
	if err := in.Messages.Validate(); err != nil {
		return err
	}
	if err := in.validateExchange(); err != nil {
		return err
	}
	switch {
	case hone.Chars(in.PromptVersion) > MaxIDLength:
		return tooLong("prompt_version", MaxIDLength)
	case hone.Chars(in.Branch) > MaxIDLength:
		return tooLong("branch", MaxIDLength)
	case hone.Chars(in.Model) > MaxIDLength:
		return tooLong("model", MaxIDLength)
	}
	if in.AvgSimilarity != nil {
		if v := *in.AvgSimilarity; math.IsNaN(v) || v < 0 || v > 1 {
			return hone.FieldError("avg_similarity", "avg_similarity must be between 0 and 1, got %v", v)
		}
	}
	for _, d := range []struct {
		field string
		v     *float64
	}{{"processing_time_ms", in.ProcessingTimeMS}, {"latency_ms", in.LatencyMS}} {
		if d.v != nil && (math.IsNaN(*d.v) || math.IsInf(*d.v, 0) || *d.v < 0) {
			return hone.FieldError(d.field, "%s must be 0 or more, got %v", d.field, *d.v)
		}
	}
	if in.Usage != nil {
		if err := in.Usage.validate(); err != nil {
			return err
		}
	}
	if err := in.validateTrace(); err != nil {
		return err
	}
	if len(in.SearchResults) > 0 && !json.Valid(in.SearchResults) {
		return hone.FieldError("search_results", "search_results is not valid JSON")
	}
	if len(in.Metadata) > 0 {
		if len(in.Metadata) > MaxMetadataBytes {
			return hone.FieldError("metadata", "metadata is larger than %d KiB of JSON text", MaxMetadataBytes>>10)
		}
		if in.Metadata[0] != '{' || !json.Valid(in.Metadata) {
			return hone.FieldError("metadata", "metadata must be a JSON object")
		}
	}
	return nil
}

// validateExchange checks user_message and response, or, for one left out,
// that messages has it.
func (in *TurnInput) validateExchange() error {
	switch {
	case in.UserMessage == "" && len(in.Messages) == 0:
		return hone.FieldError("user_message", "user_message is required")
	case in.UserMessage == "":
		if i, _ := in.Messages.lastText(RoleUser, len(in.Messages)); i < 0 {
			return hone.FieldError("messages", "messages has no user message with text to take user_message from: give user_message")
		}
	case blank(in.UserMessage):
		return hone.FieldError("user_message", "user_message is required: it is only white space")
	case hone.Chars(in.UserMessage) > MaxTextLength:
		return tooLong("user_message", MaxTextLength)
	}
	switch {
	case in.Response == "" && len(in.Messages) == 0:
		return hone.FieldError("response", "response is required")
	case in.Response == "":
		if i, _ := in.answer(); i < 0 {
			return hone.FieldError("messages", "messages has no assistant message with text after its last user message to take response from: give response")
		}
	case blank(in.Response):
		return hone.FieldError("response", "response is required: it is only white space")
	case hone.Chars(in.Response) > MaxTextLength:
		return tooLong("response", MaxTextLength)
	}
	return nil
}

// answer returns the index and text of the assistant message response is
// taken from: the last one with text after the last user message with
// text; -1 when there is none.
func (in *TurnInput) answer() (int, string) {
	i, s := in.Messages.lastText(RoleAssistant, len(in.Messages))
	if u, _ := in.Messages.lastText(RoleUser, len(in.Messages)); i < u {
		return -1, ""
	}
	return i, s
}

// Derive fills, in a valid input, what hone derives: the anonymous tester
// when there is no tester_id; user_message from the last user message with
// text and response from the last assistant message with text after it,
// when left out; processing_time_ms from latency_ms when left out.
func (in *TurnInput) Derive() {
	if in.TesterID == "" {
		in.TesterID = AnonymousTester
	}
	if in.UserMessage == "" {
		_, in.UserMessage = in.Messages.lastText(RoleUser, len(in.Messages))
	}
	if in.Response == "" {
		_, in.Response = in.answer()
	}
	if in.ProcessingTimeMS == nil && in.LatencyMS != nil {
		v := *in.LatencyMS
		in.ProcessingTimeMS = &v
	}
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
