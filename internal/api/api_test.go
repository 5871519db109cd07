package api_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/honehq/hone/internal/api"
	"github.com/honehq/hone/internal/app"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/chat"
	"github.com/honehq/hone/internal/config"
	"github.com/honehq/hone/internal/server"
	"github.com/honehq/hone/internal/storage/storagetest"
	"github.com/honehq/hone/internal/tuning"
)

// eachDatabase runs fn as a subtest with a configuration on a fresh SQLite
// file, and on a fresh PostgreSQL schema when HONE_TEST_DATABASE_URL is set.
func eachDatabase(t *testing.T, fn func(t *testing.T, cfg config.Config)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) { fn(t, config.Config{DataDir: t.TempDir()}) })
	if url := os.Getenv(storagetest.PostgresURLEnv); url != "" {
		t.Run("postgres", func(t *testing.T) { fn(t, config.Config{DatabaseURL: storagetest.SchemaURL(t, url)}) })
	}
}

// eachDatabaseParallel is eachDatabase for a long test that depends on no
// timing and no process-wide state: the test and its two subtests run in
// parallel with the other such tests, so that one waits on PostgreSQL while
// another computes.
func eachDatabaseParallel(t *testing.T, fn func(t *testing.T, cfg config.Config)) {
	t.Helper()
	t.Parallel()
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		fn(t, config.Config{DataDir: t.TempDir()})
	})
	if url := os.Getenv(storagetest.PostgresURLEnv); url != "" {
		t.Run("postgres", func(t *testing.T) {
			t.Parallel()
			fn(t, config.Config{DatabaseURL: storagetest.SchemaURL(t, url)})
		})
	}
}

// server is the whole program serving HTTP on a free local port.
type apiServer struct {
	t      *testing.T
	app    *app.App
	base   string
	token  string
	client *http.Client
}

// start opens and serves hone with cfg, filling in what a test leaves unset;
// it is closed at the end of the test.
func start(t *testing.T, cfg config.Config) *apiServer {
	t.Helper()
	cfg.Addr = "127.0.0.1:0"
	if cfg.MetricsFile == "" {
		// The API's tests hold to the specs' examples, which the metrics
		// spec's own set scores.
		cfg.MetricsFile = "era-hr"
	}
	if cfg.SuggestionRoot == "" {
		cfg.SuggestionRoot = t.TempDir()
	}
	if cfg.MaxBodyBytes == 0 {
		cfg.MaxBodyBytes = config.DefaultMaxBodyBytes
	}
	if cfg.MessageLimit == 0 {
		cfg.MessageLimit = tuning.DefaultMessageLimit
	}
	log := slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
	a, err := app.Open(context.Background(), cfg, log)
	if err != nil {
		t.Fatalf("app.Open: %v", err)
	}
	if err := a.Listen(); err != nil {
		a.Close()
		t.Fatalf("Listen: %v", err)
	}
	tr := &http.Transport{MaxIdleConnsPerHost: 32}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		if err := a.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return &apiServer{t: t, app: a, base: a.URL() + api.Prefix, token: cfg.APIToken,
		client: &http.Client{Transport: tr, Timeout: time.Minute}}
}

// send makes a request to the API path with body (none when empty) and
// header, and returns the response with its body read.
func (s *apiServer) send(method, path, body string, header http.Header) (*http.Response, []byte) {
	s.t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, s.base+path, r)
	if err != nil {
		s.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header[k] = v
	}
	res, err := s.client.Do(req)
	if err != nil {
		s.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		s.t.Fatalf("%s %s: read body: %v", method, path, err)
	}
	return res, b
}

// call is send with the server's token, if it has one.
func (s *apiServer) call(method, path, body string) (*http.Response, []byte) {
	s.t.Helper()
	h := http.Header{}
	if s.token != "" {
		h.Set("Authorization", "Bearer "+s.token)
	}
	return s.send(method, path, body, h)
}

// json calls the API, requires the status and a body valid against the named
// schema of openapi.json, and decodes the body into v when v is not nil.
func (s *apiServer) json(method, path, body string, status int, schema string, v any) *http.Response {
	s.t.Helper()
	res, b := s.call(method, path, body)
	if res.StatusCode != status {
		s.t.Fatalf("%s %s: status %d, want %d; body: %s", method, path, res.StatusCode, status, b)
	}
	if ct := res.Header.Get("Content-Type"); ct != "application/json" {
		s.t.Errorf("%s %s: Content-Type %q, want application/json", method, path, ct)
	}
	validate(s.t, schema, b)
	if v != nil {
		if err := json.Unmarshal(b, v); err != nil {
			s.t.Fatalf("%s %s: decode %s: %v", method, path, b, err)
		}
	}
	return res
}

// wantError calls the API and requires an error answer with the status, code and field.
func (s *apiServer) wantError(method, path, body string, status int, code, field string) server.ErrorDetail {
	s.t.Helper()
	var e server.ErrorBody
	s.json(method, path, body, status, "ErrorBody", &e)
	if e.Error.Code != code || e.Error.Field != field {
		s.t.Errorf("%s %s: error code %q field %q, want %q and %q (message %q)",
			method, path, e.Error.Code, e.Error.Field, code, field, e.Error.Message)
	}
	if e.Error.Message == "" {
		s.t.Errorf("%s %s: error without a message", method, path)
	}
	return e.Error
}

