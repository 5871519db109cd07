package learning

import (
	"context"
	"fmt"
	"strings"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/chat"
	"github.com/honehq/hone/internal/llm"
)

// Intercept takes the message a 👎 asked for as its correction. The flow is
// abandoned, and the message goes on to its command or to the application,
// when it is a command, comes after the correction timeout, or is a new
// message unrelated to the rated answer; so no question goes unanswered.
func (s *Service) Intercept(ctx context.Context, m chat.Message, isCommand bool) (chat.Reply, bool, error) {
	f, err := s.store.Flow(ctx, m.ConversationID, m.TesterID)
	if hone.ErrorCode(err) == hone.ENOTFOUND {
		return chat.Reply{}, false, nil
	} else if err != nil {
		return chat.Reply{}, false, err
	}
	text := strings.TrimSpace(m.Text)
	abandon := isCommand || text == "" || s.now().Sub(f.StartedAt) > s.opts.CorrectionTimeout
	var c *Correction
	if !abandon {
		if c, err = s.store.Rated(ctx, f.FeedbackID); err != nil {
			return chat.Reply{}, false, err
		}
		abandon = !s.related(ctx, c, text)
	}
	if abandon {
		return chat.Reply{}, false, s.store.EndFlow(ctx, m.ConversationID, m.TesterID, f.FeedbackID)
	}
	return s.keep(ctx, c, m.Tester, text)
}

// Correct keeps text as the correction the tester's 👎 in the conversation
// asked for, as a platform's feedback form gives it together with the 👎:
// the tester wrote it as the correction, so no check of relatedness runs.
// ENOTFOUND when no 👎 of the tester waits for one there.
func (s *Service) Correct(ctx context.Context, t capture.Tester, text string) (chat.Reply, error) {
	text = strings.TrimSpace(hone.CleanText(text))
	if text == "" {
		return chat.Reply{}, hone.FieldError("text", "the correction is empty")
	}
	f, err := s.store.Flow(ctx, t.ConversationID, t.TesterID)
	if err != nil {
		return chat.Reply{}, err
	}
	c, err := s.store.Rated(ctx, f.FeedbackID)
	if err != nil {
		return chat.Reply{}, err
	}
	reply, kept, err := s.keep(ctx, c, t, text)
	if err == nil && !kept {
		err = hone.Errorf(hone.ECONFLICT, "the rating has its correction already")
	}
	return reply, err
}

// keep stores text as the correction of c and ends its flow; kept is false
// when another message took the flow first.
func (s *Service) keep(ctx context.Context, c *Correction, t capture.Tester, text string) (chat.Reply, bool, error) {
	c.ID, c.Text, c.CreatedAt = hone.NewID(idLength), text, s.now()
	if hone.Chars(c.Text) > MaxCorrectionLength {
		c.Text = string([]rune(c.Text)[:MaxCorrectionLength])
	}
	err := s.store.AddCorrection(ctx, c, t.ConversationID, t.TesterID)
	if hone.ErrorCode(err) == hone.ECONFLICT {
		return chat.Reply{}, false, nil
	} else if err != nil {
		return chat.Reply{}, false, err
	}
	return chat.Reply{Command: true, Text: fmt.Sprintf(ThanksText, summary(c.Text, 120)), SessionID: c.SessionID}, true, nil
}

// MaxCorrectionLength bounds a correction, in characters.
const MaxCorrectionLength = 8192

// summary is s on one line, cut to n characters.
func summary(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// related decides whether text answers "What should I have done
// differently?" about the rated turn of c: with a typed LLM call when an
// LLM is configured (the heuristic when it fails), else with the heuristic.
func (s *Service) related(ctx context.Context, c *Correction, text string) bool {
	if s.opts.LLM != nil {
		v, _, err := llm.Generate[relatedness](ctx, s.opts.LLM, llm.Request{Purpose: llm.PurposeLearning,
			CauseType: "feedback", CauseID: c.FeedbackID, Messages: []llm.Message{
				{Role: llm.RoleSystem, Content: relatedSystem},
				{Role: llm.RoleUser, Content: "User's earlier message:\n" + c.UserMessage + "\n\nAssistant's answer (rated 👎):\n" +
					c.Response + "\n\nAssistant then asked: " + AskCorrectionText + "\n\nUser's next message:\n" + text},
			}})
		if err == nil {
			return v.Related
		}
		s.log.WarnContext(ctx, "the LLM could not tell whether a message is a correction; the heuristic decides",
			"feedback_id", c.FeedbackID, "err", err)
	}
	return LooksLikeCorrection(c.UserMessage, c.Response, text)
}

// relatedness is the typed answer of the check.
type relatedness struct {
	// Related is true when the message answers the question about the
	// rated answer (says what was wrong or what to do instead), false when
	// it is a new request on another subject.
	Related bool   `json:"related"`
	Reason  string `json:"reason"`
}

const relatedSystem = `A user rated an assistant's answer with a thumbs down, and the assistant asked them what it should have done differently. Decide whether the user's next message answers that question (it says what was wrong, missing or unwanted in the answer, or what to do instead) or is a new, unrelated request or question that the assistant should simply answer. Reply with JSON: {"related": true|false, "reason": "<one short sentence>"}.`
