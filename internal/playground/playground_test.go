package playground_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/chat"
	"github.com/honehq/hone/internal/llm"
	"github.com/honehq/hone/internal/llm/llmtest"
	"github.com/honehq/hone/internal/playground"
	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/storage/storagetest"
	"github.com/honehq/hone/internal/tuning"
)

var meg = capture.Tester{ConversationID: "terminal:meg", TesterID: "meg", TesterEmail: "meg@example.com"}

type fixture struct {
	g      *playground.Chat
	db     *storage.DB
	llm    *llmtest.Server
	prompt string
}

func setup(t testing.TB) *fixture {
	t.Helper()
	f := &fixture{db: storagetest.SQLite(t), llm: llmtest.New(t), prompt: filepath.Join(t.TempDir(), "MASTER_PROMPT.md")}
	writePrompt(t, f.prompt, "You are ERA, an HR assistant.")
	p, err := playground.LoadPrompt(f.prompt)
	if err != nil {
		t.Fatal(err)
	}
	client, err := llm.New(f.llm.Config(), f.db.LLMCalls())
	if err != nil {
		t.Fatal(err)
	}
	router := chat.NewRouter(nil, nil)
	tuning.NewService(f.db.Capture(), f.db.Tuning(), tuning.Options{}).Register(router)
	f.g = playground.New(capture.NewRecorder(f.db.Capture(), nil), router, client, p, nil)
	return f
}

func writePrompt(t testing.TB, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Duration(len(text)) * time.Second)
	os.Chtimes(path, later, later)
}