// turn is a POST /turns body from tester meg, with extra key, value pairs.
func turn(conversation, message string, extra ...any) map[string]any {
	m := map[string]any{"conversation_id": conversation, "tester_id": "meg",
		"user_message": message, "response": "Answer to: " + message}
	for i := 0; i+1 < len(extra); i += 2 {
		m[extra[i].(string)] = extra[i+1]
	}
	return m
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// postTurn records a turn and returns the answer.
func (s *apiServer) postTurn(in map[string]any) api.TurnCreated {
	s.t.Helper()
	var out api.TurnCreated
	s.json("POST", "/turns", mustJSON(s.t, in), http.StatusCreated, "TurnCreated", &out)
	if out.ID == "" || out.SessionID == "" {
		s.t.Fatalf("POST /turns answered %+v", out)
	}
	return out
}

// say sends text as tester meg in conversation and returns hone's reply.
func (s *apiServer) say(conversation, text string) chat.Reply {
	s.t.Helper()
	return s.sayAs("meg", conversation, text)
}

func (s *apiServer) sayAs(tester, conversation, text string) chat.Reply {
	s.t.Helper()
	var r chat.Reply
	s.json("POST", "/messages", mustJSON(s.t, api.MessageInput{ConversationID: conversation, TesterID: tester, Text: text}),
		http.StatusOK, "Reply", &r)
	return r
}

func (s *apiServer) session(id string) capture.Session {
	s.t.Helper()
	var out capture.Session
	s.json("GET", "/sessions/"+id, "", http.StatusOK, "Session", &out)
	return out
}

func (s *apiServer) sessions(query string) []*capture.Session {
	s.t.Helper()
	var out api.SessionList
	s.json("GET", "/sessions"+query, "", http.StatusOK, "SessionList", &out)
	return out.Sessions
}

// export is the body of GET /sessions/{id}/export.json.
type export struct {
	Session struct {
		capture.Session
		DurationSeconds float64 `json:"duration_seconds"`
	} `json:"session"`
	Turns []tuning.Turn `json:"turns"`
}

func (s *apiServer) exportJSON(id string) export {
	s.t.Helper()
	var out export
	res := s.json("GET", "/sessions/"+id+"/export.json", "", http.StatusOK, "SessionExport", &out)
	if cd, want := res.Header.Get("Content-Disposition"), `attachment; filename="hone-session-`+id+`.json"`; cd != want {
		s.t.Errorf("export.json Content-Disposition %q, want %q", cd, want)
	}
	return out
}

func (s *apiServer) exportCSV(id string) string {
	s.t.Helper()
	res, b := s.call("GET", "/sessions/"+id+"/export.csv", "")
	if res.StatusCode != http.StatusOK {
		s.t.Fatalf("export.csv: status %d: %s", res.StatusCode, b)
	}
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
		s.t.Errorf("export.csv Content-Type %q, want text/csv", ct)
	}
	if cd, want := res.Header.Get("Content-Disposition"), `attachment; filename="hone-session-`+id+`.csv"`; cd != want {
		s.t.Errorf("export.csv Content-Disposition %q, want %q", cd, want)
	}
	return string(b)
}

func parseCSV(t *testing.T, text string) [][]string {
	t.Helper()
	rows, err := csv.NewReader(strings.NewReader(text)).ReadAll()
	if err != nil {
		t.Fatalf("parse CSV %q: %v", text, err)
	}
	return rows
}

func jsonEqual(t *testing.T, got json.RawMessage, want string) bool {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Errorf("invalid JSON %s: %v", got, err)
		return false
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(g) == fmt.Sprint(w)
}

func TestTurns(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		s := start(t, cfg)

		var session string
		for i := 1; i <= 3; i++ {
			got := s.postTurn(turn("c1", fmt.Sprintf("question %d", i)))
			if got.TurnNumber != i {
				t.Errorf("turn %d: turn_number %d", i, got.TurnNumber)
			}
			if i == 1 {
				session = got.SessionID
			} else if got.SessionID != session {
				t.Errorf("turn %d went to session %s, not %s", i, got.SessionID, session)
			}
		}
		if other := s.postTurn(turn("c2", "hello")); other.TurnNumber != 1 || other.SessionID == session {
			t.Errorf("another conversation's first turn: %+v", other)
		}

		full := s.postTurn(turn("c3", "My employee didn't show up", "tester_email", "meg@example.com",
			"prompt_version", "v1", "branch", "prompt-tuning",
			"search_results", []any{map[string]any{"chunk": "attendance#3", "similarity": 0.82}},
			"avg_similarity", 0.75, "processing_time_ms", 1234.5, "metadata", map[string]any{"model": "m1", "n": 2}))
		plain := s.postTurn(turn("c3", "second"))
		if plain.SessionID != full.SessionID || plain.TurnNumber != 2 {
			t.Errorf("a turn without prompt_version left the session: %+v after %+v", plain, full)
		}
		ex := s.exportJSON(full.SessionID)
		if got := ex.Session; got.PromptVersion != "v1" || got.Branch != "prompt-tuning" || got.TesterEmail != "meg@example.com" ||
			got.TesterID != "meg" || got.ConversationID != "c3" || got.TotalTurns != 2 || got.End != nil {
			t.Errorf("exported session %+v", got)
		}
		if len(ex.Turns) != 2 {
			t.Fatalf("exported %d turns, want 2", len(ex.Turns))
		}
		f := ex.Turns[0]
		if f.ID != full.ID || f.Number != 1 || f.UserMessage != "My employee didn't show up" || f.Response != "Answer to: My employee didn't show up" {
			t.Errorf("exported turn %+v", f)
		}
		if f.AvgSimilarity == nil || *f.AvgSimilarity != 0.75 || f.ProcessingTimeMS == nil || *f.ProcessingTimeMS != 1234.5 {
			t.Errorf("avg_similarity %v, processing_time_ms %v", f.AvgSimilarity, f.ProcessingTimeMS)
		}
		if !jsonEqual(t, f.SearchResults, `[{"chunk":"attendance#3","similarity":0.82}]`) {
			t.Errorf("search_results %s", f.SearchResults)
		}
		if !jsonEqual(t, f.Metadata, `{"model":"m1","n":2}`) {
			t.Errorf("metadata %s", f.Metadata)
		}
		p := ex.Turns[1]
		if p.AvgSimilarity != nil || p.ProcessingTimeMS != nil || p.SearchResults != nil || !jsonEqual(t, p.Metadata, `{}`) {
			t.Errorf("turn without optional fields exported as %+v", p)
		}

		nulls := s.postTurn(turn("c4", "nulls", "tester_email", nil, "prompt_version", nil, "branch", nil, "search_results", nil,
			"avg_similarity", nil, "processing_time_ms", nil, "metadata", nil))
		if ex := s.exportJSON(nulls.SessionID); len(ex.Turns) != 1 || ex.Turns[0].SearchResults != nil ||
			!jsonEqual(t, ex.Turns[0].Metadata, `{}`) || ex.Turns[0].AvgSimilarity != nil {
			t.Errorf("a turn with null optional fields exported as %+v", ex.Turns)
		}

		next := s.postTurn(turn("c3", "after the deployment", "prompt_version", "v2"))
		if next.SessionID == full.SessionID || next.TurnNumber != 1 {
			t.Fatalf("a new prompt_version did not start a new session: %+v", next)
		}
		if old := s.session(full.SessionID); old.End == nil || old.TotalTurns != 2 {
			t.Errorf("the previous session after a new prompt_version: %+v", old)
		}
		if cur := s.session(next.SessionID); cur.End != nil || cur.PromptVersion != "v2" || cur.TotalTurns != 1 {
			t.Errorf("the new session: %+v", cur)
		}
		for i, in := range []map[string]any{turn("c3", "same version", "prompt_version", "v2"), turn("c3", "no version")} {
			if got := s.postTurn(in); got.SessionID != next.SessionID || got.TurnNumber != i+2 {
				t.Errorf("turn %d after the deployment: %+v", i+2, got)
			}
		}
	})
}

