package llm

// Purposes of LLM calls, recorded with each Call.
const (
	PurposeChat     = "chat"
	PurposeFollowUp = "follow-up"
	PurposeAnalysis = "analysis"
	PurposeJudge    = "judge"
	// PurposeLearning calls synthesise learnings and judge corrections.
	PurposeLearning = "learning"
)

// Message roles accepted in a Request.
const (
	RoleSystem    = "system"
	RoleDeveloper = "developer"
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Message is one chat message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Request is one LLM call. Purpose, CauseType and CauseID are recorded with
// the Call so it can be traced back to what caused it (e.g. "turn", its id).
type Request struct {
	Purpose   string
	CauseType string
	CauseID   string
	Messages  []Message
	// Model overrides Config.Models[Purpose] and Config.Model.
	Model       string
	Temperature *float64
	TopP        *float64
	// MaxTokens bounds the answer, in tokens, instead of
	// Config.PurposeMaxTokens[Purpose], Config.MaxTokens and the purpose's
	// default. Every call is bounded; the bound goes out as max_tokens or
	// max_completion_tokens, whichever the provider reads.
	MaxTokens *int
	// Params holds any other request body parameters, sent as given; they
	// may not hold max_tokens or max_completion_tokens.
	Params map[string]any
}

// Usage counts the tokens of one call.
type Usage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	TotalTokens      int64 `json:"total_tokens"`
}

// Response is the answer to a Request.
type Response struct {
	Content      string
	Model        string
	FinishReason string
	Usage        Usage
	// LatencyMS is the wall time of the call in milliseconds, retries included.
	LatencyMS float64
	// CallID is the ID of the recorded Call.
	CallID string
}

// CutOff reports whether the answer stopped at its bound (finish_reason
// "length") rather than where the model ended it. Only a chat answer comes
// back cut off; for any other purpose it is an *OutputError.
func (r *Response) CutOff() bool { return r.FinishReason == "length" }

// Float64 returns a pointer to v, for Request.Temperature and Request.TopP.
func Float64(v float64) *float64 { return &v }

// Int returns a pointer to v, for Request.MaxTokens.
func Int(v int) *int { return &v }
