package bots_test

import (
	"context"
	"github.com/honehq/hone"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/honehq/hone/internal/alerts"
	"github.com/honehq/hone/internal/bots"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/chat"
	"github.com/honehq/hone/internal/learning"
	"github.com/honehq/hone/internal/llm"
	"github.com/honehq/hone/internal/llm/llmtest"
	"github.com/honehq/hone/internal/playground"
	"github.com/honehq/hone/internal/score"
	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/storage/storagetest"
	"github.com/honehq/hone/internal/tuning"
)

var ctx = context.Background()

// fixture is the bot over hone's real services on SQLite, the model an
// in-process fake that echoes.
type fixture struct {
	db     *storage.DB
	bot    *bots.Service
	alerts *alerts.Service
	llm    *llmtest.Server
	router *chat.Router
	turns  *capture.Recorder
}

func newFixture(t *testing.T, allow string) *fixture {
	t.Helper()
	f := &fixture{db: storagetest.SQLite(t), llm: llmtest.New(t)}
	f.llm.SetHandler(llmtest.Echo)
	path := filepath.Join(t.TempDir(), "PROMPT.md")
	if err := os.WriteFile(path, []byte("You are ERA."), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := playground.LoadPrompt(path)
	if err != nil {
		t.Fatal(err)
	}
	client, err := llm.New(f.llm.Config(), f.db.LLMCalls())
	if err != nil {
		t.Fatal(err)
	}
	scores := score.NewService(f.db.Scores(), score.Options{Turns: f.db.Capture()})
	learn := learning.NewService(f.db.Learning(), learning.Options{LLMError: llm.Config{}.Validate(), Scores: scores})
	scores.Follow(learn)
	f.router = chat.NewRouter(nil, nil)
	f.alerts = alerts.NewService(f.db.Alerts(), f.db.Capture(), alerts.Options{})
	f.alerts.Register(f.router)
	tuning.NewService(f.db.Capture(), f.db.Tuning(), tuning.Options{}).Register(f.router)
	learn.Register(f.router)
	f.turns = capture.NewRecorder(f.db.Capture(), nil)
	g := playground.New(f.turns, f.router, client, p, nil)
	g.Augment(learn)
	f.bot = bots.NewService(bots.Options{Answer: g, Router: f.router, Ratings: learn, Alerts: f.alerts, Allow: bots.ParseAllow(allow),
		Names: capture.NewNames(f.db.Capture())})
	return f
}

func in(user, text string) bots.Incoming {
	return bots.Incoming{Platform: bots.Telegram, ConversationID: "100", UserID: user, Handle: "meg_hr", UserName: "Meg", Text: text}
}

func (f *fixture) say(t *testing.T, user, text string) bots.Outgoing {
	t.Helper()
	out, err := f.bot.Message(ctx, in(user, text))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestMessagesAreAnsweredAndRecordedUnderPlatformIDs(t *testing.T) {
	f := newFixture(t, "")
	out := f.say(t, "7", "How do I process a resignation?")
	if out.Text != "How do I process a resignation?" || out.TurnID == "" || out.Refused {
		t.Fatalf("the model's answer: %+v", out)
	}
	s, err := f.db.Capture().CurrentSession(ctx, "telegram:100")
	if err != nil {
		t.Fatal(err)
	}
	turns, err := f.db.Capture().RecentTurns(ctx, s.ID, 5)
	if err != nil || len(turns) != 1 || s.TesterID != "telegram:7" || turns[0].ID != out.TurnID {
		t.Fatalf("recorded turns %+v %v", turns, err)
	}
	if out := f.say(t, "7", "!improve content: ask whether it is in writing"); !out.Ack || out.TurnID != "" {
		t.Fatalf("!improve answered %+v", out)
	}
	out = f.say(t, "7", "!print")
	if out.File == nil || out.File.Name != "hone-session-"+s.ID+".csv" || !strings.Contains(string(out.File.Data), "ask whether it is in writing") {
		t.Fatalf("!print carries %+v", out.File)
	}
	if out := f.say(t, "7", " "); !strings.HasPrefix(out.Text, "⚠️") {
		t.Fatalf("an empty message answered %+v", out)
	}
}

func TestAllowList(t *testing.T) {
	for _, tc := range []struct {
		allow string
		in    bots.Incoming
		want  bool
	}{
		{"", in("9", "hi"), true},
		{"7, 8", in("7", "hi"), true},
		{"telegram:7", in("7", "hi"), true},
		{"teams:7", in("7", "hi"), false},
		{"@Meg_HR", in("9", "hi"), true},
		{"someone", in("9", "hi"), false},
		{"meg_hr", bots.Incoming{Platform: bots.Telegram, UserID: "9"}, false},
	} {
		if got := bots.ParseAllow(tc.allow).Permits(tc.in); got != tc.want {
			t.Errorf("allow %q permits %+v = %v", tc.allow, tc.in, got)
		}
	}
}

func TestStrangersAreRefusedOnceAndNothingIsRecorded(t *testing.T) {
	f := newFixture(t, "telegram:7")
	if out := f.say(t, "666", "hello?"); !out.Refused || out.Text != bots.RefusalText {
		t.Fatalf("the stranger's first message: %+v", out)
	}
	if out := f.say(t, "666", "!print"); !out.Refused || out.Text != "" {
		t.Fatalf("the stranger's second message: %+v", out)
	}
	if out, err := f.bot.Rate(ctx, bots.Rating{Incoming: in("666", ""), TurnID: "x", Up: true}); err != nil || !out.Refused {
		t.Fatalf("the stranger's rating: %+v %v", out, err)
	}
	if _, err := f.db.Capture().CurrentSession(ctx, "telegram:100"); err == nil {
		t.Fatal("a stranger's message opened a session")
	}
	if len(f.llm.Requests()) != 0 {
		t.Fatal("a stranger's message reached the model")
	}
	if out := f.say(t, "7", "hello"); out.Refused || out.TurnID == "" {
		t.Fatalf("the listed tester: %+v", out)
	}
}

func TestRatingsAndCorrections(t *testing.T) {
	f := newFixture(t, "")
	a := f.say(t, "7", "What is the notice period for resignation?")
	if out, err := f.bot.Rate(ctx, bots.Rating{Incoming: in("7", ""), TurnID: a.TurnID, Up: true}); err != nil || !out.Ack {
		t.Fatalf("👍: %+v %v", out, err)
	}
	if out, err := f.bot.Rate(ctx, bots.Rating{Incoming: in("7", ""), TurnID: a.TurnID}); err != nil || out.Text != learning.AskCorrectionText {
		t.Fatalf("👎 without comment: %+v %v", out, err)
	}
	if out := f.say(t, "7", "You should have said the notice period depends on the contract"); !strings.HasPrefix(out.Text, "Got it!") {
		t.Fatalf("the correction after 👎: %+v", out)
	}
	b := f.say(t, "7", "And the resignation letter?")
	out, err := f.bot.Rate(ctx, bots.Rating{Incoming: in("7", ""), TurnID: b.TurnID, Comment: "It should have said the resignation letter must be in writing"})
	if err != nil || !strings.HasPrefix(out.Text, "Got it! I noted: “It should have said") {
		t.Fatalf("👎 with a comment: %+v %v", out, err)
	}
	// A comment given with the 👎 is the correction even when it does not
	// look like one: the tester wrote it in the feedback form.
	c := f.say(t, "7", "How many days of annual leave do I get?")
	out, err = f.bot.Rate(ctx, bots.Rating{Incoming: in("7", ""), TurnID: c.TurnID, Comment: "Cite the HR portal."})
	if err != nil || !strings.HasPrefix(out.Text, "Got it! I noted: “Cite the HR portal.”") {
		t.Fatalf("👎 with a short comment: %+v %v", out, err)
	}
	if out, err := f.bot.Rate(ctx, bots.Rating{Incoming: in("7", ""), TurnID: "nope", Up: true}); err != nil || !strings.HasPrefix(out.Text, "⚠️") {
		t.Fatalf("a rating of an unknown turn: %+v %v", out, err)
	}
}

func TestAlertPresses(t *testing.T) {
	f := newFixture(t, "")
	a, err := f.alerts.RecordAlert(ctx, alerts.AlertInput{ConversationID: "telegram:100", Type: "reminder", Text: "Review the open cases"})
	if err != nil {
		t.Fatal(err)
	}
	out, err := f.bot.React(ctx, bots.AlertPress{Incoming: in("7", ""), AlertID: a.ID, Reaction: alerts.ReactionAck})
	if err != nil || !out.Ack {
		t.Fatalf("Acknowledge: %+v %v", out, err)
	}
	got, err := f.alerts.Alert(ctx, a.ID)
	if err != nil || len(got.Reactions) != 1 || got.Reactions[0].TesterID != "telegram:7" || got.Reactions[0].Reaction != "ack" {
		t.Fatalf("the alert's reactions: %+v %v", got, err)
	}
	if out, _ := f.bot.React(ctx, bots.AlertPress{Incoming: in("7", ""), AlertID: "nope", Reaction: "up"}); !strings.HasPrefix(out.Text, "⚠️") {
		t.Fatalf("a press under an unknown alert: %+v", out)
	}
}

func TestWithoutAnAnswererCommandsStillWork(t *testing.T) {
	f := newFixture(t, "")
	bot := bots.NewService(bots.Options{Router: f.router, Unavailable: hone.Errorf(hone.EINVALID, "HONE_LLM_BASE_URL is not set")})
	out, err := bot.Message(ctx, in("7", "hello"))
	if err != nil || out.Text != bots.NoAnswerText+": HONE_LLM_BASE_URL is not set" {
		t.Fatalf("a message without model: %+v %v", out, err)
	}
	if out, err := bot.Message(ctx, in("7", "!help")); err != nil || !strings.Contains(out.Text, "!print") {
		t.Fatalf("!help without model: %+v %v", out, err)
	}
}

type fakeDeliverer struct{ got chan bots.Delivery }

func (d fakeDeliverer) Platform() string { return bots.Telegram }
func (d fakeDeliverer) Deliver(_ context.Context, x bots.Delivery) error {
	d.got <- x
	return nil
}

func TestDeliverersRouteByPlatformPrefix(t *testing.T) {
	ds := bots.NewDeliverers(nil)
	d := fakeDeliverer{got: make(chan bots.Delivery, 1)}
	ds.Add(d)
	if ds.Deliver(ctx, "teams:abc", "a1", "x") || ds.Deliver(ctx, "plain", "a1", "x") {
		t.Fatal("delivered to a platform without deliverer")
	}
	if !ds.Deliver(ctx, "telegram:-1001", "a2", "Review") {
		t.Fatal("telegram alert not taken")
	}
	ds.Wait()
	if got := <-d.got; got != (bots.Delivery{ConversationID: "-1001", AlertID: "a2", Text: "Review"}) {
		t.Fatalf("delivered %+v", got)
	}
}

// failingNamer cannot keep names.
type failingNamer struct{}

func (failingNamer) SetTesterName(context.Context, string, string) error {
	return hone.Errorf(hone.EUNAVAILABLE, "the database is down")
}

// The display name a platform gives is kept for pages and follows a
// change; a name that cannot be kept does not stop the message.
func TestTesterNamesKept(t *testing.T) {
	f := newFixture(t, "")
	f.say(t, "7", "What is the notice period?")
	renamed := in("7", "And for managers?")
	renamed.UserName = "Meg Bowen"
	if _, err := f.bot.Message(ctx, renamed); err != nil {
		t.Fatal(err)
	}
	list, err := f.db.Capture().ListSessions(ctx, capture.SessionFilter{})
	if err != nil || len(list) != 1 || list[0].TesterID != "telegram:7" || list[0].TesterName != "Meg Bowen" {
		t.Fatalf("sessions: %+v %v", list, err)
	}

	down := bots.NewService(bots.Options{Router: f.router, Names: failingNamer{}})
	if out, err := down.Message(ctx, in("7", "!help")); err != nil || out.Text == "" {
		t.Fatalf("a message whose name could not be kept: %+v %v", out, err)
	}
}
