package learning_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/chat"
	"github.com/honehq/hone/internal/learning"
	"github.com/honehq/hone/internal/llm"
	"github.com/honehq/hone/internal/llm/llmtest"
	"github.com/honehq/hone/internal/score"
	"github.com/honehq/hone/internal/storage"
)

var ctx = context.Background()

// fixture is the learning loop over a real database, with a chat router,
// a clock the test moves and, unless without one, the fake LLM answering
// as the test's handlers say.
type fixture struct {
	t      *testing.T
	db     *storage.DB
	svc    *learning.Service
	router *chat.Router
	fake   *llmtest.Server

	mu    sync.Mutex
	clock time.Time
	// related, synthesis and review answer the three kinds of call; a nil
	// one fails the call.
	related   func(text string) bool
	synthesis func(req llmtest.ChatRequest) llmtest.Reply
	review    func(req llmtest.ChatRequest) llmtest.Reply
}

func newFixture(t *testing.T, db *storage.DB, withLLM bool, opts ...func(*learning.Options)) *fixture {
	t.Helper()
	f := &fixture{t: t, db: db, clock: time.Date(2025, 12, 5, 9, 0, 0, 0, time.UTC)}
	db.Now = f.now
	o := learning.Options{Now: f.now, Base: func() (string, error) { return basePrompt, nil },
		Scores: score.NewService(db.Scores(), score.Options{Turns: db.Capture()})}
	if withLLM {
		f.fake = llmtest.New(t)
		f.fake.SetHandler(f.answer)
		o.LLM = f.fake.Client(db.LLMCalls())
	} else {
		o.LLMError = llm.Config{}.Validate()
	}
	for _, opt := range opts {
		opt(&o)
	}
	f.svc = learning.NewService(db.Learning(), o)
	o.Scores.Follow(f.svc)
	f.router = chat.NewRouter(nil, nil)
	f.svc.Register(f.router)
	return f
}

// basePrompt is the fixture's base system prompt, with protected rules.
const basePrompt = `You are Friday, a personal assistant.
<!-- hone:protected -->
Never share the user's medical records with anyone.
Always answer in English.
<!-- /hone:protected -->
Be helpful.`

func (f *fixture) now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.clock
}

// advance moves the clock on.
func (f *fixture) advance(d time.Duration) {
	f.mu.Lock()
	f.clock = f.clock.Add(d)
	f.mu.Unlock()
}

// answer is the fake LLM: it tells the calls apart by their system prompt.
func (f *fixture) answer(req llmtest.ChatRequest) llmtest.Reply {
	system := ""
	if len(req.Messages) > 0 {
		system = req.Messages[0].Content
	}
	switch {
	case strings.Contains(system, "A user rated an assistant's answer"):
		if f.related == nil {
			return llmtest.Error(500, "relatedness is down")
		}
		return llmtest.JSON(map[string]any{"related": f.related(req.LastUserMessage()), "reason": "because"})
	case strings.Contains(system, "You analyse corrections"):
		if f.synthesis == nil {
			return llmtest.Error(500, "synthesis is down")
		}
		return f.synthesis(req)
	case strings.Contains(system, "You check new learning statements"):
		if f.review == nil {
			return llmtest.JSON(map[string]any{"verdicts": []any{}})
		}
		return f.review(req)
	}
	return llmtest.Error(400, "unexpected call: "+system)
}

// turn records an exchange of the tester's conversation.
func (f *fixture) turn(conversation, tester, user, response string) *capture.Turn {
	f.t.Helper()
	t, _, err := capture.NewRecorder(f.db.Capture(), nil).Record(ctx, capture.TurnInput{ConversationID: conversation,
		TesterID: tester, UserMessage: user, Response: response, PromptVersion: "v1"}, "")
	if err != nil {
		f.t.Fatal(err)
	}
	return t
}

// send passes a chat message through the router.
func (f *fixture) send(conversation, tester, text string) chat.Reply {
	f.t.Helper()
	r, err := f.router.Handle(ctx, chat.Message{Tester: capture.Tester{ConversationID: conversation, TesterID: tester}, Text: text})
	if err != nil {
		f.t.Fatalf("send %q: %v", text, err)
	}
	return r
}

// correct gives a 👎 on the latest answer and the correction.
func (f *fixture) correct(conversation, tester, correction string) {
	f.t.Helper()
	if r := f.send(conversation, tester, "👎"); r.Text != learning.AskCorrectionText {
		f.t.Fatalf("👎 answered %q", r.Text)
	}
	if r := f.send(conversation, tester, correction); !r.Command || !strings.HasPrefix(r.Text, "Got it!") {
		f.t.Fatalf("the correction %q was answered %+v", correction, r)
	}
}
