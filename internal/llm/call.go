package llm

import (
	"context"
	"encoding/json"
	"time"
)

// Call is the record of one LLM call, successful or failed.
type Call struct {
	ID        string        `json:"id"`
	Purpose   string        `json:"purpose"`
	CauseType string        `json:"cause_type"`
	CauseID   string        `json:"cause_id"`
	Request   CallRequest   `json:"llm_request"`
	Response  *CallResponse `json:"llm_response"`
	Error     string        `json:"error,omitempty"`
	CreatedAt time.Time     `json:"created_at"`
}

// CallRequest is what was sent to the model: the llm_request of hone's
// suggestion-tracking spec. Params are marshalled inline next to the named
// fields.
type CallRequest struct {
	Messages    []Message
	Model       string
	Temperature *float64
	MaxTokens   *int
	TopP        *float64
	Params      map[string]any
}

type callRequestJSON struct {
	Messages    []Message `json:"messages"`
	Model       string    `json:"model"`
	Temperature *float64  `json:"temperature,omitempty"`
	MaxTokens   *int      `json:"max_tokens,omitempty"`
	TopP        *float64  `json:"top_p,omitempty"`
}

var callRequestKeys = map[string]bool{"messages": true, "model": true, "temperature": true, "max_tokens": true, "top_p": true}

// MarshalJSON writes {"messages", "model", "temperature", "max_tokens",
// "top_p", ...Params}.
func (r CallRequest) MarshalJSON() ([]byte, error) {
	msgs := r.Messages
	if msgs == nil {
		msgs = []Message{}
	}
	b, err := json.Marshal(callRequestJSON{msgs, r.Model, r.Temperature, r.MaxTokens, r.TopP})
	if err != nil || len(r.Params) == 0 {
		return b, err
	}
	m := map[string]any{}
	for k, v := range r.Params {
		if !callRequestKeys[k] {
			m[k] = v
		}
	}
	var named map[string]json.RawMessage
	if err := json.Unmarshal(b, &named); err != nil {
		return nil, err
	}
	for k, v := range named {
		m[k] = v
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads what MarshalJSON writes; unknown keys go to Params.
func (r *CallRequest) UnmarshalJSON(b []byte) error {
	var named callRequestJSON
	if err := json.Unmarshal(b, &named); err != nil {
		return err
	}
	var all map[string]any
	if err := json.Unmarshal(b, &all); err != nil {
		return err
	}
	*r = CallRequest{Messages: named.Messages, Model: named.Model, Temperature: named.Temperature, MaxTokens: named.MaxTokens, TopP: named.TopP}
	for k, v := range all {
		if callRequestKeys[k] {
			continue
		}
		if r.Params == nil {
			r.Params = map[string]any{}
		}
		r.Params[k] = v
	}
	return nil
}

// CallResponse is what came back: the llm_response of hone's
// suggestion-tracking spec.
type CallResponse struct {
	RawContent   string  `json:"raw_content"`
	Model        string  `json:"model"`
	Usage        Usage   `json:"usage"`
	FinishReason string  `json:"finish_reason"`
	LatencyMS    float64 `json:"latency_ms"`
}

// Recorder keeps Calls. The Client calls RecordCall once per call, after it
// finished; an error is logged and does not fail the call.
type Recorder interface {
	RecordCall(ctx context.Context, c *Call) error
}

// CallFilter selects Calls in ListCalls. Empty fields match all; Limit 0
// means the store's default, which may be no limit, and a store may cap
// Limit (storage.DB returns 50 by default and at most 1000).
type CallFilter struct {
	Purpose string
	CauseID string
	Limit   int
}

// CallStore is a Recorder that can list what it recorded, newest first.
type CallStore interface {
	Recorder
	ListCalls(ctx context.Context, f CallFilter) ([]Call, error)
}