func (f *fixture) send(t *testing.T, text string) chat.Reply {
	t.Helper()
	r, err := f.g.Send(context.Background(), meg, text, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestChatTurnsCarryHistoryAndBecomeTurns(t *testing.T) {
	f := setup(t)
	f.llm.Push(llmtest.Text("First answer."), llmtest.Text("Second answer."))
	open, err := f.g.Open(context.Background(), meg)
	if err != nil {
		t.Fatal(err)
	}
	r1 := f.send(t, "My employee didn't show up")
	r2 := f.send(t, "I called once")
	if r1.Text != "First answer." || r2.Text != "Second answer." || r1.Command || r1.SessionID != open.ID || r2.SessionID != open.ID {
		t.Fatalf("replies %+v %+v, opened %s", r1, r2, open.ID)
	}
	reqs := f.llm.Requests()
	last := reqs[len(reqs)-1].Messages
	roles := []string{}
	for _, m := range last {
		roles = append(roles, m.Role+":"+m.Content)
	}
	want := []string{"system:You are ERA, an HR assistant.", "user:My employee didn't show up", "assistant:First answer.", "user:I called once"}
	if !slices.Equal(roles, want) {
		t.Fatalf("messages sent = %q, want %q", roles, want)
	}
	var turns []*tuning.Turn
	f.db.Tuning().EachTurn(context.Background(), open.ID, func(turn *tuning.Turn) error { turns = append(turns, turn); return nil })
	if len(turns) != 2 || turns[1].UserMessage != "I called once" || turns[1].Response != "Second answer." || turns[1].ProcessingTimeMS == nil {
		t.Fatalf("turns = %+v", turns)
	}
	var recorded []capture.Message
	if err := json.Unmarshal(turns[1].Messages, &recorded); err != nil {
		t.Fatalf("messages %s: %v", turns[1].Messages, err)
	}
	sent := []string{}
	for _, m := range recorded {
		sent = append(sent, m.Role+":"+m.Text())
	}
	if !slices.Equal(sent, append(want, "assistant:Second answer.")) || turns[1].Source != capture.SourceChat || turns[1].Model == "" ||
		turns[1].Usage == nil || turns[1].Usage.TotalTokens == 0 || turns[1].LatencyMS == nil {
		t.Fatalf("recorded messages %q, source %q, model %q, usage %+v, latency %v", sent, turns[1].Source, turns[1].Model,
			turns[1].Usage, turns[1].LatencyMS)
	}
	var meta map[string]string
	json.Unmarshal(turns[1].Metadata, &meta)
	calls, _ := f.db.LLMCalls().ListCalls(context.Background(), llm.CallFilter{})
	if meta["llm_call_id"] == "" || len(calls) != 2 || calls[0].ID != meta["llm_call_id"] || calls[0].Purpose != "chat" || calls[0].CauseID != open.ID {
		t.Fatalf("turn metadata %v, calls %+v", meta, calls)
	}
	s, _ := f.db.Capture().FindSession(context.Background(), open.ID)
	if _, version, _ := f.g.Prompt().Current(); s.PromptVersion != version || len(version) != 12 {
		t.Fatalf("session version %q, prompt version %q", s.PromptVersion, version)
	}
}

func TestCommandsWorkInTheChatAndResetClearsHistory(t *testing.T) {
	f := setup(t)
	f.send(t, "question one")
	if r := f.send(t, "!improve tone: too formal"); !r.Ack || !r.Command {
		t.Fatalf("!improve = %+v", r)
	}
	if r := f.send(t, "!print"); !strings.Contains(r.Text, "```csv\n"+strings.Join(tuning.CSVHeader("Bot"), ",")) || !strings.Contains(r.Text, "too formal,tone") {
		t.Fatalf("!print = %q", r.Text)
	}
	before := len(f.llm.Requests())
	reset := f.send(t, "!reset")
	if len(f.llm.Requests()) != before {
		t.Fatal("a command reached the model")
	}
	f.send(t, "fresh start")
	reqs := f.llm.Requests()
	if got := reqs[len(reqs)-1].Messages; len(got) != 2 || got[1].Content != "fresh start" {
		t.Fatalf("history not cleared by !reset: %+v", got)
	}
	if s, _ := f.db.Capture().CurrentSession(context.Background(), meg.ConversationID); s.ID != reset.SessionID || s.TotalTurns != 1 {
		t.Fatalf("current session %+v, reset to %s", s, reset.SessionID)
	}
}

func TestEditingThePromptStartsANewSession(t *testing.T) {
	f := setup(t)
	first := f.send(t, "hello")
	writePrompt(t, f.prompt, "You are ERA. Ask clarifying questions first.")
	second := f.send(t, "hello again")
	if second.SessionID == first.SessionID {
		t.Fatal("an edited prompt kept the session")
	}
	reqs := f.llm.Requests()
	if got := reqs[len(reqs)-1].Messages; got[0].Content != "You are ERA. Ask clarifying questions first." || len(got) != 2 {
		t.Fatalf("new prompt or history wrong: %+v", got)
	}
	if old, _ := f.db.Capture().FindSession(context.Background(), first.SessionID); old.End == nil {
		t.Fatal("the old version's session was not ended")
	}
}

func TestCutOffAnswerIsShownMarkedAndKept(t *testing.T) {
	f := setup(t)
	f.llm.Push(llmtest.Reply{Content: "Step one: document the", FinishReason: "length"}, llmtest.Text("Whole answer."))
	var streamed strings.Builder
	r, err := f.g.Send(context.Background(), meg, "What do I do?", func(d string) { streamed.WriteString(d) })
	if err != nil {
		t.Fatal(err)
	}
	want := "Step one: document the\n\n⚠️ Cut off: the answer reached its limit of 4096 tokens (HONE_LLM_MAX_TOKENS_CHAT)."
	if r.Failed || r.TurnID == "" || r.Text != want || streamed.String() != want {
		t.Fatalf("reply %+v, streamed %q; want %q", r, streamed.String(), want)
	}
	if b := f.llm.Requests()[0].MaxTokens; b == nil || *b != 4096 {
		t.Errorf("chat request max_tokens %v, want 4096", b)
	}
	if whole := f.send(t, "And then?"); whole.Text != "Whole answer." {
		t.Errorf("a whole answer is marked: %q", whole.Text)
	}
	var turns []*tuning.Turn
	f.db.Tuning().EachTurn(context.Background(), r.SessionID, func(turn *tuning.Turn) error { turns = append(turns, turn); return nil })
	var meta map[string]string
	json.Unmarshal(turns[0].Metadata, &meta)
	if len(turns) != 2 || turns[0].Response != "Step one: document the" || meta["finish_reason"] != "length" {
		t.Fatalf("turns %+v, metadata %v", turns, meta)
	}
	calls, _ := f.db.LLMCalls().ListCalls(context.Background(), llm.CallFilter{})
	if len(calls) != 2 || calls[1].Error != "" || calls[1].Response.FinishReason != "length" || *calls[1].Request.MaxTokens != 4096 {
		t.Fatalf("calls %+v", calls)
	}
}

func TestModelErrorKeepsTheSession(t *testing.T) {
	f := setup(t)
	ok := f.send(t, "first")
	for range 4 {
		f.llm.Push(llmtest.Error(500, "upstream exploded"))
	}
	r := f.send(t, "second")
	if !r.Failed || !strings.HasPrefix(r.Text, playground.ModelFailedText) || r.SessionID != ok.SessionID || strings.Contains(r.Text, "goroutine") {
		t.Fatalf("model failure reply = %+v", r)
	}
	again := f.send(t, "third")
	s, _ := f.db.Capture().CurrentSession(context.Background(), meg.ConversationID)
	if again.Failed || again.SessionID != ok.SessionID || s.TotalTurns != 2 {
		t.Fatalf("after recovery: %+v, session %+v", again, s)
	}
	reqs := f.llm.Requests()
	if got := reqs[len(reqs)-1].Messages; len(got) != 4 || got[1].Content != "first" || got[3].Content != "third" {
		t.Fatalf("history after a failure: %+v", got)
	}
}

// BenchmarkPlaygroundOverhead compares a chat turn through the playground (history,
// LLM call, turn recorded in SQLite) with the bare LLM call against the same
// instant fake provider, alternating the two, and reports the medians and the
// overhead the playground adds.
func BenchmarkPlaygroundOverhead(b *testing.B) {
	f := setup(b)
	client, _ := llm.New(f.llm.Config(), nil)
	ctx := context.Background()
	req := llm.Request{Purpose: "chat", Messages: []llm.Message{{Role: "system", Content: "You are ERA."}, {Role: "user", Content: "hi"}}}
	var direct, through []time.Duration
	for b.Loop() {
		start := time.Now()
		if _, err := client.Stream(ctx, req, nil); err != nil {
			b.Fatal(err)
		}
		direct = append(direct, time.Since(start))
		start = time.Now()
		if r, err := f.g.Send(ctx, meg, "My employee didn't show up for 3 days", nil); err != nil || r.Failed {
			b.Fatalf("%+v %v", r, err)
		}
		through = append(through, time.Since(start))
	}
	median := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2].Microseconds()) / 1000
	}
	md, mg := median(direct), median(through)
	b.ReportMetric(md, "llm-ms")
	b.ReportMetric(mg, "playground-ms")
	b.ReportMetric(mg-md, "overhead-ms")
}