// csvBlock returns the text of the ```csv block in a reply.
func csvBlock(t *testing.T, reply string) string {
	t.Helper()
	_, after, ok := strings.Cut(reply, "\n```csv\n")
	if !ok {
		t.Fatalf("no ```csv block in %q", reply)
	}
	block, _, ok := strings.Cut(after, "```\n")
	if !ok {
		t.Fatalf("unterminated ```csv block in %q", reply)
	}
	return block
}

func TestMessages(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		s := start(t, cfg)

		t.Run("not a command", func(t *testing.T) {
			s := *s
			s.t = t
			for _, text := range []string{"hello", "", "!", "! improve this", "!1 two", "what about !improve?"} {
				if r := s.say("plain", text); r.Command || r.Text != "" || r.Ack || r.SessionID != "" {
					t.Errorf("%q before any turn: %+v", text, r)
				}
			}
			tc := s.postTurn(turn("plain", "hi"))
			if r := s.say("plain", "thanks"); r.Command || r.SessionID != tc.SessionID {
				t.Errorf("message after a turn: %+v, want command false and session %s", r, tc.SessionID)
			}
			if got := s.session(tc.SessionID); got.TotalTurns != 1 || got.TotalImprovements != 0 {
				t.Errorf("messages changed the session: %+v", got)
			}
		})

		t.Run("improve", func(t *testing.T) {
			s := *s
			s.t = t
			first := s.postTurn(turn("imp", "My employee didn't show up for 3 days"))
			for _, text := range []string{"!improve tone: too formal", "!improve Should mention email option earlier",
				"  !IMPROVE Citation:   Missing policy reference  "} {
				r := s.say("imp", text)
				if !r.Command || !r.Ack || r.Text != "" || r.SessionID != first.SessionID || r.Failed {
					t.Errorf("%q: %+v", text, r)
				}
			}
			second := s.postTurn(turn("imp", "I called once today"))
			if r := s.say("imp", "!improve weather: not a category"); !r.Ack {
				t.Errorf("!improve on the second turn: %+v", r)
			}
			ex := s.exportJSON(first.SessionID)
			type note struct{ category, note string }
			var got [][]note
			for _, tr := range ex.Turns {
				var ns []note
				for _, imp := range tr.Improvements {
					ns = append(ns, note{imp.Category, imp.Note})
					if imp.TurnID != tr.ID || imp.ID == "" || imp.Timestamp.IsZero() {
						t.Errorf("improvement %+v of turn %s", imp, tr.ID)
					}
				}
				got = append(got, ns)
			}
			want := [][]note{
				{{"tone", "too formal"}, {"", "Should mention email option earlier"}, {"citation", "Missing policy reference"}},
				{{"", "weather: not a category"}},
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("improvements %q, want %q", got, want)
			}
			if ex.Session.TotalImprovements != 4 || ex.Turns[1].ID != second.ID {
				t.Errorf("session %+v, turns %+v", ex.Session, ex.Turns)
			}
		})

		t.Run("improve before any turn", func(t *testing.T) {
			s := *s
			s.t = t
			r := s.say("early", "!improve Should ask clarifying questions first")
			if !r.Command || r.Ack || r.Text != tuning.NoResponseText ||
				!strings.HasPrefix(r.Text, "⚠️ No recent response to attach feedback to.") {
				t.Errorf("!improve before any turn: %+v", r)
			}
			if r := s.say("early", "!reset"); r.SessionID == "" {
				t.Fatalf("!reset: %+v", r)
			}
			if r := s.say("early", "!improve still nothing to attach to"); r.Text != tuning.NoResponseText {
				t.Errorf("!improve in a session without turns: %+v", r)
			}
		})

		t.Run("improve without a note", func(t *testing.T) {
			s := *s
			s.t = t
			tc := s.postTurn(turn("usage", "hi"))
			for _, text := range []string{"!improve", "!improve   ", "!improve tone:", "!improve tone:   "} {
				r := s.say("usage", text)
				if !r.Command || r.Ack || !strings.HasPrefix(r.Text, "Usage: `!improve [<category>:] <note>`") {
					t.Errorf("%q: %+v", text, r)
				}
			}
			if got := s.session(tc.SessionID); got.TotalImprovements != 0 {
				t.Errorf("usage errors stored %d improvements", got.TotalImprovements)
			}
		})

		t.Run("print", func(t *testing.T) {
			s := *s
			s.t = t
			if r := s.say("print", "!print"); !r.Command || r.Text != tuning.EmptyPrintText {
				t.Errorf("!print before any turn: %+v", r)
			}
			a := s.postTurn(map[string]any{"conversation_id": "print", "tester_id": "meg",
				"user_message": `My employee said "I quit", then left`, "response": "Got it — here's the next step:\n1. Document it\n2. Process it"})
			s.say("print", "!improve content: Should ask if it's in writing")
			s.say("print", "!improve tone: Too formal, more conversational")
			s.postTurn(turn("print", "I called them"))
			r := s.say("print", "!print")
			if !r.Command || r.SessionID != a.SessionID || r.Ack {
				t.Errorf("!print: %+v", r)
			}
			for _, want := range []string{
				"📊 **Session Export (Session ID: " + a.SessionID + ")**\nStarted: ",
				"\nTurns: 2\nImprovements: 2\n",
				"**Copy the CSV above and paste into Claude Web Code to tune the master prompt.**",
			} {
				if !strings.Contains(r.Text, want) {
					t.Errorf("!print reply lacks %q:\n%s", want, r.Text)
				}
			}
			block := csvBlock(t, r.Text)
			if dl := s.exportCSV(a.SessionID); block != dl {
				t.Errorf("!print CSV differs from export.csv:\n%s\n---\n%s", block, dl)
			}
			rows := parseCSV(t, block)
			want := [][]string{
				{"Turn", "User Message", "Bot Response", "Improvement Notes", "Category", "Objective Score", "Subjective Score", "Overall Score"},
				{"1", `My employee said "I quit", then left`, "Got it — here's the next step:\n1. Document it\n2. Process it", "Should ask if it's in writing", "content", "0.33", "", ""},
				{"1", `My employee said "I quit", then left`, "Got it — here's the next step:\n1. Document it\n2. Process it", "Too formal, more conversational", "tone", "0.33", "", ""},
				{"2", "I called them", "Answer to: I called them", "", "", "0.40", "", ""},
			}
			if len(rows) != len(want) {
				t.Fatalf("!print CSV has %d rows, want %d: %q", len(rows), len(want), rows)
			}
			for i, row := range rows {
				if len(row) != 12 || !slices.Equal(row[:8], want[i]) {
					t.Errorf("CSV row %d = %q, want %q and a timestamp", i, row, want[i])
				}
			}
			if next := s.postTurn(turn("print", "and after the export?")); next.SessionID != a.SessionID || next.TurnNumber != 3 {
				t.Errorf("!print ended the session: %+v", next)
			}
		})

		t.Run("reset", func(t *testing.T) {
			s := *s
			s.t = t
			old := s.postTurn(turn("reset", "before"))
			r := s.say("reset", "!reset")
			if !r.Command || r.SessionID == "" || r.SessionID == old.SessionID {
				t.Fatalf("!reset: %+v", r)
			}
			for _, want := range []string{"🔄 **Session Reset Complete**",
				"- Previous session (" + old.SessionID + ") ended and saved",
				"- New session (" + r.SessionID + ") started"} {
				if !strings.Contains(r.Text, want) {
					t.Errorf("!reset reply lacks %q:\n%s", want, r.Text)
				}
			}
			after := s.postTurn(turn("reset", "after"))
			if after.SessionID != r.SessionID || after.TurnNumber != 1 {
				t.Errorf("turn after !reset: %+v, want turn 1 of %s", after, r.SessionID)
			}
			if prev := s.session(old.SessionID); prev.End == nil || prev.TotalTurns != 1 {
				t.Errorf("session before !reset: %+v, want it ended with its turn", prev)
			}
			if cur := s.session(r.SessionID); cur.End != nil || cur.TotalTurns != 1 {
				t.Errorf("session after !reset: %+v", cur)
			}
			again := s.say("reset", "!RESTART")
			if again.SessionID == r.SessionID || !strings.Contains(again.Text, "Previous session ("+r.SessionID+")") {
				t.Errorf("!restart: %+v", again)
			}
			if fresh := s.say("reset-new", "!reset"); fresh.SessionID == "" || strings.Contains(fresh.Text, "Previous session") {
				t.Errorf("!reset without a session: %+v", fresh)
			}
		})

		t.Run("session", func(t *testing.T) {
			s := *s
			s.t = t
			if r := s.say("summary", "!session"); !r.Command || !strings.Contains(r.Text, "No session yet") {
				t.Errorf("!session before any turn: %+v", r)
			}
			tc := s.postTurn(turn("summary", "hi", "prompt_version", "abc123"))
			s.say("summary", "!improve fine")
			for _, cmd := range []string{"!session", "!session-summary"} {
				r := s.say("summary", cmd)
				for _, want := range []string{"Current Session (Session ID: " + tc.SessionID + ")", "Prompt version: abc123",
					"Turns: 1", "Improvements: 1", "Duration: "} {
					if !strings.Contains(r.Text, want) {
						t.Errorf("%s reply lacks %q:\n%s", cmd, want, r.Text)
					}
				}
				if r.SessionID != tc.SessionID {
					t.Errorf("%s: session_id %q", cmd, r.SessionID)
				}
			}
		})

		t.Run("sessions and resume", func(t *testing.T) {
			s := *s
			s.t = t
			if r := s.sayAs("ann", "ann-1", "!sessions"); !strings.Contains(r.Text, "no sessions yet") {
				t.Errorf("!sessions without any: %+v", r)
			}
			a := s.postTurn(map[string]any{"conversation_id": "ann-1", "tester_id": "ann", "user_message": "q", "response": "r"})
			b := s.sayAs("ann", "ann-1", "!reset").SessionID
			s.postTurn(map[string]any{"conversation_id": "ann-1", "tester_id": "ann", "user_message": "q2", "response": "r2"})
			for _, cmd := range []string{"!sessions", "!list-sessions"} {
				r := s.sayAs("ann", "ann-1", cmd)
				if r.SessionID != b || !strings.Contains(r.Text, "- `"+b+"` (current): ") ||
					!strings.Contains(r.Text, "- `"+a.SessionID+"`: ") {
					t.Errorf("%s: %+v, want %s current and %s listed", cmd, r, b, a.SessionID)
				}
			}
			if r := s.sayAs("bob", "bob-1", "!resume "+a.SessionID); !strings.Contains(r.Text, "You have no session") || r.SessionID != "" {
				t.Errorf("another tester resumed ann's session: %+v", r)
			}
			if r := s.sayAs("ann", "ann-1", "!resume nosuch"); !strings.Contains(r.Text, `You have no session "nosuch"`) {
				t.Errorf("!resume of an unknown session: %+v", r)
			}
			if r := s.sayAs("ann", "ann-1", "!resume"); !strings.HasPrefix(r.Text, "Usage: `!resume <session-id>`") {
				t.Errorf("!resume without an id: %+v", r)
			}
			r := s.sayAs("ann", "ann-1", "!resume "+a.SessionID)
			if r.SessionID != a.SessionID || !strings.HasPrefix(r.Text, "▶️ Resumed session "+a.SessionID) {
				t.Fatalf("!resume: %+v", r)
			}
			next := s.postTurn(map[string]any{"conversation_id": "ann-1", "tester_id": "ann", "user_message": "q3", "response": "r3"})
			if next.SessionID != a.SessionID || next.TurnNumber != 2 {
				t.Errorf("turn after !resume: %+v, want turn 2 of %s", next, a.SessionID)
			}
			if got := s.session(a.SessionID); got.End != nil || got.TotalTurns != 2 {
				t.Errorf("resumed session: %+v", got)
			}
			if got := s.session(b); got.End == nil {
				t.Errorf("the session left by !resume is not ended: %+v", got)
			}
		})

		t.Run("export-json", func(t *testing.T) {
			s := *s
			s.t = t
			if r := s.say("json", "!export-json"); r.Text != tuning.EmptyPrintText {
				t.Errorf("!export-json before any turn: %+v", r)
			}
			tc := s.postTurn(turn("json", "hi"))
			s.say("json", "!improve clarity: say more")
			r := s.say("json", "!export-json")
			if !r.Command || r.SessionID != tc.SessionID {
				t.Errorf("!export-json: %+v", r)
			}
			_, after, ok := strings.Cut(r.Text, "\n```json\n")
			block, _, ok2 := strings.Cut(after, "```\n")
			if !ok || !ok2 {
				t.Fatalf("no ```json block in %q", r.Text)
			}
			validate(t, "SessionExport", []byte(block))
			var ex export
			if err := json.Unmarshal([]byte(block), &ex); err != nil {
				t.Fatal(err)
			}
			if ex.Session.ID != tc.SessionID || len(ex.Turns) != 1 || len(ex.Turns[0].Improvements) != 1 ||
				ex.Turns[0].Improvements[0].Note != "say more" || ex.Turns[0].Improvements[0].Category != "clarity" {
				t.Errorf("!export-json block: %s", block)
			}
		})

		t.Run("help", func(t *testing.T) {
			s := *s
			s.t = t
			help := s.say("help", "!help")
			if !help.Command || !strings.HasPrefix(help.Text, "**Tuning commands**\n") {
				t.Fatalf("!help: %+v", help)
			}
			for _, want := range []string{"`!improve [<category>:] <note>`", "`!print`", "`!export-json`", "`!reset` (or `!restart`)",
				"`!session` (or `!session-summary`)", "`!sessions` (or `!list-sessions`)", "`!resume <session-id>`", "`!help`",
				"tone, content, citation, clarity, structure, action"} {
				if !strings.Contains(help.Text, want) {
					t.Errorf("!help lacks %q:\n%s", want, help.Text)
				}
			}
			for _, text := range []string{"!frobnicate", "!Frobnicate now"} {
				r := s.say("help", text)
				if !r.Command || r.Text != "Unknown command !frobnicate.\n\n"+help.Text {
					t.Errorf("%q: %+v", text, r)
				}
			}
		})
	})
}

