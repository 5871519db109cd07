package otlp

import (
	"github.com/honehq/hone/internal/capture"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// The span events of the earlier GenAI semantic conventions, each one
// message, and the role each stands for.
var eventRoles = map[string]string{
	"gen_ai.system.message":    capture.RoleSystem,
	"gen_ai.user.message":      capture.RoleUser,
	"gen_ai.assistant.message": capture.RoleAssistant,
	"gen_ai.tool.message":      capture.RoleTool,
	"gen_ai.choice":            capture.RoleAssistant,
}

// eventMessages reads a span's chat from the events of the earlier GenAI
// semantic conventions, in order: each event's message is its body (the
// attribute body, gen_ai.event.content or event.body, a JSON object with
// content, tool_calls and id, gen_ai.choice's under message), or its
// content attribute. ok is false when the span has none of the events.
func eventMessages(events ptrace.SpanEventSlice) (capture.Messages, bool) {
	var out capture.Messages
	found := false
	for i := range events.Len() {
		e := events.At(i)
		role, ok := eventRoles[e.Name()]
		if !ok {
			continue
		}
		found = true
		if m, ok := eventMessage(e.Attributes(), role, e.Name() == "gen_ai.choice"); ok {
			out = append(out, m)
		}
	}
	return out, found
}

// eventMessage is the message of one event of role.
func eventMessage(at pcommon.Map, role string, choice bool) (capture.Message, bool) {
	a := attrs{own: at}
	body, _ := a.structured("body").(map[string]any)
	for _, k := range []string{"gen_ai.event.content", "event.body"} {
		if body == nil {
			body, _ = a.structured(k).(map[string]any)
		}
	}
	if choice && body != nil {
		if m, ok := body["message"].(map[string]any); ok {
			body = m
		}
	}
	msg := capture.Message{Role: role}
	if body == nil {
		body = map[string]any{}
	}
	if r, ok := body["role"].(string); ok && r != "" && !choice {
		msg.Role = r
	}
	c := body["content"]
	if c == nil {
		if s := a.str("content", "gen_ai.content"); s != "" {
			c = s
		}
	}
	switch c := c.(type) {
	case string:
		msg.Content = c
	case []any:
		msg.Content = c
	case nil:
	default:
		msg.Content = jsonText(c)
	}
	if id, ok := body["id"].(string); ok && msg.Role == capture.RoleTool {
		msg.ToolCallID = id
	}
	calls, _ := body["tool_calls"].([]any)
	for _, c := range calls {
		c, ok := c.(map[string]any)
		if !ok {
			continue
		}
		call := capture.ToolCall{Type: capture.ToolTypeFunction}
		call.ID, _ = c["id"].(string)
		if f, ok := c["function"].(map[string]any); ok {
			call.Function.Name, _ = f["name"].(string)
			call.Function.Arguments = jsonText(f["arguments"])
		}
		msg.ToolCalls = append(msg.ToolCalls, call)
	}
	return msg, msg.Content != nil || len(msg.ToolCalls) > 0
}
