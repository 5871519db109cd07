package tuning_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/chat"
	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/storage/storagetest"
	"github.com/honehq/hone/internal/tuning"
)

var meg = capture.Tester{ConversationID: "conv-1", TesterID: "meg", TesterEmail: "meg@example.com"}

// conv is a tester's conversation with the tuning commands over a database.
type conv struct {
	t      *testing.T
	router *chat.Router
	svc    *tuning.Service
	db     *storage.DB
	tester capture.Tester
}

// newRouter is the chat router with the tuning commands over svc.
func newRouter(db *storage.DB, svc *tuning.Service, log *slog.Logger) *chat.Router {
	r := chat.NewRouter(log, func(ctx context.Context, id string) (string, error) {
		s, err := db.Capture().CurrentSession(ctx, id)
		if err != nil {
			return "", err
		}
		return s.ID, nil
	})
	svc.Register(r)
	return r
}

func newConv(t *testing.T, db *storage.DB, opts tuning.Options) *conv {
	if opts.PublicURL == "" {
		opts.PublicURL = "https://hone.example.com"
	}
	svc := tuning.NewService(db.Capture(), db.Tuning(), opts)
	return &conv{t: t, router: newRouter(db, svc, nil), svc: svc, db: db, tester: meg}
}

func (c *conv) say(text string) chat.Reply {
	c.t.Helper()
	r, err := c.router.Handle(context.Background(), chat.Message{Tester: c.tester, Text: text})
	if err != nil {
		c.t.Fatalf("%s: %v", text, err)
	}
	return r
}

func (c *conv) turn(user, response string) *capture.Turn {
	c.t.Helper()
	t, _, err := capture.NewRecorder(c.db.Capture(), nil).Record(context.Background(), capture.TurnInput{
		ConversationID: c.tester.ConversationID, TesterID: c.tester.TesterID, TesterEmail: c.tester.TesterEmail,
		UserMessage: user, Response: response}, "")
	if err != nil {
		c.t.Fatal(err)
	}
	return t
}

func TestImproveCommand(t *testing.T) {
	c := newConv(t, storagetest.SQLite(t), tuning.Options{})
	if r := c.say("!improve This is feedback"); r.Text != tuning.NoResponseText || r.Ack || !r.Command {
		t.Fatalf("before any turn: %+v", r)
	}
	turn := c.turn("My employee didn't show up for 3 days", "Got it — that's definitely something we need to address right away...")
	for _, tt := range []struct {
		text     string
		wantAck  bool
		wantText string
	}{
		{"!improve Should mention email option earlier in the response", true, ""},
		{"!improve tone: Too formal, should be more conversational", true, ""},
		{"!IMPROVE Citation: Missing policy reference", true, ""},
		{"!improve", false, "Usage: `!improve [<category>:] <note>`"},
		{"!improve   ", false, "Usage: `!improve"},
		{"!improve tone:", false, "Usage: `!improve"},
	} {
		r := c.say(tt.text)
		if r.Ack != tt.wantAck || !r.Command || !strings.HasPrefix(r.Text, tt.wantText) || (tt.wantText == "" && r.Text != "") {
			t.Errorf("%q: %+v", tt.text, r)
		}
		if tt.wantAck && r.SessionID != turn.SessionID {
			t.Errorf("%q: session %q, want %q", tt.text, r.SessionID, turn.SessionID)
		}
	}
	s, _ := c.db.Capture().FindSession(context.Background(), turn.SessionID)
	if s.TotalImprovements != 3 {
		t.Fatalf("total improvements = %d, want 3", s.TotalImprovements)
	}
	var notes []tuning.Improvement
	c.db.Tuning().EachTurn(context.Background(), s.ID, func(t *tuning.Turn) error { notes = t.Improvements; return nil })
	want := []tuning.Improvement{
		{Note: "Should mention email option earlier in the response"},
		{Category: "tone", Note: "Too formal, should be more conversational"},
		{Category: "citation", Note: "Missing policy reference"},
	}
	for i, w := range want {
		if notes[i].Note != w.Note || notes[i].Category != w.Category {
			t.Errorf("note %d = %q/%q, want %q/%q", i, notes[i].Category, notes[i].Note, w.Category, w.Note)
		}
	}
}

func TestNonCommandMessagesPassThrough(t *testing.T) {
	c := newConv(t, storagetest.SQLite(t), tuning.Options{})
	for _, text := range []string{"hello", "what about !improve?", "!", "! not a command"} {
		if r := c.say(text); r.Command || r.Text != "" {
			t.Errorf("%q treated as a command: %+v", text, r)
		}
	}
	turn := c.turn("q", "a")
	if r := c.say("plain"); r.SessionID != turn.SessionID {
		t.Errorf("non-command reply does not name the session: %+v", r)
	}
	_, err := c.router.Handle(context.Background(), chat.Message{Tester: capture.Tester{TesterID: "x"}, Text: "!help"})
	if hone.ErrorField(err) != "conversation_id" {
		t.Fatalf("missing conversation id: err = %v", err)
	}
}

