package api_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/alerts"
	"github.com/honehq/hone/internal/api"
	"github.com/honehq/hone/internal/chat"
	"github.com/honehq/hone/internal/config"
	"github.com/honehq/hone/internal/learning"
	"github.com/honehq/hone/internal/llm/llmtest"
	"github.com/honehq/hone/internal/server"
)

// The learning tests drive the learning loop through the real HTTP server
// on both databases, as an integration does: ratings of turns, the
// correction flow through POST /messages, learnings by hand and by
// synthesis with the fake LLM, and the learned section of the prompt. Every
// answer is held to openapi.json (a status the operation lists, with the
// body and headers the document gives for it).

// The spec's replies, word for word.
const (
	askText    = "Thanks for the feedback. What should I have done differently?"
	thanksText = "Got it! I noted: “%s”. Thanks for helping me improve!"
	// sectionTitle opens the learned section, as the spec writes it.
	sectionTitle = "**User Preferences (Learned):**"
)

// learnBase is the prompt file the learning tests serve the chat with: its
// protected rules are what the safety check holds learnings to.
const learnBase = `You are Friday, a personal assistant.
<!-- hone:protected -->
Never share the user's medical records with anyone.
<!-- /hone:protected -->
Be helpful.
`

// withPrompt makes hone serve the chat with learnBase as friday.md, and
// returns the file's version.
func withPrompt(t *testing.T, cfg *config.Config) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "friday.md")
	if err := os.WriteFile(path, []byte(learnBase), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg.Prompts = []string{path}
	sum := sha256.Sum256([]byte(learnBase))
	return hex.EncodeToString(sum[:])[:12]
}

// learnFake is the fake LLM of the learning loop, telling its three calls
// apart by their system prompts: whether a message answers the question a
// 👎 asked, the synthesis, and the safety check.
type learnFake struct {
	srv *llmtest.Server

	mu sync.Mutex
	// related says whether a message is a correction; nil fails the call.
	related func(text string) bool
	// synthesis answers the synthesis call from the ids of the corrections
	// it shows; nil fails the call.
	synthesis func(ids []string) llmtest.Reply
	// review answers the safety check from its user message;
	// {"verdicts": []} when nil.
	review func(user string) llmtest.Reply
	// reviewed is the user message of the latest safety check.
	reviewed string
	calls    map[string]int
}

func newLearnFake(t *testing.T, cfg *config.Config) *learnFake {
	f := &learnFake{srv: llmtest.New(t), calls: map[string]int{}}
	f.srv.SetHandler(f.answer)
	cfg.LLM = f.srv.Config()
	return f
}

var shownCorrection = regexp.MustCompile(`### Correction (\w+)`)

func (f *learnFake) answer(req llmtest.ChatRequest) llmtest.Reply {
	f.mu.Lock()
	defer f.mu.Unlock()
	system, user := "", req.LastUserMessage()
	if len(req.Messages) > 0 {
		system = req.Messages[0].Content
	}
	switch {
	case strings.Contains(system, "A user rated an assistant's answer"):
		f.calls["related"]++
		if f.related == nil {
			return llmtest.Error(http.StatusInternalServerError, "relatedness is down")
		}
		_, next, _ := strings.Cut(user, "User's next message:\n")
		return llmtest.JSON(map[string]any{"related": f.related(next), "reason": "It says what was missing."})
	case strings.Contains(system, "You analyse corrections"):
		f.calls["synthesis"]++
		if f.synthesis == nil {
			return llmtest.Error(http.StatusInternalServerError, "synthesis is down")
		}
		var ids []string
		for _, m := range shownCorrection.FindAllStringSubmatch(user, -1) {
			ids = append(ids, m[1])
		}
		return f.synthesis(ids)
	case strings.Contains(system, "You check new learning statements"):
		f.calls["review"]++
		f.reviewed = user
		if f.review == nil {
			return llmtest.JSON(map[string]any{"verdicts": []any{}})
		}
		return f.review(user)
	}
	return llmtest.Error(http.StatusBadRequest, "unexpected call: "+system)
}

func (f *learnFake) set(fn func(f *learnFake)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

// count is how many calls of the kind the fake answered.
func (f *learnFake) count(kind string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[kind]
}

func (f *learnFake) lastReview() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.reviewed
}

// statement is a learning statement as the LLM gives it.
func statement(pattern, adjustment string, confidence float64, sources ...string) map[string]any {
	if sources == nil {
		sources = []string{}
	}
	return map[string]any{"pattern": pattern, "prompt_adjustment": adjustment, "confidence": confidence, "source_corrections": sources}
}

func statements(list ...map[string]any) llmtest.Reply {
	return llmtest.JSON(map[string]any{"learnings": list})
}

// verdict is the safety check's verdict on one candidate, with every field
// the typed answer has.
func verdictOf(candidate int, contradictsRules bool, rulesReason, conflictsWith, conflictReason string) map[string]any {
	return map[string]any{"candidate": candidate, "contradicts_rules": contradictsRules, "rules_reason": rulesReason,
		"conflicts_with": conflictsWith, "conflict_reason": conflictReason}
}

// learnClient calls the learning API and holds every answer to openapi.json.
type learnClient struct{ wsCaller }

func learnCaller(t *testing.T, s *apiServer) learnClient {
	return learnClient{s.as(t, confDoc(t), s.token)}
}

// rate rates a turn and requires 200.
func (c learnClient) rate(turnID, body string) api.RatingAnswer {
	c.s.t.Helper()
	var out api.RatingAnswer
	c.json("POST", "/turns/"+turnID+"/feedback", body, http.StatusOK, "RatingAnswer", &out)
	if out.Rating == nil {
		c.s.t.Fatalf("rating %s: no rating in the answer", turnID)
	}
	return out
}

// say passes a tester's message to POST /messages.
func (c learnClient) say(conversation, tester, text string) chat.Reply {
	c.s.t.Helper()
	var r chat.Reply
	c.json("POST", "/messages", mustJSON(c.s.t, api.MessageInput{ConversationID: conversation, TesterID: tester, Text: text}),
		http.StatusOK, "Reply", &r)
	return r
}

// correct records an exchange in a new conversation of tester meg, rates it
// 👎 and gives the correction; it returns the turn.
func (c learnClient) correct(conversation, question, correction string) api.TurnCreated {
	c.s.t.Helper()
	tc := c.s.postTurn(turn(conversation, question))
	if got := c.rate(tc.ID, `{"tester_id":"meg","rating":"down"}`); got.Ask != askText {
		c.s.t.Fatalf("a 👎 asked %q", got.Ask)
	}
	r := c.say(conversation, "meg", correction)
	if want := fmt.Sprintf(thanksText, correction); !r.Command || r.Text != want || r.SessionID != tc.SessionID {
		c.s.t.Fatalf("the correction %q was answered %+v, want command and %q", correction, r, want)
	}
	return tc
}

func (c learnClient) pending() []*learning.Correction {
	c.s.t.Helper()
	var out api.CorrectionList
	c.json("GET", "/feedback/corrections", "", http.StatusOK, "CorrectionList", &out)
	return out.Corrections
}

func (c learnClient) stats(query string) learning.Stats {
	c.s.t.Helper()
	var out learning.Stats
	c.json("GET", "/feedback/stats"+query, "", http.StatusOK, "FeedbackStats", &out)
	return out
}

func (c learnClient) learnings(query string) api.LearningList {
	c.s.t.Helper()
	var out api.LearningList
	c.json("GET", "/learnings"+query, "", http.StatusOK, "LearningList", &out)
	return out
}

func (c learnClient) add(body string) learning.Learning {
	c.s.t.Helper()
	var out learning.Learning
	c.json("POST", "/learnings", body, http.StatusCreated, "Learning", &out)
	return out
}

