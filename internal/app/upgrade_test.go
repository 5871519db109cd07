package app_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/api"
	"github.com/honehq/hone/internal/app"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/config"
	"github.com/honehq/hone/internal/learning"
	"github.com/honehq/hone/internal/quality"
	"github.com/honehq/hone/internal/score"
	"github.com/honehq/hone/internal/scoring"
	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/storage/storagetest"
	"github.com/honehq/hone/internal/tuning"
	"github.com/honehq/hone/internal/workshop"
)

// The upgrade test builds the database of the previous release (migrations
// 00001 to 00011, as far as they exist) with realistic data written by the
// previous release's write paths (the store methods they called, which
// this release keeps: turns recorded and measured, !score merged into a
// turn's 1–5 map with its composites, 👍/👎 with intents, corrections and a
// waiting correction flow, workshops with members, traces, GOOD/BAD labels
// and follow-up answers), reads every number the API reports from it, runs
// the new migrations, and requires the API of the new release to report
// the same numbers, and the scores to hold every judgment. It then has the
// followers rebuild everything they derive from the scores alone (Replay)
// and requires the same numbers once more: the scores table is the truth.
func TestUpgradeKeepsEveryNumber(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { upgrade(t, config.Config{DataDir: t.TempDir()}) })
	if url := os.Getenv(storagetest.PostgresURLEnv); url != "" {
		t.Run("postgres", func(t *testing.T) { upgrade(t, config.Config{DatabaseURL: storagetest.SchemaURL(t, url)}) })
	}
}

// previousRelease is the last migration of the previous release: 00011 is
// the turns' richer records, released with this one or before it.
const previousRelease = 11

// judgments are what the seed judged, as scores must hold them afterwards:
// "turn|config|author|value" and "workshop|trace|member|label|comment".
type judgments struct {
	dimensions []string
	ratings    []string
	labels     []string
}

