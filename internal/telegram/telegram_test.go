package telegram_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/honehq/hone/internal/bots"
	"github.com/honehq/hone/internal/telegram"
	"github.com/honehq/hone/internal/telegram/telegramtest"
)

// fakeBot answers as hone's bot does in shape, and records what it was
// handed with the sequence number shared with the fake API, to tell that a
// judgment was kept before anything was sent.
type fakeBot struct {
	seq *atomic.Int64

	mu       sync.Mutex
	messages []bots.Incoming
	ratings  []bots.Rating
	presses  []bots.AlertPress
	at       []int64
}

func (b *fakeBot) Message(_ context.Context, in bots.Incoming) (bots.Outgoing, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.messages = append(b.messages, in)
	b.at = append(b.at, b.seq.Add(1))
	switch {
	case in.Text == "!print":
		csv := "Turn,User Message\n" + strings.Repeat("1,a long question\n", 400)
		return bots.Outgoing{Text: "📊 export\n```csv\n" + csv + "```", File: &bots.File{Name: "hone-session-s1.csv", Data: []byte(csv), Link: "https://hone.example/x"}}, nil
	case in.Text == "!print small":
		return bots.Outgoing{Text: "📊 export\n```csv\nTurn\n1\n```", File: &bots.File{Name: "hone-session-s2.csv", Data: []byte("Turn\n1\n")}}, nil
	case in.Text == "!long":
		return bots.Outgoing{Text: strings.Repeat("line of a long answer\n", 400), TurnID: "TL"}, nil
	case strings.HasPrefix(in.Text, "!"):
		return bots.Outgoing{Ack: true}, nil
	}
	return bots.Outgoing{Text: "echo: " + in.Text, TurnID: fmt.Sprint("T", len(b.messages))}, nil
}

func (b *fakeBot) Rate(_ context.Context, r bots.Rating) (bots.Outgoing, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.ratings = append(b.ratings, r)
	b.at = append(b.at, b.seq.Add(1))
	if r.Up {
		return bots.Outgoing{Ack: true}, nil
	}
	return bots.Outgoing{Text: "Thanks for the feedback. What should I have done differently?"}, nil
}

func (b *fakeBot) React(_ context.Context, p bots.AlertPress) (bots.Outgoing, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.presses = append(b.presses, p)
	b.at = append(b.at, b.seq.Add(1))
	return bots.Outgoing{Ack: true}, nil
}

func (b *fakeBot) counts() (int, int, int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.messages), len(b.ratings), len(b.presses)
}

// memOffsets keep the next update in memory.
type memOffsets struct {
	mu sync.Mutex
	m  map[string]int64
}

func (o *memOffsets) NextUpdate(_ context.Context, bot string) (int64, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.m[bot], nil
}

func (o *memOffsets) SaveNextUpdate(_ context.Context, bot string, next int64) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.m == nil {
		o.m = map[string]int64{}
	}
	o.m[bot] = max(o.m[bot], next)
	return nil
}

type rig struct {
	api     *telegramtest.Server
	bot     *fakeBot
	offsets *memOffsets
	logs    *bytes.Buffer
	seq     *atomic.Int64
}

func newRig(t *testing.T) *rig {
	seq := &atomic.Int64{}
	return &rig{api: telegramtest.New(t, seq), bot: &fakeBot{seq: seq}, offsets: &memOffsets{}, logs: &bytes.Buffer{}, seq: seq}
}

func (r *rig) start(t *testing.T, edit func(*telegram.Options)) *telegram.Adapter {
	t.Helper()
	opts := telegram.Options{Token: telegramtest.Token, APIURL: r.api.URL(), Bot: r.bot, Offsets: r.offsets,
		Commands:    []telegram.Command{{Name: "improve", Summary: "note an improvement"}, {Name: "export-json", Summary: "export as JSON"}, {Name: "help", Summary: "list the commands"}},
		PollTimeout: time.Second, MinBackoff: time.Millisecond, MaxBackoff: 10 * time.Millisecond,
		Log: slog.New(slog.NewTextHandler(&lockedWriter{w: r.logs}, nil))}
	if edit != nil {
		edit(&opts)
	}
	a, err := telegram.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	a.Start()
	t.Cleanup(a.Stop)
	return a
}

type lockedWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// markup decodes a call's reply_markup.
func markup(t *testing.T, c telegramtest.Call) [][]map[string]string {
	t.Helper()
	var m struct {
		InlineKeyboard [][]map[string]string `json:"inline_keyboard"`
	}
	if err := json.Unmarshal([]byte(c.Params.Get("reply_markup")), &m); err != nil {
		t.Fatalf("reply_markup %q: %v", c.Params.Get("reply_markup"), err)
	}
	return m.InlineKeyboard
}

