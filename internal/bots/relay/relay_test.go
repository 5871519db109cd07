package relay_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/honehq/hone/internal/bots/relay"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/chat"
	"github.com/honehq/hone/internal/storage/storagetest"
	"github.com/honehq/hone/internal/tuning"
)

var meg = capture.Tester{ConversationID: "telegram:100", TesterID: "telegram:7"}

func TestRelayAnswersAndHoneRecords(t *testing.T) {
	db := storagetest.SQLite(t)
	var mu sync.Mutex
	var got []relay.Request
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req relay.Request
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" || json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, "bad", 400)
			return
		}
		mu.Lock()
		got = append(got, req)
		mu.Unlock()
		switch req.Message {
		case "slow":
			time.Sleep(300 * time.Millisecond)
		case "broken":
			http.Error(w, "boom", 500)
			return
		case "nonsense":
			w.Write([]byte("<html>"))
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"response": "Answer to " + req.Message, "prompt_version": "v7",
			"context": map[string]any{"docs": []string{"handbook#4"}}})
	}))
	defer app.Close()
	router := chat.NewRouter(nil, nil)
	tuning.NewService(db.Capture(), db.Tuning(), tuning.Options{}).Register(router)
	r := relay.New(app.URL, 100*time.Millisecond, router, capture.NewRecorder(db.Capture(), nil), nil)
	ctx := context.Background()

	reply, err := r.Send(ctx, meg, "How do I process a resignation?", nil)
	if err != nil || reply.Text != "Answer to How do I process a resignation?" || reply.TurnID == "" || reply.Failed {
		t.Fatalf("relayed answer: %+v %v", reply, err)
	}
	if len(got) != 1 || got[0] != (relay.Request{ConversationID: "telegram:100", TesterID: "telegram:7", Platform: "telegram", Message: "How do I process a resignation?"}) {
		t.Fatalf("the application got %+v", got)
	}
	s, err := db.Capture().CurrentSession(ctx, "telegram:100")
	if err != nil || s.PromptVersion != "v7" {
		t.Fatalf("session %+v %v", s, err)
	}
	turns, _ := db.Capture().RecentTurns(ctx, s.ID, 5)
	if len(turns) != 1 || turns[0].Response != "Answer to How do I process a resignation?" || !strings.Contains(string(turns[0].Metadata), `"handbook#4"`) {
		t.Fatalf("recorded %+v", turns[0])
	}
	if reply, err := r.Send(ctx, meg, "!improve tone: warmer", nil); err != nil || !reply.Ack || len(got) != 1 {
		t.Fatalf("a command went to the application: %+v %v (%d calls)", reply, err, len(got))
	}
	for msg, want := range map[string]string{
		"slow":     "no answer within 100ms",
		"broken":   "it answered HTTP 500",
		"nonsense": "is not the JSON object",
	} {
		reply, err := r.Send(ctx, meg, msg, nil)
		if err != nil || !reply.Failed || !strings.HasPrefix(reply.Text, relay.FailedText) || !strings.Contains(reply.Text, want) {
			t.Errorf("%s: %+v %v", msg, reply, err)
		}
	}
	if turns, _ := db.Capture().RecentTurns(ctx, s.ID, 10); len(turns) != 1 {
		t.Fatalf("failed calls recorded turns: %d", len(turns))
	}
	down := relay.New("http://127.0.0.1:1/relay", time.Second, router, capture.NewRecorder(db.Capture(), nil), nil)
	if reply, err := down.Send(ctx, meg, "hello", nil); err != nil || !strings.Contains(reply.Text, "cannot reach it") || strings.Contains(reply.Text, "127.0.0.1:1/relay") {
		t.Fatalf("an unreachable application: %+v %v", reply, err)
	}
}
