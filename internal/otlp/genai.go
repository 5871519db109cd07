package otlp

import (
	"encoding/json"
	"strings"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/capture"
)

// Part types of the GenAI semantic conventions' messages.
const (
	partText             = "text"
	partToolCall         = "tool_call"
	partToolCallResponse = "tool_call_response"
)

// semconvMessages reads a span's chat under the current GenAI semantic
// conventions: gen_ai.system_instructions (a list of parts),
// gen_ai.input.messages and gen_ai.output.messages (lists of messages with
// a role and parts), each a JSON text or a structured attribute. ok is
// false when the span has neither input nor output messages.
func semconvMessages(a attrs) (capture.Messages, bool, error) {
	_, setIn := a.own.Get(attrInputMessages)
	_, setOut := a.own.Get(attrOutputMessages)
	if !setIn && !setOut {
		return nil, false, nil
	}
	input, okIn := a.structured(attrInputMessages).([]any)
	output, okOut := a.structured(attrOutputMessages).([]any)
	for _, c := range []struct {
		name    string
		set, ok bool
	}{{attrInputMessages, setIn, okIn}, {attrOutputMessages, setOut, okOut}} {
		if c.set && !c.ok {
			return nil, true, hone.FieldError(c.name, "%s is not a JSON list of messages ({role, parts})", c.name)
		}
	}
	var out capture.Messages
	if parts, ok := a.structured(attrSystemInstructions).([]any); ok {
		if text := textOf(parts); text != "" {
			out = append(out, capture.Message{Role: capture.RoleSystem, Content: text})
		}
	}
	for _, m := range input {
		out = append(out, semconvMessage(m, capture.RoleUser)...)
	}
	for _, m := range output {
		out = append(out, semconvMessage(m, capture.RoleAssistant)...)
	}
	return out, true, nil
}

// textOf joins the text parts of parts by new lines.
func textOf(parts []any) string {
	var texts []string
	for _, p := range parts {
		if p, ok := p.(map[string]any); ok && p["type"] == partText {
			if s, ok := p["content"].(string); ok {
				texts = append(texts, s)
			}
		}
	}
	return strings.Join(texts, "\n")
}

// semconvMessage is the OpenAI-style messages of one message of the
// conventions (role, parts, name): text parts become its content, tool
// calls its tool_calls, and each tool call response a tool message of its
// own. A message without a role takes role.
func semconvMessage(v any, role string) capture.Messages {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	if r, ok := m["role"].(string); ok && r != "" {
		role = r
	}
	msg := capture.Message{Role: role}
	if name, ok := m["name"].(string); ok {
		msg.Name = name
	}
	var texts []any
	var tools capture.Messages
	parts, _ := m["parts"].([]any)
	if s, ok := m["content"].(string); ok && parts == nil {
		texts = append(texts, map[string]any{"type": capture.PartText, "text": s})
	}
	for _, p := range parts {
		p, ok := p.(map[string]any)
		if !ok {
			continue
		}
		switch p["type"] {
		case partText:
			if s, ok := p["content"].(string); ok {
				texts = append(texts, map[string]any{"type": capture.PartText, "text": s})
			}
		case partToolCall:
			name, _ := p["name"].(string)
			id, _ := p["id"].(string)
			msg.ToolCalls = append(msg.ToolCalls, capture.ToolCall{ID: id, Type: capture.ToolTypeFunction,
				Function: capture.FunctionCall{Name: name, Arguments: jsonText(p["arguments"])}})
		case partToolCallResponse:
			id, _ := p["id"].(string)
			tools = append(tools, capture.Message{Role: capture.RoleTool, ToolCallID: id, Content: jsonText(p["response"])})
		}
	}
	msg.Content = content(texts)
	var out capture.Messages
	if msg.Content != nil || len(msg.ToolCalls) > 0 {
		out = append(out, msg)
	}
	return append(out, tools...)
}

// content is a message's content from its text parts: the text of a single
// one, the parts of several, nil for none.
func content(texts []any) any {
	switch len(texts) {
	case 0:
		return nil
	case 1:
		return texts[0].(map[string]any)["text"]
	}
	return texts
}

// jsonText is v as a text: a string as it is, anything else as JSON; ""
// for nil.
func jsonText(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	}
	b, _ := json.Marshal(v)
	return string(b)
}
