package web_test

import (
	"context"
	"html"
	"io"
	"log/slog"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/honehq/hone/internal/app"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/config"
	"github.com/honehq/hone/internal/storage/storagetest"
)

// testApp is the whole hone program over a real database, with a clock the
// test moves while it seeds data.
type testApp struct {
	*app.App
	t     *testing.T
	clock time.Time
	base  string
}

// eachDB runs fn on SQLite, and on PostgreSQL when HONE_TEST_DATABASE_URL is set.
func eachDB(t *testing.T, fn func(t *testing.T, databaseURL string)) {
	t.Run("sqlite", func(t *testing.T) { fn(t, "") })
	if dsn := os.Getenv(storagetest.PostgresURLEnv); dsn != "" {
		t.Run("postgres", func(t *testing.T) { fn(t, storagetest.SchemaURL(t, dsn)) })
	}
}

// openApp builds hone as the binary does, not listening yet, with its
// database clock stopped at 2025-03-01 09:00:00 UTC.
func openApp(t *testing.T, databaseURL string) *testApp {
	t.Helper()
	cfg := config.Config{Addr: "127.0.0.1:0", DataDir: t.TempDir(), DatabaseURL: databaseURL,
		MaxBodyBytes: 1 << 20, MessageLimit: 25600, AppName: "Bot"}
	a, err := app.Open(context.Background(), cfg, slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn})))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	ta := &testApp{App: a, t: t, clock: time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)}
	a.DB.Now = func() time.Time { return ta.clock }
	return ta
}

// listen starts serving; seeding must be done by then.
func (a *testApp) listen() {
	a.t.Helper()
	if err := a.Listen(); err != nil {
		a.t.Fatal(err)
	}
	a.base = a.URL()
}

// at sets the database clock to hh:mm:ss on 2025-03-01 UTC.
func (a *testApp) at(hms string) {
	a.t.Helper()
	tm, err := time.Parse(time.DateTime, "2025-03-01 "+hms)
	if err != nil {
		a.t.Fatal(err)
	}
	a.clock = tm
}

func (a *testApp) turn(in capture.TurnInput) *capture.Turn {
	a.t.Helper()
	tr, _, err := capture.NewRecorder(a.DB.Capture(), nil).Record(context.Background(), in, "")
	if err != nil {
		a.t.Fatalf("record turn: %v", err)
	}
	return tr
}

func (a *testApp) note(conversationID, category, note string) {
	a.t.Helper()
	if _, err := a.DB.Tuning().AddImprovement(context.Background(), conversationID, category, note); err != nil {
		a.t.Fatalf("add improvement: %v", err)
	}
}

// Texts of the seeded turns, with markup that must be shown and not run.
const (
	aliceMsg1  = `Show me <script>alert("user")</script> please`
	aliceResp1 = `Sure: <script>document.title = "pwned"; window.__xss = true; alert(1)</script> & done`
	aliceMsg2  = `And <b>bold</b>?`
	aliceResp2 = "Line one with **bold** advice\nLine two <img src=x onerror=\"window.__xss = true\">"
	noteCite   = `Cite the <source> please`
	noteShort  = `Shorter, please`
	noteAcro   = `Explain "RAG" & other acronyms`
)

// seeded are the sessions seed makes.
type seeded struct {
	// alice1 is alice's v1.0 session, 09:00 to 11:00: two turns, three notes.
	alice1 string
	// bob is bob's v2.0 session, from 10:15, open: one turn.
	bob string
	// alice2 is alice's v1.1 session, from 11:00, open: one turn.
	alice2 string
}

// seed records two testers' sessions with different prompt versions; alice's
// new prompt version at 11:00 ends her first session.
func (a *testApp) seed() seeded {
	a.t.Helper()
	var s seeded
	alice := capture.TurnInput{ConversationID: "conv-alice", TesterID: "alice", TesterEmail: "alice@example.com",
		PromptVersion: "v1.0", Branch: "main"}
	a.at("09:00:00")
	in := alice
	in.UserMessage, in.Response, in.ProcessingTimeMS = aliceMsg1, aliceResp1, new(850.0)
	s.alice1 = a.turn(in).SessionID
	a.at("09:00:20")
	a.note("conv-alice", "content", noteCite)
	a.at("09:01:30")
	in = alice
	in.UserMessage, in.Response = aliceMsg2, aliceResp2
	a.turn(in)
	a.at("09:02:00")
	a.note("conv-alice", "", noteShort)
	a.at("09:02:30")
	a.note("conv-alice", "clarity", noteAcro)

	a.at("10:15:00")
	s.bob = a.turn(capture.TurnInput{ConversationID: "conv-bob", TesterID: "bob", PromptVersion: "v2.0",
		UserMessage: "Ping", Response: "Pong"}).SessionID

	a.at("11:00:00")
	in = alice
	in.PromptVersion, in.UserMessage, in.Response = "v1.1", "Hello again", "Welcome back"
	s.alice2 = a.turn(in).SessionID
	if s.alice1 == s.alice2 {
		a.t.Fatal("a new prompt version did not start a new session")
	}
	return s
}

// get fetches path from the server and returns the status, Content-Type and body.
func (a *testApp) get(path string) (int, string, string) {
	a.t.Helper()
	resp, err := http.Get(a.base + path)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		a.t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
}

// listRow is one row of the sessions table as the server rendered it.
type listRow struct {
	ID    string
	Cells []string
}

var (
	rowRE  = regexp.MustCompile(`(?s)<tr data-session="([^"]*)">(.*?)</tr>`)
	cellRE = regexp.MustCompile(`(?s)<td[^>]*>(.*?)</td>`)
	tagRE  = regexp.MustCompile(`<[^>]*>`)
)

// sessionRows parses the rows of the sessions table out of a page.
func sessionRows(page string) []listRow {
	var rows []listRow
	for _, m := range rowRE.FindAllStringSubmatch(page, -1) {
		r := listRow{ID: html.UnescapeString(m[1])}
		for _, c := range cellRE.FindAllStringSubmatch(m[2], -1) {
			text := html.UnescapeString(tagRE.ReplaceAllString(c[1], ""))
			r.Cells = append(r.Cells, strings.Join(strings.Fields(text), " "))
		}
		rows = append(rows, r)
	}
	return rows
}

func rowIDs(rows []listRow) []string {
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	return ids
}

// pagerLink returns the unescaped href of the pager link whose text is label,
// and whether there is one.
func pagerLink(page, label string) (string, bool) {
	m := regexp.MustCompile(`<a href="([^"]*)">` + regexp.QuoteMeta(label) + `</a>`).FindStringSubmatch(page)
	if m == nil {
		return "", false
	}
	return html.UnescapeString(m[1]), true
}