func TestPrintLargeSessionLinks(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		cfg.MessageLimit = 1024
		s := start(t, cfg)

		small := s.postTurn(turn("small", "hi"))
		if r := s.say("small", "!print"); !strings.Contains(r.Text, "```csv\n") {
			t.Errorf("a small session was not printed inline: %q", r.Text)
		}

		var id string
		for i := range 5 {
			id = s.postTurn(turn("big", fmt.Sprintf("question %d %s", i, strings.Repeat("x", 300)))).SessionID
		}
		if id == small.SessionID {
			t.Fatal("two conversations share a session")
		}
		for _, c := range []struct{ cmd, format, contentType string }{
			{"!print", "csv", "text/csv"},
			{"!export-json", "json", "application/json"},
		} {
			r := s.say("big", c.cmd)
			if strings.Contains(r.Text, "```") {
				t.Errorf("%s of a session over the limit has a code block:\n%s", c.cmd, r.Text)
			}
			if len(r.Text) > cfg.MessageLimit {
				t.Errorf("%s reply is %d bytes, over the limit of %d", c.cmd, len(r.Text), cfg.MessageLimit)
			}
			if !strings.HasPrefix(r.Text, "📊 **Session Export (Session ID: "+id+")**\n") || !strings.Contains(r.Text, "\nTurns: 5\n") {
				t.Errorf("%s reply lacks the summary:\n%s", c.cmd, r.Text)
			}
			lines := strings.Split(r.Text, "\n")
			link := lines[len(lines)-1]
			if !strings.HasPrefix(link, s.app.URL()+"/sessions/"+id+"/export."+c.format+"?expires=") || !strings.Contains(link, "&sig=") {
				t.Fatalf("%s reply does not end with a link to the export:\n%s", c.cmd, r.Text)
			}
			res, err := s.client.Get(link)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), c.contentType) {
				t.Fatalf("GET %s: %d %s", link, res.StatusCode, res.Header.Get("Content-Type"))
			}
			if c.format == "csv" && len(parseCSV(t, string(body))) != 6 {
				t.Errorf("the linked CSV is not the whole session:\n%s", body)
			}
			if c.format == "json" {
				validate(t, "SessionExport", body)
			}
		}
	})
}

