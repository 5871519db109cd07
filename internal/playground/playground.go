// Package playground lets a prompt tuner chat with the model under test through
// hone: each ordinary message goes to the LLM with the prompt file as system
// prompt and the session's earlier turns as history, and becomes a turn of the
// session; commands go to the chat router. The terminal chat and the web chat
// are both thin faces over it.
package playground

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/chat"
	"github.com/honehq/hone/internal/llm"
)

// DefaultHistoryTurns is how many earlier turns of the session go with each message.
const DefaultHistoryTurns = 20

// ModelFailedText opens the reply when the model could not answer.
const ModelFailedText = "⚠️ The model could not answer"

// CutOffText follows an answer cut off at its bound, with the bound and the
// variable that sets it: the tester sees the answer as far as it went, and
// the turn keeps it without this note.
const CutOffText = "⚠️ Cut off: the answer reached its limit of %d tokens (%s)."

// Chat is a chat with the model under test.
type Chat struct {
	turns   *capture.Recorder
	router  *chat.Router
	client  *llm.Client
	prompt  *Prompt
	aug     Augmenter
	log     *slog.Logger
	branch  string
	history int
}

// Augmenter adds to a tester's system prompt, as the learning loop adds
// what it learned: it returns the prompt to send and its version.
type Augmenter interface {
	Augment(ctx context.Context, testerID, base, baseVersion string) (system, version string, err error)
}

// Augment makes every system prompt of the playground go through a; the
// version recorded on turns is then a's.
func (g *Chat) Augment(a Augmenter) { g.aug = a }

// system is the tester's system prompt and its version: the prompt file's,
// augmented. When the augmenter fails, the file's alone is used and the
// failure logged: the chat goes on.
func (g *Chat) system(ctx context.Context, testerID string) (text, version string, err error) {
	text, version, err = g.prompt.Current()
	if err != nil || g.aug == nil {
		return text, version, err
	}
	full, v, aerr := g.aug.Augment(ctx, testerID, text, version)
	if aerr != nil {
		g.log.WarnContext(ctx, "the learned part of the prompt is left out", "tester_id", testerID, "err", aerr)
		return text, version, nil
	}
	return full, v, nil
}

// New returns a playground chat that records turns with turns, answers commands
// with router and answers everything else with client under prompt.
func New(turns *capture.Recorder, router *chat.Router, client *llm.Client, prompt *Prompt, log *slog.Logger) *Chat {
	if log == nil {
		log = slog.Default()
	}
	return &Chat{turns: turns, router: router, client: client, prompt: prompt, log: log, history: DefaultHistoryTurns}
}

// Prompt is the playground's prompt file.
func (g *Chat) Prompt() *Prompt { return g.prompt }

// Open returns the tester's session for the prompt's current version,
// starting one when the conversation has none or an older version's.
func (g *Chat) Open(ctx context.Context, t capture.Tester) (*capture.Session, error) {
	_, version, err := g.system(ctx, t.TesterID)
	if err != nil {
		return nil, err
	}
	return g.turns.Store().OpenSession(ctx, t, version, g.branch)
}

