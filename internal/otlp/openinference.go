package otlp

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/honehq/hone/internal/capture"
	"go.opentelemetry.io/collector/pdata/pcommon"
)

// The prefixes of a span's input and output messages in OpenInference's
// flattened attributes, and in OpenLLMetry's (Traceloop).
const (
	oiInput         = "llm.input_messages."
	oiOutput        = "llm.output_messages."
	openLLMetryIn   = "gen_ai.prompt."
	openLLMetryOut  = "gen_ai.completion."
	oiMessagePrefix = "message."
)

// openInferenceMessages reads a span's chat from OpenInference's flattened
// attributes: llm.input_messages.N.message.role and .content (or
// .contents.M.message_content.text), .tool_calls.K.tool_call.id,
// .function.name and .function.arguments, .tool_call_id; then
// llm.output_messages.N the same way. ok is false when the span has
// neither.
func openInferenceMessages(at pcommon.Map) (capture.Messages, bool) {
	in, out := indexed(at, oiInput), indexed(at, oiOutput)
	if len(in) == 0 && len(out) == 0 {
		return nil, false
	}
	msgs := flatMessages(in, capture.RoleUser, oiMessagePrefix, "tool_call.")
	return append(msgs, flatMessages(out, capture.RoleAssistant, oiMessagePrefix, "tool_call.")...), true
}

// openLLMetryMessages reads a span's chat from OpenLLMetry's flattened
// attributes: gen_ai.prompt.N.role, .content, .tool_call_id and
// .tool_calls.K.id, .name and .arguments; then gen_ai.completion.N the
// same way. ok is false when the span has neither.
func openLLMetryMessages(at pcommon.Map) (capture.Messages, bool) {
	in, out := indexed(at, openLLMetryIn), indexed(at, openLLMetryOut)
	if len(in) == 0 && len(out) == 0 {
		return nil, false
	}
	msgs := flatMessages(in, capture.RoleUser, "", "")
	return append(msgs, flatMessages(out, capture.RoleAssistant, "", "")...), true
}

// indexed groups the attributes prefix.N.field by N, as field → text.
func indexed(at pcommon.Map, prefix string) map[int]map[string]string {
	out := map[int]map[string]string{}
	for k, v := range at.All() {
		if !strings.HasPrefix(k, prefix) {
			continue
		}
		n, field, ok := strings.Cut(k[len(prefix):], ".")
		i, err := strconv.Atoi(n)
		if !ok || err != nil || i < 0 {
			continue
		}
		if out[i] == nil {
			out[i] = map[string]string{}
		}
		out[i][field] = v.AsString()
	}
	return out
}

// flatMessages are the messages of the fields of one side, by index, in
// order, each field under msg (message. in OpenInference) and each tool
// call's under call; a message without a role takes role.
func flatMessages(side map[int]map[string]string, role, msg, call string) capture.Messages {
	var out capture.Messages
	for _, i := range slices.Sorted(maps.Keys(side)) {
		f := side[i]
		m := capture.Message{Role: role}
		if r := f[msg+"role"]; r != "" {
			m.Role = r
		}
		m.Name = f[msg+"name"]
		m.ToolCallID = f[msg+"tool_call_id"]
		if c, ok := f[msg+"content"]; ok {
			m.Content = c
		} else {
			var texts []any
			for j := 0; ; j++ {
				s, ok := f[msg+"contents."+strconv.Itoa(j)+".message_content.text"]
				if !ok {
					break
				}
				texts = append(texts, map[string]any{"type": capture.PartText, "text": s})
			}
			m.Content = content(texts)
		}
		for j := 0; ; j++ {
			p := msg + "tool_calls." + strconv.Itoa(j) + "." + call
			name, ok := f[p+"function.name"]
			if !ok {
				name, ok = f[p+"name"]
			}
			if !ok {
				break
			}
			args, ok := f[p+"function.arguments"]
			if !ok {
				args = f[p+"arguments"]
			}
			m.ToolCalls = append(m.ToolCalls, capture.ToolCall{ID: f[p+"id"], Type: capture.ToolTypeFunction,
				Function: capture.FunctionCall{Name: name, Arguments: args}})
		}
		if m.Content != nil || len(m.ToolCalls) > 0 {
			out = append(out, m)
		}
	}
	return out
}
