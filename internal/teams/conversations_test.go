package teams

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/honehq/hone/internal/bots"
)

// memoryConversations is a bots.Conversations in memory, shared by the
// adapters of one test as a database is by hone's restarts.
type memoryConversations struct {
	mu     sync.Mutex
	refs   map[string]bots.Reference
	turns  map[string]string
	latest map[string]string
	writes int
}

func newMemoryConversations() *memoryConversations {
	return &memoryConversations{refs: map[string]bots.Reference{}, turns: map[string]string{}, latest: map[string]string{}}
}

func (m *memoryConversations) SaveReference(_ context.Context, ref bots.Reference) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.writes++
	m.refs[ref.Platform+"/"+ref.ConversationID] = ref
	return nil
}

func (m *memoryConversations) Reference(_ context.Context, platform, id string) (bots.Reference, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ref, ok := m.refs[platform+"/"+id]
	return ref, ok, nil
}

func (m *memoryConversations) SaveAnswer(_ context.Context, platform, conv, msg, turn string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.turns[platform+"/"+msg] = turn
	m.latest[platform+"/"+conv] = turn
	return nil
}

func (m *memoryConversations) AnswerTurn(_ context.Context, platform, msg string) (string, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.turns[platform+"/"+msg]
	return t, ok, nil
}

func (m *memoryConversations) LatestAnswer(_ context.Context, platform, conv string) (string, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.latest[platform+"/"+conv]
	return t, ok, nil
}

// An adapter started after another one stopped, on the same store, rates
// the answers the first one sent (by replyToId and as the latest answer)
// and delivers alerts to the conversations it heard from; a reference
// that did not change is written once.
func TestConversationsSurviveARestart(t *testing.T) {
	conn := newFakeConnector(t)
	store := newMemoryConversations()
	open := func(bot bots.Bot) *Adapter {
		a, err := newAdapter(Config{NoAuth: true, Loopback: true, Conversations: store}, bot, slog.New(slog.DiscardHandler),
			&http.Client{Timeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		a.conn.retryInitial = time.Millisecond
		return a
	}
	first := open(newFakeBot())
	send(t, first.Handler(), messageActivity(conn.URL, "one"), "")
	answered(t, first, conn)
	second := messageActivity(conn.URL, "two")
	second["id"] = "user-act-2"
	send(t, first.Handler(), second, "")
	p := answered(t, first, conn)
	if err := first.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if store.writes != 1 {
		t.Errorf("the unchanged reference was written %d times, want 1", store.writes)
	}

	bot := newFakeBot()
	again := open(bot)
	t.Cleanup(func() { _ = again.Close(context.Background()) })
	h := again.Handler()
	if rec := send(t, h, feedbackInvoke(conn.URL, p.ID, "like", ""), ""); rec.Code != http.StatusOK {
		t.Fatalf("feedback after the restart: %d %s", rec.Code, rec.Body)
	}
	if rec := send(t, h, feedbackInvoke(conn.URL, "", "dislike", "Shorter."), ""); rec.Code != http.StatusOK {
		t.Fatalf("feedback without replyToId after the restart: %d %s", rec.Code, rec.Body)
	}
	_, ratings, _ := bot.snapshot()
	if len(ratings) != 2 || ratings[0].TurnID != "turn-2" || !ratings[0].Up || ratings[1].TurnID != "turn-2" || ratings[1].Up {
		t.Fatalf("ratings after the restart = %+v, want 👍 and 👎 on turn-2", ratings)
	}

	fresh := open(newFakeBot())
	t.Cleanup(func() { _ = fresh.Close(context.Background()) })
	if err := fresh.Deliver(t.Context(), bots.Delivery{ConversationID: "a:conv-1", AlertID: "al-1", Text: "Refunds dropped"}); err != nil {
		t.Fatalf("an alert after the restart: %v", err)
	}
	alert := conn.next(t)
	if alert.Path != "/v3/conversations/a:conv-1/activities" || toJSON(alert.Activity["from"]) != `{"id":"28:`+testAppID+`","name":"hone"}` ||
		toJSON(alert.Activity["channelData"]) != `{"tenant":{"id":"tenant-1"}}` {
		t.Errorf("the alert after the restart: %s %s", alert.Path, toJSON(alert.Activity))
	}
}