func TestMessagesAnsweredWithRatingButtons(t *testing.T) {
	r := newRig(t)
	r.start(t, nil)
	cmds := r.api.Await("setMyCommands", 1)[0].Params.Get("commands")
	if !strings.Contains(cmds, `"command":"export_json"`) || !strings.Contains(cmds, `"command":"improve"`) {
		t.Fatalf("setMyCommands %s", cmds)
	}
	r.api.Await("deleteWebhook", 1)
	r.api.Message(100, 7, "How do I process a resignation?")
	sent := r.api.Await("sendMessage", 1)[0]
	if sent.Params.Get("text") != "echo: How do I process a resignation?" || sent.Params.Get("chat_id") != "100" {
		t.Fatalf("sent %v", sent.Params)
	}
	kb := markup(t, sent)
	if len(kb) != 1 || kb[0][0]["text"] != "👍" || kb[0][0]["callback_data"] != "r:u:T1" || kb[0][1]["callback_data"] != "r:d:T1" {
		t.Fatalf("keyboard %v", kb)
	}
	r.api.Message(100, 7, "/improve@hone_bot tone: warmer")
	r.api.Message(100, 7, "/export_json")
	r.api.Message(100, 7, "/start")
	r.api.Message(100, 7, "/improve@other_bot x")
	r.api.Await("setMessageReaction", 3)
	r.api.Await("sendMessage", 2)
	r.bot.mu.Lock()
	var texts []string
	for _, m := range r.bot.messages {
		texts = append(texts, m.Text)
	}
	first := r.bot.messages[0]
	r.bot.mu.Unlock()
	if got := strings.Join(texts, "|"); got != "How do I process a resignation?|!improve tone: warmer|!export-json|!help|/improve@other_bot x" {
		t.Fatalf("the bot was handed %s", got)
	}
	if first != (bots.Incoming{Platform: "telegram", ConversationID: "100", UserID: "7", UserName: "Meg Ryan", Handle: "meg_hr", Text: "How do I process a resignation?"}) {
		t.Fatalf("incoming %+v", first)
	}
	if n := len(r.api.Of("sendMessage")); n != 2 {
		t.Fatalf("%d messages sent, want the two answers only: acknowledgements are reactions", n)
	}
	ack := r.api.Of("setMessageReaction")[0]
	if ack.Params.Get("chat_id") != "100" || ack.Params.Get("message_id") == "" || ack.Params.Get("message_id") == sent.Params.Get("reply_to_message_id") ||
		ack.Params.Get("reaction") != `[{"emoji":"`+telegram.AckReaction+`","type":"emoji"}]` {
		t.Fatalf("!improve acknowledged with %v", ack.Params)
	}
}

// An acknowledgement the chat does not take as a reaction is the short
// text instead.
func TestAcknowledgementFallsBackToText(t *testing.T) {
	r := newRig(t)
	r.api.FailNext("setMessageReaction", telegramtest.Failure{Status: 400})
	r.start(t, nil)
	r.api.Message(100, 7, "/improve tone: warmer")
	ack := r.api.Await("sendMessage", 1)[0]
	if ack.Params.Get("text") != telegram.AckText || ack.Params.Get("reply_markup") != "" {
		t.Fatalf("the acknowledgement after a refused reaction: %v", ack.Params)
	}
}

func TestPrintLargerThanAMessageIsADocument(t *testing.T) {
	r := newRig(t)
	r.start(t, nil)
	r.api.Message(100, 7, "/print")
	doc := r.api.Await("sendDocument", 1)[0]
	if doc.FileName != "hone-session-s1.csv" || !strings.HasPrefix(string(doc.FileData), "Turn,User Message\n1,a long") ||
		doc.Params.Get("chat_id") != "100" || !strings.Contains(doc.Params.Get("caption"), "https://hone.example/x") {
		t.Fatalf("document %s %d bytes %v", doc.FileName, len(doc.FileData), doc.Params)
	}
	if n := len(r.api.Of("sendMessage")); n != 0 {
		t.Fatalf("%d messages beside the document", n)
	}
}

