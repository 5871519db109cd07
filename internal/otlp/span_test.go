package otlp_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/otlp"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

var (
	traceID = pcommon.TraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36}
	spanID  = pcommon.SpanID{0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7}
	parent  = pcommon.SpanID{0x53, 0x99, 0x5c, 0x3f, 0x42, 0xcd, 0x8a, 0xd8}
)

const (
	traceHex = "4bf92f3577b34da6a3ce929d0e0e4736"
	spanHex  = "00f067aa0ba902b7"
)

// newSpan is a span of 640 ms with the trace context above and attrs.
func newSpan(attrs map[string]any) ptrace.Span {
	s := ptrace.NewSpan()
	s.SetName("chat gpt-4o-mini")
	s.SetTraceID(traceID)
	s.SetSpanID(spanID)
	s.SetParentSpanID(parent)
	start := time.Date(2026, 11, 26, 5, 0, 0, 0, time.UTC)
	s.SetStartTimestamp(pcommon.NewTimestampFromTime(start))
	s.SetEndTimestamp(pcommon.NewTimestampFromTime(start.Add(640 * time.Millisecond)))
	if err := s.Attributes().FromRaw(attrs); err != nil {
		panic(err)
	}
	return s
}

func event(s ptrace.Span, name string, attrs map[string]any) {
	e := s.Events().AppendEmpty()
	e.SetName(name)
	if err := e.Attributes().FromRaw(attrs); err != nil {
		panic(err)
	}
}

