package proxy

import (
	"bytes"
	"cmp"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/capture"
)

// Kinds of exchange, as a turn's metadata names its endpoint.
const (
	kindChat      = "chat.completions"
	kindResponses = "responses"
)

// turnIDLength is the length of the turn id the proxy chooses.
const turnIDLength = 12

// exchange is one request through the proxy and its answer, as far as hone
// records it.
type exchange struct {
	id    string
	kind  string
	start time.Time
	// forward is the body sent upstream: the caller's, with
	// stream_options.include_usage added when stripUsage.
	forward []byte
	// parsed is set when the request could be read; only then is the
	// exchange recorded.
	parsed bool
	stream bool
	// includeUsage is set when the caller asked for the usage chunk;
	// stripUsage when hone asked for it and takes it out again.
	includeUsage, stripUsage bool
	model                    string
	messages                 capture.Messages
	who                      identity
	status                   int
	once                     sync.Once

	firstToken   time.Time
	text         strings.Builder
	toolCalls    []capture.ToolCall
	answerModel  string
	usage        *capture.Usage
	finishReason string
	responseID   string
	done         bool
	failure      string
}

// chatRequest is what the proxy reads of a Chat Completions request.
type chatRequest struct {
	Model         string           `json:"model"`
	Messages      capture.Messages `json:"messages"`
	Stream        bool             `json:"stream"`
	User          string           `json:"user"`
	StreamOptions json.RawMessage  `json:"stream_options"`
}

// responsesRequest is what the proxy reads of a Responses request.
type responsesRequest struct {
	Model        string          `json:"model"`
	Instructions string          `json:"instructions"`
	Input        json.RawMessage `json:"input"`
	Stream       bool            `json:"stream"`
	User         string          `json:"user"`
}

// newExchange reads a request to record; a body it cannot read is still
// forwarded as it came, and not recorded.
func newExchange(r *http.Request, body []byte) *exchange {
	x := &exchange{id: hone.NewID(turnIDLength), start: time.Now(), forward: body}
	if r.Header.Get("Content-Encoding") != "" {
		return x
	}
	var user string
	switch r.URL.Path {
	case PathChat:
		x.kind = kindChat
		var req chatRequest
		if json.Unmarshal(body, &req) != nil {
			return x
		}
		x.model, x.messages, x.stream, user = req.Model, req.Messages, req.Stream, req.User
		if x.stream {
			var opts struct {
				IncludeUsage bool `json:"include_usage"`
			}
			_ = json.Unmarshal(req.StreamOptions, &opts)
			x.includeUsage = opts.IncludeUsage
			if !x.includeUsage {
				if b, ok := askUsage(body, len(req.StreamOptions) > 0 && string(req.StreamOptions) != "null"); ok {
					x.forward, x.stripUsage = b, true
				}
			}
		}
	case PathResponses:
		x.kind = kindResponses
		var req responsesRequest
		if json.Unmarshal(body, &req) != nil {
			return x
		}
		x.model, x.stream, user = req.Model, req.Stream, req.User
		x.messages = responsesInput(req.Instructions, req.Input)
	default:
		return x
	}
	x.parsed = true
	x.who = identify(r.Header, user, x.messages)
	return x
}

// askUsage is body with stream_options.include_usage set.
func askUsage(body []byte, hasOptions bool) ([]byte, bool) {
	if !hasOptions {
		at := bytes.IndexByte(body, '{')
		if at < 0 {
			return nil, false
		}
		rest := bytes.TrimLeft(body[at+1:], " \t\r\n")
		if len(rest) == 0 || rest[0] == '}' {
			return nil, false
		}
		out := make([]byte, 0, len(body)+40)
		out = append(out, body[:at+1]...)
		out = append(out, `"stream_options":{"include_usage":true},`...)
		return append(out, body[at+1:]...), true
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return nil, false
	}
	opts := map[string]json.RawMessage{}
	if json.Unmarshal(m["stream_options"], &opts) != nil {
		return nil, false
	}
	opts["include_usage"] = json.RawMessage("true")
	m["stream_options"], _ = json.Marshal(opts)
	b, err := json.Marshal(m)
	return b, err == nil
}

