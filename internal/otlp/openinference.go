package otlp

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/honehq/hone/internal/capture"
	"go.opentelemetry.io/collector/pdata/pcommon"
)

// OpenInference's prefixes of a span's input and output messages.
const (
	oiInput  = "llm.input_messages."
	oiOutput = "llm.output_messages."
)

// openInferenceMessages reads a span's chat from OpenInference's flattened
// attributes: llm.input_messages.N.message.role and .content (or
// .contents.M.message_content.text), .tool_calls.K.tool_call.id,
// .function.name and .function.arguments, .tool_call_id; then
// llm.output_messages.N the same way. ok is false when the span has
// neither.
func openInferenceMessages(at pcommon.Map) (capture.Messages, bool) {
	in := map[int]map[string]string{}
	out := map[int]map[string]string{}
	for k, v := range at.All() {
		var into map[int]map[string]string
		var rest string
		switch {
		case strings.HasPrefix(k, oiInput):
			into, rest = in, k[len(oiInput):]
		case strings.HasPrefix(k, oiOutput):
			into, rest = out, k[len(oiOutput):]
		default:
			continue
		}
		n, field, ok := strings.Cut(rest, ".")
		i, err := strconv.Atoi(n)
		if !ok || err != nil || i < 0 {
			continue
		}
		if into[i] == nil {
			into[i] = map[string]string{}
		}
		into[i][field] = v.AsString()
	}
	if len(in) == 0 && len(out) == 0 {
		return nil, false
	}
	msgs := oiMessages(in, capture.RoleUser)
	return append(msgs, oiMessages(out, capture.RoleAssistant)...), true
}

// oiMessages are the messages of the fields of one side, by index, in
// order; a message without a role takes role.
func oiMessages(side map[int]map[string]string, role string) capture.Messages {
	var out capture.Messages
	for _, i := range slices.Sorted(maps.Keys(side)) {
		f := side[i]
		m := capture.Message{Role: role}
		if r := f["message.role"]; r != "" {
			m.Role = r
		}
		m.Name = f["message.name"]
		m.ToolCallID = f["message.tool_call_id"]
		if c, ok := f["message.content"]; ok {
			m.Content = c
		} else {
			var texts []any
			for j := 0; ; j++ {
				s, ok := f["message.contents."+strconv.Itoa(j)+".message_content.text"]
				if !ok {
					break
				}
				texts = append(texts, map[string]any{"type": capture.PartText, "text": s})
			}
			m.Content = content(texts)
		}
		for j := 0; ; j++ {
			p := "message.tool_calls." + strconv.Itoa(j) + ".tool_call."
			name, ok := f[p+"function.name"]
			if !ok {
				break
			}
			m.ToolCalls = append(m.ToolCalls, capture.ToolCall{ID: f[p+"id"], Type: capture.ToolTypeFunction,
				Function: capture.FunctionCall{Name: name, Arguments: f[p+"function.arguments"]}})
		}
		if m.Content != nil || len(m.ToolCalls) > 0 {
			out = append(out, m)
		}
	}
	return out
}