func TestSpanTurn(t *testing.T) {
	latency := 640.0
	usage := &capture.Usage{PromptTokens: 412, CompletionTokens: 38, TotalTokens: 450}
	chat := capture.Messages{
		{Role: "system", Content: "You are ERA, the HR assistant."},
		{Role: "user", Content: "My employee didn't show up"},
		{Role: "assistant", Content: "Call them first."},
	}
	tools := capture.Messages{
		{Role: "user", Content: "Weather in Paris?"},
		{Role: "assistant", ToolCalls: []capture.ToolCall{{ID: "call_1", Type: "function", Function: capture.FunctionCall{Name: "weather", Arguments: `{"city":"Paris"}`}}}},
		{Role: "tool", ToolCallID: "call_1", Content: "rainy, 57°F"},
		{Role: "assistant", Content: "It is rainy."},
	}
	base := func(conv, tester, model string, meta string, msgs capture.Messages, u *capture.Usage) capture.TurnInput {
		in := capture.TurnInput{ID: "otlp-" + traceHex + "-" + spanHex, ConversationID: conv, TesterID: tester, Messages: msgs,
			Model: model, Usage: u, LatencyMS: &latency, Source: "otlp", TraceID: traceHex, SpanID: spanHex, ParentID: "53995c3f42cd8ad8"}
		if meta != "" {
			in.Metadata = json.RawMessage(meta)
		}
		return in
	}
	for _, c := range []struct {
		name     string
		attrs    map[string]any
		events   func(ptrace.Span)
		resource map[string]any
		want     capture.TurnInput
		ok       bool
		err      string
	}{
		{name: "current semantic conventions", attrs: map[string]any{
			"gen_ai.operation.name":      "chat",
			"gen_ai.provider.name":       "openai",
			"gen_ai.request.model":       "gpt-4o",
			"gen_ai.response.model":      "gpt-4o-mini",
			"gen_ai.response.id":         "chatcmpl-123",
			"gen_ai.conversation.id":     "conv-7",
			"gen_ai.usage.input_tokens":  412,
			"gen_ai.usage.output_tokens": 38,
			"gen_ai.system_instructions": `[{"type":"text","content":"You are ERA, the HR assistant."}]`,
			"gen_ai.input.messages":      `[{"role":"user","parts":[{"type":"text","content":"My employee didn't show up"}]}]`,
			"gen_ai.output.messages":     `[{"role":"assistant","parts":[{"type":"text","content":"Call them first."}],"finish_reason":"stop"}]`,
			"user.id":                    "meg",
		}, ok: true, want: base("conv-7", "meg", "gpt-4o-mini",
			`{"gen_ai.operation.name":"chat","gen_ai.provider.name":"openai","gen_ai.response.id":"chatcmpl-123"}`, chat, usage)},
		{name: "current conventions with tool calls, the request model, resource tester", attrs: map[string]any{
			"gen_ai.request.model": "gpt-4o",
			"gen_ai.input.messages": `[{"role":"user","parts":[{"type":"text","content":"Weather in Paris?"}]},
				{"role":"assistant","parts":[{"type":"tool_call","id":"call_1","name":"weather","arguments":{"city":"Paris"}}]},
				{"role":"tool","parts":[{"type":"tool_call_response","id":"call_1","response":"rainy, 57°F"}]}]`,
			"gen_ai.output.messages": `[{"role":"assistant","parts":[{"type":"text","content":"It is rainy."}]}]`,
		}, resource: map[string]any{"enduser.id": "ann"}, ok: true, want: base(traceHex, "ann", "gpt-4o", "", tools, nil)},
		{name: "current conventions as structured attributes", attrs: map[string]any{
			"gen_ai.input.messages":  []any{map[string]any{"role": "user", "parts": []any{map[string]any{"type": "text", "content": "hi"}}}},
			"gen_ai.output.messages": []any{map[string]any{"role": "assistant", "parts": []any{map[string]any{"type": "text", "content": "a"}, map[string]any{"type": "text", "content": "b"}}}},
		}, ok: true, want: base(traceHex, "", "", "", capture.Messages{{Role: "user", Content: "hi"},
			{Role: "assistant", Content: []any{map[string]any{"type": "text", "text": "a"}, map[string]any{"type": "text", "text": "b"}}}}, nil)},
		{name: "earlier event form", attrs: map[string]any{
			"gen_ai.system":                  "openai",
			"gen_ai.request.model":           "gpt-4o-mini",
			"gen_ai.usage.prompt_tokens":     412,
			"gen_ai.usage.completion_tokens": 38,
			"session.id":                     "s-1",
		}, events: func(s ptrace.Span) {
			event(s, "gen_ai.system.message", map[string]any{"content": "You are ERA, the HR assistant."})
			event(s, "gen_ai.user.message", map[string]any{"gen_ai.event.content": `{"content":"My employee didn't show up"}`})
			event(s, "gen_ai.choice", map[string]any{"body": `{"index":0,"finish_reason":"stop","message":{"content":"Call them first."}}`})
		}, ok: true, want: base("s-1", "", "gpt-4o-mini", `{"gen_ai.system":"openai"}`, chat, usage)},
		{name: "earlier event form with tools", events: func(s ptrace.Span) {
			event(s, "gen_ai.user.message", map[string]any{"content": "Weather in Paris?"})
			event(s, "gen_ai.assistant.message", map[string]any{"body": `{"tool_calls":[{"id":"call_1","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Paris\"}"}}]}`})
			event(s, "gen_ai.tool.message", map[string]any{"body": `{"id":"call_1","content":"rainy, 57°F"}`})
			event(s, "gen_ai.choice", map[string]any{"body": `{"message":{"role":"assistant","content":"It is rainy."}}`})
		}, ok: true, want: base(traceHex, "", "", "", tools, nil)},
		{name: "OpenInference", attrs: map[string]any{
			"openinference.span.kind":               "LLM",
			"llm.model_name":                        "gpt-4o-mini",
			"llm.token_count.prompt":                412,
			"llm.token_count.completion":            38,
			"session.id":                            "s-2",
			"user.id":                               "meg",
			"llm.input_messages.0.message.role":     "system",
			"llm.input_messages.0.message.content":  "You are ERA, the HR assistant.",
			"llm.input_messages.1.message.role":     "user",
			"llm.input_messages.1.message.content":  "My employee didn't show up",
			"llm.output_messages.0.message.role":    "assistant",
			"llm.output_messages.0.message.content": "Call them first.",
		}, ok: true, want: base("s-2", "meg", "gpt-4o-mini", "", chat, usage)},
		{name: "OpenInference with tools and content parts", attrs: map[string]any{
			"llm.input_messages.0.message.role":                                      "user",
			"llm.input_messages.0.message.contents.0.message_content.type":           "text",
			"llm.input_messages.0.message.contents.0.message_content.text":           "Weather in Paris?",
			"llm.input_messages.1.message.role":                                      "assistant",
			"llm.input_messages.1.message.tool_calls.0.tool_call.id":                 "call_1",
			"llm.input_messages.1.message.tool_calls.0.tool_call.function.name":      "weather",
			"llm.input_messages.1.message.tool_calls.0.tool_call.function.arguments": `{"city":"Paris"}`,
			"llm.input_messages.2.message.role":                                      "tool",
			"llm.input_messages.2.message.tool_call_id":                              "call_1",
			"llm.input_messages.2.message.content":                                   "rainy, 57°F",
			"llm.output_messages.0.message.content":                                  "It is rainy.",
		}, ok: true, want: base(traceHex, "", "", "", tools, nil)},
		{name: "OpenLLMetry", attrs: map[string]any{
			"gen_ai.system":                  "openai",
			"gen_ai.request.model":           "gpt-4o-mini",
			"gen_ai.usage.prompt_tokens":     412,
			"gen_ai.usage.completion_tokens": 38,
			"gen_ai.prompt.0.role":           "system",
			"gen_ai.prompt.0.content":        "You are ERA, the HR assistant.",
			"gen_ai.prompt.1.role":           "user",
			"gen_ai.prompt.1.content":        "My employee didn't show up",
			"gen_ai.completion.0.role":       "assistant",
			"gen_ai.completion.0.content":    "Call them first.",
		}, ok: true, want: base(traceHex, "", "gpt-4o-mini", `{"gen_ai.system":"openai"}`, chat, usage)},
		{name: "OpenLLMetry with tools", attrs: map[string]any{
			"gen_ai.prompt.0.role":                   "user",
			"gen_ai.prompt.0.content":                "Weather in Paris?",
			"gen_ai.prompt.1.role":                   "assistant",
			"gen_ai.prompt.1.tool_calls.0.id":        "call_1",
			"gen_ai.prompt.1.tool_calls.0.name":      "weather",
			"gen_ai.prompt.1.tool_calls.0.arguments": `{"city":"Paris"}`,
			"gen_ai.prompt.2.role":                   "tool",
			"gen_ai.prompt.2.tool_call_id":           "call_1",
			"gen_ai.prompt.2.content":                "rainy, 57°F",
			"gen_ai.completion.0.content":            "It is rainy.",
		}, ok: true, want: base(traceHex, "", "", "", tools, nil)},
		{name: "current conventions that are not JSON", attrs: map[string]any{
			"gen_ai.input.messages":  `[{"role":"user"`,
			"gen_ai.output.messages": `[]`,
		}, ok: true, err: "gen_ai.input.messages is not a JSON list"},
		{name: "a span of no chat", attrs: map[string]any{"http.request.method": "GET", "gen_ai.operation.name": "execute_tool"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newSpan(c.attrs)
			if c.events != nil {
				c.events(s)
			}
			res := pcommon.NewMap()
			if c.resource != nil {
				_ = res.FromRaw(c.resource)
			}
			got, ok, err := otlp.SpanTurn(s, res)
			if ok != c.ok {
				t.Fatalf("ok = %v, want %v", ok, c.ok)
			}
			if c.err != "" || err != nil {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if !ok {
				return
			}
			if !reflect.DeepEqual(got, c.want) {
				g, _ := json.MarshalIndent(got, "", " ")
				w, _ := json.MarshalIndent(c.want, "", " ")
				t.Fatalf("got\n%s\nwant\n%s", g, w)
			}
			if err := got.Validate(); err != nil {
				t.Fatalf("the turn is not valid: %v", err)
			}
		})
	}
}