func TestPrintCommand(t *testing.T) {
	at := time.Date(2025, 10, 24, 10, 0, 0, 0, time.UTC)
	db := storagetest.SQLite(t)
	db.Now = func() time.Time { at = at.Add(15 * time.Second); return at }
	c := newConv(t, db, tuning.Options{AppName: "ERA"})
	if r := c.say("!print"); r.Text != tuning.EmptyPrintText {
		t.Fatalf("empty session: %q", r.Text)
	}
	c.turn(`My employee said "I quit"`, "Got it — here's the next step:\n1. Document the resignation\n2. Process termination")
	c.say("!improve content: Should ask if it's in writing")
	c.say("!improve Tone is too formal")
	c.turn("I called them", "Good, next step...")
	r := c.say("!print")
	s, _ := c.db.Capture().CurrentSession(context.Background(), meg.ConversationID)
	want := "📊 **Session Export (Session ID: " + s.ID + ")**\n" +
		"Started: 2025-10-24 10:00:15\nTurns: 2\nImprovements: 2\n\n```csv\n" +
		"Turn,User Message,ERA Response,Improvement Notes,Category,Objective Score,Subjective Score,Overall Score,Timestamp\n" +
		"1,\"My employee said \"\"I quit\"\"\",\"Got it — here's the next step:\n1. Document the resignation\n2. Process termination\",Should ask if it's in writing,content,,,,2025-10-24T10:00:15Z\n" +
		"1,\"My employee said \"\"I quit\"\"\",\"Got it — here's the next step:\n1. Document the resignation\n2. Process termination\",Tone is too formal,,,,,2025-10-24T10:00:15Z\n" +
		"2,I called them,\"Good, next step...\",,,,,,2025-10-24T10:01:00Z\n" +
		"```\n\n**Copy the CSV above and paste into Claude Web Code to tune the master prompt.**"
	if r.Text != want {
		t.Fatalf("!print =\n%s\nwant\n%s", r.Text, want)
	}
	if again := c.say("!print"); again.Text != want {
		t.Fatal("!print changed the session")
	}
	if turn := c.turn("still going", "yes"); turn.Number != 3 || turn.SessionID != s.ID {
		t.Fatalf("session did not go on after !print: %+v", turn)
	}
}

func TestPrintLinksWhenTooLargeForAMessage(t *testing.T) {
	c := newConv(t, storagetest.SQLite(t), tuning.Options{MessageLimit: 2048})
	for i := range 40 {
		c.turn(fmt.Sprint("question ", i), strings.Repeat("a long answer ", 10))
	}
	for cmd, format := range map[string]string{"!print": "csv", "!export-json": "json"} {
		r := c.say(cmd)
		if len(r.Text) > 2048 || strings.Contains(r.Text, "```") {
			t.Fatalf("%s: reply of %d bytes with a code block", cmd, len(r.Text))
		}
		link := "https://hone.example.com/sessions/" + r.SessionID + "/export." + format
		if !strings.Contains(r.Text, "Turns: 40\n") || !strings.HasSuffix(r.Text, link) {
			t.Fatalf("%s: %q does not summarise and link to %s", cmd, r.Text, link)
		}
	}
	r := c.say("!print")
	if f := r.File; f == nil || f.Name != "hone-session-"+r.SessionID+".csv" || f.Link == "" ||
		!strings.HasPrefix(string(f.Data), "Turn,User Message") || !strings.Contains(string(f.Data), "\n40,question 39,") {
		t.Fatalf("!print too large carries the file %+v", r.File)
	}
	if r := c.say("!export-json"); r.File != nil {
		t.Fatalf("!export-json carries a file %q", r.File.Name)
	}
	small := newConv(t, storagetest.SQLite(t), tuning.Options{MessageLimit: 2048})
	small.turn("q", "a")
	if r := small.say("!print"); !strings.Contains(r.Text, "```csv\n") || r.File == nil ||
		!strings.Contains(r.Text, string(r.File.Data)) || r.File.Name != "hone-session-"+r.SessionID+".csv" {
		t.Fatalf("small session not inlined with its file: %q %+v", r.Text, r.File)
	}
}

