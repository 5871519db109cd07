// Package relay lets the application itself answer a chat platform's
// testers: hone posts each message that is not a chat command to the
// application's HTTP endpoint (HONE_CHAT_RELAY_URL) and records the answer
// as a turn, so that an application with its own retrieval is tuned in
// Teams or Telegram without changing its code.
package relay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/chat"
)

// Request is what hone posts to the application.
type Request struct {
	ConversationID string `json:"conversation_id"`
	TesterID       string `json:"tester_id"`
	Platform       string `json:"platform"`
	Message        string `json:"message"`
}

// Response is what the application answers: the response shown to the
// tester, and optionally the context it answered with (kept in the turn's
// metadata) and the version of its prompt.
type Response struct {
	Response      string          `json:"response"`
	Context       json.RawMessage `json:"context,omitempty"`
	PromptVersion string          `json:"prompt_version,omitempty"`
}

// Router answers chat commands: chat.Router.
type Router interface {
	Handle(ctx context.Context, m chat.Message) (chat.Reply, error)
}

// Recorder records turns: capture.Recorder.
type Recorder interface {
	Record(ctx context.Context, in capture.TurnInput, key string) (*capture.Turn, bool, error)
}

// DefaultTimeout bounds one call of the application.
const DefaultTimeout = 60 * time.Second

// maxResponseBytes bounds the application's answer.
const maxResponseBytes = 4 << 20

// FailedText opens the reply when the application could not answer.
const FailedText = "⚠️ The application did not answer"

// Relay answers messages through the application: it is a bots.Answerer.
type Relay struct {
	url    string
	client *http.Client
	router Router
	turns  Recorder
	log    *slog.Logger
}

// New returns the relay to url; timeout 0 is DefaultTimeout.
func New(url string, timeout time.Duration, router Router, turns Recorder, log *slog.Logger) *Relay {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if log == nil {
		log = slog.Default()
	}
	return &Relay{url: url, client: &http.Client{Timeout: timeout}, router: router, turns: turns, log: log}
}

// Send handles one message: a chat command goes to the router; anything
// else to the application, whose answer is recorded as a turn (source
// chat). A failing application is a reply that says so, and a log line.
func (r *Relay) Send(ctx context.Context, t capture.Tester, text string, _ func(string)) (chat.Reply, error) {
	t, text = t.Clean(), hone.CleanText(text)
	if strings.TrimSpace(text) == "" {
		if err := t.Validate(); err != nil {
			return chat.Reply{}, err
		}
		return chat.Reply{}, hone.FieldError("text", "the message is empty")
	}
	reply, err := r.router.Handle(ctx, chat.Message{Tester: t, Text: text})
	if err != nil || reply.Command {
		return reply, err
	}
	platform, _, _ := strings.Cut(t.ConversationID, ":")
	start := time.Now()
	resp, err := r.call(ctx, Request{ConversationID: t.ConversationID, TesterID: t.TesterID, Platform: platform, Message: text})
	elapsed := float64(time.Since(start).Microseconds()) / 1000
	if err != nil {
		r.log.WarnContext(ctx, "the relay failed", "conversation_id", t.ConversationID, "err", err)
		return chat.Reply{Text: FailedText + ": " + err.Error() + ".\nYour session is intact; send the message again.", Failed: true,
			SessionID: reply.SessionID}, nil
	}
	meta := map[string]any{"relay": true}
	if len(resp.Context) > 0 && len(resp.Context) < capture.MaxMetadataBytes-64 && json.Valid(resp.Context) {
		meta["context"] = resp.Context
	}
	metadata, _ := json.Marshal(meta)
	turn, _, err := r.turns.Record(ctx, capture.TurnInput{ConversationID: t.ConversationID, TesterID: t.TesterID, TesterEmail: t.TesterEmail,
		UserMessage: text, Response: resp.Response, PromptVersion: resp.PromptVersion, ProcessingTimeMS: &elapsed,
		Metadata: metadata, Source: capture.SourceChat}, "")
	if err != nil {
		r.log.ErrorContext(ctx, "record relayed turn", "conversation_id", t.ConversationID, "tester_id", t.TesterID, "err", err)
		return chat.Reply{Text: resp.Response + "\n\n" + FailedTurnText, Failed: true}, nil
	}
	return chat.Reply{Text: resp.Response, SessionID: turn.SessionID, TurnID: turn.ID}, nil
}

// FailedTurnText follows an answer that could not be saved as a turn.
const FailedTurnText = "⚠️ Failed to save this turn. Please try again or contact support."

// call posts req to the application and reads its answer.
func (r *Relay) call(ctx context.Context, req Request) (*Response, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, r.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "application/json")
	res, err := r.client.Do(hr)
	if err != nil {
		return nil, r.reason(err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, maxResponseBytes+1))
	if err != nil {
		return nil, fmt.Errorf("its answer broke off (%v)", r.reason(err))
	}
	if res.StatusCode/100 != 2 {
		return nil, fmt.Errorf("it answered HTTP %d", res.StatusCode)
	}
	if len(data) > maxResponseBytes {
		return nil, fmt.Errorf("its answer is larger than %d MiB", maxResponseBytes>>20)
	}
	var out Response
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("its answer is not the JSON object {\"response\": …} (%v)", err)
	}
	if strings.TrimSpace(out.Response) == "" {
		return nil, fmt.Errorf("its answer has no \"response\"")
	}
	return &out, nil
}

// reason is why a call failed, without the URL, which may carry a secret.
func (r *Relay) reason(err error) error {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return err
	}
	if ue.Timeout() {
		return fmt.Errorf("no answer within %s", r.client.Timeout)
	}
	return fmt.Errorf("cannot reach it (%v)", ue.Err)
}