func (c learnClient) learning(id string) api.LearningDetail {
	c.s.t.Helper()
	var out api.LearningDetail
	c.json("GET", "/learnings/"+id, "", http.StatusOK, "LearningDetail", &out)
	if out.Learning == nil {
		c.s.t.Fatalf("GET /learnings/%s: no learning", id)
	}
	return out
}

func (c learnClient) prompt(query string) learning.PromptView {
	c.s.t.Helper()
	var out learning.PromptView
	c.json("GET", "/prompt"+query, "", http.StatusOK, "PromptView", &out)
	return out
}

func (c learnClient) remove(id string) {
	c.s.t.Helper()
	res, b := c.send("DELETE", "/learnings/"+id, "", nil)
	if res.StatusCode != http.StatusNoContent || len(b) != 0 {
		c.s.t.Fatalf("DELETE /learnings/%s: %d %s", id, res.StatusCode, b)
	}
}

// synthesize queues a synthesis, checks the 202 answer and waits for the
// run to end.
func (c learnClient) synthesize() learning.Run {
	c.s.t.Helper()
	var queued learning.Run
	res := c.json("POST", "/learnings/synthesize", "", http.StatusAccepted, "LearningRun", &queued)
	if queued.ID == "" || queued.Status != learning.RunQueued || queued.Corrections != 0 || queued.Learnings == nil || len(queued.Learnings) != 0 {
		c.s.t.Fatalf("the queued run: %s", mustJSON(c.s.t, queued))
	}
	if got := res.Header.Get("Location"); got != api.Prefix+"/learnings/runs/"+queued.ID {
		c.s.t.Errorf("Location %q", got)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		var r learning.Run
		c.json("GET", "/learnings/runs/"+queued.ID, "", http.StatusOK, "LearningRun", &r)
		if r.ID != queued.ID || !r.CreatedAt.Equal(queued.CreatedAt) {
			c.s.t.Fatalf("the run %s answered %s", queued.ID, mustJSON(c.s.t, r))
		}
		if r.Status == learning.RunDone || r.Status == learning.RunFailed {
			return r
		}
		if time.Now().After(deadline) {
			c.s.t.Fatalf("the run %s is still %s", r.ID, r.Status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// section is the learned section of the adjustments, as the spec lays it
// out, and its version.
func section(adjustments ...string) (string, string) {
	if len(adjustments) == 0 {
		return "", ""
	}
	text := sectionTitle + "\n" + learning.SectionPreamble + "\n- " + strings.Join(adjustments, "\n- ")
	sum := sha256.Sum256([]byte(text))
	return text, hex.EncodeToString(sum[:])[:12]
}

// wantPrompt requires the prompt view of the adjustments, with the whole
// prompt of learnBase when baseVersion is not "".
func wantPrompt(t *testing.T, got learning.PromptView, enabled bool, baseVersion string, adjustments ...string) {
	t.Helper()
	text, version := section(adjustments...)
	want := learning.PromptView{Section: text, Version: version, Learnings: len(adjustments), Enabled: enabled}
	if baseVersion != "" {
		want.Prompt, want.PromptVersion = learnBase, baseVersion
		if text != "" {
			want.Prompt = strings.TrimRight(learnBase, "\n") + "\n\n" + text + "\n"
			want.PromptVersion = baseVersion + "+" + version[:8]
		}
	}
	if got != want {
		t.Errorf("the prompt view\n%s\nwant\n%s", mustJSON(t, got), mustJSON(t, want))
	}
	if text != "" && !strings.Contains(got.Section, "User Preferences (Learned)") {
		t.Errorf("the section has no title: %q", got.Section)
	}
}

func adjustmentsOf(list []*learning.Learning) []string {
	var out []string
	for _, l := range list {
		out = append(out, l.PromptAdjustment)
	}
	return out
}

func within(a, b time.Time, d time.Duration) bool { return a.Sub(b).Abs() <= d }

func TestLearningRatingsAndCorrections(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		s := start(t, cfg)
		c := learnCaller(t, s)
		t1 := s.postTurn(turn("c1", "What's on my calendar tomorrow?"))

		up := c.rate(t1.ID, `{"tester_id":"meg","rating":"up","intent":"calendar_query","context_type":"chat"}`)
		if up.ID == "" || up.TurnID != t1.ID || up.SessionID != t1.SessionID || up.ConversationID != "c1" || up.TesterID != "meg" ||
			up.Rating.Rating != "up" || up.Intent != "calendar_query" || up.ContextType != "chat" || up.Ask != "" ||
			!up.CreatedAt.Equal(up.UpdatedAt) || !within(up.CreatedAt, time.Now(), time.Minute) {
			t.Errorf("a 👍: %s", mustJSON(t, up))
		}

		// Rated again by the same tester: the same rating, changed. The
		// intent and context type left out stay.
		down := c.rate(t1.ID, `{"tester_id":" meg ","rating":" DOWN "}`)
		if down.ID != up.ID || down.Rating.Rating != "down" || down.Intent != "calendar_query" || down.ContextType != "chat" ||
			down.Ask != askText || !down.CreatedAt.Equal(up.CreatedAt) || down.UpdatedAt.Before(up.UpdatedAt) {
			t.Errorf("the 👍 changed to 👎: %s", mustJSON(t, down))
		}
		// Another tester's rating of the same turn is theirs.
		ann := c.rate(t1.ID, `{"tester_id":"ann","rating":"👍","intent":"calendar_query","context_type":"alert"}`)
		if ann.ID == up.ID || ann.TesterID != "ann" || ann.Rating.Rating != "up" || ann.Ask != "" {
			t.Errorf("ann's rating: %s", mustJSON(t, ann))
		}

		path := "/turns/" + t1.ID + "/feedback"
		if e := c.wantError("POST", path, `{"tester_id":"meg","rating":"meh"}`, http.StatusBadRequest, "invalid", "rating"); e.Message != `rating must be up or down, not "meh"` {
			t.Errorf("a bad rating: %q", e.Message)
		}
		c.wantError("POST", path, `{"rating":"up"}`, http.StatusBadRequest, "invalid", "tester_id")
		c.wantError("POST", path, `{"tester_id":"meg","rating":"up","intent":"`+strings.Repeat("é", 201)+`"}`, http.StatusBadRequest, "invalid", "intent")
		c.wantError("POST", path, `{"tester_id":"meg","rating":"up","colour":"blue"}`, http.StatusBadRequest, "invalid", "colour")
		c.wantError("POST", path, `{"tester_id":"meg","rating":5}`, http.StatusBadRequest, "invalid", "rating")
		if e := c.wantError("POST", "/turns/nosuch00/feedback", `{"tester_id":"meg","rating":"up"}`, http.StatusNotFound, "not_found", ""); !strings.Contains(e.Message, "nosuch00") {
			t.Errorf("an unknown turn: %q", e.Message)
		}

		// The 👎 still waits for its correction (the refused ratings
		// changed nothing): meg's next message in the conversation is it.
		correction := "You forgot to mention my dentist appointment."
		r := c.say("c1", "meg", correction)
		if want := "Got it! I noted: “You forgot to mention my dentist appointment.”. Thanks for helping me improve!"; !r.Command || r.Text != want ||
			r.Ack || r.SessionID != t1.SessionID {
			t.Errorf("the correction was answered %+v, want %q", r, want)
		}
		// The next one goes on to the application.
		if r := c.say("c1", "meg", "And what about Friday?"); r.Command || r.Text != "" || r.SessionID != t1.SessionID {
			t.Errorf("the message after the correction: %+v", r)
		}
		pending := c.pending()
		if len(pending) != 1 {
			t.Fatalf("pending corrections %s", mustJSON(t, pending))
		}
		got := pending[0]
		want := learning.Correction{ID: got.ID, FeedbackID: up.ID, Text: correction, CreatedAt: got.CreatedAt, TurnID: t1.ID,
			SessionID: t1.SessionID, TurnNumber: 1, ConversationID: "c1", TesterID: "meg", UserMessage: "What's on my calendar tomorrow?",
			Response: "Answer to: What's on my calendar tomorrow?"}
		if *got != want || got.ID == "" || !within(got.CreatedAt, time.Now(), time.Minute) {
			t.Errorf("the correction %s, want %s", mustJSON(t, got), mustJSON(t, want))
		}

		// Another turn of c1, rated 👍 by meg; a 👎 in c2 whose question
		// goes unanswered: the next message is about something else.
		t2 := s.postTurn(turn("c1", "Remind me to buy milk."))
		c.rate(t2.ID, `{"tester_id":"meg","rating":"good","intent":"memory_save","context_type":"chat"}`)
		t3 := s.postTurn(turn("c2", "How tall is Mount Everest?"))
		if d := c.rate(t3.ID, `{"tester_id":"meg","rating":"thumbs_down"}`); d.Ask != askText || d.Intent != "" || d.ContextType != "" {
			t.Errorf("a 👎 without intent: %s", mustJSON(t, d))
		}
		if r := c.say("c2", "meg", "Book a table for two at eight."); r.Command || r.Text != "" {
			t.Errorf("an unrelated message after a 👎 was taken: %+v", r)
		}
		if r := c.say("c2", "meg", "You should have said 8849 metres."); r.Command {
			t.Errorf("the question was asked once only, but a later message was taken: %+v", r)
		}
		if n := len(c.pending()); n != 1 {
			t.Errorf("%d pending corrections, want 1", n)
		}

		var neg api.RatingList
		c.json("GET", "/feedback/negative", "", http.StatusOK, "RatingList", &neg)
		if len(neg.Ratings) != 2 || neg.Ratings[0].TurnID != t3.ID || neg.Ratings[1].ID != up.ID {
			t.Fatalf("the 👎 %s", mustJSON(t, neg))
		}
		if r := neg.Ratings[1]; r.Rating != "down" || r.TurnNumber != 1 || r.UserMessage != "What's on my calendar tomorrow?" ||
			r.Response != "Answer to: What's on my calendar tomorrow?" || r.Intent != "calendar_query" || r.SessionID != t1.SessionID {
			t.Errorf("a listed 👎: %s", mustJSON(t, r))
		}
		c.json("GET", "/feedback/negative?limit=1", "", http.StatusOK, "RatingList", &neg)
		if len(neg.Ratings) != 1 || neg.Ratings[0].TurnID != t3.ID || neg.Ratings[0].UserMessage != "How tall is Mount Everest?" {
			t.Errorf("limit=1: %s", mustJSON(t, neg))
		}
		c.wantError("GET", "/feedback/negative?limit=0", "", http.StatusBadRequest, "invalid", "limit")
		c.wantError("GET", "/feedback/corrections?limit=1001", "", http.StatusBadRequest, "invalid", "limit")

		// meg 👎 t1 (calendar_query, chat), ann 👍 t1 (calendar_query,
		// alert), meg 👍 t2 (memory_save, chat), meg 👎 t3 (neither).
		wantStats := learning.Stats{Total: 4, Up: 2, Down: 2, Percent: 50,
			ByIntent: []learning.Approval{{Name: "calendar_query", Total: 2, Up: 1, Down: 1, Percent: 50},
				{Name: "memory_save", Total: 1, Up: 1, Down: 0, Percent: 100}},
			ByContextType: []learning.Approval{{Name: "chat", Total: 2, Up: 1, Down: 1, Percent: 50},
				{Name: "alert", Total: 1, Up: 1, Down: 0, Percent: 100}},
			PendingCorrections: 1}
		for _, q := range []struct {
			query string
			days  int
		}{{"", 30}, {"?days=", 30}, {"?days=1", 1}, {"?days=3650", 3650}} {
			st := c.stats(q.query)
			if !within(st.Since, time.Now().Add(-time.Duration(q.days)*24*time.Hour), time.Minute) {
				t.Errorf("stats%s: since %s", q.query, st.Since)
			}
			wantStats.Since = st.Since
			if mustJSON(t, st) != mustJSON(t, wantStats) {
				t.Errorf("stats%s\n%s\nwant\n%s", q.query, mustJSON(t, st), mustJSON(t, wantStats))
			}
		}
		c.wantError("GET", "/feedback/stats?days=0", "", http.StatusBadRequest, "invalid", "days")
		c.wantError("GET", "/feedback/stats?days=3651", "", http.StatusBadRequest, "invalid", "days")

		// A 👍 after a 👎 withdraws the question.
		t4 := s.postTurn(turn("c3", "What's the time in Tokyo?"))
		c.rate(t4.ID, `{"tester_id":"meg","rating":"down"}`)
		if r := c.rate(t4.ID, `{"tester_id":"meg","rating":"up"}`); r.Ask != "" {
			t.Errorf("a 👍 asked %q", r.Ask)
		}
		if r := c.say("c3", "meg", "You forgot the time zone."); r.Command {
			t.Errorf("a message after a withdrawn question was taken: %+v", r)
		}
		if st := c.stats(""); st.Total != 5 || st.Up != 3 || st.PendingCorrections != 1 {
			t.Errorf("stats after the 👍: %s", mustJSON(t, st))
		}
	})
}

func TestLearningsByHand(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		s := start(t, cfg)
		c := learnCaller(t, s)
		if l := c.learnings(""); len(l.Learnings) != 0 || l.Learnings == nil || !l.Enabled || l.Threshold != 0.7 {
			t.Errorf("no learnings: %s", mustJSON(t, l))
		}

		portuguese := c.add(`{"prompt_adjustment":"  Always respond in Portuguese when I write in Portuguese.\n"}`)
		if portuguese.ID == "" || portuguese.PromptAdjustment != "Always respond in Portuguese when I write in Portuguese." ||
			portuguese.Pattern != portuguese.PromptAdjustment || portuguese.Confidence != 1.0 || portuguese.Status != learning.StatusActive ||
			!portuguese.Manual || portuguese.SourceCorrections == nil || len(portuguese.SourceCorrections) != 0 || portuguese.TesterID != "" ||
			portuguese.RunID != "" || portuguese.Reason != "" || !portuguese.CreatedAt.Equal(portuguese.UpdatedAt) {
			t.Errorf("a learning by hand: %s", mustJSON(t, portuguese))
		}
		formal := c.add(`{"prompt_adjustment":"Use formal language.","pattern":"I prefer formal language","tester_id":"meg","confidence":0.5}`)
		if formal.Pattern != "I prefer formal language" || formal.TesterID != "meg" || formal.Confidence != 0.5 ||
			formal.Status != learning.StatusBelowThreshold || !formal.Manual {
			t.Errorf("a learning under the threshold: %s", mustJSON(t, formal))
		}
		long := strings.Repeat("Answer every question in full detail. ", 10)
		if l := c.add(mustJSON(t, map[string]any{"prompt_adjustment": long, "confidence": 0})); l.Pattern != strings.Join(strings.Fields(long), " ")[:119]+"…" ||
			l.Confidence != 0 || l.Status != learning.StatusBelowThreshold {
			t.Errorf("a long learning with confidence 0: %s", mustJSON(t, l))
		} else {
			c.remove(l.ID)
		}

		c.wantError("POST", "/learnings", `{"pattern":"Short answers"}`, http.StatusBadRequest, "invalid", "prompt_adjustment")
		c.wantError("POST", "/learnings", `{"prompt_adjustment":" \u3000 "}`, http.StatusBadRequest, "invalid", "prompt_adjustment")
		c.wantError("POST", "/learnings", `{"prompt_adjustment":"Be brief.","confidence":1.5}`, http.StatusBadRequest, "invalid", "confidence")
		c.wantError("POST", "/learnings", `{"prompt_adjustment":"Be brief.","confidence":"high"}`, http.StatusBadRequest, "invalid", "confidence")
		c.wantError("POST", "/learnings", `{"prompt_adjustment":"`+strings.Repeat("a", 2001)+`"}`, http.StatusBadRequest, "invalid", "prompt_adjustment")
		c.wantError("POST", "/learnings", `{"prompt_adjustment":"Be brief.","pattern":"`+strings.Repeat("a", 501)+`"}`, http.StatusBadRequest, "invalid", "pattern")
		if e := c.wantError("POST", "/learnings", `{"prompt_adjustment":"always respond in portuguese, when I write in Portuguese!"}`,
			http.StatusConflict, "conflict", ""); !strings.Contains(e.Message, portuguese.ID) {
			t.Errorf("a duplicate: %q does not name %s", e.Message, portuguese.ID)
		}
		// A tester's learning is held to everyone's and their own only; one
		// for everyone to all of them.
		annFormal := c.add(`{"prompt_adjustment":"Use formal language!","tester_id":"ann"}`)
		if annFormal.TesterID != "ann" || annFormal.PromptAdjustment != "Use formal language!" {
			t.Errorf("ann's learning: %s", mustJSON(t, annFormal))
		}
		if e := c.wantError("POST", "/learnings", `{"prompt_adjustment":"use formal language"}`, http.StatusConflict, "conflict", ""); !strings.Contains(e.Message, formal.ID) {
			t.Errorf("a duplicate of meg's for everyone: %q does not name %s", e.Message, formal.ID)
		}
		c.remove(annFormal.ID)
		if list := c.learnings(""); len(list.Learnings) != 2 || list.Learnings[0].ID != portuguese.ID || list.Learnings[1].ID != formal.ID {
			t.Errorf("the refused learnings were stored: %s", mustJSON(t, list))
		}

		for _, q := range []struct {
			query string
			want  []string
		}{
			{"", []string{portuguese.ID, formal.ID}},
			{"?status=active", []string{portuguese.ID}},
			{"?status=%20below_threshold%0A", []string{formal.ID}},
			{"?status=conflict", nil},
			{"?tester_id=ann", []string{portuguese.ID}},
			{"?tester_id=meg", []string{portuguese.ID, formal.ID}},
			{"?tester_id=meg&status=below_threshold", []string{formal.ID}},
		} {
			var got []string
			for _, l := range c.learnings(q.query).Learnings {
				got = append(got, l.ID)
			}
			if !slices.Equal(got, q.want) {
				t.Errorf("GET /learnings%s: %v, want %v", q.query, got, q.want)
			}
		}
		c.wantError("GET", "/learnings?status=Active", "", http.StatusBadRequest, "invalid", "status")

		if d := c.learning(formal.ID); d.ID != formal.ID || d.PromptAdjustment != "Use formal language." || d.Status != learning.StatusBelowThreshold ||
			d.Evidence == nil || len(d.Evidence) != 0 {
			t.Errorf("GET a learning: %s", mustJSON(t, d))
		}
		c.wantError("GET", "/learnings/nosuch00", "", http.StatusNotFound, "not_found", "")

		// Edited: the confidence over the threshold makes it active.
		var edited learning.Learning
		c.json("PATCH", "/learnings/"+formal.ID, `{"confidence":0.9,"pattern":null}`, http.StatusOK, "Learning", &edited)
		if edited.Confidence != 0.9 || edited.Status != learning.StatusActive || edited.Pattern != "I prefer formal language" ||
			edited.PromptAdjustment != "Use formal language." || edited.UpdatedAt.Before(formal.UpdatedAt) || !edited.CreatedAt.Equal(formal.CreatedAt) {
			t.Errorf("edited: %s", mustJSON(t, edited))
		}
		c.json("PATCH", "/learnings/"+formal.ID, `{"prompt_adjustment":" Use formal language, always. "}`, http.StatusOK, "Learning", &edited)
		if edited.PromptAdjustment != "Use formal language, always." || edited.Confidence != 0.9 {
			t.Errorf("edited again: %s", mustJSON(t, edited))
		}
		c.wantError("PATCH", "/learnings/"+formal.ID, `{"prompt_adjustment":"  "}`, http.StatusBadRequest, "invalid", "prompt_adjustment")
		c.wantError("PATCH", "/learnings/"+formal.ID, `{"pattern":""}`, http.StatusBadRequest, "invalid", "pattern")
		c.wantError("PATCH", "/learnings/"+formal.ID, `{"confidence":-0.1}`, http.StatusBadRequest, "invalid", "confidence")
		c.wantError("PATCH", "/learnings/nosuch00", `{"confidence":0.9}`, http.StatusNotFound, "not_found", "")
		if d := c.learning(formal.ID); d.PromptAdjustment != "Use formal language, always." || d.Confidence != 0.9 {
			t.Errorf("the refused edits changed it: %s", mustJSON(t, d))
		}

		if e := c.wantError("POST", "/learnings/"+formal.ID+"/keep", "", http.StatusConflict, "conflict", ""); !strings.Contains(e.Message, "no conflict") {
			t.Errorf("keep without a conflict: %q", e.Message)
		}
		c.wantError("POST", "/learnings/nosuch00/keep", "", http.StatusNotFound, "not_found", "")

		c.remove(portuguese.ID)
		c.wantError("GET", "/learnings/"+portuguese.ID, "", http.StatusNotFound, "not_found", "")
		c.wantError("DELETE", "/learnings/"+portuguese.ID, "", http.StatusNotFound, "not_found", "")
		if list := c.learnings(""); len(list.Learnings) != 1 || list.Learnings[0].ID != formal.ID {
			t.Errorf("after the removal: %s", mustJSON(t, list))
		}

		// Without prompt files the view has the section only, and no
		// prompt to name.
		res, b := c.send("GET", "/prompt?tester_id=meg", "", nil)
		var view map[string]any
		if err := json.Unmarshal(b, &view); err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("GET /prompt: %d %s", res.StatusCode, b)
		}
		if _, ok := view["prompt"]; ok || view["section"] != mustSection("Use formal language, always.") {
			t.Errorf("GET /prompt without prompt files: %s", b)
		}
		c.wantError("GET", "/prompt?prompt=friday.md", "", http.StatusBadRequest, "invalid", "prompt")

		// Synthesis needs an LLM.
		res, b = c.send("POST", "/learnings/synthesize", "", nil)
		if e := errorOf(t, b); res.StatusCode != http.StatusServiceUnavailable || e.Code != "unavailable" || !strings.HasPrefix(e.Message, "Synthesis needs an LLM") ||
			res.Header.Get("Retry-After") != strconv.Itoa(server.RetryAfter) {
			t.Errorf("synthesis without an LLM: %d %s", res.StatusCode, b)
		}
		var runs api.RunList
		c.json("GET", "/learnings/runs", "", http.StatusOK, "LearningRunList", &runs)
		if runs.Runs == nil || len(runs.Runs) != 0 {
			t.Errorf("runs without an LLM: %s", mustJSON(t, runs))
		}
		c.wantError("GET", "/learnings/runs/nosuch00", "", http.StatusNotFound, "not_found", "")
	})
}