// responsesInput is a Responses request's instructions and input as chat
// messages: its text, by role.
func responsesInput(instructions string, input json.RawMessage) capture.Messages {
	var msgs capture.Messages
	if instructions != "" {
		msgs = append(msgs, capture.Message{Role: capture.RoleSystem, Content: instructions})
	}
	var s string
	if json.Unmarshal(input, &s) == nil {
		return append(msgs, capture.Message{Role: capture.RoleUser, Content: s})
	}
	var items []struct {
		Type    string          `json:"type"`
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	_ = json.Unmarshal(input, &items)
	for _, it := range items {
		if (it.Type != "" && it.Type != "message") || it.Role == "" {
			continue
		}
		switch it.Role {
		case capture.RoleSystem, capture.RoleDeveloper, capture.RoleUser, capture.RoleAssistant:
		default:
			continue
		}
		if text := partsText(it.Content); text != "" {
			msgs = append(msgs, capture.Message{Role: it.Role, Content: text})
		}
	}
	return msgs
}

// partsText is the text of a Responses content: a string, or the text of
// its parts.
func partsText(content json.RawMessage) string {
	var s string
	if json.Unmarshal(content, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(content, &parts)
	var texts []string
	for _, p := range parts {
		if p.Text != "" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// addText adds answer text, up to what a turn keeps.
func (x *exchange) addText(s string) {
	if s == "" {
		return
	}
	if x.firstToken.IsZero() {
		x.firstToken = time.Now()
	}
	if x.text.Len()+len(s) <= maxRecordBytes {
		x.text.WriteString(s)
	}
}

// finish records the exchange once: the answer, or failure when it failed.
func (p *Proxy) finish(x *exchange, failure string) {
	x.once.Do(func() {
		x.failure = failure
		p.queue.Add(x.turn(time.Now()))
	})
}

// turnMeta is what a proxied turn's metadata says of its exchange.
type turnMeta struct {
	Endpoint     string   `json:"endpoint"`
	Error        string   `json:"error,omitempty"`
	Failed       bool     `json:"failed,omitempty"`
	FinishReason string   `json:"finish_reason,omitempty"`
	ResponseID   string   `json:"response_id,omitempty"`
	Status       int      `json:"status"`
	Stream       bool     `json:"stream"`
	TTFT         *float64 `json:"ttft_ms,omitempty"`
}

// turn is the exchange as a turn, ended at end.
func (x *exchange) turn(end time.Time) capture.TurnInput {
	latency := float64(end.Sub(x.start).Microseconds()) / 1000
	in := capture.TurnInput{ID: x.id, ConversationID: x.who.tester.ConversationID, TesterID: x.who.tester.TesterID,
		PromptVersion: x.who.promptVersion, Model: cmp.Or(x.answerModel, x.model), Usage: x.usage,
		LatencyMS: &latency, Source: capture.SourceProxy}
	meta := turnMeta{Endpoint: x.kind, Stream: x.stream, Status: x.status, FinishReason: x.finishReason, ResponseID: x.responseID}
	if !x.firstToken.IsZero() {
		ttft := float64(x.firstToken.Sub(x.start).Microseconds()) / 1000
		meta.TTFT = &ttft
	}
	msgs := make(capture.Messages, len(x.messages), len(x.messages)+1)
	copy(msgs, x.messages)
	if x.failure != "" {
		meta.Failed, meta.Error = true, x.failure
		in.Response = x.failure
	} else {
		answer := capture.Message{Role: capture.RoleAssistant, ToolCalls: x.toolCalls}
		if x.text.Len() > 0 || len(x.toolCalls) == 0 {
			answer.Content = x.text.String()
		}
		msgs = append(msgs, answer)
	}
	in.Messages = msgs
	in.Metadata, _ = json.Marshal(meta)
	return in
}