func TestButtonPressesAreRecordedBeforeAnythingIsSent(t *testing.T) {
	r := newRig(t)
	a := r.start(t, nil)
	r.api.Press(100, 7, 55, "r:d:T9")
	r.api.Await("sendMessage", 1)
	answered := r.api.Await("answerCallbackQuery", 1)[0]
	edit := r.api.Await("editMessageReplyMarkup", 1)[0]
	r.bot.mu.Lock()
	rating, recorded := r.bot.ratings[0], r.bot.at[0]
	r.bot.mu.Unlock()
	if rating.TurnID != "T9" || rating.Up || rating.UserID != "7" || rating.ConversationID != "100" {
		t.Fatalf("rating %+v", rating)
	}
	if answered.Seq < recorded || edit.Seq < recorded {
		t.Fatal("sent before the rating was recorded")
	}
	if kb := markup(t, edit); edit.Params.Get("message_id") != "55" || kb[0][1]["text"] != "✅ 👎" || kb[0][0]["text"] != "👍" {
		t.Fatalf("keyboard after 👎: %v", kb)
	}
	if q := r.api.Of("sendMessage")[0]; !strings.HasPrefix(q.Params.Get("text"), "Thanks for the feedback") {
		t.Fatalf("after 👎: %v", q.Params)
	}
	if err := a.Deliver(context.Background(), bots.Delivery{ConversationID: "100", AlertID: "al1", Text: "Review the open cases"}); err != nil {
		t.Fatal(err)
	}
	alert := r.api.Of("sendMessage")[1]
	kb := markup(t, alert)
	if alert.Params.Get("text") != "Review the open cases" || kb[0][0]["text"] != "Acknowledge" || kb[0][0]["callback_data"] != "a:ack:al1" ||
		kb[0][1]["callback_data"] != "a:up:al1" || kb[0][2]["callback_data"] != "a:down:al1" {
		t.Fatalf("alert %v %v", alert.Params, kb)
	}
	r.api.Press(100, 7, 56, "a:ack:al1")
	edit = r.api.Await("editMessageReplyMarkup", 2)[1]
	r.bot.mu.Lock()
	press := r.bot.presses[0]
	r.bot.mu.Unlock()
	if press.AlertID != "al1" || press.Reaction != "ack" || markup(t, edit)[0][0]["text"] != "✅ Acknowledge" {
		t.Fatalf("press %+v, keyboard %v", press, markup(t, edit))
	}
	if err := a.Deliver(context.Background(), bots.Delivery{ConversationID: "not-a-chat", AlertID: "x"}); err == nil {
		t.Fatal("delivered to a conversation that is no Telegram chat")
	}
}

func TestRestartResumesAndNeverHandlesAnUpdateTwice(t *testing.T) {
	r := newRig(t)
	a := r.start(t, nil)
	r.api.Message(100, 7, "one")
	last := r.api.Message(100, 7, "two")
	r.api.Await("sendMessage", 2)
	a.Stop()
	stopped := r.seq.Load()
	if next, _ := r.offsets.NextUpdate(context.Background(), "telegram:123456789"); next != int64(last)+1 {
		t.Fatalf("next update kept %d, want %d", next, last+1)
	}
	r.api.Message(100, 7, "three")
	r.start(t, nil)
	r.api.Await("sendMessage", 3)
	time.Sleep(50 * time.Millisecond)
	if n, _, _ := r.bot.counts(); n != 3 {
		t.Fatalf("the bot was handed %d messages, want 3", n)
	}
	var resumed []string
	for _, p := range r.api.Of("getUpdates") {
		if p.Seq > stopped {
			resumed = append(resumed, p.Params.Get("offset"))
		}
	}
	if len(resumed) == 0 || resumed[0] != fmt.Sprint(last+1) {
		t.Fatalf("polling resumed from offsets %v, want %d first", resumed, last+1)
	}
}

func TestRateLimitsAndServerErrorsAreRetried(t *testing.T) {
	r := newRig(t)
	r.api.FailNext("getMe", telegramtest.Failure{Status: 502})
	r.api.FailNext("getUpdates", telegramtest.Failure{Status: 500})
	r.api.FailNext("sendMessage", telegramtest.Failure{Status: 429, RetryAfter: 1}, telegramtest.Failure{Status: 503})
	r.start(t, nil)
	start := time.Now()
	r.api.Message(100, 7, "hello")
	sent := r.api.Await("sendMessage", 1)
	if sent[0].Params.Get("text") != "echo: hello" || time.Since(start) < time.Second {
		t.Fatalf("sent %v after %s: retry_after not honoured", sent[0].Params, time.Since(start))
	}
	if n, _, _ := r.bot.counts(); n != 1 {
		t.Fatalf("the message was handled %d times", n)
	}
	if strings.Contains(r.logs.String(), telegramtest.Token) || !strings.Contains(r.logs.String(), "retrying") {
		t.Fatalf("logs:\n%s", r.logs.String())
	}
}