// Send handles one message: a command goes to the tuning engine; anything
// else goes to the model, whose answer is recorded as a turn and returned.
// onDelta, when not nil, receives the answer as it streams. A model failure
// is a reply that says so; the session and its history are kept.
func (g *Chat) Send(ctx context.Context, t capture.Tester, text string, onDelta func(string)) (chat.Reply, error) {
	t, text = t.Clean(), hone.CleanText(text)
	if strings.TrimSpace(text) == "" {
		if err := t.Validate(); err != nil {
			return chat.Reply{}, err
		}
		return chat.Reply{}, hone.FieldError("text", "the message is empty")
	}
	reply, err := g.router.Handle(ctx, chat.Message{Tester: t, Text: text})
	if err != nil || reply.Command {
		return reply, err
	}
	system, version, err := g.system(ctx, t.TesterID)
	if err != nil {
		return chat.Reply{Text: "⚠️ " + hone.ErrorMessage(err), Failed: true}, nil
	}
	messages := []llm.Message{{Role: llm.RoleSystem, Content: system}}
	req := llm.Request{Purpose: llm.PurposeChat, CauseType: "conversation", CauseID: t.ConversationID}
	session, err := g.turns.Store().CurrentSession(ctx, t.ConversationID)
	switch {
	case err == nil && session.PromptVersion == version:
		req.CauseType, req.CauseID = "session", session.ID
		turns, err := g.turns.Store().RecentTurns(ctx, session.ID, g.history)
		if err != nil {
			g.log.ErrorContext(ctx, "read chat history", "session_id", session.ID, "err", err)
			return chat.Reply{Text: chat.FailedReadText, Failed: true, SessionID: session.ID}, nil
		}
		for _, turn := range turns {
			messages = append(messages, llm.Message{Role: llm.RoleUser, Content: turn.UserMessage},
				llm.Message{Role: llm.RoleAssistant, Content: turn.Response})
		}
	case err != nil && hone.ErrorCode(err) != hone.ENOTFOUND:
		g.log.ErrorContext(ctx, "read chat session", "conversation_id", t.ConversationID, "err", err)
		return chat.Reply{Text: chat.FailedReadText, Failed: true}, nil
	}
	req.Messages = append(messages, llm.Message{Role: llm.RoleUser, Content: text})
	start := time.Now()
	resp, err := g.client.Stream(ctx, req, onDelta)
	if err != nil {
		g.log.WarnContext(ctx, "model call failed", "conversation_id", t.ConversationID, "err", err)
		r := chat.Reply{Text: ModelFailedText + ": " + hone.ErrorMessage(err) + "\nYour session is intact; send the message again.", Failed: true}
		if session != nil {
			r.SessionID = session.ID
		}
		return r, nil
	}
	elapsed := float64(time.Since(start).Microseconds()) / 1000
	meta, _ := json.Marshal(map[string]any{"llm_call_id": resp.CallID, "model": resp.Model,
		"finish_reason": resp.FinishReason, "prompt_file": g.prompt.Name()})
	shown := resp.Content
	if resp.CutOff() {
		note := "\n\n" + fmt.Sprintf(CutOffText, g.client.MaxTokens(llm.PurposeChat), llm.MaxTokensVariable(llm.PurposeChat))
		if onDelta != nil {
			onDelta(note)
		}
		shown += note
	}
	sent := make(capture.Messages, 0, len(req.Messages)+1)
	for _, m := range append(req.Messages, llm.Message{Role: llm.RoleAssistant, Content: resp.Content}) {
		sent = append(sent, capture.Message{Role: m.Role, Content: m.Content})
	}
	if sent.Validate() != nil {
		sent = nil
	}
	in := capture.TurnInput{
		ConversationID: t.ConversationID, TesterID: t.TesterID, TesterEmail: t.TesterEmail,
		UserMessage: text, Response: resp.Content, PromptVersion: version, Branch: g.branch,
		ProcessingTimeMS: &elapsed, Metadata: meta, Messages: sent, Model: resp.Model, LatencyMS: &resp.LatencyMS,
		Source: capture.SourceChat,
	}
	if u := resp.Usage; u.PromptTokens > 0 || u.CompletionTokens > 0 {
		in.Usage = &capture.Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
	}
	turn, _, err := g.turns.Record(ctx, in, "")
	if err != nil {
		g.log.ErrorContext(ctx, "record chat turn", "conversation_id", t.ConversationID, "tester_id", t.TesterID, "err", err)
		return chat.Reply{Text: shown + "\n\n" + FailedTurnText, Failed: true}, nil
	}
	return chat.Reply{Text: shown, SessionID: turn.SessionID, TurnID: turn.ID}, nil
}

// FailedTurnText follows an answer that could not be saved as a turn.
const FailedTurnText = "⚠️ Failed to save this turn. Please try again or contact support."