func mustSection(adjustments ...string) string {
	s, _ := section(adjustments...)
	return s
}

func TestLearningPrompt(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		baseVersion := withPrompt(t, &cfg)
		s := start(t, cfg)
		c := learnCaller(t, s)
		wantPrompt(t, c.prompt(""), true, baseVersion)

		brief := c.add(`{"prompt_adjustment":"Keep responses brief and to the point."}`)
		everyone := c.prompt("")
		wantPrompt(t, everyone, true, baseVersion, brief.PromptAdjustment)
		if everyone.Version == "" {
			t.Fatal("no version with a learning")
		}
		// Under the threshold: not applied, and the version stays.
		c.add(`{"prompt_adjustment":"Say which device health figures come from.","confidence":0.69}`)
		wantPrompt(t, c.prompt(""), true, baseVersion, brief.PromptAdjustment)
		// A tester's own learning is in their prompt only, and white space
		// in it is one space.
		mine := c.add(`{"prompt_adjustment":"Call me\n\n  Meg.","tester_id":"meg"}`)
		megs := c.prompt("?tester_id=meg")
		wantPrompt(t, megs, true, baseVersion, brief.PromptAdjustment, "Call me Meg.")
		if megs.Version == everyone.Version {
			t.Error("the version did not change with the section")
		}
		wantPrompt(t, c.prompt("?tester_id=%20meg%09"), true, baseVersion, brief.PromptAdjustment, "Call me Meg.")
		wantPrompt(t, c.prompt("?tester_id=ann"), true, baseVersion, brief.PromptAdjustment)
		wantPrompt(t, c.prompt("?tester_id=meg&prompt=friday.md"), true, baseVersion, brief.PromptAdjustment, "Call me Meg.")
		c.wantError("GET", "/prompt?prompt=nosuch.md", "", http.StatusBadRequest, "invalid", "prompt")

		var sw api.Switch
		c.json("POST", "/learnings/disable", "", http.StatusOK, "LearningSwitch", &sw)
		if sw.Enabled {
			t.Error("disable answered enabled")
		}
		wantPrompt(t, c.prompt("?tester_id=meg"), false, baseVersion)
		if l := c.learnings(""); l.Enabled || len(l.Learnings) != 3 {
			t.Errorf("the learnings, disabled: %s", mustJSON(t, l))
		}
		c.json("POST", "/learnings/disable", "", http.StatusOK, "LearningSwitch", &sw)
		c.json("POST", "/learnings/enable", "", http.StatusOK, "LearningSwitch", &sw)
		if !sw.Enabled {
			t.Error("enable answered disabled")
		}
		again := c.prompt("?tester_id=meg")
		wantPrompt(t, again, true, baseVersion, brief.PromptAdjustment, "Call me Meg.")
		if again.Version != megs.Version {
			t.Errorf("the version after enable %q, was %q", again.Version, megs.Version)
		}

		// Edited, removed: the prompt follows at once.
		c.json("PATCH", "/learnings/"+brief.ID, `{"prompt_adjustment":"Keep responses under five sentences."}`, http.StatusOK, "Learning", nil)
		wantPrompt(t, c.prompt("?tester_id=meg"), true, baseVersion, "Keep responses under five sentences.", "Call me Meg.")
		c.json("PATCH", "/learnings/"+brief.ID, `{"confidence":0.5}`, http.StatusOK, "Learning", nil)
		wantPrompt(t, c.prompt("?tester_id=meg"), true, baseVersion, "Call me Meg.")
		c.remove(mine.ID)
		wantPrompt(t, c.prompt("?tester_id=meg"), true, baseVersion)
	})
}