func TestExportJSONCommand(t *testing.T) {
	c := newConv(t, storagetest.SQLite(t), tuning.Options{})
	c.turn("q1", "a1")
	c.say("!improve clarity: shorter")
	r := c.say("!export-json")
	body, ok := strings.CutPrefix(r.Text[strings.Index(r.Text, "```json\n"):], "```json\n")
	if !ok {
		t.Fatalf("no json block: %q", r.Text)
	}
	body = body[:strings.LastIndex(body, "```")]
	var doc struct {
		Session capture.Session `json:"session"`
		Turns   []tuning.Turn   `json:"turns"`
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil {
		t.Fatalf("%v in %s", err, body)
	}
	if doc.Session.ID != r.SessionID || len(doc.Turns) != 1 || doc.Turns[0].Improvements[0].Category != "clarity" {
		t.Fatalf("doc = %+v", doc)
	}
}

func TestResetCommand(t *testing.T) {
	c := newConv(t, storagetest.SQLite(t), tuning.Options{})
	first := c.turn("q", "a")
	for _, cmd := range []string{"!reset", "!restart"} {
		prev, _ := c.db.Capture().CurrentSession(context.Background(), meg.ConversationID)
		r := c.say(cmd)
		want := "🔄 **Session Reset Complete**\n\n- Previous session (" + prev.ID + ") ended and saved\n- New session (" +
			r.SessionID + ") started\n- Conversation history cleared\n\nReady to test! Ask me a question."
		if r.Text != want || r.SessionID == prev.ID {
			t.Fatalf("%s:\n%s\nwant\n%s", cmd, r.Text, want)
		}
		if r := c.say("!improve x"); r.Text != tuning.NoResponseText {
			t.Fatalf("%s kept the old turn for !improve: %q", cmd, r.Text)
		}
	}
	old, _ := c.db.Capture().FindSession(context.Background(), first.SessionID)
	if old.End == nil || old.TotalTurns != 1 {
		t.Fatalf("old session = %+v", old)
	}
	if next := c.turn("q", "a"); next.Number != 1 || next.SessionID == first.SessionID {
		t.Fatalf("turn after reset = %+v", next)
	}
}

func TestSessionCommands(t *testing.T) {
	c := newConv(t, storagetest.SQLite(t), tuning.Options{})
	if r := c.say("!session"); !strings.Contains(r.Text, "No session yet") {
		t.Fatalf("!session with none: %q", r.Text)
	}
	if r := c.say("!sessions"); !strings.Contains(r.Text, "no sessions yet") {
		t.Fatalf("!sessions with none: %q", r.Text)
	}
	first := c.turn("q", "a")
	c.say("!improve more")
	r := c.say("!session-summary")
	for _, want := range []string{"Session ID: " + first.SessionID, "Turns: 1", "Improvements: 1", "Duration: "} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("!session lacks %q: %q", want, r.Text)
		}
	}
	second := c.say("!reset").SessionID
	other := c.tester
	c.tester = capture.Tester{ConversationID: "conv-2", TesterID: "barry"}
	c.turn("barry's", "x")
	barrys, _ := c.db.Capture().CurrentSession(context.Background(), "conv-2")
	c.tester = other
	r = c.say("!list-sessions")
	if !strings.Contains(r.Text, "`"+second+"` (current)") || !strings.Contains(r.Text, "`"+first.SessionID+"`") ||
		strings.Contains(r.Text, barrys.ID) {
		t.Fatalf("!sessions = %q", r.Text)
	}
	if r := c.say("!resume " + barrys.ID); !strings.Contains(r.Text, "no session") {
		t.Fatalf("resumed someone else's session: %q", r.Text)
	}
	if r := c.say("!resume"); !strings.HasPrefix(r.Text, "Usage: `!resume") {
		t.Fatalf("!resume without id: %q", r.Text)
	}
	r = c.say("!resume " + first.SessionID)
	if r.SessionID != first.SessionID || !strings.Contains(r.Text, "Resumed session "+first.SessionID) {
		t.Fatalf("!resume = %+v", r)
	}
	if next := c.turn("back", "again"); next.SessionID != first.SessionID || next.Number != 2 {
		t.Fatalf("turn after resume = %+v", next)
	}
}

func TestHelpListsEveryCommand(t *testing.T) {
	c := newConv(t, storagetest.SQLite(t), tuning.Options{})
	help := c.say("!help")
	for _, name := range []string{"!improve", "!print", "!reset", "!restart", "!session", "!sessions", "!resume", "!export-json", "!help"} {
		if !strings.Contains(help.Text, "`"+name) {
			t.Errorf("!help lacks %s", name)
		}
	}
	unknown := c.say("!frobnicate now")
	if !unknown.Command || !strings.HasPrefix(unknown.Text, "Unknown command !frobnicate.") || !strings.HasSuffix(unknown.Text, help.Text) {
		t.Fatalf("unknown command: %q", unknown.Text)
	}
}

// failingStore fails every write, as a database that lost its disk would.
type failingStore struct {
	tuning.Store
}

var errDisk = errors.New("disk I/O error")

