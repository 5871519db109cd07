package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/honehq/hone/internal/app"
	"github.com/honehq/hone/internal/chat"
	"github.com/honehq/hone/internal/config"
	"github.com/honehq/hone/internal/logtest"
	"github.com/honehq/hone/internal/tuning"
)

func start(t testing.TB, log *slog.Logger) *app.App {
	t.Helper()
	a, err := app.Open(context.Background(), config.Config{Addr: "127.0.0.1:0", DataDir: t.TempDir(),
		MaxBodyBytes: 1 << 20, MessageLimit: tuning.DefaultMessageLimit}, log)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Listen(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

func post(t testing.TB, url string, body any) (int, map[string]any) {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	data, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatalf("%s: %v in %q", url, err, data)
	}
	return resp.StatusCode, out
}

func TestDatabaseWriteFailureKeepsServing(t *testing.T) {
	var logs logtest.Buffer
	a := start(t, slog.New(slog.NewJSONHandler(&logs, nil)))
	msg := func(text string) map[string]any {
		code, out := post(t, a.URL()+"/api/v1/messages", map[string]string{
			"conversation_id": "c1", "tester_id": "meg", "tester_email": "meg@example.com", "text": text})
		if code != http.StatusOK {
			t.Fatalf("%s: status %d %v", text, code, out)
		}
		return out
	}
	if code, out := post(t, a.URL()+"/api/v1/turns", map[string]string{"conversation_id": "c1", "tester_id": "meg",
		"user_message": "My employee didn't show up", "response": "Got it."}); code != http.StatusCreated {
		t.Fatalf("turn: %d %v", code, out)
	}
	if out := msg("!improve first note"); out["ack"] != true {
		t.Fatalf("first note: %v", out)
	}
	if err := a.DB.Exec(context.Background(), "DROP TABLE improvements"); err != nil {
		t.Fatal(err)
	}
	out := msg("!improve tone: too formal")
	if out["reply"] != chat.FailedSaveText || out["ack"] != false || out["failed"] != true {
		t.Fatalf("reply on a failed write: %v", out)
	}
	for _, want := range []string{`"msg":"chat command failed"`, `"command":"improve"`, `"conversation_id":"c1"`, "no such table: improvements"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %s:\n%s", want, logs.String())
		}
	}
	resp, err := http.Get(a.URL() + "/healthz")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("server down after the failure: %v %v", resp, err)
	}
	resp.Body.Close()
	if out := msg("!session"); !strings.Contains(out["reply"].(string), "Turns: 1\nImprovements: 1\n") {
		t.Fatalf("what was saved before the failure is gone: %v", out["reply"])
	}
}
