package app_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/honehq/hone/internal/app"
	"github.com/honehq/hone/internal/bots"
	"github.com/honehq/hone/internal/config"
	"github.com/honehq/hone/internal/learning"
	"github.com/honehq/hone/internal/llm/llmtest"
	"github.com/honehq/hone/internal/telegram"
	"github.com/honehq/hone/internal/telegram/telegramtest"
)

// telegramConfig is hone with an echoing fake model, a prompt file and a
// data directory kept across restarts, talking to the fake Bot API.
func telegramConfig(t testing.TB, tg *telegramtest.Server, allow string) config.Config {
	t.Helper()
	fake := llmtest.New(t)
	fake.SetHandler(llmtest.Echo)
	prompt := filepath.Join(t.TempDir(), "PROMPT.md")
	if err := os.WriteFile(prompt, []byte("You are ERA, an HR assistant."), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HONE_TELEGRAM_TOKEN", telegramtest.Token)
	t.Setenv("HONE_TELEGRAM_API_URL", tg.URL())
	t.Setenv("HONE_CHAT_ALLOW", allow)
	return config.Config{LLM: fake.Config(), Prompts: []string{prompt}, DataDir: t.TempDir()}
}

// text is a sent message's text.
func text(c telegramtest.Call) string { return c.Params.Get("text") }

// keyboard is a sent message's inline keyboard, as its buttons' callback data.
func keyboard(t *testing.T, c telegramtest.Call) []string {
	t.Helper()
	var m struct {
		InlineKeyboard [][]struct {
			Text string `json:"text"`
			Data string `json:"callback_data"`
		} `json:"inline_keyboard"`
	}
	if raw := c.Params.Get("reply_markup"); raw != "" {
		if err := json.Unmarshal([]byte(raw), &m); err != nil {
			t.Fatalf("reply_markup %s: %v", raw, err)
		}
	}
	var out []string
	for _, row := range m.InlineKeyboard {
		for _, b := range row {
			out = append(out, b.Data)
		}
	}
	return out
}

func TestTuningSessionOnTelegram(t *testing.T) {
	tg := telegramtest.New(t, &atomic.Int64{})
	cfg := telegramConfig(t, tg, "7, @someone_else")
	a := startWith(t, cfg)
	api := a.URL() + "/api/v1"
	const chat, meg = 100, 7
	sent := 0
	next := func() telegramtest.Call {
		t.Helper()
		sent++
		return tg.Await("sendMessage", sent)[sent-1]
	}

	cmds := tg.Await("setMyCommands", 1)[0].Params.Get("commands")
	for _, c := range []string{"improve", "print", "score", "export_json", "ack", "help"} {
		if !strings.Contains(cmds, `"command":"`+c+`"`) {
			t.Fatalf("setMyCommands lacks %s: %s", c, cmds)
		}
	}

	// A turn, answered by the model with 👍/👎.
	tg.Message(chat, meg, "How do I process a resignation?")
	answer := next()
	buttons := keyboard(t, answer)
	if text(answer) != "How do I process a resignation?" || len(buttons) != 2 || !strings.HasPrefix(buttons[0], "r:u:") {
		t.Fatalf("the answer %q with %v", text(answer), buttons)
	}
	turnID := strings.TrimPrefix(buttons[0], "r:u:")

	// !improve and !score, as /commands.
	tg.Message(chat, meg, "/improve@hone_bot content: ask whether it is in writing")
	if r := tg.Await("setMessageReaction", 1)[0]; !strings.Contains(r.Params.Get("reaction"), telegram.AckReaction) {
		t.Fatalf("/improve acknowledged with %v", r.Params)
	}
	tg.Message(chat, meg, "/score empathy:4 clarity:5")
	if r := next(); !strings.HasPrefix(text(r), "✅ Subjective scores added!") {
		t.Fatalf("/score answered %q", text(r))
	}

	// 👎 and the correction.
	tg.Press(chat, meg, 2, "r:d:"+turnID)
	if r := next(); text(r) != learning.AskCorrectionText {
		t.Fatalf("👎 answered %q", text(r))
	}
	if edit := tg.Await("editMessageReplyMarkup", 1)[0]; !strings.Contains(edit.Params.Get("reply_markup"), "✅ 👎") {
		t.Fatalf("the keyboard after 👎: %s", edit.Params.Get("reply_markup"))
	}
	tg.Await("answerCallbackQuery", 1)
	tg.Message(chat, meg, "You should have said the resignation must be in writing")
	if r := next(); !strings.HasPrefix(text(r), "Got it! I noted") {
		t.Fatalf("the correction answered %q", text(r))
	}
	corrections := call(t, "GET", api+"/feedback/corrections", nil)
	if !strings.Contains(corrections.raw, "must be in writing") {
		t.Fatalf("corrections %d %s", corrections.status, corrections.raw)
	}

	// !print larger than a message, as a document.
	tg.Message(chat, meg, "Tell me everything: "+strings.Repeat("resignation letters and notice periods ", 60))
	next()
	tg.Message(chat, meg, "/print")
	doc := tg.Await("sendDocument", 1)[0]
	if !strings.HasPrefix(doc.FileName, "hone-session-") || !strings.HasSuffix(doc.FileName, ".csv") || len(doc.FileData) < 4096 ||
		!strings.Contains(string(doc.FileData), "ask whether it is in writing") {
		t.Fatalf("!print sent %s of %d bytes", doc.FileName, len(doc.FileData))
	}

	// An alert, delivered after its permit, acknowledged.
	rec := call(t, "POST", api+"/alerts", map[string]any{"conversation_id": "telegram:100", "type": "reminder", "text": "Review the open cases"})
	if rec.status != http.StatusCreated && rec.status != http.StatusOK {
		t.Fatalf("POST /alerts = %d %s", rec.status, rec.raw)
	}
	alertID, _ := rec.body["id"].(string)
	alert := next()
	if text(alert) != "Review the open cases" || strings.Join(keyboard(t, alert), " ") != "a:ack:"+alertID+" a:up:"+alertID+" a:down:"+alertID {
		t.Fatalf("the alert %q with %v", text(alert), keyboard(t, alert))
	}
	tg.Press(chat, meg, 9, "a:ack:"+alertID)
	tg.Await("editMessageReplyMarkup", 2)
	if got := call(t, "GET", api+"/alerts/"+alertID, nil); !strings.Contains(got.raw, `"reaction":"ack"`) || !strings.Contains(got.raw, `"tester_id":"telegram:7"`) {
		t.Fatalf("the alert's reactions: %s", got.raw)
	}

	// A stranger: one polite refusal, nothing recorded.
	tg.Message(chat+1, 666, "hello?")
	if r := next(); text(r) != bots.RefusalText {
		t.Fatalf("the stranger got %q", text(r))
	}
	tg.Message(chat+1, 666, "hello again?")

	// The platform failing: a 429 with retry_after and a 502 delay the reply, losing nothing.
	tg.FailNext("sendMessage", telegramtest.Failure{Status: 429, RetryAfter: 1}, telegramtest.Failure{Status: 502})
	tg.Message(chat, meg, "What about notice periods?")
	if r := next(); text(r) != "What about notice periods?" {
		t.Fatalf("after 429 and 502: %q", text(r))
	}

	// A restart mid-conversation: the message sent while hone was down is
	// handled once, and nothing before it again.
	a.Close()
	tg.Message(chat, meg, "/session")
	a = startWith(t, cfg)
	if r := next(); !strings.Contains(text(r), "Current Session") || !strings.Contains(text(r), "Turns: 3") {
		t.Fatalf("/session after the restart: %q", text(r))
	}
	tg.Message(chat, meg, "/help")
	if r := next(); !strings.Contains(text(r), "!improve") {
		t.Fatalf("/help: %q", text(r))
	}
	time.Sleep(100 * time.Millisecond)
	if n := len(tg.Of("sendMessage")); n != sent {
		t.Fatalf("%d messages sent, want %d: an update was handled twice, or the stranger answered twice", n, sent)
	}
	if s, err := a.DB.Capture().CurrentSession(context.Background(), "telegram:101"); err == nil {
		t.Fatalf("the stranger's conversation was recorded: %+v", s)
	}
}

func TestTelegramWebhookAndRelay(t *testing.T) {
	tg := telegramtest.New(t, &atomic.Int64{})
	cfg := telegramConfig(t, tg, "")
	cfg.PublicURL = "https://hone.example.com"
	relayed := make(chan map[string]string, 1)
	relayApp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req map[string]string
		json.NewDecoder(r.Body).Decode(&req)
		relayed <- req
		json.NewEncoder(w).Encode(map[string]any{"response": "From the application: " + req["message"], "prompt_version": "app-v3",
			"context": map[string]any{"docs": []string{"handbook#4"}}})
	}))
	defer relayApp.Close()
	t.Setenv("HONE_CHAT_RELAY_URL", relayApp.URL)
	a := startWith(t, cfg)
	set := tg.Await("setWebhook", 1)[0]
	if set.Params.Get("url") != "https://hone.example.com/telegram/webhook" || set.Params.Get("secret_token") == "" {
		t.Fatalf("setWebhook %v", set.Params)
	}
	update := `{"update_id": 77, "message": {"message_id": 3, "date": 1, "text": "hello", "from": {"id": 7, "first_name": "Meg"}, "chat": {"id": 100, "type": "private"}}}`
	for secret, want := range map[string]int{"nope": http.StatusUnauthorized, set.Params.Get("secret_token"): http.StatusOK} {
		// Until setWebhook has returned to the adapter, an update is
		// answered 503, which Telegram retries: so does this test.
		for deadline := time.Now().Add(10 * time.Second); ; {
			req, _ := http.NewRequest("POST", a.URL()+telegram.WebhookPath, strings.NewReader(update))
			req.Header.Set("X-Telegram-Bot-Api-Secret-Token", secret)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode == http.StatusServiceUnavailable && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
				continue
			}
			if res.StatusCode != want {
				t.Fatalf("webhook with secret %q: %d, want %d", secret, res.StatusCode, want)
			}
			break
		}
	}
	if got := <-relayed; got["conversation_id"] != "telegram:100" || got["tester_id"] != "telegram:7" || got["platform"] != "telegram" || got["message"] != "hello" {
		t.Fatalf("the relay got %v", got)
	}
	answer := tg.Await("sendMessage", 1)[0]
	if text(answer) != "From the application: hello" || len(keyboard(t, answer)) != 2 {
		t.Fatalf("the relayed answer %q %v", text(answer), keyboard(t, answer))
	}
	s, err := a.DB.Capture().CurrentSession(context.Background(), "telegram:100")
	if err != nil || s.PromptVersion != "app-v3" {
		t.Fatalf("the relayed turn's session %+v %v", s, err)
	}
	if len(tg.Of("getUpdates")) != 0 {
		t.Fatal("polled in webhook mode")
	}
}

func TestBadChatSettingsStopHone(t *testing.T) {
	for name, env := range map[string][2]string{
		"relay url":     {"HONE_CHAT_RELAY_URL", "ftp://app"},
		"relay timeout": {"HONE_CHAT_RELAY_TIMEOUT", "soon"},
		"token":         {"HONE_TELEGRAM_TOKEN", "not-a-token"},
	} {
		t.Run(name, func(t *testing.T) {
			if env[0] == "HONE_CHAT_RELAY_TIMEOUT" {
				t.Setenv("HONE_CHAT_RELAY_URL", "http://127.0.0.1:1/relay")
			}
			t.Setenv(env[0], env[1])
			_, err := app.Open(context.Background(), config.Config{Addr: "127.0.0.1:0", DataDir: t.TempDir(), MaxBodyBytes: 1 << 20, MessageLimit: 4096}, nil)
			if err == nil || !strings.Contains(err.Error(), env[0]) {
				t.Fatalf("%s=%s: %v", env[0], env[1], err)
			}
		})
	}
}