func TestSessionsEndpoints(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		s := start(t, cfg)

		if _, b := s.call("GET", "/sessions", ""); !bytes.Equal(b, []byte(`{"sessions":[]}`+"\n")) {
			t.Errorf("empty list: %s", b)
		}
		byTester := map[string][]string{}
		for _, c := range []struct{ tester, conversation string }{{"alice", "a1"}, {"bob", "b1"}, {"alice", "a2"}, {"alice", "a3"}} {
			tc := s.postTurn(map[string]any{"conversation_id": c.conversation, "tester_id": c.tester, "user_message": "q", "response": "r"})
			byTester[c.tester] = append(byTester[c.tester], tc.SessionID)
		}

		ids := func(list []*capture.Session) []string {
			var out []string
			for _, s := range list {
				out = append(out, s.ID)
			}
			slices.Sort(out)
			return out
		}
		all := s.sessions("")
		if len(all) != 4 {
			t.Fatalf("listed %d sessions, want 4", len(all))
		}
		for i := 1; i < len(all); i++ {
			if all[i].Start.After(all[i-1].Start) {
				t.Errorf("sessions not newest first: %s before %s", all[i-1].Start, all[i].Start)
			}
		}
		for tester, want := range byTester {
			list := s.sessions("?tester_id=" + tester)
			slices.Sort(want)
			if got := ids(list); !slices.Equal(got, want) {
				t.Errorf("tester_id=%s listed %v, want %v", tester, got, want)
			}
		}
		if list := s.sessions("?tester_id=nobody"); len(list) != 0 {
			t.Errorf("tester_id=nobody listed %d sessions", len(list))
		}
		var paged []*capture.Session
		for offset := 0; offset < 3; offset++ {
			page := s.sessions(fmt.Sprintf("?tester_id=alice&limit=1&offset=%d", offset))
			if len(page) != 1 {
				t.Fatalf("page at offset %d has %d sessions, want 1", offset, len(page))
			}
			paged = append(paged, page...)
		}
		if got, want := ids(paged), ids(s.sessions("?tester_id=alice")); !slices.Equal(got, want) {
			t.Errorf("pages of one hold %v, the whole list %v", got, want)
		}
		if page := s.sessions("?limit=2"); len(page) != 2 || page[0].ID != all[0].ID || page[1].ID != all[1].ID {
			t.Errorf("limit=2 listed %v, want the first two of %v", ids(page), ids(all))
		}
		if page := s.sessions("?offset=4"); len(page) != 0 {
			t.Errorf("offset past the end listed %d sessions", len(page))
		}

		for _, q := range []struct{ query, field string }{
			{"limit=0", "limit"}, {"limit=-1", "limit"}, {"limit=abc", "limit"}, {"limit=1001", "limit"}, {"limit=1.5", "limit"},
			{"offset=-1", "offset"}, {"offset=x", "offset"}, {"limit=5&offset=-3", "offset"},
		} {
			s.wantError("GET", "/sessions?"+q.query, "", http.StatusBadRequest, "invalid", q.field)
		}

		id := byTester["bob"][0]
		got := s.session(id)
		if got.ID != id || got.TesterID != "bob" || got.ConversationID != "b1" || got.TotalTurns != 1 || got.End != nil || got.Start.IsZero() {
			t.Errorf("GET /sessions/%s: %+v", id, got)
		}
		for _, path := range []string{"/sessions/nosuch", "/sessions/nosuch/export.csv", "/sessions/nosuch/export.json"} {
			if e := s.wantError("GET", path, "", http.StatusNotFound, "not_found", ""); !strings.Contains(e.Message, "nosuch") {
				t.Errorf("GET %s: message %q does not name the session", path, e.Message)
			}
		}

		s.say("b1", "!improve first note")
		s.say("b1", "!improve action: second note")
		s.postTurn(map[string]any{"conversation_id": "b1", "tester_id": "bob", "user_message": "line 1\nline 2, \"quoted\"", "response": "ok"})
		rows := parseCSV(t, s.exportCSV(id))
		want := [][]string{
			{"Turn", "User Message", "Bot Response", "Improvement Notes", "Category", "Objective Score", "Subjective Score", "Overall Score", "Timestamp",
				"Ratings", "Scores", "Corrections"},
			{"1", "q", "r", "first note", "", "0.20", "", ""},
			{"1", "q", "r", "second note", "action", "0.20", "", ""},
			{"2", "line 1\nline 2, \"quoted\"", "ok", "", "", "0.20", "", ""},
		}
		if len(rows) != len(want) {
			t.Fatalf("export.csv has rows %q, want %d", rows, len(want))
		}
		for i, row := range rows {
			if len(row) != 12 || !slices.Equal(row[:len(want[i])], want[i]) {
				t.Errorf("export.csv row %d = %q, want %q", i, row, want[i])
			}
			if _, err := time.Parse(time.RFC3339, row[8]); i > 0 && err != nil {
				t.Errorf("export.csv row %d timestamp %q: %v", i, row[8], err)
			}
		}

		ex := s.exportJSON(id)
		if ex.Session.ID != id || ex.Session.TotalTurns != 2 || ex.Session.TotalImprovements != 2 || ex.Session.DurationSeconds < 0 {
			t.Errorf("export.json session %+v", ex.Session)
		}
		if len(ex.Turns) != 2 || len(ex.Turns[0].Improvements) != 2 || len(ex.Turns[1].Improvements) != 0 ||
			ex.Turns[0].Improvements[1].Note != "second note" || ex.Turns[1].UserMessage != "line 1\nline 2, \"quoted\"" {
			t.Errorf("export.json turns %+v", ex.Turns)
		}
	})
}