func (failingStore) AddImprovement(context.Context, string, string, string) (*tuning.Improvement, error) {
	return nil, errDisk
}

// failingSessions fails every write of sessions.
type failingSessions struct {
	capture.Store
}

func (failingSessions) ResetSession(context.Context, capture.Tester) (*capture.Session, *capture.Session, error) {
	return nil, nil, errDisk
}

func TestStorageFailureGivesTheSpecMessageAndLogs(t *testing.T) {
	db := storagetest.SQLite(t)
	var logs bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logs, nil))
	svc := tuning.NewService(failingSessions{db.Capture()}, failingStore{db.Tuning()}, tuning.Options{Logger: log})
	router := newRouter(db, svc, log)
	for _, text := range []string{"!improve tone: too formal", "!reset"} {
		r, err := router.Handle(context.Background(), chat.Message{Tester: meg, Text: text})
		if err != nil || r.Text != chat.FailedSaveText || !r.Failed || r.Ack {
			t.Fatalf("%s: %+v, %v", text, r, err)
		}
	}
	out := logs.String()
	for _, want := range []string{`"command":"improve"`, `"command":"reset"`, `"conversation_id":"conv-1"`, `"tester_id":"meg"`, "disk I/O error"} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %s:\n%s", want, out)
		}
	}
}

// TestCSVRoundTripsAdversarialText: every text comes back from the CSV as
// it was, but for the cells a spreadsheet would run as a formula, which
// start with an apostrophe; the JSON export keeps them exact.
func TestCSVRoundTripsAdversarialText(t *testing.T) {
	c := newConv(t, storagetest.SQLite(t), tuning.Options{})
	type row struct{ user, response, note, category string }
	rows := []row{
		{`He said "I quit", then left`, "Line one\nLine two\n\nline three", `note with "quotes", commas`, "tone"},
		{"=HYPERLINK(\"http://x\")", "+1, -2, @sum", "=cmd|' /C calc'!A0", ""},
		{"emoji 🎉👩🏽‍💻 and 中文", "tab\there, trailing space ", "multi\nline\nnote", "content"},
		{"  leading spaces", `""`, ",", "structure"},
		{"@SUM(A1)", "-2+3", "=2+5", "clarity"},
	}
	for _, r := range rows {
		c.turn(r.user, r.response)
		c.say("!improve " + r.category + ": " + r.note)
	}
	c.turn("no notes", "plain")
	s, _ := c.db.Capture().CurrentSession(context.Background(), meg.ConversationID)
	var buf bytes.Buffer
	if err := tuning.WriteCSV(context.Background(), &buf, c.db.Tuning(), s, "Bot"); err != nil {
		t.Fatal(err)
	}
	records, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(records[0], ","); got != "Turn,User Message,Bot Response,Improvement Notes,Category,Objective Score,Subjective Score,Overall Score,Timestamp" {
		t.Fatalf("header = %s", got)
	}
	if len(records) != len(rows)+2 {
		t.Fatalf("%d records, want %d", len(records), len(rows)+2)
	}
	for i, r := range rows {
		got := records[i+1]
		note, category := r.note, r.category
		if category == "" {
			_, note = tuning.ParseNote(": " + r.note)
		}
		safe := hone.SpreadsheetSafe
		want := []string{fmt.Sprint(i + 1), safe(r.user), safe(r.response), safe(note), category, "", "", ""}
		for j := range want {
			if got[j] != want[j] {
				t.Errorf("row %d field %d = %q, want %q", i+1, j, got[j], want[j])
			}
		}
		if _, err := time.Parse(time.RFC3339, got[8]); err != nil {
			t.Errorf("row %d timestamp %q is not ISO 8601: %v", i+1, got[8], err)
		}
	}
	if last := records[len(records)-1]; last[1] != "no notes" || last[3] != "" || last[4] != "" {
		t.Fatalf("turn without notes = %q", last)
	}
	for _, cell := range []string{records[2][1], records[2][2], records[5][1], records[5][2], records[5][3]} {
		if !strings.HasPrefix(cell, "'") {
			t.Errorf("a formula cell %q is not neutralised", cell)
		}
	}
	buf.Reset()
	if err := tuning.WriteJSON(context.Background(), &buf, c.db.Tuning(), s, time.Now()); err != nil {
		t.Fatal(err)
	}
	var exported struct {
		Turns []struct {
			UserMessage string `json:"user_message"`
			Response    string `json:"response"`
		} `json:"turns"`
	}
	if err := json.Unmarshal(buf.Bytes(), &exported); err != nil {
		t.Fatal(err)
	}
	if got := exported.Turns[1]; got.UserMessage != rows[1].user || got.Response != rows[1].response {
		t.Errorf("the JSON export changed the texts: %+v", got)
	}
}
