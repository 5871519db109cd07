package capture

import (
	"strings"

	"github.com/honehq/hone"
)

// Message roles, as OpenAI's Chat Completions API names them.
const (
	RoleSystem    = "system"
	RoleDeveloper = "developer"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Roles lists every message role a turn's messages may have.
var Roles = []string{RoleSystem, RoleDeveloper, RoleUser, RoleAssistant, RoleTool}

// Bounds of a turn's messages.
const (
	// MaxMessages is how many messages a turn may hold.
	MaxMessages = 1000
	// MaxParts is how many content parts one message may hold.
	MaxParts = 1000
	// MaxToolCalls is how many tool calls one message may hold.
	MaxToolCalls = 128
	// MaxMessagesText is how many characters the strings of a turn's
	// messages may hold together.
	MaxMessagesText = 4 << 20
)

// Message is one message of a chat, in OpenAI's Chat Completions format.
type Message struct {
	Role string `json:"role"`
	// Content is a string, or a list of content parts as JSON decodes them
	// ([]any of map[string]any, each with a "type": "text" with its "text",
	// "image_url", "input_audio", "file" …), or nil for none.
	Content any `json:"content,omitempty"`
	// Name is the author's name (OpenAI's name field), optional.
	Name string `json:"name,omitempty"`
	// ToolCalls are the tools an assistant message calls.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID is the call a tool message answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
}

// Messages are a turn's chat messages, in order.
type Messages []Message

// ToolCall is a call of a function tool an assistant message makes.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function FunctionCall `json:"function"`
}

// ToolTypeFunction is the type of a tool call of a function.
const ToolTypeFunction = "function"

// FunctionCall is the function a tool call calls, with its arguments as
// the model wrote them (usually a JSON text).
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments,omitempty"`
}

// PartText is the type of a content part that is text.
const PartText = "text"

// Text returns the message's text: its content when that is a string, or
// the texts of its text parts joined by new lines.
func (m *Message) Text() string {
	switch c := m.Content.(type) {
	case string:
		return c
	case []any:
		var b strings.Builder
		for _, p := range c {
			p, _ := p.(map[string]any)
			if p["type"] != PartText {
				continue
			}
			if s, ok := p["text"].(string); ok {
				if b.Len() > 0 {
					b.WriteByte('\n')
				}
				b.WriteString(s)
			}
		}
		return b.String()
	}
	return ""
}

// clean replaces what no database can store in every text of m.
func (m *Message) clean() {
	m.Role, m.Name, m.ToolCallID = hone.CleanText(m.Role), hone.CleanText(m.Name), hone.CleanText(m.ToolCallID)
	m.Content = cleanValue(m.Content)
	for i := range m.ToolCalls {
		c := &m.ToolCalls[i]
		c.ID, c.Type = hone.CleanText(c.ID), hone.CleanText(c.Type)
		c.Function.Name, c.Function.Arguments = hone.CleanText(c.Function.Name), hone.CleanText(c.Function.Arguments)
	}
}

// cleanValue is v, a value as JSON decodes it, with every string in it,
// keys too, cleaned like hone.CleanText.
func cleanValue(v any) any {
	switch v := v.(type) {
	case string:
		return hone.CleanText(v)
	case []any:
		for i := range v {
			v[i] = cleanValue(v[i])
		}
	case map[string]any:
		for k, x := range v {
			if c := hone.CleanText(k); c != k {
				delete(v, k)
				k = c
			}
			v[k] = cleanValue(x)
		}
	}
	return v
}

// validate reports the first field of the message, element i of a turn's
// messages, that is missing or malformed, and adds the characters of its
// strings to *chars.
func (m *Message) validate(i int, chars *int) error {
	at := func(name string) string { return indexField("messages", i) + "." + name }
	switch m.Role {
	case RoleSystem, RoleDeveloper, RoleUser, RoleAssistant, RoleTool:
	case "":
		return hone.FieldError(at("role"), "%s is required: one of %s", at("role"), strings.Join(Roles, ", "))
	default:
		return hone.FieldError(at("role"), "%s must be one of %s, not %q", at("role"), strings.Join(Roles, ", "), m.Role)
	}
	switch {
	case m.Content == nil && m.Role != RoleAssistant:
		return hone.FieldError(at("content"), "%s is required in a %s message", at("content"), m.Role)
	case m.Content == nil && len(m.ToolCalls) == 0:
		return hone.FieldError(at("content"), "%s is required in an assistant message without tool_calls", at("content"))
	case len(m.ToolCalls) > 0 && m.Role != RoleAssistant:
		return hone.FieldError(at("tool_calls"), "%s is for assistant messages only", at("tool_calls"))
	case len(m.ToolCalls) > MaxToolCalls:
		return hone.FieldError(at("tool_calls"), "%s holds more than %d tool calls", at("tool_calls"), MaxToolCalls)
	case m.Role == RoleTool && m.ToolCallID == "":
		return hone.FieldError(at("tool_call_id"), "%s is required in a tool message: the id of the call it answers", at("tool_call_id"))
	case m.Role != RoleTool && m.ToolCallID != "":
		return hone.FieldError(at("tool_call_id"), "%s is for tool messages only", at("tool_call_id"))
	case hone.Chars(m.ToolCallID) > MaxIDLength:
		return tooLong(at("tool_call_id"), MaxIDLength)
	case hone.Chars(m.Name) > MaxIDLength:
		return tooLong(at("name"), MaxIDLength)
	}
	*chars += hone.Chars(m.Name) + hone.Chars(m.ToolCallID)
	if err := validateContent(m.Content, at("content"), chars); err != nil {
		return err
	}
	for k := range m.ToolCalls {
		if err := m.ToolCalls[k].validate(indexField(at("tool_calls"), k), chars); err != nil {
			return err
		}
	}
	return nil
}

