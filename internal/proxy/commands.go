package proxy

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/chat"
	"github.com/honehq/hone/internal/learning"
)

// AckText is the answer to a chat command hone acknowledges without words.
const AckText = "✅ Noted."

// flushWait bounds how long a chat command waits for the turns before it
// to be recorded, so that 👍 rates the answer just given.
const flushWait = 2 * time.Second

// command answers a chat command itself, as a chat completion, without
// calling the upstream: when the last message is the user's and is a
// command, or is what a 👎 asked for. It reports whether it answered.
func (p *Proxy) command(w http.ResponseWriter, r *http.Request, x *exchange) bool {
	if p.opts.Router == nil || x.kind != kindChat {
		return false
	}
	text := lastUserText(x.messages)
	if text == "" {
		return false
	}
	t := x.who.tester
	t.TesterID = cmp.Or(t.TesterID, capture.AnonymousTester)
	key := t.ConversationID + "\x00" + t.TesterID
	awaiting := p.awaitingCorrection(key)
	if !awaiting && !p.opts.Router.IsCommand(text) {
		return false
	}
	ctx, cancel := context.WithTimeout(r.Context(), flushWait)
	p.queue.Flush(ctx)
	cancel()
	reply, err := p.opts.Router.Handle(r.Context(), chat.Message{Tester: t, Text: text})
	if awaiting {
		p.awaiting.Delete(key)
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request", hone.ErrorMessage(err))
		return true
	}
	if !reply.Command {
		return false
	}
	if reply.Text == learning.AskCorrectionText {
		p.awaiting.Store(key, time.Now())
	}
	answer := reply.Text
	if answer == "" {
		answer = AckText
	}
	writeCompletion(w, x, answer)
	return true
}

// awaitingCorrection reports whether a 👎 in the conversation asked for a
// correction within the correction timeout.
func (p *Proxy) awaitingCorrection(key string) bool {
	v, ok := p.awaiting.Load(key)
	if !ok {
		return false
	}
	if time.Since(v.(time.Time)) > p.opts.CorrectionTimeout {
		p.awaiting.Delete(key)
		return false
	}
	return true
}

// writeCompletion answers text as a chat completion of the request's
// model: one object, or a stream of chunks when the request streams.
func writeCompletion(w http.ResponseWriter, x *exchange, text string) {
	id := "chatcmpl-hone-" + x.id
	model := cmp.Or(x.model, "hone")
	created := time.Now().Unix()
	zero := map[string]int{"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
	if !x.stream {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": id, "object": "chat.completion", "created": created, "model": model,
			"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": text, "refusal": nil},
				"logprobs": nil, "finish_reason": "stop"}},
			"usage": zero})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	send := func(choices []any, u any) {
		chunk := map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": model, "choices": choices}
		if u != nil {
			chunk["usage"] = u
		}
		b, _ := json.Marshal(chunk)
		_, _ = fmt.Fprintf(w, "data: %s\n\n", b)
	}
	choice := func(delta map[string]any, finish any) []any {
		return []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}}
	}
	send(choice(map[string]any{"role": "assistant", "content": ""}, nil), nil)
	send(choice(map[string]any{"content": text}, nil), nil)
	send(choice(map[string]any{}, "stop"), nil)
	if x.includeUsage {
		send([]any{}, zero)
	}
	_, _ = fmt.Fprint(w, "data: [DONE]\n\n")
	_ = http.NewResponseController(w).Flush()
}
