package alerts

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/honehq/hone/internal/chat"
)

// Register adds !ack to r, and before every other interceptor the one that
// makes 👍 and 👎 rate the conversation's latest alert when it came after
// the latest response: they rate that response otherwise.
func (s *Service) Register(r *chat.Router) {
	r.Register(chat.Command{Group: "Alerts", Name: "ack", Writes: true,
		Summary: "acknowledge the latest proactive alert (👍 and 👎 right after an alert rate it)",
		Run: func(ctx context.Context, m chat.Message, _ string) (chat.Reply, error) {
			return s.reactReply(ctx, m, ReactionAck)
		}})
	r.Intercept(chat.InterceptorFunc(s.interceptThumbs))
}

// thumbs are the reactions 👍 and 👎 stand for.
var thumbs = map[string]string{"👍": ReactionUp, "👎": ReactionDown}

// interceptThumbs rates the latest alert with 👍 or 👎 when it came after
// the conversation's latest response.
func (s *Service) interceptThumbs(ctx context.Context, m chat.Message, _ bool) (chat.Reply, bool, error) {
	reaction, ok := thumbs[strings.TrimSpace(m.Text)]
	if !ok {
		return chat.Reply{}, false, nil
	}
	a, err := s.alertAfterTurn(ctx, m.ConversationID)
	if err != nil || a == nil {
		return chat.Reply{}, false, err
	}
	reply, err := s.reactReply(ctx, m, reaction)
	if err != nil {
		return chat.Reply{Text: chat.FailedSaveText, Failed: true}, true, nil
	}
	return reply, true, nil
}

// reactReply reacts to the conversation's latest alert and says so.
func (s *Service) reactReply(ctx context.Context, m chat.Message, reaction string) (chat.Reply, error) {
	out, err := s.ReactLatest(ctx, m.Tester, reaction)
	if errors.Is(err, ErrNoAlert) {
		return chat.Reply{Text: "⚠️ " + ErrNoAlert.Message}, nil
	} else if err != nil {
		return chat.Reply{}, err
	}
	if out.Paused {
		return chat.Reply{Text: fmt.Sprintf("Noted. Alerts of type %s are paused: %s. hone alerts enable %s resumes them.",
			out.Type, out.PauseNote, out.Type)}, nil
	}
	return chat.Reply{Ack: true}, nil
}