func TestBadInput(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		s := start(t, cfg)
		valid := `"conversation_id":"c","tester_id":"meg","user_message":"q","response":"r"`
		long := strings.Repeat("x", capture.MaxIDLength+1)
		for _, c := range []struct {
			name, path, body, field string
		}{
			{"turn without conversation_id", "/turns", `{"tester_id":"meg","user_message":"q","response":"r"}`, "conversation_id"},
			{"turn with a blank tester_id", "/turns", `{"conversation_id":"c","tester_id":" ","user_message":"q","response":"r"}`, "tester_id"},
			{"turn without user_message", "/turns", `{"conversation_id":"c","tester_id":"meg","response":"r"}`, "user_message"},
			{"turn without response", "/turns", `{"conversation_id":"c","tester_id":"meg","user_message":"q"}`, "response"},
			{"turn with blank conversation_id", "/turns", `{"conversation_id":"  ","tester_id":"meg","user_message":"q","response":"r"}`, "conversation_id"},
			{"turn with blank user_message", "/turns", `{"conversation_id":"c","tester_id":"meg","user_message":" \n","response":"r"}`, "user_message"},
			{"turn with a long conversation_id", "/turns", `{"conversation_id":"` + long + `","tester_id":"meg","user_message":"q","response":"r"}`, "conversation_id"},
			{"turn with a long prompt_version", "/turns", `{` + valid + `,"prompt_version":"` + long + `"}`, "prompt_version"},
			{"turn with a number tester_id", "/turns", `{"conversation_id":"c","tester_id":5,"user_message":"q","response":"r"}`, "tester_id"},
			{"turn with a string avg_similarity", "/turns", `{` + valid + `,"avg_similarity":"high"}`, "avg_similarity"},
			{"turn with avg_similarity over 1", "/turns", `{` + valid + `,"avg_similarity":1.5}`, "avg_similarity"},
			{"turn with negative processing_time_ms", "/turns", `{` + valid + `,"processing_time_ms":-1}`, "processing_time_ms"},
			{"turn with array metadata", "/turns", `{` + valid + `,"metadata":[1,2]}`, "metadata"},
			{"turn with a bad tester_email", "/turns", `{` + valid + `,"tester_email":"meg"}`, "tester_email"},
			{"turn with an unknown field", "/turns", `{` + valid + `,"colour":"blue"}`, "colour"},
			{"turn with malformed JSON", "/turns", `{"conversation_id":"c",`, ""},
			{"turn with a syntax error", "/turns", `{"conversation_id" "c"}`, ""},
			{"turn with two objects", "/turns", `{` + valid + `} {}`, ""},
			{"turn as an array", "/turns", `[{` + valid + `}]`, ""},
			{"turn as a string", "/turns", `"hello"`, ""},
			{"turn with an empty body", "/turns", ``, ""},
			{"turn with a blank body", "/turns", "  \n", ""},
			{"message without conversation_id", "/messages", `{"tester_id":"meg","text":"!reset"}`, "conversation_id"},
			{"message without tester_id", "/messages", `{"conversation_id":"c","text":"!reset"}`, "tester_id"},
			{"message with a number tester_id", "/messages", `{"conversation_id":"c","tester_id":5,"text":"!reset"}`, "tester_id"},
			{"message with an object text", "/messages", `{"conversation_id":"c","tester_id":"meg","text":{}}`, "text"},
			{"message with an unknown field", "/messages", `{"conversation_id":"c","tester_id":"meg","message":"!reset"}`, "message"},
			{"message with malformed JSON", "/messages", `{"conversation_id":`, ""},
			{"message with an empty body", "/messages", ``, ""},
		} {
			t.Run(c.name, func(t *testing.T) {
				s := *s
				s.t = t
				e := s.wantError("POST", c.path, c.body, http.StatusBadRequest, "invalid", c.field)
				if strings.HasPrefix(e.Message, " ") || (c.field != "" && !strings.Contains(e.Message, c.field)) {
					t.Errorf("message %q does not explain the problem with %q", e.Message, c.field)
				}
			})
		}
		if list := s.sessions(""); len(list) != 0 {
			t.Errorf("bad input wrote %d sessions", len(list))
		}

		for _, r := range []struct{ method, path string }{
			{"GET", "/nope"}, {"GET", "/"}, {"GET", "/sessions/x/export.xml"}, {"DELETE", "/nope/x"},
		} {
			e := s.wantError(r.method, r.path, "", http.StatusNotFound, "not_found", "")
			if want := "no API endpoint " + r.method + " " + api.Prefix + r.path; e.Message != want {
				t.Errorf("%s %s: message %q, want %q", r.method, r.path, e.Message, want)
			}
		}
		for _, r := range []struct{ method, path, allow string }{
			{"POST", "/sessions", "GET, HEAD"}, {"DELETE", "/turns", "POST"}, {"GET", "/turns", "POST"},
			{"PUT", "/sessions/x", "GET, HEAD"}, {"GET", "/turns/batch", "POST"}, {"PATCH", "/openapi.json", "GET, HEAD"},
		} {
			res := s.json(r.method, r.path, "", http.StatusMethodNotAllowed, "ErrorBody", nil)
			if got := res.Header.Get("Allow"); got != r.allow {
				t.Errorf("%s %s: Allow %q, want %q", r.method, r.path, got, r.allow)
			}
			s.wantError(r.method, r.path, "", http.StatusMethodNotAllowed, "method_not_allowed", "")
		}
	})
}

