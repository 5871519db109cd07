package proxy

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/honehq/hone/internal/capture"
)

// usage is an answer's token usage under either API's names.
type usage struct {
	PromptTokens     *int64 `json:"prompt_tokens"`
	CompletionTokens *int64 `json:"completion_tokens"`
	InputTokens      *int64 `json:"input_tokens"`
	OutputTokens     *int64 `json:"output_tokens"`
	TotalTokens      *int64 `json:"total_tokens"`
}

// usage is u as a turn's usage; nil when it gives no counts.
func (u *usage) usage() *capture.Usage {
	if u == nil {
		return nil
	}
	in, out := u.PromptTokens, u.CompletionTokens
	if in == nil {
		in = u.InputTokens
	}
	if out == nil {
		out = u.OutputTokens
	}
	if in == nil || out == nil || *in < 0 || *out < 0 {
		return nil
	}
	c := &capture.Usage{PromptTokens: *in, CompletionTokens: *out, TotalTokens: *in + *out}
	if u.TotalTokens != nil && *u.TotalTokens >= 0 {
		c.TotalTokens = *u.TotalTokens
	}
	return c
}

// toolCallDelta is a piece of a streamed tool call.
type toolCallDelta struct {
	Index    int    `json:"index"`
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// chatAnswer is a Chat Completions answer or stream chunk.
type chatAnswer struct {
	ID      string `json:"id"`
	Model   string `json:"model"`
	Choices []struct {
		Index   int `json:"index"`
		Message *struct {
			Content   any                `json:"content"`
			ToolCalls []capture.ToolCall `json:"tool_calls"`
		} `json:"message"`
		Delta *struct {
			Content   string          `json:"content"`
			ToolCalls []toolCallDelta `json:"tool_calls"`
		} `json:"delta"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *usage          `json:"usage"`
	Error json.RawMessage `json:"error"`
}

// responsesAnswer is a Responses answer, or the response a stream event
// carries.
type responsesAnswer struct {
	ID     string `json:"id"`
	Model  string `json:"model"`
	Status string `json:"status"`
	Output []struct {
		Type    string `json:"type"`
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		CallID    string `json:"call_id"`
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"output"`
	Usage *usage `json:"usage"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// responsesEvent is an event of a Responses stream.
type responsesEvent struct {
	Type     string           `json:"type"`
	Delta    string           `json:"delta"`
	Message  string           `json:"message"`
	Response *responsesAnswer `json:"response"`
}

// answer reads a whole (not streamed) answer.
func (x *exchange) answer(body []byte) {
	switch x.kind {
	case kindChat:
		var a chatAnswer
		if json.Unmarshal(body, &a) != nil {
			x.failure = "the upstream's answer is not a chat completion"
			return
		}
		x.chatAnswer(&a)
	case kindResponses:
		var a responsesAnswer
		if json.Unmarshal(body, &a) != nil {
			x.failure = "the upstream's answer is not a response"
			return
		}
		x.responsesAnswer(&a)
	}
}

// event reads one event of a streamed answer; it reports whether the
// event is the usage chunk hone asked for, to leave out.
func (x *exchange) event(ev []byte) bool {
	data := eventData(ev)
	if data == nil {
		return false
	}
	if bytes.Equal(data, []byte("[DONE]")) {
		x.done = true
		return false
	}
	switch x.kind {
	case kindChat:
		var a chatAnswer
		if json.Unmarshal(data, &a) != nil {
			return false
		}
		x.chatAnswer(&a)
		return x.stripUsage && len(a.Choices) == 0 && a.Usage != nil
	case kindResponses:
		var e responsesEvent
		if json.Unmarshal(data, &e) != nil {
			return false
		}
		switch e.Type {
		case "response.output_text.delta":
			x.addText(e.Delta)
		case "response.completed", "response.incomplete":
			x.done = true
			if e.Response != nil {
				x.text.Reset()
				x.responsesAnswer(e.Response)
			}
		case "response.failed":
			x.done = true
			x.failure = "the upstream's response failed"
			if e.Response != nil && e.Response.Error != nil {
				x.failure += ": " + e.Response.Error.Message
			}
		case "error":
			x.done = true
			x.failure = "the upstream's stream failed: " + e.Message
		}
	}
	return false
}

// eventData is the data of an SSE event, its data lines joined; nil when
// it has none.
func eventData(ev []byte) []byte {
	var data []byte
	found := false
	for len(ev) > 0 {
		line := ev
		if i := bytes.IndexByte(ev, '\n'); i >= 0 {
			line, ev = ev[:i], ev[i+1:]
		} else {
			ev = nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		v, ok := bytes.CutPrefix(line, []byte("data:"))
		if !ok {
			continue
		}
		v = bytes.TrimPrefix(v, []byte(" "))
		if found {
			data = append(append(data, '\n'), v...)
		} else {
			data, found = v, true
		}
	}
	return data
}

// chatAnswer takes an answer or a chunk of one.
func (x *exchange) chatAnswer(a *chatAnswer) {
	if a.Model != "" {
		x.answerModel = a.Model
	}
	if a.ID != "" {
		x.responseID = a.ID
	}
	if u := a.Usage.usage(); u != nil {
		x.usage = u
	}
	if len(a.Error) > 0 && string(a.Error) != "null" {
		x.failure = upstreamFailure(x.status, a.Error)
		x.done = true
	}
	for _, c := range a.Choices {
		if c.Index != 0 {
			continue
		}
		if c.FinishReason != "" {
			x.finishReason = c.FinishReason
		}
		if m := c.Message; m != nil {
			switch v := m.Content.(type) {
			case string:
				x.addText(v)
			case []any:
				x.addText((&capture.Message{Content: v}).Text())
			}
			x.toolCalls = m.ToolCalls
		}
		if d := c.Delta; d != nil {
			x.addText(d.Content)
			for _, tc := range d.ToolCalls {
				x.addToolCall(tc)
			}
		}
	}
}

// addToolCall adds a piece of a streamed tool call.
func (x *exchange) addToolCall(d toolCallDelta) {
	if x.firstToken.IsZero() {
		x.firstToken = time.Now()
	}
	for len(x.toolCalls) <= d.Index && d.Index < capture.MaxToolCalls {
		x.toolCalls = append(x.toolCalls, capture.ToolCall{Type: capture.ToolTypeFunction})
	}
	if d.Index < 0 || d.Index >= len(x.toolCalls) {
		return
	}
	c := &x.toolCalls[d.Index]
	if d.ID != "" {
		c.ID = d.ID
	}
	if d.Type != "" {
		c.Type = d.Type
	}
	c.Function.Name += d.Function.Name
	if len(c.Function.Arguments)+len(d.Function.Arguments) <= maxRecordBytes {
		c.Function.Arguments += d.Function.Arguments
	}
}

// responsesAnswer takes a whole response.
func (x *exchange) responsesAnswer(a *responsesAnswer) {
	if a.Model != "" {
		x.answerModel = a.Model
	}
	if a.ID != "" {
		x.responseID = a.ID
	}
	if u := a.Usage.usage(); u != nil {
		x.usage = u
	}
	if a.Status != "" {
		x.finishReason = a.Status
	}
	if a.Error != nil && a.Error.Message != "" {
		x.failure = "the upstream's response failed: " + a.Error.Message
	}
	var calls []capture.ToolCall
	for _, o := range a.Output {
		switch o.Type {
		case "message":
			for _, c := range o.Content {
				if c.Type == "output_text" {
					x.addText(c.Text)
				}
			}
		case "function_call":
			calls = append(calls, capture.ToolCall{ID: o.CallID, Type: capture.ToolTypeFunction,
				Function: capture.FunctionCall{Name: o.Name, Arguments: o.Arguments}})
		}
	}
	if len(calls) > 0 {
		x.toolCalls = calls
	}
}
