package alerts_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/honehq/hone/internal/alerts"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/chat"
	"github.com/honehq/hone/internal/learning"
	"github.com/honehq/hone/internal/llm"
	"github.com/honehq/hone/internal/score"
	"github.com/honehq/hone/internal/storage"
)

var ctx = context.Background()

// fixture is the alerts capability over a real database, beside the
// learning loop (whose 👍 and 👎 rate responses) on one chat router, with
// a clock the test moves.
type fixture struct {
	t      *testing.T
	db     *storage.DB
	svc    *alerts.Service
	learn  *learning.Service
	router *chat.Router

	mu    sync.Mutex
	clock time.Time
}

func newFixture(t *testing.T, db *storage.DB) *fixture {
	t.Helper()
	f := &fixture{t: t, db: db, clock: time.Date(2025, 12, 5, 9, 0, 0, 0, time.UTC)}
	db.Now = f.now
	f.svc = alerts.NewService(db.Alerts(), db.Capture(), alerts.Options{Now: f.now})
	scores := score.NewService(db.Scores(), score.Options{Turns: db.Capture()})
	f.learn = learning.NewService(db.Learning(), learning.Options{Now: f.now, LLMError: llm.Config{}.Validate(), Scores: scores})
	scores.Follow(f.learn)
	f.router = chat.NewRouter(nil, nil)
	f.learn.Register(f.router)
	f.svc.Register(f.router)
	return f
}

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