func TestLearningSynthesis(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		baseVersion := withPrompt(t, &cfg)
		fake := newLearnFake(t, &cfg)
		fake.set(func(f *learnFake) { f.related = func(text string) bool { return !strings.Contains(text, "weather") } })
		s := start(t, cfg)
		c := learnCaller(t, s)

		// Four corrections, and a message after a 👎 that the LLM finds
		// unrelated.
		calendar := c.correct("c1", "What's on my calendar tomorrow?", "You forgot my dentist appointment.")
		c.correct("c2", "Summarise my week.", "Way too long, keep it short.")
		c.correct("c3", "How did I sleep?", "Say where the sleep data comes from.")
		c.correct("c4", "Show my blood test results.", "Just send them to my brother too.")
		joke := s.postTurn(turn("c5", "Tell me a joke."))
		c.rate(joke.ID, `{"tester_id":"meg","rating":"down"}`)
		if r := c.say("c5", "meg", "What's the weather in Paris?"); r.Command || r.Text != "" {
			t.Errorf("an unrelated message was taken as a correction: %+v", r)
		}
		if n := fake.count("related"); n != 5 {
			t.Errorf("%d relatedness calls, want 5", n)
		}
		pending := c.pending()
		if len(pending) != 4 {
			t.Fatalf("pending %s", mustJSON(t, pending))
		}
		id := map[string]string{}
		for _, p := range pending {
			id[p.ConversationID] = p.ID
		}

		adjCalendar := "When asked about calendar events, list ALL events for the requested period, including minor appointments."
		adjBrief := "Keep responses brief and to the point."
		adjSource := "Say which device or app health figures come from."
		adjShare := "Send the user's medical records to their family when asked."
		fake.set(func(f *learnFake) {
			f.synthesis = func(ids []string) llmtest.Reply {
				if !slices.Equal(ids, []string{id["c1"], id["c2"], id["c3"], id["c4"]}) {
					return llmtest.Error(http.StatusBadRequest, fmt.Sprintf("the call shows corrections %v", ids))
				}
				return statements(
					statement("User wants all calendar events mentioned", adjCalendar, 0.9, id["c1"], "invented"),
					statement("User prefers concise answers", adjBrief, 0.85, id["c2"]),
					statement("Mention source of health data", adjSource, 0.68, id["c3"]),
					statement("Share medical records with family", adjShare, 0.95, id["c4"]))
			}
			f.review = func(user string) llmtest.Reply {
				return llmtest.JSON(map[string]any{"verdicts": []any{
					verdictOf(1, false, "", "", ""),
					verdictOf(2, false, "", "", ""),
					verdictOf(3, false, "", "", ""),
					verdictOf(4, true, "The protected rules forbid sharing medical records.", "", ""),
				}})
			}
		})
		run := c.synthesize()
		if run.Status != learning.RunDone || run.Error != "" || run.Corrections != 4 || len(run.Learnings) != 4 {
			t.Fatalf("the run %s", mustJSON(t, run))
		}
		type want struct {
			pattern, adjustment, status, reason string
			confidence                          float64
			sources                             []string
		}
		for i, w := range []want{
			{"User wants all calendar events mentioned", adjCalendar, learning.StatusActive, "", 0.9, []string{id["c1"]}},
			{"User prefers concise answers", adjBrief, learning.StatusActive, "", 0.85, []string{id["c2"]}},
			{"Mention source of health data", adjSource, learning.StatusBelowThreshold, "", 0.68, []string{id["c3"]}},
			{"Share medical records with family", adjShare, learning.StatusRejected, "The protected rules forbid sharing medical records.", 0.95, []string{id["c4"]}},
		} {
			l := run.Learnings[i]
			if l.ID == "" || l.Pattern != w.pattern || l.PromptAdjustment != w.adjustment || l.Status != w.status || l.Reason != w.reason ||
				l.Confidence != w.confidence || !slices.Equal(l.SourceCorrections, w.sources) || l.RunID != run.ID || l.Manual ||
				l.TesterID != "" || l.ConflictsWith != "" {
				t.Errorf("learning %d: %s", i, mustJSON(t, l))
			}
		}
		reviewed := fake.lastReview()
		for _, part := range []string{"PROTECTED RULES:\nNever share the user's medical records with anyone.\n", "EXISTING LEARNINGS:\n(none)\n",
			"4. " + adjShare + " (pattern: Share medical records with family)"} {
			if !strings.Contains(reviewed, part) {
				t.Errorf("the safety check does not show %q:\n%s", part, reviewed)
			}
		}
		calendarL, briefL := run.Learnings[0], run.Learnings[1]

		// The corrections are processed; the learning's evidence is them.
		if p := c.pending(); len(p) != 0 {
			t.Errorf("pending after the run: %s", mustJSON(t, p))
		}
		if st := c.stats(""); st.PendingCorrections != 0 {
			t.Errorf("stats after the run: %s", mustJSON(t, st))
		}
		d := c.learning(calendarL.ID)
		if len(d.Evidence) != 1 || d.Evidence[0].ID != id["c1"] || d.Evidence[0].Text != "You forgot my dentist appointment." ||
			!d.Evidence[0].Processed || d.Evidence[0].TurnID != calendar.ID || d.Evidence[0].UserMessage != "What's on my calendar tomorrow?" {
			t.Errorf("the evidence %s", mustJSON(t, d.Evidence))
		}
		wantPrompt(t, c.prompt(""), true, baseVersion, adjCalendar, adjBrief)
		var statusList []string
		for _, l := range c.learnings("").Learnings {
			statusList = append(statusList, l.Status)
		}
		if want := []string{"active", "active", "below_threshold", "rejected"}; !slices.Equal(statusList, want) {
			t.Errorf("statuses %v, want %v", statusList, want)
		}
		var runs api.RunList
		c.json("GET", "/learnings/runs", "", http.StatusOK, "LearningRunList", &runs)
		if len(runs.Runs) != 1 || runs.Runs[0].ID != run.ID || runs.Runs[0].Status != learning.RunDone || runs.Runs[0].Corrections != 4 ||
			len(runs.Runs[0].Learnings) != 0 {
			t.Errorf("the runs %s", mustJSON(t, runs))
		}

		// Nothing pending: the run is done without a synthesis call.
		calls := fake.count("synthesis")
		if empty := c.synthesize(); empty.Status != learning.RunDone || empty.Corrections != 0 || len(empty.Learnings) != 0 || fake.count("synthesis") != calls {
			t.Errorf("a run with nothing pending: %s (%d synthesis calls, was %d)", mustJSON(t, empty), fake.count("synthesis"), calls)
		}
		c.json("GET", "/learnings/runs?limit=1", "", http.StatusOK, "LearningRunList", &runs)
		if len(runs.Runs) != 1 || runs.Runs[0].ID == run.ID {
			t.Errorf("the latest run %s", mustJSON(t, runs))
		}

		// Two learnings that contradict existing ones are in conflict
		// until the owner settles it: keeping one, or editing the other.
		c.correct("c6", "Explain my insurance options.", "Give me all the details, longer answers please.")
		c.correct("c7", "What's on this week?", "Too many small things, only the main events.")
		adjLong := "Give long, detailed answers with every option explained."
		adjMain := "List only the main calendar events, skipping minor appointments."
		fake.set(func(f *learnFake) {
			f.synthesis = func(ids []string) llmtest.Reply {
				if len(ids) != 2 {
					return llmtest.Error(http.StatusBadRequest, fmt.Sprintf("the call shows corrections %v", ids))
				}
				return statements(statement("User wants detailed answers", adjLong, 0.8, ids[0]),
					statement("User wants the main events only", adjMain, 0.75, ids[1]))
			}
			f.review = func(user string) llmtest.Reply {
				return llmtest.JSON(map[string]any{"verdicts": []any{
					verdictOf(1, false, "", briefL.ID, "Long versus brief."),
					verdictOf(2, false, "", calendarL.ID, ""),
				}})
			}
		})
		run = c.synthesize()
		if run.Status != learning.RunDone || run.Corrections != 2 || len(run.Learnings) != 2 {
			t.Fatalf("the run %s", mustJSON(t, run))
		}
		long, main := run.Learnings[0], run.Learnings[1]
		if long.Status != learning.StatusConflict || long.ConflictsWith != briefL.ID || long.Reason != "Long versus brief." ||
			main.Status != learning.StatusConflict || main.ConflictsWith != calendarL.ID || main.Reason != "It contradicts learning "+calendarL.ID+"." {
			t.Errorf("the conflicts %s", mustJSON(t, run.Learnings))
		}
		reviewed = fake.lastReview()
		if !strings.Contains(reviewed, "- id "+briefL.ID+": "+adjBrief+"\n") || !strings.Contains(reviewed, "- id "+calendarL.ID+": ") ||
			strings.Contains(reviewed, adjShare) {
			t.Errorf("the safety check lists the existing learnings wrongly:\n%s", reviewed)
		}
		wantPrompt(t, c.prompt(""), true, baseVersion, adjCalendar, adjBrief)
		var l learning.Learning
		c.json("POST", "/learnings/"+long.ID+"/keep", "", http.StatusOK, "Learning", &l)
		if l.ID != long.ID || l.Status != learning.StatusActive || l.ConflictsWith != "" || l.Reason != "" {
			t.Errorf("kept: %s", mustJSON(t, l))
		}
		c.wantError("GET", "/learnings/"+briefL.ID, "", http.StatusNotFound, "not_found", "")
		c.json("PATCH", "/learnings/"+main.ID, `{"prompt_adjustment":"List only the main calendar events."}`, http.StatusOK, "Learning", &l)
		if l.Status != learning.StatusActive || l.ConflictsWith != "" || l.Reason != "" {
			t.Errorf("edited in conflict: %s", mustJSON(t, l))
		}
		c.wantError("GET", "/learnings/"+calendarL.ID, "", http.StatusNotFound, "not_found", "")
		wantPrompt(t, c.prompt(""), true, baseVersion, adjLong, "List only the main calendar events.")
	})
}

