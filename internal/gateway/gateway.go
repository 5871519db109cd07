// Package gateway lets a prompt tuner chat with the model under test through
// hone: each ordinary message goes to the LLM with the prompt file as system
// prompt and the session's earlier turns as history, and becomes a turn of the
// tuning session; commands go to the tuning engine. The terminal chat and the
// web chat are both thin faces over it.
package gateway

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/llm"
	"github.com/honehq/hone/internal/tuning"
)

// DefaultHistoryTurns is how many earlier turns of the session go with each message.
const DefaultHistoryTurns = 20

// ModelFailedText opens the reply when the model could not answer.
const ModelFailedText = "⚠️ The model could not answer"

// Gateway is a chat with the model under test.
type Gateway struct {
	engine  *tuning.Engine
	client  *llm.Client
	prompt  *Prompt
	log     *slog.Logger
	branch  string
	history int
}

// New returns a gateway over engine that answers with client under prompt.
func New(engine *tuning.Engine, client *llm.Client, prompt *Prompt, log *slog.Logger) *Gateway {
	if log == nil {
		log = slog.Default()
	}
	return &Gateway{engine: engine, client: client, prompt: prompt, log: log, history: DefaultHistoryTurns}
}

// Prompt is the gateway's prompt file.
func (g *Gateway) Prompt() *Prompt { return g.prompt }

// Open returns the tester's session for the prompt's current version,
// starting one when the conversation has none or an older version's.
func (g *Gateway) Open(ctx context.Context, t tuning.Tester) (*tuning.Session, error) {
	_, version, err := g.prompt.Current()
	if err != nil {
		return nil, err
	}
	return g.engine.Store().OpenSession(ctx, t, version, g.branch)
}

// Send handles one message: a command goes to the tuning engine; anything
// else goes to the model, whose answer is recorded as a turn and returned.
// onDelta, when not nil, receives the answer as it streams. A model failure
// is a reply that says so; the session and its history are kept.
func (g *Gateway) Send(ctx context.Context, t tuning.Tester, text string, onDelta func(string)) (tuning.Reply, error) {
	if tuning.IsCommand(text) {
		return g.engine.Handle(ctx, tuning.Message{Tester: t, Text: text})
	}
	if err := t.Validate(); err != nil {
		return tuning.Reply{}, err
	}
	if strings.TrimSpace(text) == "" {
		return tuning.Reply{}, hone.FieldError("text", "the message is empty")
	}
	if len(text) > tuning.MaxTextLength {
		return tuning.Reply{}, hone.FieldError("text", "the message is longer than %d bytes", tuning.MaxTextLength)
	}
	system, version, err := g.prompt.Current()
	if err != nil {
		return tuning.Reply{Text: "⚠️ " + hone.ErrorMessage(err), Failed: true}, nil
	}
	messages := []llm.Message{{Role: llm.RoleSystem, Content: system}}
	req := llm.Request{Purpose: llm.PurposeChat, CauseType: "conversation", CauseID: t.ConversationID}
	session, err := g.engine.Store().CurrentSession(ctx, t.ConversationID)
	switch {
	case err == nil && session.PromptVersion == version:
		req.CauseType, req.CauseID = "session", session.ID
		turns, err := g.engine.Store().RecentTurns(ctx, session.ID, g.history)
		if err != nil {
			g.log.ErrorContext(ctx, "read chat history", "session_id", session.ID, "err", err)
			return tuning.Reply{Text: tuning.FailedReadText, Failed: true, SessionID: session.ID}, nil
		}
		for _, turn := range turns {
			messages = append(messages, llm.Message{Role: llm.RoleUser, Content: turn.UserMessage},
				llm.Message{Role: llm.RoleAssistant, Content: turn.Response})
		}
	case err != nil && hone.ErrorCode(err) != hone.ENOTFOUND:
		g.log.ErrorContext(ctx, "read chat session", "conversation_id", t.ConversationID, "err", err)
		return tuning.Reply{Text: tuning.FailedReadText, Failed: true}, nil
	}
	req.Messages = append(messages, llm.Message{Role: llm.RoleUser, Content: text})
	start := time.Now()
	resp, err := g.client.Stream(ctx, req, onDelta)
	if err != nil {
		g.log.WarnContext(ctx, "model call failed", "conversation_id", t.ConversationID, "err", err)
		r := tuning.Reply{Text: ModelFailedText + ": " + hone.ErrorMessage(err) + "\nYour session is intact; send the message again.", Failed: true}
		if session != nil {
			r.SessionID = session.ID
		}
		return r, nil
	}
	elapsed := float64(time.Since(start).Microseconds()) / 1000
	meta, _ := json.Marshal(map[string]any{"llm_call_id": resp.CallID, "model": resp.Model,
		"finish_reason": resp.FinishReason, "prompt_file": g.prompt.Name()})
	turn, err := g.engine.RecordTurn(ctx, tuning.TurnInput{
		ConversationID: t.ConversationID, TesterID: t.TesterID, TesterEmail: t.TesterEmail,
		UserMessage: text, Response: resp.Content, PromptVersion: version, Branch: g.branch,
		ProcessingTimeMS: &elapsed, Metadata: meta,
	})
	if err != nil {
		g.log.ErrorContext(ctx, "record chat turn", "conversation_id", t.ConversationID, "tester_id", t.TesterID, "err", err)
		return tuning.Reply{Text: resp.Content + "\n\n" + FailedTurnText, Failed: true}, nil
	}
	return tuning.Reply{Text: resp.Content, SessionID: turn.SessionID}, nil
}

// FailedTurnText follows an answer that could not be saved as a turn.
const FailedTurnText = "⚠️ Failed to save this turn. Please try again or contact support."