func TestNetworkFailuresAreSurvivedAndTheTokenNeverLogged(t *testing.T) {
	r := newRig(t)
	down := httptest.NewServer(http.NotFoundHandler())
	url := down.URL
	down.Close()
	a, err := telegram.New(telegram.Options{Token: telegramtest.Token, APIURL: url, Bot: r.bot, Offsets: r.offsets,
		MinBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond, Log: slog.New(slog.NewTextHandler(&lockedWriter{w: r.logs}, nil))})
	if err != nil {
		t.Fatal(err)
	}
	a.Start()
	time.Sleep(100 * time.Millisecond)
	a.Stop()
	if logs := r.logs.String(); strings.Contains(logs, "AAfake-token") || !strings.Contains(logs, "<token>") {
		t.Fatalf("logs:\n%s", logs)
	}
	if _, err := telegram.New(telegram.Options{Token: "nonsense"}); err == nil {
		t.Fatal("a token without bot id accepted")
	}
}

func TestWebhookChecksTheSecretToken(t *testing.T) {
	r := newRig(t)
	a := r.start(t, func(o *telegram.Options) { o.WebhookURL = "https://hone.example.com" + telegram.WebhookPath })
	set := r.api.Await("setWebhook", 1)[0]
	if set.Params.Get("url") != "https://hone.example.com/telegram/webhook" || set.Params.Get("secret_token") != a.Secret() || len(a.Secret()) < 32 {
		t.Fatalf("setWebhook %v", set.Params)
	}
	if len(r.api.Of("getUpdates")) != 0 {
		t.Fatal("polled in webhook mode")
	}
	hook := httptest.NewServer(a.Webhook())
	defer hook.Close()
	update := `{"update_id": 5000, "message": {"message_id": 3, "date": 1, "text": "hello", "from": {"id": 7, "first_name": "Meg"}, "chat": {"id": 100, "type": "private"}}}`
	post := func(secret string) int {
		req, _ := http.NewRequest(http.MethodPost, hook.URL, strings.NewReader(update))
		req.Header.Set("Content-Type", "application/json")
		if secret != "" {
			req.Header.Set("X-Telegram-Bot-Api-Secret-Token", secret)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	for _, secret := range []string{"", "wrong", a.Secret()[:len(a.Secret())-1]} {
		if code := post(secret); code != http.StatusUnauthorized {
			t.Fatalf("secret %q: %d", secret, code)
		}
	}
	if n, _, _ := r.bot.counts(); n != 0 {
		t.Fatal("an update without the secret was handled")
	}
	if code := post(a.Secret()); code != http.StatusOK {
		t.Fatalf("the right secret: %d", code)
	}
	if code := post(a.Secret()); code != http.StatusOK {
		t.Fatalf("the same update again: %d", code)
	}
	if n, _, _ := r.bot.counts(); n != 1 {
		t.Fatalf("the update was handled %d times", n)
	}
	if sent := r.api.Await("sendMessage", 1); sent[0].Params.Get("text") != "echo: hello" {
		t.Fatalf("sent %v", sent[0].Params)
	}
}

func TestSmallPrintStaysTextAndLongAnswersAreSplit(t *testing.T) {
	r := newRig(t)
	r.start(t, nil)
	r.api.Message(100, 7, "!print small")
	if m := r.api.Await("sendMessage", 1)[0]; !strings.Contains(m.Params.Get("text"), "```csv\nTurn\n1\n```") {
		t.Fatalf("small !print sent %v", m.Params)
	}
	r.api.Message(100, 7, "!long")
	parts := r.api.Await("sendMessage", 4)[1:]
	var whole string
	for i, p := range parts {
		text := p.Params.Get("text")
		if len([]rune(text)) > telegram.MaxMessage || !strings.HasSuffix(text, "\n") {
			t.Fatalf("part %d of %d characters, cut inside a line", i, len([]rune(text)))
		}
		if hasKeyboard := p.Params.Get("reply_markup") != ""; hasKeyboard != (i == len(parts)-1) {
			t.Fatalf("part %d keyboard %q", i, p.Params.Get("reply_markup"))
		}
		whole += text
	}
	if whole != strings.Repeat("line of a long answer\n", 400) || len(r.api.Of("sendDocument")) != 0 {
		t.Fatalf("the long answer arrived as %d characters", len(whole))
	}
}