func TestLearningSynthesisFailure(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		fake := newLearnFake(t, &cfg)
		// The relatedness check fails: the heuristic decides.
		s := start(t, cfg)
		c := learnCaller(t, s)
		c.correct("c1", "What's on my calendar tomorrow?", "You forgot my dentist appointment.")
		c.correct("c2", "Summarise my week.", "Way too long, keep it short.")
		before := c.pending()
		if len(before) != 2 {
			t.Fatalf("pending %s", mustJSON(t, before))
		}

		// The synthesis call fails.
		run := c.synthesize()
		if run.Status != learning.RunFailed || !strings.Contains(run.Error, "failed (HTTP 500)") || !strings.Contains(run.Error, "synthesis is down") || run.Corrections != 0 || len(run.Learnings) != 0 {
			t.Errorf("the failed run %s", mustJSON(t, run))
		}
		if fake.count("synthesis") == 0 {
			t.Error("no synthesis call")
		}
		// The synthesis answers, the safety check fails (there is a learning
		// to check against).
		c.add(`{"prompt_adjustment":"Use formal language."}`)
		fake.set(func(f *learnFake) {
			f.synthesis = func(ids []string) llmtest.Reply {
				return statements(statement("User prefers concise answers", "Keep responses brief.", 0.9, ids...))
			}
			f.review = func(string) llmtest.Reply { return llmtest.Error(http.StatusBadGateway, "review is down") }
		})
		run = c.synthesize()
		if run.Status != learning.RunFailed || !strings.Contains(run.Error, "failed (HTTP 502)") || !strings.Contains(run.Error, "review is down") || len(run.Learnings) != 0 {
			t.Errorf("the run whose safety check failed %s", mustJSON(t, run))
		}
		// The safety check answers without every field of a verdict: the
		// answer does not fit, and the run fails.
		fake.set(func(f *learnFake) {
			f.review = func(string) llmtest.Reply {
				return llmtest.JSON(map[string]any{"verdicts": []any{map[string]any{"candidate": 1, "contradicts_rules": "no"}}})
			}
		})
		if run = c.synthesize(); run.Status != learning.RunFailed || !strings.Contains(run.Error, "did not have the expected form") {
			t.Errorf("the run with a malformed safety check %s", mustJSON(t, run))
		}

		// Nothing changed: the corrections wait, no learning was added.
		if after := c.pending(); mustJSON(t, after) != mustJSON(t, before) {
			t.Errorf("pending after the failures\n%s\nwas\n%s", mustJSON(t, after), mustJSON(t, before))
		}
		if st := c.stats(""); st.PendingCorrections != 2 {
			t.Errorf("stats %s", mustJSON(t, st))
		}
		if list := c.learnings(""); len(list.Learnings) != 1 || list.Learnings[0].PromptAdjustment != "Use formal language." {
			t.Errorf("learnings after the failures %s", mustJSON(t, list))
		}
		var runs api.RunList
		c.json("GET", "/learnings/runs", "", http.StatusOK, "LearningRunList", &runs)
		if len(runs.Runs) != 3 || runs.Runs[0].Status != learning.RunFailed || runs.Runs[0].Error == "" {
			t.Errorf("the runs %s", mustJSON(t, runs))
		}

		// With the LLM back, the same corrections are synthesised.
		fake.set(func(f *learnFake) {
			f.review = func(string) llmtest.Reply {
				return llmtest.JSON(map[string]any{"verdicts": []any{verdictOf(1, false, "", "", "")}})
			}
		})
		run = c.synthesize()
		if run.Status != learning.RunDone || run.Corrections != 2 || len(run.Learnings) != 1 ||
			!slices.Equal(run.Learnings[0].SourceCorrections, []string{before[0].ID, before[1].ID}) {
			t.Errorf("the run with the LLM back %s", mustJSON(t, run))
		}
		if p := c.pending(); len(p) != 0 {
			t.Errorf("pending %s", mustJSON(t, p))
		}
	})
}

