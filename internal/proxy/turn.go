package proxy

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/capture"
)

// Headers a caller sets to say who is talking and under which prompt.
const (
	HeaderConversation  = "X-Hone-Conversation"
	HeaderTester        = "X-Hone-Tester"
	HeaderPromptVersion = "X-Hone-Prompt-Version"
	// HeaderTurnID is the response header naming the turn an exchange is
	// recorded as.
	HeaderTurnID = "X-Hone-Turn-Id"
)

// identity is who a request speaks for: its conversation and tester, and
// the prompt version it runs under.
type identity struct {
	tester        capture.Tester
	promptVersion string
}

// identify reads the conversation from X-Hone-Conversation, else the
// request's user, else a hash of its system and first user message; the
// tester from X-Hone-Tester; the prompt version from X-Hone-Prompt-Version,
// else a hash of its system message.
func identify(h headerGetter, user string, msgs capture.Messages) identity {
	system, first := "", ""
	for i := range msgs {
		switch msgs[i].Role {
		case capture.RoleSystem, capture.RoleDeveloper:
			if system != "" {
				system += "\n"
			}
			system += msgs[i].Text()
		case capture.RoleUser:
			if first == "" {
				first = msgs[i].Text()
			}
		}
	}
	id := identity{}
	id.tester.ConversationID = strings.TrimSpace(h.Get(HeaderConversation))
	if id.tester.ConversationID == "" {
		id.tester.ConversationID = strings.TrimSpace(user)
	}
	if id.tester.ConversationID == "" || hone.Chars(id.tester.ConversationID) > capture.MaxIDLength {
		id.tester.ConversationID = "proxy-" + digest(system, first)
	}
	id.tester.TesterID = strings.TrimSpace(h.Get(HeaderTester))
	if hone.Chars(id.tester.TesterID) > capture.MaxIDLength {
		id.tester.TesterID = "proxy-" + digest(id.tester.TesterID)
	}
	id.promptVersion = strings.TrimSpace(h.Get(HeaderPromptVersion))
	if id.promptVersion == "" && system != "" {
		id.promptVersion = "system-" + digest(system)
	}
	if hone.Chars(id.promptVersion) > capture.MaxIDLength {
		id.promptVersion = "proxy-" + digest(id.promptVersion)
	}
	return id
}

type headerGetter interface{ Get(string) string }

// digest is a short stable hash of parts.
func digest(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// lastUserText is the text of the request's last message when it is the
// user's; "" otherwise.
func lastUserText(msgs capture.Messages) string {
	if len(msgs) == 0 || msgs[len(msgs)-1].Role != capture.RoleUser {
		return ""
	}
	return msgs[len(msgs)-1].Text()
}

// fit makes in valid to record: cleaned, texts cut to their bounds, and,
// when its messages cannot be kept, its exchange without them.
func fit(in *capture.TurnInput) error {
	in.Clean()
	in.UserMessage = cut(in.UserMessage)
	in.Response = cut(in.Response)
	if in.UserMessage == "" && !hasText(in.Messages, capture.RoleUser) {
		in.UserMessage = "(no text)"
	}
	if in.Response == "" {
		in.Response = answerText(in.Messages)
	}
	err := in.Validate()
	if err == nil || len(in.Messages) == 0 {
		return err
	}
	if in.UserMessage == "" {
		in.UserMessage = cut(cmp.Or(lastText(in.Messages, capture.RoleUser), "(no text)"))
	}
	if in.Response == "" {
		in.Response = cut(cmp.Or(lastText(in.Messages[len(in.Messages)-1:], capture.RoleAssistant), "(empty answer)"))
	}
	in.Messages = nil
	in.Metadata = with(in.Metadata, "messages_dropped", hone.ErrorMessage(err))
	return in.Validate()
}

// cut bounds s to the longest text a turn keeps.
func cut(s string) string {
	if len(s) <= capture.MaxTextLength || utf8.RuneCountInString(s) <= capture.MaxTextLength {
		return s
	}
	return string([]rune(s)[:capture.MaxTextLength])
}

func hasText(msgs capture.Messages, role string) bool { return lastText(msgs, role) != "" }

// lastText is the text of the last message of role that has some.
func lastText(msgs capture.Messages, role string) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == role {
			if s := msgs[i].Text(); strings.TrimSpace(s) != "" {
				return s
			}
		}
	}
	return ""
}

// answerText is the response of a turn whose answer has no text: its tool
// calls, or that it had none.
func answerText(msgs capture.Messages) string {
	if len(msgs) == 0 || msgs[len(msgs)-1].Role != capture.RoleAssistant {
		return ""
	}
	last := msgs[len(msgs)-1]
	if strings.TrimSpace(last.Text()) != "" {
		return ""
	}
	if len(last.ToolCalls) == 0 {
		return "(empty answer)"
	}
	var b strings.Builder
	b.WriteString("(tool calls)")
	for _, c := range last.ToolCalls {
		b.WriteString(" " + c.Function.Name + "(" + c.Function.Arguments + ")")
	}
	return cut(b.String())
}

// with is the JSON object meta with key set to v.
func with(meta json.RawMessage, key string, v any) json.RawMessage {
	m := map[string]any{}
	_ = json.Unmarshal(meta, &m)
	m[key] = v
	b, _ := json.Marshal(m)
	return b
}