func upgrade(t *testing.T, cfg config.Config) {
	ctx := context.Background()
	quiet := slog.New(slog.DiscardHandler)
	db, err := storage.Open(ctx, cfg.DSN(), quiet)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.MigrateTo(ctx, previousRelease); err != nil {
		t.Fatal(err)
	}
	if err := db.Exec(ctx, `SELECT 1 FROM scores`); err == nil {
		t.Fatal("the previous release's schema has a scores table")
	}
	want := seedPreviousRelease(t, db)
	// Today's session reads add the testers' display names, a table the
	// previous release did not have: the old face reads them from an empty
	// one, dropped before the upgrade creates it.
	if err := db.Exec(ctx, `CREATE TABLE tester_names (tester_id TEXT NOT NULL PRIMARY KEY, display_name TEXT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	before := readNumbers(t, oldFace(t, db))
	if err := db.Exec(ctx, `DROP TABLE tester_names`); err != nil {
		t.Fatal(err)
	}
	db.Close()

	cfg.Addr = "127.0.0.1:0"
	cfg.MaxBodyBytes = 1 << 20
	cfg.MessageLimit = tuning.DefaultMessageLimit
	a, err := app.Open(ctx, cfg, quiet)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	if err := a.Listen(); err != nil {
		t.Fatal(err)
	}
	base := a.URL() + api.Prefix
	after := readNumbers(t, base)
	compareNumbers(t, "after the migration", before, after)
	checkJudgments(t, base, want)

	// Rebuilt from the scores alone.
	scores := score.NewService(a.DB.Scores(), score.Options{Turns: a.DB.Capture(), Traces: a.DB.Workshops()})
	sc := scoring.New(a.DB.Scoring(), a.DB.Capture(), quality.Default())
	sc.Scores = scores
	scores.Follow(sc, learning.NewService(a.DB.Learning(), learning.Options{Scores: scores}),
		workshop.NewService(a.DB.Workshops(), a.DB.Capture(), workshop.Options{Scores: scores}))
	if err := scores.Replay(ctx, score.Filter{}); err != nil {
		t.Fatal(err)
	}
	compareNumbers(t, "rebuilt from the scores", before, readNumbers(t, base))
	t.Logf("%d answers compared; %d !score values, %d ratings and %d labels moved", len(before), len(want.dimensions),
		len(want.ratings), len(want.labels))
}

// upgradeClock is the seed's clock: 40 days ago, moved on by each write.
type upgradeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *upgradeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(7 * time.Second)
	return c.t
}

func (c *upgradeClock) jump(to time.Time) {
	c.mu.Lock()
	c.t = to
	c.mu.Unlock()
}

// goodAnswer and poorAnswer differ in the objective metrics.
const (
	goodAnswer = "Got it — that's a difficult situation. Per our No Call No Show policy, employees who miss three consecutive shifts are considered to have resigned. Here's what I recommend: 1. Document each absence. 2. Call the employee today."
	poorAnswer = "You could maybe talk to them."
)

// seedPreviousRelease writes what the previous release wrote, through its
// write paths, and returns the judgments.
func seedPreviousRelease(t *testing.T, db *storage.DB) judgments {
	ctx := context.Background()
	admin := hone.WithIdentity(ctx, hone.Admin)
	start := time.Now().UTC().Add(-40 * 24 * time.Hour).Truncate(time.Second)
	clock := &upgradeClock{t: start}
	db.Now = clock.now
	rng := rand.New(rand.NewPCG(15, 12))
	set := quality.Default()
	recorder := capture.NewRecorder(db.Capture(), scoring.New(db.Scoring(), db.Capture(), set))
	var out judgments

	// Three prompt versions, days apart; some turns scored with !score as
	// the previous release did: validate, merge into the map (a name given
	// again replaced), composites from the set, saved under the revision.
	var turns []*capture.Turn
	convOf := map[string]string{}
	for v, version := range []string{"v1", "v2", "v3"} {
		clock.jump(start.Add(time.Duration(v*12) * 24 * time.Hour))
		for c := range 3 {
			conv := fmt.Sprintf("conv-%s-%d", version, c)
			for i := range 7 {
				response := goodAnswer
				if (i+v+c)%3 == 0 || v == 2 && i%2 == 0 {
					response = poorAnswer
				}
				turn, _, err := recorder.Record(ctx, capture.TurnInput{ConversationID: conv, TesterID: fmt.Sprint("tester-", c),
					UserMessage: fmt.Sprintf("My employee didn't show up (%s, %d)", version, i), Response: response,
					PromptVersion: version, ProcessingTimeMS: ptr(float64(300 + 400*i))}, "")
				if err != nil {
					t.Fatal(err)
				}
				turns = append(turns, turn)
				convOf[turn.ID] = conv
				for range rng.IntN(3) {
					given := map[string]int{}
					for _, name := range set.SubjectiveNames() {
						if rng.IntN(2) == 0 {
							given[name] = 1 + rng.IntN(5)
							if v == 2 {
								given[name] = 1 + rng.IntN(2)
							}
						}
					}
					if len(given) > 0 {
						previousScore(t, db, set, turn.ID, given)
					}
				}
			}
		}
	}
	for _, turn := range turns {
		ts, err := db.Scoring().TurnScores(ctx, scoring.TurnRef{TurnID: turn.ID})
		if err != nil {
			t.Fatal(err)
		}
		for name, v := range ts.Scores {
			out.dimensions = append(out.dimensions, fmt.Sprintf("%s|%s||%d", turn.ID, name, v))
		}
	}

	// 👍/👎 as the previous release saved them: one rating per turn and
	// tester, changed by rating again; intents and context types; a 👎
	// waits for its correction, and corrections, some synthesised.
	clock.jump(time.Now().UTC().Add(-45 * 24 * time.Hour))
	intents := []string{"", "calendar_query", "policy_question"}
	contexts := []string{"", "chat", "alert"}
	ratings := map[[2]string]string{}
	for round := range 3 {
		if round == 2 {
			clock.jump(time.Now().UTC().Add(-5 * 24 * time.Hour))
		}
		for i, turn := range turns {
			if rng.IntN(3) == 0 {
				continue
			}
			tester := fmt.Sprint("rater-", i%4)
			rating := learning.RatingUp
			if rng.IntN(5) < 2 {
				rating = learning.RatingDown
			}
			r, err := db.Learning().SaveRating(ctx, &learning.Rating{ID: hone.NewID(12), TurnID: turn.ID, SessionID: turn.SessionID,
				ConversationID: convOf[turn.ID], TesterID: tester, Rating: rating, Intent: intents[rng.IntN(3)],
				ContextType: contexts[rng.IntN(3)]}, rating == learning.RatingDown)
			if err != nil {
				t.Fatal(err)
			}
			ratings[[2]string{turn.ID, tester}] = rating
			if rating == learning.RatingDown && rng.IntN(2) == 0 {
				c := &learning.Correction{ID: hone.NewID(12), FeedbackID: r.ID, Text: "Name the policy and the next step."}
				if err := db.Learning().AddCorrection(ctx, c, r.ConversationID, tester); err != nil && hone.ErrorCode(err) != hone.ECONFLICT {
					t.Fatal(err)
				}
			}
		}
	}
	if err := db.Exec(ctx, `UPDATE corrections SET processed = TRUE WHERE id IN (SELECT id FROM corrections ORDER BY id LIMIT 3)`); err != nil {
		t.Fatal(err)
	}
	for k, r := range ratings {
		out.ratings = append(out.ratings, fmt.Sprintf("%s|thumbs|%s|%v", k[0], k[1], r == learning.RatingUp))
	}

	// A workshop in discovery: four members label ten traces GOOD or BAD,
	// with comments; two complete their follow-up answers.
	clock.jump(time.Now().UTC().Add(-3 * 24 * time.Hour))
	ws := workshop.NewService(db.Workshops(), db.Capture(), workshop.Options{})
	w, err := ws.Create(admin, workshop.Create{Name: "HR bot review", Facilitator: workshop.Person{Name: "Fay"}})
	if err != nil {
		t.Fatal(err)
	}
	var traces bytes.Buffer
	for i := range 10 {
		fmt.Fprintf(&traces, `{"id":"t%d","input":"question %d","output":"answer %d"}`+"\n", i, i, i)
	}
	if _, err := ws.ImportTraces(admin, w.ID, "", &traces, workshop.FormatJSONL, false); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.Begin(admin, w.ID, "", 10, false); err != nil {
		t.Fatal(err)
	}
	members := []string{w.Facilitator.ID}
	for _, name := range []string{"Alice", "Bob", "Carol"} {
		m, err := ws.AddMember(admin, w.ID, "", workshop.Person{Name: name, Role: workshop.RoleParticipant})
		if err != nil {
			t.Fatal(err)
		}
		members = append(members, m.ID)
	}
	for mi, m := range members {
		for i := range 10 {
			label := workshop.LabelGood
			if (i*7+mi*3)%5 < 2 {
				label = workshop.LabelBad
			}
			comment := fmt.Sprintf("member %d on trace %d: %s", mi, i, label)
			trace := fmt.Sprint("t", i)
			f, err := db.Workshops().UpsertFeedback(ctx, &workshop.Feedback{ID: hone.NewID(12), WorkshopID: w.ID, TraceID: trace,
				UserID: m, Label: label, Comment: comment, FollowupQnA: []workshop.QA{}})
			if err != nil {
				t.Fatal(err)
			}
			if mi < 2 {
				for q := range workshop.Questions {
					if _, err := db.Workshops().AppendAnswer(ctx, f.ID, q, workshop.QA{Question: fmt.Sprint("Why ", q, "?"), Answer: "Because."}); err != nil {
						t.Fatal(err)
					}
				}
			}
			out.labels = append(out.labels, strings.Join([]string{w.ID, trace, m, strings.ToUpper(label), comment}, "|"))
		}
	}
	return out
}

// previousScore merges human scores into a turn as the previous release's
// !score and POST /turns/{id}/scores did.
func previousScore(t *testing.T, db *storage.DB, set *quality.Set, turnID string, given map[string]int) {
	ctx := context.Background()
	if err := set.ValidateScores(given); err != nil {
		t.Fatal(err)
	}
	ts, err := db.Scoring().TurnScores(ctx, scoring.TurnRef{TurnID: turnID})
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range given {
		ts.Scores[k] = v
	}
	c := set.Composite(ts.Objective, ts.Scores)
	ts.Subjective, ts.Overall = c.Subjective, c.Overall
	if err := db.Scoring().SaveScores(ctx, ts); err != nil {
		t.Fatal(err)
	}
}

func ptr(f float64) *float64 { return &f }

// oldFace serves the API's read routes over db as it is, without migrating
// it, and returns their base URL.
func oldFace(t *testing.T, db *storage.DB) string {
	tun := tuning.NewService(db.Capture(), db.Tuning(), tuning.Options{})
	a := &api.API{Sessions: db.Capture(), Tuning: tun, Scoring: scoring.New(db.Scoring(), db.Capture(), quality.Default()),
		Learning: learning.NewService(db.Learning(), learning.Options{}), Workshops: workshop.NewService(db.Workshops(), db.Capture(),
			workshop.Options{}), Logger: slog.New(slog.DiscardHandler)}
	srv := httptest.NewServer(a.Handler())
	t.Cleanup(srv.Close)
	return srv.URL + api.Prefix
}

// readNumbers reads every number the API reports of the seeded data: the
// sessions with their totals, each session's turns with their metrics,
// human scores and composites (both exports), the session metrics, the
// version comparisons and regressions, the feedback statistics, the latest
// 👎 and the corrections waiting, and the workshop's feedback, completion,
// agreement and exports. Each answer is keyed by its path.
func readNumbers(t *testing.T, base string) map[string]any {
	t.Helper()
	get := func(path string) []byte {
		t.Helper()
		res, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		if err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %s %v", path, res.StatusCode, b, err)
		}
		return b
	}
	out := map[string]any{}
	asJSON := func(path string) any {
		t.Helper()
		var v any
		if err := json.Unmarshal(get(path), &v); err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		out[path] = v
		return v
	}
	sessions := asJSON("/sessions?limit=1000").(map[string]any)["sessions"].([]any)
	if len(sessions) != 9 {
		t.Fatalf("%d sessions", len(sessions))
	}
	for _, s := range sessions {
		id := s.(map[string]any)["id"].(string)
		asJSON("/sessions/" + id)
		asJSON("/sessions/" + id + "/export.json")
		out["/sessions/"+id+"/export.csv"] = string(get("/sessions/" + id + "/export.csv"))
		asJSON("/metrics/sessions/" + id)
	}
	for _, q := range []string{"a=v1&b=v2", "a=v2&b=v3", "a=v1&b=v3"} {
		asJSON("/metrics/compare?" + q)
	}
	asJSON("/metrics/regressions")
	for _, days := range []string{"7", "30", "3650"} {
		asJSON("/feedback/stats?days=" + days)
	}
	asJSON("/feedback/negative?limit=1000")
	asJSON("/feedback/corrections?limit=1000")
	workshops := asJSON("/workshops").(map[string]any)["workshops"].([]any)
	for _, w := range workshops {
		id := w.(map[string]any)["id"].(string)
		asJSON("/workshops/" + id)
		asJSON("/workshops/" + id + "/discovery-feedback")
		asJSON("/workshops/" + id + "/discovery-completion-status")
		asJSON("/workshops/" + id + "/agreement")
		for _, format := range []string{"jsonl", "csv"} {
			out["/workshops/"+id+"/export?format="+format] = string(get("/workshops/" + id + "/export?format=" + format))
		}
	}
	return out
}

// compareNumbers requires every answer after to equal the one before, but
// for what counts from the time of the request: the start of a statistics
// window (since) and how long an open session has lasted.
func compareNumbers(t *testing.T, what string, before, after map[string]any) {
	t.Helper()
	for _, path := range slices.Sorted(mapsKeys(before)) {
		b, a := withoutNow(before[path]), withoutNow(after[path])
		if !reflect.DeepEqual(b, a) {
			bj, _ := json.Marshal(b)
			aj, _ := json.Marshal(a)
			t.Errorf("%s: GET %s changed:\nbefore %.2000s\nafter  %.2000s", what, path, bj, aj)
		}
	}
	if len(after) != len(before) {
		t.Errorf("%s: %d answers, before %d", what, len(after), len(before))
	}
}

// withoutNow is v without the values that count from the time of the
// request.
func withoutNow(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if k == "since" || k == "duration_seconds" && x["session_end"] == nil || k == "judgments" {
				continue
			}
			out[k] = withoutNow(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = withoutNow(e)
		}
		return out
	case string:
		return withoutJudgmentColumns(x)
	}
	return v
}

// withoutJudgmentColumns is a session's CSV export without the judgment
// columns this release adds after the spec's (the previous release had
// none; checkJudgments checks the judgments).
func withoutJudgmentColumns(s string) string {
	if !strings.HasPrefix(s, "Turn,") {
		return s
	}
	rows, err := csv.NewReader(strings.NewReader(s)).ReadAll()
	if err != nil || len(rows) == 0 || !slices.Equal(rows[0][len(rows[0])-len(tuning.JudgmentColumns):], tuning.JudgmentColumns) {
		return s
	}
	var b strings.Builder
	w := csv.NewWriter(&b)
	for _, r := range rows {
		_ = w.Write(r[:len(r)-len(tuning.JudgmentColumns)])
	}
	w.Flush()
	return b.String()
}

func mapsKeys(m map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// checkJudgments requires the scores export to hold every judgment the
// seed made, and nothing else.
func checkJudgments(t *testing.T, base string, want judgments) {
	t.Helper()
	res, err := http.Get(base + "/scores/export?format=jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var dims, ratings, labels []string
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var row score.ExportRow
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatal(err)
		}
		str := func(p *string) string {
			if p == nil {
				return ""
			}
			return *p
		}
		switch row.Config {
		case score.Thumbs:
			ratings = append(ratings, fmt.Sprintf("%s|thumbs|%s|%v", str(row.TurnID), str(row.Author), row.Value))
		case score.WorkshopLabel:
			labels = append(labels, strings.Join([]string{str(row.WorkshopID), str(row.TraceID), str(row.Author), fmt.Sprint(row.Value), str(row.Comment)}, "|"))
		default:
			dims = append(dims, fmt.Sprintf("%s|%s|%s|%v", str(row.TurnID), row.Config, str(row.Author), row.Value))
		}
		if row.Source != score.SourceImport && row.Source != score.SourceWorkshop || row.Target == "turn" && str(row.PromptVersion) == "" {
			t.Errorf("moved score %+v", row)
		}
	}
	for _, c := range []struct {
		what      string
		got, want []string
	}{{"!score dimensions", dims, want.dimensions}, {"ratings", ratings, want.ratings}, {"labels", labels, want.labels}} {
		slices.Sort(c.got)
		slices.Sort(c.want)
		if !slices.Equal(c.got, c.want) || len(c.want) == 0 {
			t.Errorf("%s: the scores hold %d, the seed made %d:\n got %q\nwant %q", c.what, len(c.got), len(c.want), c.got, c.want)
		}
	}
}