// validateContent checks content, the field named field, against its
// bounds, counting its characters into *chars.
func validateContent(content any, field string, chars *int) error {
	switch c := content.(type) {
	case nil:
	case string:
		n := hone.Chars(c)
		if n > MaxTextLength {
			return tooLong(field, MaxTextLength)
		}
		*chars += n
	case []any:
		if len(c) > MaxParts {
			return hone.FieldError(field, "%s holds more than %d content parts", field, MaxParts)
		}
		for j, p := range c {
			at := indexField(field, j)
			part, ok := p.(map[string]any)
			if !ok {
				return hone.FieldError(at, "%s must be an object with a type", at)
			}
			kind, ok := part["type"].(string)
			switch {
			case part["type"] == nil:
				return hone.FieldError(at+".type", "%s.type is required", at)
			case !ok:
				return hone.FieldError(at+".type", "%s.type must be a string", at)
			case kind == "":
				return hone.FieldError(at+".type", "%s.type is required", at)
			case hone.Chars(kind) > MaxIDLength:
				return tooLong(at+".type", MaxIDLength)
			}
			text, isText := part["text"].(string)
			_, hasText := part["text"]
			switch {
			case hasText && !isText:
				return hone.FieldError(at+".text", "%s.text must be a string", at)
			case !hasText && kind == PartText:
				return hone.FieldError(at+".text", "%s.text is required in a part of type text", at)
			case hone.Chars(text) > MaxTextLength:
				return tooLong(at+".text", MaxTextLength)
			}
			*chars += valueChars(part)
		}
	default:
		return hone.FieldError(field, "%s must be a string, an array of content parts or null", field)
	}
	return nil
}

// valueChars counts the characters of every string, keys too, in v, a
// value as JSON decodes it.
func valueChars(v any) int {
	switch v := v.(type) {
	case string:
		return hone.Chars(v)
	case []any:
		n := 0
		for _, x := range v {
			n += valueChars(x)
		}
		return n
	case map[string]any:
		n := 0
		for k, x := range v {
			n += hone.Chars(k) + valueChars(x)
		}
		return n
	}
	return 0
}

// validate checks a tool call, the field named at, counting its characters
// into *chars.
func (c *ToolCall) validate(at string, chars *int) error {
	switch {
	case c.ID == "":
		return hone.FieldError(at+".id", "%s.id is required", at)
	case hone.Chars(c.ID) > MaxIDLength:
		return tooLong(at+".id", MaxIDLength)
	case c.Type != ToolTypeFunction:
		return hone.FieldError(at+".type", "%s.type must be %q", at, ToolTypeFunction)
	case c.Function.Name == "":
		return hone.FieldError(at+".function.name", "%s.function.name is required", at)
	case hone.Chars(c.Function.Name) > MaxIDLength:
		return tooLong(at+".function.name", MaxIDLength)
	}
	n := hone.Chars(c.Function.Arguments)
	if n > MaxTextLength {
		return tooLong(at+".function.arguments", MaxTextLength)
	}
	*chars += hone.Chars(c.ID) + hone.Chars(c.Function.Name) + n
	return nil
}

// Validate reports the first message that is malformed, and refuses more
// messages, or more text, than a turn may hold.
func (ms Messages) Validate() error {
	if len(ms) > MaxMessages {
		return hone.FieldError("messages", "messages holds more than %d messages", MaxMessages)
	}
	chars := 0
	for i := range ms {
		if err := ms[i].validate(i, &chars); err != nil {
			return err
		}
	}
	if chars > MaxMessagesText {
		return hone.FieldError("messages", "messages hold more than %d characters of text together", MaxMessagesText)
	}
	return nil
}

// lastText returns the index and text of the last message of role, before
// index end, whose text is not blank; -1 when there is none.
func (ms Messages) lastText(role string, end int) (int, string) {
	for i := end - 1; i >= 0; i-- {
		if ms[i].Role != role {
			continue
		}
		if s := ms[i].Text(); !blank(s) {
			return i, s
		}
	}
	return -1, ""
}