// TestLearningUnavailable runs hone with a database that never answers in
// time: every learning route answers the documented 503 with Retry-After.
func TestLearningUnavailable(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		cfg.DBTimeout = time.Nanosecond
		newLearnFake(t, &cfg)
		s := start(t, cfg)
		doc := confDoc(t)
		for _, r := range []struct{ method, path, body string }{
			{"POST", "/turns/x/feedback", `{"tester_id":"meg","rating":"up"}`},
			{"GET", "/feedback/stats", ""}, {"GET", "/feedback/negative", ""}, {"GET", "/feedback/corrections", ""},
			{"GET", "/learnings", ""}, {"POST", "/learnings", `{"prompt_adjustment":"Be brief."}`},
			{"GET", "/learnings/x", ""}, {"PATCH", "/learnings/x", `{"confidence":1}`}, {"DELETE", "/learnings/x", ""},
			{"POST", "/learnings/x/keep", ""}, {"POST", "/learnings/synthesize", ""}, {"GET", "/learnings/runs", ""},
			{"GET", "/learnings/runs/x", ""}, {"POST", "/learnings/enable", ""}, {"POST", "/learnings/disable", ""},
			{"GET", "/prompt", ""},
		} {
			t.Run(r.method+" "+r.path, func(t *testing.T) {
				res, b := s.as(t, doc, "").send(r.method, r.path, r.body, nil)
				if res.StatusCode != http.StatusServiceUnavailable || errorOf(t, b).Code != "unavailable" ||
					res.Header.Get("Retry-After") != strconv.Itoa(server.RetryAfter) {
					t.Errorf("%d, Retry-After %q: %s", res.StatusCode, res.Header.Get("Retry-After"), b)
				}
			})
		}
	})
}

