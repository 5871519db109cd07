package learning

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/chat"
)

// NoTurnText answers a rating when the conversation has no response yet.
const NoTurnText = "⚠️ There is no response to rate yet in this session."

// Register adds the learning commands to r, and the correction flow as an
// interceptor.
func (s *Service) Register(r *chat.Router) {
	r.Register(chat.Command{Group: "Learning", Name: "good", Triggers: []string{"👍"}, Writes: true,
		Summary: "rate the latest response good",
		Run: func(ctx context.Context, m chat.Message, _ string) (chat.Reply, error) {
			return s.thumb(ctx, m, RatingUp)
		}})
	r.Register(chat.Command{Group: "Learning", Name: "bad", Triggers: []string{"👎"}, Writes: true,
		Summary: "rate the latest response bad; hone asks what it should have done instead",
		Run: func(ctx context.Context, m chat.Message, _ string) (chat.Reply, error) {
			return s.thumb(ctx, m, RatingDown)
		}})
	r.Register(chat.Command{Group: "Learning", Name: "learnings", Summary: "list what hone has learned from feedback",
		Run: s.listCommand})
	r.Intercept(s)
}

func (s *Service) thumb(ctx context.Context, m chat.Message, rating string) (chat.Reply, error) {
	rt, err := s.RateLatest(ctx, m.Tester, rating)
	if errors.Is(err, capture.ErrNoTurn) {
		return chat.Reply{Text: NoTurnText}, nil
	} else if err != nil {
		return chat.Reply{}, err
	}
	if rating == RatingDown {
		return chat.Reply{Text: AskCorrectionText, SessionID: rt.SessionID}, nil
	}
	return chat.Reply{Ack: true, SessionID: rt.SessionID}, nil
}

// listCommand lists the learnings that apply to the tester, as `hone learn
// list` does.
func (s *Service) listCommand(ctx context.Context, m chat.Message, _ string) (chat.Reply, error) {
	list, err := s.Learnings(ctx, LearningFilter{TesterID: m.TesterID})
	if err != nil {
		return chat.Reply{}, err
	}
	if len(list) == 0 {
		return chat.Reply{Text: "Nothing learned yet. Rate answers with 👍 or 👎 and say what should change."}, nil
	}
	var b strings.Builder
	enabled, err := s.Enabled(ctx)
	if err != nil {
		return chat.Reply{}, err
	}
	b.WriteString("**Learnings**")
	if !enabled {
		b.WriteString(" (disabled: none is applied)")
	}
	b.WriteString("\n")
	for _, l := range list {
		fmt.Fprintf(&b, "- [%.2f] %s%s\n", l.Confidence, l.Pattern, statusNote(l.Status))
	}
	return chat.Reply{Text: strings.TrimRight(b.String(), "\n")}, nil
}

// statusNote is what a list adds after a learning that is not applied.
func statusNote(status string) string {
	switch status {
	case StatusBelowThreshold:
		return " (below threshold, not applied)"
	case StatusConflict:
		return " (conflicts with another learning, not applied)"
	case StatusRejected:
		return " (contradicts the protected rules, not applied)"
	}
	return ""
}