func TestBodyLimit(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		cfg.MaxBodyBytes = 2048
		s := start(t, cfg)
		big := strings.Repeat("x", 4096)
		for _, c := range []struct{ path, body string }{
			{"/turns", mustJSON(t, turn("c", big))},
			{"/turns", mustJSON(t, turn("c", "q", "metadata", map[string]any{"blob": big}))},
			{"/messages", mustJSON(t, api.MessageInput{ConversationID: "c", TesterID: "meg", Text: "!improve " + big})},
		} {
			if e := s.wantError("POST", c.path, c.body, http.StatusRequestEntityTooLarge, "too_large", ""); !strings.Contains(e.Message, "2048") {
				t.Errorf("POST %s: message %q does not give the limit", c.path, e.Message)
			}
		}
		if list := s.sessions(""); len(list) != 0 {
			t.Errorf("too large bodies wrote %d sessions", len(list))
		}
		if got := s.postTurn(turn("c", strings.Repeat("y", 900))); got.TurnNumber != 1 {
			t.Errorf("a body under the limit: %+v", got)
		}
	})
}

func TestToken(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		cfg.APIToken = "s3cret"
		s := start(t, cfg)
		// Many wrong tokens, on purpose: no guessing limit here.
		s.app.Auth.Attempts.SetLimits(0, 0)
		body := mustJSON(t, turn("c", "q"))
		for _, c := range []struct {
			name, authorization string
			status              int
		}{
			{"no token", "", http.StatusUnauthorized},
			{"wrong token", "Bearer wrong", http.StatusUnauthorized},
			{"token prefix", "Bearer s3cre", http.StatusUnauthorized},
			{"token without scheme", "s3cret", http.StatusUnauthorized},
			{"basic scheme", "Basic s3cret", http.StatusUnauthorized},
			{"token with a suffix", "Bearer s3cret2", http.StatusUnauthorized},
			{"scheme without token", "Bearer", http.StatusUnauthorized},
			{"bearer token", "Bearer s3cret", http.StatusCreated},
			{"lower-case scheme", "bearer s3cret", http.StatusCreated},
		} {
			t.Run(c.name, func(t *testing.T) {
				s := *s
				s.t = t
				h := http.Header{}
				if c.authorization != "" {
					h.Set("Authorization", c.authorization)
				}
				for _, r := range []struct{ method, path, body string }{
					{"POST", "/turns", body}, {"POST", "/messages", `{"conversation_id":"c","tester_id":"meg","text":"hello"}`},
					{"GET", "/sessions", ""}, {"GET", "/sessions/x", ""}, {"GET", "/sessions/x/export.csv", ""}, {"GET", "/nope", ""},
				} {
					res, b := s.send(r.method, r.path, r.body, h)
					if c.status == http.StatusUnauthorized {
						if res.StatusCode != http.StatusUnauthorized || res.Header.Get("WWW-Authenticate") != `Bearer realm="hone"` {
							t.Errorf("%s %s with %q: %d %q: %s", r.method, r.path, c.authorization, res.StatusCode,
								res.Header.Get("WWW-Authenticate"), b)
						}
						validate(t, "ErrorBody", b)
					} else if res.StatusCode == http.StatusUnauthorized {
						t.Errorf("%s %s with %q: 401: %s", r.method, r.path, c.authorization, b)
					}
				}
				res, b := s.send("POST", "/turns", body, h)
				if res.StatusCode != c.status {
					t.Errorf("POST /turns with %q: status %d, want %d: %s", c.authorization, res.StatusCode, c.status, b)
				}
			})
		}
		if list := s.sessions(""); len(list) != 1 || list[0].TotalTurns != 4 {
			t.Errorf("listed %d sessions, want one with 4 turns (two per accepted token)", len(list))
		}
		res, b := s.send("GET", "/openapi.json", "", nil)
		if res.StatusCode != http.StatusOK || !json.Valid(b) {
			t.Errorf("openapi.json without a token: %d %.100s", res.StatusCode, b)
		}
	})
}