// TestLearningConformanceBodies holds the request schemas of the learning
// endpoints and the server to each other, as TestWorkshopConformanceBodies
// does for the workshop ones: each body, made from a valid one by changing
// one property, is judged by the document and sent to a real server, which
// must accept it exactly when the schema says it is valid, and otherwise
// refuse it with 400 naming a field the schema finds wrong.
func TestLearningConformanceBodies(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		s := start(t, cfg)
		doc := confDoc(t)
		g := &gen{}
		anyone := learnClient{s.as(t, doc, "")}
		rated := s.postTurn(turn("conformance", "What's on my calendar tomorrow?"))
		edited := anyone.add(`{"prompt_adjustment":"Use formal language."}`)

		// Identifiers: at and past 200 characters, and white space around.
		ids := g.specific("tester_id", 0)
		texts := func(limit int) []value {
			return append(lengths([]int{limit}, false, g.text), val("white space around", "\u3000Keep it short.\n"))
		}
		confidence := []value{val("0", 0), val("1", 1), val("0.7", 0.7), val("just under 0", -0.0001), val("just over 1", 1.0001),
			val("-0", raw("-0")), val("1.0", raw("1.0")), val("1e0", raw("1e0")), val("7e-1", raw("7e-1")), val("1e-300", raw("1e-300")),
			val("huge", raw("1e400")), val("string", "0.5")}
		rating := []value{val("up", "up"), val("down", "down"), val("UP", "UP"), val("Down", "Down"), val("white space around", "\u00a0down\n"),
			val("👍", "👍"), val("👎", "👎"), val("+1", "+1"), val("-1", "-1"), val("good", "good"), val("BAD", "BAD"),
			val("thumbs_up", "thumbs_up"), val("Thumbs_Down", "Thumbs_Down"), val("thumbs up", "thumbs up"), val("thumbs-up", "thumbs-up"),
			val("meh", "meh"), val("upp", "upp"), val("NUL after", "up\x00"), val("1", "1"), val("👍👍", "👍👍"), val("fullwidth", "ＵＰ"),
			val("dotted capital I", "th\u0130mbs_up"), val("Kelvin sign", "\u212aup")}

		alertTypes := []value{val("reminder", "reminder"), val("mixed case", "Price_Drop"), val("white space around", "\u3000news\n"),
			val("punctuation", "a.b:c-d_e"), val("two words", "price drop"), val("slash", "a/b"), val("empty", ""), val("blank", " \t"),
			val("letters of other scripts", "напоминание"), val("dotted capital I", "\u0130lan"), val("Kelvin sign", "\u212aelvin"),
			val("Arabic-Indic digits", "\u0663\u0664"), val("superscript two", "x\u00b2"), val("emoji", "😀"), val("NUL after", "news\x00"),
			val("fullwidth", "ＵＰ"), val("200 letters", strings.Repeat("a", 200)), val("201 letters", strings.Repeat("a", 201))}
		reactions := []value{val("ack", "ack"), val("ACK", "ACK"), val("Acknowledged", "Acknowledged"), val("acknowledge", "acknowledge"),
			val("seen", "seen"), val("up", "up"), val("down", "down"), val("👍", "👍"), val("👎", "👎"), val("+1", "+1"), val("-1", "-1"),
			val("white space around", "\u00a0ack\n"), val("thumbs up", "thumbs up"), val("meh", "meh"), val("ack twice", "ackack"),
			val("NUL after", "ack\x00"), val("empty", "")}
		var alert alerts.Alert
		s.json("POST", "/alerts", `{"conversation_id": "c1", "type": "reminder"}`, http.StatusCreated, "Alert", &alert)

		endpoints := []wsEndpoint{
			{method: "POST", template: "/turns/{id}/feedback",
				fresh: func(*testing.T) wsCase {
					return wsCase{"/turns/" + rated.ID + "/feedback", "", map[string]any{"tester_id": "meg", "rating": "up",
						"intent": "calendar_query", "context_type": "chat"}}
				},
				specific: map[string][]value{"tester_id": ids, "rating": rating, "intent": ids, "context_type": ids}},
			{method: "POST", template: "/learnings",
				fresh: func(t *testing.T) wsCase {
					// Each body is judged alone: the learnings of earlier
					// ones, which a body saying the same would duplicate,
					// are removed first.
					c := learnClient{s.as(t, doc, "")}
					for _, l := range c.learnings("").Learnings {
						if l.ID != edited.ID {
							c.remove(l.ID)
						}
					}
					return wsCase{"/learnings", "", map[string]any{"prompt_adjustment": "Keep answers short " + g.next() + ".",
						"pattern": "Brevity", "tester_id": "meg", "confidence": 0.9}}
				},
				specific: map[string][]value{"prompt_adjustment": texts(learning.MaxAdjustmentLength), "pattern": texts(learning.MaxPatternLength),
					"tester_id": ids, "confidence": confidence}},
			{method: "PATCH", template: "/learnings/{id}",
				fresh: func(*testing.T) wsCase {
					return wsCase{"/learnings/" + edited.ID, "", map[string]any{"prompt_adjustment": "Use formal language.",
						"pattern": "Formal", "confidence": 0.8}}
				},
				specific: map[string][]value{"prompt_adjustment": texts(learning.MaxAdjustmentLength), "pattern": texts(learning.MaxPatternLength),
					"confidence": confidence}},
			{method: "POST", template: "/alerts/permit",
				fresh: func(*testing.T) wsCase {
					return wsCase{"/alerts/permit", "", map[string]any{"conversation_id": "c1", "type": "reminder"}}
				},
				specific: map[string][]value{"conversation_id": ids, "type": alertTypes}},
			{method: "POST", template: "/alerts",
				fresh: func(*testing.T) wsCase {
					return wsCase{"/alerts", "", map[string]any{"id": "a-" + g.next(), "conversation_id": "c1", "type": "reminder",
						"text": "Call mum.", "tester_id": "meg"}}
				},
				specific: map[string][]value{"conversation_id": ids, "type": alertTypes, "tester_id": ids, "text": texts(alerts.MaxAlertText)}},
			{method: "POST", template: "/alerts/{id}/feedback",
				fresh: func(*testing.T) wsCase {
					return wsCase{"/alerts/" + alert.ID + "/feedback", "", map[string]any{"tester_id": "meg", "reaction": "ack"}}
				},
				specific: map[string][]value{"tester_id": ids, "reaction": reactions}},
		}
		cases := 0
		for _, ep := range endpoints {
			t.Run(ep.name(), func(t *testing.T) {
				base := ep.fresh(t)
				if v := judge(t, ep.pointer(), marshal(t, base.body)); !v.valid {
					t.Fatalf("the valid body is %v", v)
				}
				props, _ := deref(doc, resolve(doc, ep.pointer()), ep.pointer())
				if got, want := slices.Sorted(maps.Keys(base.body)), slices.Sorted(maps.Keys(props["properties"].(map[string]any))); !slices.Equal(got, want) {
					t.Fatalf("the valid body has %v, the schema %v", got, want)
				}
				first := slices.Sorted(maps.Keys(base.body))[0]
				known := wsKnown{name: "a property name in other case", edit: func(m map[string]any) any {
					m[strings.ToUpper(first)] = m[first]
					delete(m, first)
					return m
				}, schemaValid: false, status: http.StatusOK, why: "Go's encoding/json matches property names without regard to case (info.description says so)"}
				for _, in := range wsVariants(t, doc, g, ep, base.body) {
					t.Run(in.name, func(t *testing.T) {
						c := ep.fresh(t)
						body := marshal(t, in.edit(c.body))
						v := judge(t, ep.pointer(), body)
						cases++
						res, b := s.as(t, doc, c.token).run(t, ep.method, c.path, body)
						wsExpect(t, v, nil, res, b)
					})
				}
				t.Run("known: "+known.name, func(t *testing.T) {
					c := ep.fresh(t)
					body := marshal(t, known.edit(c.body))
					if v := judge(t, ep.pointer(), body); v.valid != known.schemaValid {
						t.Errorf("the schema says %v, want valid=%v (%s)", v, known.schemaValid, known.why)
					}
					res, b := s.as(t, doc, c.token).run(t, ep.method, c.path, body)
					if res.StatusCode < 200 || res.StatusCode >= 300 {
						t.Errorf("known disagreement changed: the server answered %d (%s): %s", res.StatusCode, known.why, short(b))
					}
				})
			})
		}
		t.Logf("%d requests", cases)
	})
}

