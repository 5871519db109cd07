package proxy_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/honehq/hone/internal/chat"
	"github.com/honehq/hone/internal/learning"
	"github.com/honehq/hone/internal/llm/llmtest"
	"github.com/honehq/hone/internal/proxy"
)

// router is a fake chat router: !… and 👍/👎 are commands, and a 👎's
// correction is taken when it follows one.
type router struct {
	mu   sync.Mutex
	got  []chat.Message
	asks bool
}

func (r *router) IsCommand(text string) bool {
	return chat.IsBang(text) || text == "👍" || text == "👎"
}

func (r *router) Handle(_ context.Context, m chat.Message) (chat.Reply, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, m)
	switch {
	case m.Text == "👍":
		return chat.Reply{Command: true, Ack: true}, nil
	case m.Text == "👎":
		r.asks = true
		return chat.Reply{Command: true, Text: learning.AskCorrectionText}, nil
	case r.asks && !r.IsCommand(m.Text):
		r.asks = false
		if strings.HasPrefix(m.Text, "You should") {
			return chat.Reply{Command: true, Text: "Got it! I noted: " + m.Text}, nil
		}
		return chat.Reply{}, nil
	case r.IsCommand(m.Text):
		return chat.Reply{Command: true, Text: "✅ " + m.Text}, nil
	}
	return chat.Reply{}, nil
}

func chatWith(last string, stream bool) string {
	b, _ := json.Marshal(map[string]any{"model": "fake-model", "stream": stream, "messages": []map[string]string{
		{"role": "system", "content": "You are ERA."}, {"role": "user", "content": "How do I resign?"},
		{"role": "assistant", "content": "Write to HR."}, {"role": "user", "content": last}}})
	return string(b)
}

func TestChatCommandsAnsweredByHone(t *testing.T) {
	fake := llmtest.New(t)
	rec := &turns{}
	r := &router{}
	base, _ := serve(t, fake.URL, rec, proxy.Options{Router: r})
	h := map[string]string{proxy.HeaderTester: "meg", proxy.HeaderConversation: "c-1"}

	res, body := do(t, "POST", base+"/chat/completions", chatWith("!score empathy:4", false), h)
	var c struct {
		Object  string
		Choices []struct {
			Message struct{ Role, Content string }
		}
	}
	if err := json.Unmarshal([]byte(body), &c); err != nil || res.StatusCode != 200 || c.Object != "chat.completion" ||
		c.Choices[0].Message.Content != "✅ !score empathy:4" {
		t.Fatalf("!score: %d %s", res.StatusCode, body)
	}
	res, body = do(t, "POST", base+"/chat/completions", chatWith("👍", true), h)
	evs := events(t, body)
	if res.Header.Get("Content-Type") != "text/event-stream" || evs[len(evs)-1] != "[DONE]" || !strings.Contains(body, proxy.AckText) {
		t.Fatalf("👍 streamed: %s", body)
	}
	if _, body = do(t, "POST", base+"/chat/completions", chatWith("👎", false), h); !strings.Contains(body, learning.AskCorrectionText) {
		t.Fatalf("👎: %s", body)
	}
	if _, body = do(t, "POST", base+"/chat/completions", chatWith("You should say it must be in writing", false), h); !strings.Contains(body, "Got it!") {
		t.Fatalf("the correction: %s", body)
	}
	if len(fake.Requests()) != 0 {
		t.Fatalf("a chat command reached the upstream: %v", fake.Requests())
	}
	if len(r.got) != 4 || r.got[0].TesterID != "meg" || r.got[0].ConversationID != "c-1" {
		t.Fatalf("the router got %+v", r.got)
	}

	// After the correction, and after a 👎 whose next message is unrelated,
	// messages go to the model again.
	res, _ = do(t, "POST", base+"/chat/completions", chatWith("And the notice period?", false), h)
	if res.Header.Get(proxy.HeaderTurnID) == "" {
		t.Fatal("a message after the correction was not forwarded")
	}
	rec.wait(t, res.Header.Get(proxy.HeaderTurnID))
	do(t, "POST", base+"/chat/completions", chatWith("👎", false), h)
	res, body = do(t, "POST", base+"/chat/completions", chatWith("What about holidays?", false), h)
	if !strings.Contains(body, "What about holidays?") || res.Header.Get(proxy.HeaderTurnID) == "" {
		t.Fatalf("a message the correction dialogue let go: %s", body)
	}
	rec.wait(t, res.Header.Get(proxy.HeaderTurnID))
	if n := len(fake.Requests()); n != 2 {
		t.Fatalf("the upstream got %d calls, want 2", n)
	}
	if rec.count() != 2 {
		t.Fatalf("recorded %d turns, want the 2 the model answered", rec.count())
	}
}