func TestConcurrentTurns(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		s := start(t, cfg)
		const workers, each = 16, 50
		var (
			mu       sync.Mutex
			numbers  []int
			sessions = map[string]bool{}
			wg       sync.WaitGroup
		)
		for w := range workers {
			wg.Go(func() {
				for i := range each {
					body := fmt.Sprintf(`{"conversation_id":"busy","tester_id":"meg","user_message":"w%d-%d","response":"r"}`, w, i)
					res, err := s.client.Post(s.base+"/turns", "application/json", strings.NewReader(body))
					if err != nil {
						t.Errorf("worker %d turn %d: %v", w, i, err)
						return
					}
					b, _ := io.ReadAll(res.Body)
					res.Body.Close()
					var tc api.TurnCreated
					if res.StatusCode != http.StatusCreated || json.Unmarshal(b, &tc) != nil {
						t.Errorf("worker %d turn %d: %d %s", w, i, res.StatusCode, b)
						return
					}
					mu.Lock()
					numbers = append(numbers, tc.TurnNumber)
					sessions[tc.SessionID] = true
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if t.Failed() {
			return
		}
		slices.Sort(numbers)
		for i, n := range numbers {
			if n != i+1 {
				t.Fatalf("turn numbers have a gap or duplicate at %d: got %d", i+1, n)
			}
		}
		if len(numbers) != workers*each || len(sessions) != 1 {
			t.Fatalf("%d turns in %d sessions, want %d in one", len(numbers), len(sessions), workers*each)
		}
		for id := range sessions {
			if got := s.session(id); got.TotalTurns != workers*each {
				t.Errorf("session total_turns %d, want %d", got.TotalTurns, workers*each)
			}
			ex := s.exportJSON(id)
			for i, tr := range ex.Turns {
				if tr.Number != i+1 {
					t.Fatalf("exported turn %d has number %d", i+1, tr.Number)
				}
			}
			if len(ex.Turns) != workers*each {
				t.Errorf("exported %d turns, want %d", len(ex.Turns), workers*each)
			}
		}
	})
}