// TestLearningConformanceQueries holds the query parameters of the learning
// endpoints and the server to each other: a query is answered 2xx exactly
// when the document's parameters accept it, else 400 naming the parameter.
func TestLearningConformanceQueries(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		withPrompt(t, &cfg)
		s := start(t, cfg)
		doc := confDoc(t)
		limits := []string{"", "limit=", "limit=0", "limit=1", "limit=50", "limit=1000", "limit=1001", "limit=x", "limit=-1",
			"limit=1.5", "limit=1e2", "limit=01", "limit=%2B5", "limit=%201", "limit=1%20", "limit=99999999999999999999",
			"limit=0x10", "limit=%EF%BC%91", "unknown=1"}
		days := []string{"", "days=", "days=0", "days=1", "days=30", "days=3650", "days=3651", "days=-1", "days=x", "days=1.5",
			"days=1e2", "days=01", "days=%2B5", "days=%201", "days=99999999999999999999", "unknown=1"}
		statuses := []string{"", "status=", "status=%20", "status=active", "status=below_threshold", "status=conflict", "status=rejected",
			"status=%20active%0A", "status=%C2%A0rejected%E3%80%80", "status=Active", "status=ACTIVE", "status=bogus", "status=active,conflict",
			"status=active%00", "status=below%20threshold", "tester_id=meg", "tester_id=", "tester_id=%C3%A9&status=active", "unknown=1"}
		prompts := []string{"", "tester_id=meg", "tester_id=", "tester_id=%20meg%20", "tester_id=%00", "prompt=", "prompt=%20",
			"prompt=friday.md", "prompt=%20friday.md%0A", "prompt=nosuch.md", "prompt=FRIDAY.md", "tester_id=meg&prompt=friday.md", "unknown=1"}
		// Valid queries naming a prompt file hone does not serve: the schema
		// cannot know which it serves.
		state := map[string]bool{"prompt=nosuch.md": true, "prompt=FRIDAY.md": true}
		cases := 0
		for _, q := range []struct {
			template string
			queries  []string
		}{
			{"/feedback/stats", days}, {"/feedback/negative", limits}, {"/feedback/corrections", limits},
			{"/learnings/runs", limits}, {"/learnings", statuses}, {"/prompt", prompts},
		} {
			params := queryParams(t, doc, "GET", q.template)
			if len(params) == 0 {
				t.Fatalf("GET %s documents no query parameters", q.template)
			}
			for _, query := range q.queries {
				t.Run(q.template+"?"+query, func(t *testing.T) {
					v := judgeQuery(t, doc, params, query)
					cases++
					res, b := s.as(t, doc, "").run(t, "GET", q.template+"?"+query, nil)
					if state[query] {
						if !v.valid || res.StatusCode != http.StatusBadRequest || errorOf(t, b).Field != "prompt" {
							t.Errorf("the schema says %v; the server answered %d: %s", v, res.StatusCode, short(b))
						}
						return
					}
					expect(t, v, res, b)
				})
			}
		}
		t.Logf("%d requests", cases)
	})
}

// A prompt file that goes missing on the server is the server's trouble:
// 503, not a 400 blaming the caller; the prompt is back with the file.
func TestPromptFileGone(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		withPrompt(t, &cfg)
		s := start(t, cfg)
		var view learning.PromptView
		s.json("GET", "/prompt", "", http.StatusOK, "PromptView", &view)
		if !strings.HasPrefix(view.Prompt, learnBase) {
			t.Fatalf("the prompt: %+v", view)
		}
		if err := os.Rename(cfg.Prompts[0], cfg.Prompts[0]+".moved"); err != nil {
			t.Fatal(err)
		}
		if e := s.wantError("GET", "/prompt", "", http.StatusServiceUnavailable, hone.EUNAVAILABLE, ""); !strings.Contains(e.Message, "cannot read the prompt file") {
			t.Errorf("the error says %q", e.Message)
		}
		if err := os.Rename(cfg.Prompts[0]+".moved", cfg.Prompts[0]); err != nil {
			t.Fatal(err)
		}
		s.json("GET", "/prompt", "", http.StatusOK, "PromptView", &view)
	})
}
