package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/llm/llmtest"
	"github.com/honehq/hone/internal/logtest"
	"github.com/honehq/hone/internal/score"
	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/workshop"
)

// wsClearEnv makes the environment hold none of the settings the workshop
// tests give: no LLM, no public URL, the default address.
func wsClearEnv(t *testing.T) {
	t.Helper()
	clearSignInEnv(t)
	for _, name := range []string{"HONE_LLM_BASE_URL", "HONE_LLM_API_KEY", "HONE_LLM_MODEL", "HONE_LLM_TIMEOUT", "HONE_LLM_JSON_MODE"} {
		t.Setenv(name, "")
	}
}

// wsSetLLM points HONE_LLM_* at the fake LLM.
func wsSetLLM(t *testing.T, srv *llmtest.Server) {
	t.Helper()
	cfg := srv.Config()
	t.Setenv("HONE_LLM_BASE_URL", cfg.BaseURL)
	t.Setenv("HONE_LLM_API_KEY", cfg.APIKey)
	t.Setenv("HONE_LLM_MODEL", cfg.Model)
}

// wsField returns the value of the line "label: value" of out.
func wsField(t *testing.T, out, label string) string {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(line, label+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	t.Fatalf("no %q line in:\n%s", label, out)
	return ""
}

// wsCLI runs hone workshop commands against one database.
type wsCLI struct {
	t    *testing.T
	d    testDatabase
	base []string
}

func newWSCLI(t *testing.T, d testDatabase) *wsCLI {
	return &wsCLI{t: t, d: d, base: append(append([]string{}, d.flags...), "--log-level", "error", "workshop")}
}

// run runs hone workshop args with stdin.
func (c *wsCLI) runIn(stdin string, args ...string) (int, string, string) {
	c.t.Helper()
	var out, errOut bytes.Buffer
	code := Execute(context.Background(), append(append([]string{}, c.base...), args...), strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

func (c *wsCLI) run(args ...string) (int, string, string) {
	c.t.Helper()
	return c.runIn("", args...)
}

// ok runs hone workshop args and requires success.
func (c *wsCLI) ok(args ...string) (string, string) {
	c.t.Helper()
	code, out, errOut := c.run(args...)
	if code != 0 {
		c.t.Fatalf("hone workshop %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, out, errOut)
	}
	return out, errOut
}

// fails runs hone workshop args and requires an exit code other than 0 and
// each of want on standard error.
func (c *wsCLI) fails(args []string, want ...string) string {
	c.t.Helper()
	code, out, errOut := c.run(args...)
	if code == 0 {
		c.t.Errorf("hone workshop %s succeeded: %s", strings.Join(args, " "), out)
	}
	for _, w := range want {
		if !strings.Contains(errOut, w) {
			c.t.Errorf("hone workshop %s: stderr %q lacks %q", strings.Join(args, " "), errOut, w)
		}
	}
	return errOut
}

// wsMember is a member as add-member printed them.
type wsMember struct{ id, token, url string }

func (c *wsCLI) addMember(workshopID string, args ...string) wsMember {
	c.t.Helper()
	out, errOut := c.ok(append([]string{"add-member", workshopID}, args...)...)
	if !strings.Contains(errOut, "shown this once") {
		c.t.Errorf("add-member does not say the token is shown once: %q", errOut)
	}
	return wsMember{id: wsField(c.t, out, "Member ID"), token: wsField(c.t, out, "Token"), url: wsField(c.t, out, "Join URL")}
}

func wsWriteFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// wsService is the workshop service over the test's database, as a member
// sees it through their token.
func wsService(t *testing.T, db *storage.DB) *workshop.Service {
	scores := score.NewService(db.Scores(), score.Options{Turns: db.Capture(), Traces: db.Workshops()})
	s := workshop.NewService(db.Workshops(), db.Capture(), workshop.Options{Scores: scores})
	scores.Follow(s)
	return s
}

func wsMemberCtx(t *testing.T, s *workshop.Service, token string) context.Context {
	t.Helper()
	id, ok, err := s.Authenticate(context.Background(), token)
	if err != nil || !ok {
		t.Fatalf("the printed token does not authenticate: %v %v", ok, err)
	}
	return hone.WithIdentity(context.Background(), id)
}

// wsReview gives a member's label and comment of a trace and answers the
// first answers follow-up questions.
func wsReview(t *testing.T, s *workshop.Service, ctx context.Context, workshopID, traceID, label, comment string, answers int) {
	t.Helper()
	if _, err := s.SubmitFeedback(ctx, workshopID, workshop.FeedbackInput{TraceID: traceID, Label: label, Comment: comment}); err != nil {
		t.Fatalf("feedback on %s: %v", traceID, err)
	}
	for n := 1; n <= answers; n++ {
		q, err := s.GenerateQuestion(ctx, workshopID, traceID, "", n)
		if err != nil {
			t.Fatalf("question %d of %s: %v", n, traceID, err)
		}
		if _, err := s.SubmitAnswer(ctx, workshopID, workshop.AnswerInput{TraceID: traceID, Question: q.Question,
			Answer: label + " because of answer " + string(rune('0'+n))}); err != nil {
			t.Fatalf("answer %d of %s: %v", n, traceID, err)
		}
	}
}

const (
	wsJSONFile = `[
  {"id": "t1", "input": "How do I swap a shift?", "output": "Ask your manager, then log it."},
  {"id": "t2", "input": {"question": "Can I carry over PTO?"}, "output": "Up to 40 hours."}
]`
	wsJSONLFile = `{"id": "t3", "input": "Is FMLA paid?", "output": "No, it is unpaid leave.", "metadata": {"source": "prod"}}
{"id": "t4", "input": "Where is the handbook?", "output": "On the intranet."}
`
	wsCSVFile = "id,input,output\r\nt5,\"Say \"\"hi\"\", then, bye\",\"line 1\nline 2\"\r\n"
	// wsBadFile has invalid traces on lines 2 and 4.
	wsBadFile = `{"id": "b1", "input": "fine", "output": "fine"}
{"id": "b2", "input": "no output"}
{"id": "b3", "input": "fine too", "output": "yes"}
{"id": "b4", "input": "x", "output": "y", "colour": "red"}
`
)

func TestWorkshopCommands(t *testing.T) {
	eachTestDatabase(t, func(t *testing.T, d testDatabase) {
		wsClearEnv(t)
		t.Setenv("HONE_PUBLIC_URL", "https://hone.example/")
		c := newWSCLI(t, d)
		dir := t.TempDir()
		db := d.open(t)
		svc := wsService(t, db)

		// create
		c.fails([]string{"create", "--facilitator-name", "Fay"}, "--name is required")
		c.fails([]string{"create", "--name", "X"}, "--facilitator-name is required")
		c.fails([]string{"create", "--name", "X", "--facilitator-name", "Fay", "--facilitator-email", "fay"}, "--facilitator-email", "not an email address")
		out, _ := c.ok("create", "--name", "Support bot review", "--description", "HR answers", "--facilitator-name", "Fay",
			"--facilitator-email", "fay@example.com")
		wid := wsField(t, out, "Workshop ID")
		fay := wsMember{id: wsField(t, out, "Member ID"), token: wsField(t, out, "Token"), url: wsField(t, out, "Join URL")}
		if wsField(t, out, "Role") != workshop.RoleFacilitator || fay.url != "https://hone.example/w/"+wid+"/join/"+fay.token {
			t.Errorf("create printed:\n%s", out)
		}
		if id, ok, err := svc.Authenticate(context.Background(), fay.token); !ok || err != nil || id.MemberID != fay.id || id.WorkshopID != wid {
			t.Errorf("the facilitator's token: %+v %v %v", id, ok, err)
		}

		// add-member
		alice := c.addMember(wid, "--name", "Alice", "--email", "alice@example.com")
		t.Setenv("HONE_PUBLIC_URL", "")
		bob := c.addMember(wid, "--name", "Bob", "--addr", "0.0.0.0:9999")
		if !strings.HasPrefix(alice.url, "https://hone.example/w/"+wid+"/join/hw_") || bob.url != "http://localhost:9999/w/"+wid+"/join/"+bob.token {
			t.Errorf("join URLs %q, %q", alice.url, bob.url)
		}
		c.fails([]string{"add-member", wid}, "--name is required")
		c.fails([]string{"add-member", wid, "--name", "Eve", "--role", "boss"}, "--role", "facilitator or participant")
		c.fails([]string{"add-member", "nope", "--name", "Eve"}, `workshop "nope" not found`)
		c.fails([]string{"add-member", "--name", "Eve"}, "give the workshop id")

		// import: one file of each format, and standard input
		for _, f := range [][2]string{{"a.json", wsJSONFile}, {"b.jsonl", wsJSONLFile}} {
			if out, _ := c.ok("import", wid, wsWriteFile(t, dir, f[0], f[1])); out != "imported 2 traces\n" {
				t.Errorf("import %s: %q", f[0], out)
			}
		}
		if out, _ := c.ok("import", wid, wsWriteFile(t, dir, "c.csv", wsCSVFile)); out != "imported 1 trace\n" {
			t.Errorf("import c.csv: %q", out)
		}
		code, out, errOut := c.runIn(`{"id": "t6", "input": "stdin", "output": "works"}`+"\n", "import", wid, "-", "--format", "jsonl")
		if code != 0 || out != "imported 1 trace\n" {
			t.Errorf("import from standard input: %d %q %q", code, out, errOut)
		}
		c.fails([]string{"import", wid, "-"}, "--format is required when reading standard input")
		c.fails([]string{"import", wid, wsWriteFile(t, dir, "d.txt", wsJSONLFile)}, "cannot tell the format", "--format")
		c.fails([]string{"import", wid, filepath.Join(dir, "a.json"), "--format", "xml"}, `--format must be json, jsonl or csv, not "xml"`)
		c.fails([]string{"import", wid}, "give the FILE to import")
		c.fails([]string{"import", wid, filepath.Join(dir, "missing.json")}, "missing.json")

		// import: an invalid file imports nothing unless --skip-invalid
		bad := wsWriteFile(t, dir, "bad.jsonl", wsBadFile)
		errOut = c.fails([]string{"import", wid, bad}, "line 2: output: output is required", "line 4: colour: unknown property",
			"Nothing was imported", "--skip-invalid")
		if strings.Contains(errOut, "line 1") || strings.Contains(errOut, "line 3") {
			t.Errorf("valid lines listed: %q", errOut)
		}
		if w, _ := svc.Get(hone.WithIdentity(context.Background(), hone.Admin), wid); w.TraceCount != 6 {
			t.Fatalf("after the refused import the workshop has %d traces, want 6", w.TraceCount)
		}
		out, errOut = c.ok("import", wid, bad, "--skip-invalid")
		if out != "imported 2 traces\n" || !strings.Contains(errOut, "skipped 2 invalid traces") ||
			!strings.Contains(errOut, "line 2: output: output is required") || !strings.Contains(errOut, "line 4: colour:") {
			t.Errorf("import --skip-invalid: %q %q", out, errOut)
		}
		errOut = c.fails([]string{"import", wid, filepath.Join(dir, "a.json")}, `line 2: id: the workshop has a trace "t1" already`,
			`line 3: id: the workshop has a trace "t2" already`)

		// import: a tuning session's turns
		turn, _, err := capture.NewRecorder(db.Capture(), nil).Record(context.Background(), capture.TurnInput{ConversationID: "c1",
			TesterID: "meg", UserMessage: "What is the dress code?", Response: "Business casual.", PromptVersion: "v7",
			SearchResults: json.RawMessage(`[{"doc": "handbook"}]`)}, "")
		if err != nil {
			t.Fatal(err)
		}
		if out, _ := c.ok("import", wid, "--from-session", turn.SessionID); out != "imported 1 trace\n" {
			t.Errorf("import --from-session: %q", out)
		}
		out, errOut = c.ok("import", wid, "--prompt-version", "v7")
		if out != "imported 0 traces\n" || !strings.Contains(errOut, "skipped 1 turn:") || !strings.Contains(errOut, turn.ID) {
			t.Errorf("import --prompt-version again: %q %q", out, errOut)
		}
		c.fails([]string{"import", wid, "--from-session", "nope"}, `session "nope" not found`)
		c.fails([]string{"import", wid, "--from-session", turn.SessionID, "--prompt-version", "v7"}, "not both")
		c.fails([]string{"import", wid, bad, "--from-session", turn.SessionID}, "not both")
		admin := hone.WithIdentity(context.Background(), hone.Admin)
		traces, _ := svc.Traces(admin, wid, "")
		if len(traces) != 9 || traces[8].ID != turn.ID || traces[8].InputText != "What is the dress code?" || traces[4].OutputText != "line 1\nline 2" ||
			traces[4].InputText != `Say "hi", then, bye` {
			t.Fatalf("traces after the imports: %d", len(traces))
		}

		// begin-discovery
		c.fails([]string{"begin-discovery", wid, "--trace-limit", "0"}, "--trace-limit must be from 1")
		if out, _ := c.ok("begin-discovery", wid, "--trace-limit", "3"); !strings.Contains(out, "every participant reviews 3 traces of 9, in the same order") {
			t.Errorf("begin-discovery: %q", out)
		}
		c.fails([]string{"begin-discovery", wid}, "discovery has started already")

		// feedback, given through the service as the members themselves;
		// without an LLM every follow-up question is the fallback one.
		actx, bctx := wsMemberCtx(t, svc, alice.token), wsMemberCtx(t, svc, bob.token)
		long := "The answer skips the approval step entirely, which is the one thing a new manager needs to know first."
		wsReview(t, svc, actx, wid, "t1", "good", "clear and short", 3)
		wsReview(t, svc, actx, wid, "t2", "bad", "wrong number", 3)
		wsReview(t, svc, actx, wid, "t3", "good", "kind \x1b[31mtone", 3)
		wsReview(t, svc, bctx, wid, "t1", "bad", long, 3)
		wsReview(t, svc, bctx, wid, "t2", "bad", "too vague", 3)
		wsReview(t, svc, bctx, wid, "t3", "good", "accurate", 1)
		if _, err := svc.GenerateQuestion(bctx, wid, "t3", "", 2); err != nil {
			t.Fatal(err)
		}

		// status
		out, _ = c.ok("status", wid)
		for _, want := range [][]string{{"Workshop:", "Support bot review", wid}, {"Phase:", "discovery"}, {"Traces:", "9"},
			{"Assigned:", "3 per participant"}, {"Discovery started:", "yes"},
			{"Alice", alice.id, "3/3", "yes"}, {"Bob", bob.id, "2/3", "no"}} {
			if !regexpLine(out, want...) {
				t.Errorf("status lacks a line with %q:\n%s", want, out)
			}
		}
		if !strings.Contains(out, "1 of 2 participants finished (50%).") || strings.Contains(out, "Fay") {
			t.Errorf("status:\n%s", out)
		}
		c.fails([]string{"status", "nope"}, `workshop "nope" not found`)

		// feedback
		out, _ = c.ok("feedback", wid)
		for _, want := range [][]string{{"t1", "Alice", alice.id, "GOOD", "3/3", "Q1 Q2 Q3", "clear and short"},
			{"t1", "Bob", "BAD", "3/3", "Q1 Q2 Q3", cell(long)},
			{"t3", "Bob", "GOOD", "1/3", "Q1 Q2 (asked)", "accurate"},
			{"t3", "Alice", "GOOD", "kind [31mtone"}} {
			if !regexpLine(out, want...) {
				t.Errorf("feedback lacks a line with %q:\n%s", want, out)
			}
		}
		if strings.Contains(out, "\x1b") || strings.Contains(out, long) || !strings.HasSuffix(cell(long), "…") || !strings.Contains(out, "6 feedback records; 17 questions were the generic fallback") {
			t.Errorf("feedback:\n%s", out)
		}
		out, _ = c.ok("feedback", wid, "--user", bob.id)
		if strings.Contains(out, "Alice") || strings.Count(out, bob.id) != 3 {
			t.Errorf("feedback --user bob:\n%s", out)
		}
		c.fails([]string{"feedback", wid, "--user", "nobody"}, `has no member "nobody"`)

		// analyze with the fake LLM
		srv := llmtest.New(t)
		wsSetLLM(t, srv)
		none := []workshop.DisagreementAnalysis{}
		srv.Push(llmtest.JSON(workshop.DistillationOutput{
			Findings: []workshop.Finding{{Text: "Names the approval step before anything else", EvidenceTraceIDs: []string{"t1"}, Priority: "high"}},
			HighPriorityDisagreements: []workshop.DisagreementAnalysis{{TraceID: "t1", Summary: "brevity against completeness",
				UnderlyingTheme: "what a manager must know", FollowupQuestions: []string{"Is the approval step required?"},
				FacilitatorSuggestions: []string{"Agree on the must-haves"}}},
			MediumPriorityDisagreements: none, LowerPriorityDisagreements: none, Summary: "Completeness beats brevity."}))
		out, errOut = c.ok("analyze", wid)
		for _, want := range []string{"# Discovery analysis: Evaluation Criteria", "based on the feedback of 2 participant(s); model fake-model",
			"**[HIGH]** Names the approval step before anything else _(evidence: t1)_", "Completeness beats brevity.",
			"### HIGH: rating disagreements (GOOD and BAD) (1)", "#### Trace t1", "**Underlying theme:** what a manager must know",
			"### MEDIUM: both BAD, different issues (1)", "#### Trace t2", "### LOWER: both GOOD, different strengths (1)", "#### Trace t3"} {
			if !strings.Contains(out, want) {
				t.Errorf("analyze lacks %q:\n%s", want, out)
			}
		}
		if !strings.Contains(errOut, ": done") || strings.Contains(errOut, "HONE_LLM") || srv.Pending() != 0 {
			t.Errorf("analyze stderr %q, %d replies left", errOut, srv.Pending())
		}
		if reqs := srv.Requests(); len(reqs) != 1 || !strings.Contains(reqs[0].LastUserMessage(), "approval step entirely") {
			t.Errorf("the LLM got %d requests", len(reqs))
		}

		// analyze with a failing LLM
		srv.SetHandler(func(llmtest.ChatRequest) llmtest.Reply { return llmtest.Error(http.StatusBadRequest, "no such model") })
		c.fails([]string{"analyze", wid}, "failed", "no such model")
		c.fails([]string{"analyze", wid, "--template", "nope"}, "nope")

		// analyze without an LLM: the tiers only
		for _, name := range []string{"HONE_LLM_BASE_URL", "HONE_LLM_API_KEY", "HONE_LLM_MODEL"} {
			t.Setenv(name, "")
		}
		out, errOut = c.ok("analyze", wid)
		if !strings.Contains(errOut, "needs an LLM") || !strings.Contains(errOut, "HONE_LLM_BASE_URL") ||
			!strings.Contains(out, "### HIGH: rating disagreements (GOOD and BAD) (1)") || !strings.Contains(out, "## Findings (0)") ||
			!strings.Contains(out, "the LLM part needs an LLM") {
			t.Errorf("analyze without an LLM:\nstdout %s\nstderr %s", out, errOut)
		}
		out, _ = c.ok("analyze", wid, "--wait=false", "--template", workshop.TemplateThemesPatterns)
		queued := strings.TrimSpace(out)
		if a, err := svc.Analysis(admin, wid, "", queued); err != nil || a.Status != workshop.StatusQueued {
			t.Errorf("analyze --wait=false printed %q: %+v %v", out, a, err)
		}

		// analyses
		out, _ = c.ok("analyses", wid)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 5 || !regexpLine(lines[0], "ANALYSIS", "DISAGREEMENTS H/M/L") || !regexpLine(lines[1], queued, "themes_patterns", "queued") ||
			!regexpLine(lines[2], "evaluation_criteria", "done", "2", "0", "1/1/1") || !regexpLine(lines[3], "evaluation_criteria", "failed: The LLM provider", "rejected") ||
			!regexpLine(lines[4], "evaluation_criteria", "done", "2", "1", "1/1/1") {
			t.Errorf("analyses:\n%s", out)
		}
		if out, _ = c.ok("analyses", wid, "--template", workshop.TemplateThemesPatterns); strings.Count(out, "\n") != 2 {
			t.Errorf("analyses --template:\n%s", out)
		}

		// rubric
		if out, _ = c.ok("rubric", wid); out != "The draft rubric is empty.\n" {
			t.Errorf("empty rubric: %q", out)
		}
		all, _ := svc.Analyses(admin, wid, "", workshop.TemplateEvaluationCriteria)
		withLLM := all[len(all)-1]
		promote := func(text, source string, traces ...string) string {
			t.Helper()
			in := workshop.DraftItemInput{Text: text, SourceType: source, SourceTraceIDs: traces}
			if source == workshop.SourceFinding {
				in.SourceAnalysisID = withLLM.ID
			}
			it, err := svc.Promote(admin, wid, "", in)
			if err != nil {
				t.Fatal(err)
			}
			return it.ID
		}
		approval := promote(withLLM.Findings[0].Text, workshop.SourceFinding, "t1")
		numbers := promote("Gives the right numbers", workshop.SourceFeedback, "t2")
		tone := promote("Keeps a kind tone", workshop.SourceManual)
		promote("Escalates FMLA questions", workshop.SourceManual)
		if _, err := svc.ApplyGroups(admin, wid, "", workshop.Grouping{Groups: []workshop.ProposedGroup{
			{Name: "Accuracy", ItemIDs: []string{approval, numbers}}, {Name: "Tone", ItemIDs: []string{tone}}}}); err != nil {
			t.Fatal(err)
		}
		out, _ = c.ok("rubric", wid)
		for _, want := range []string{"Draft rubric: 4 items in 2 groups, 1 ungrouped.",
			"\nAccuracy (2 items; group ", "  - Names the approval step before anything else  [finding; traces t1; item " + approval + "]",
			"  - Gives the right numbers  [feedback; traces t2; item " + numbers + "]",
			"\nTone (1 item; group ", "  - Keeps a kind tone  [manual; item " + tone + "]",
			"\nUngrouped (1 item)\n  - Escalates FMLA questions  [manual; item "} {
			if !strings.Contains(out, want) {
				t.Errorf("rubric lacks %q:\n%s", want, out)
			}
		}

		// export
		out, _ = c.ok("export", wid, "--format", "jsonl")
		var records []workshop.FeedbackRecord
		sc := bufio.NewScanner(strings.NewReader(out))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var r workshop.FeedbackRecord
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				t.Fatalf("JSONL line %q: %v", sc.Text(), err)
			}
			records = append(records, r)
		}
		if len(records) != 6 {
			t.Fatalf("%d JSONL records:\n%s", len(records), out)
		}
		for _, r := range records {
			if r.WorkshopID != wid || r.Trace == nil || r.UserName == "" || len(r.FollowupQnA) == 0 || !r.FollowupQnA[0].Fallback {
				t.Errorf("JSONL record %+v", r)
			}
			if r.UserID == bob.id && r.Trace.ID == "t1" && (r.Comment != long || len(r.FollowupQnA) != 3) {
				t.Errorf("bob's t1 record: %+v", r)
			}
		}

		file := filepath.Join(dir, "feedback.csv")
		if out, _ := c.ok("export", wid, "--format", "csv", "--output", file); out != "" {
			t.Errorf("export --output wrote %q to stdout", out)
		}
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil || len(rows) != 7 || !slices.Equal(rows[0], workshop.CSVHeader) {
			t.Fatalf("CSV export: %d rows, %v", len(rows), err)
		}
		col := func(row []string, name string) string { return row[slices.Index(workshop.CSVHeader, name)] }
		for _, row := range rows[1:] {
			if col(row, "user_id") == alice.id && col(row, "trace_id") == "t3" {
				if col(row, "comment") != "kind \x1b[31mtone" || col(row, "fallback_questions") != "1 2 3" || col(row, "trace_input") != "Is FMLA paid?" {
					t.Errorf("alice's t3 row: %q", row)
				}
			}
		}

		md := filepath.Join(dir, "workshop.md")
		c.ok("export", wid, "--format", "md", "--output", md)
		b, _ := os.ReadFile(md)
		text := string(b)
		latest, _ := svc.Analyses(admin, wid, "", "")
		var latestDone string
		for _, a := range latest {
			if a.Status == workshop.StatusDone {
				latestDone = a.ID
				break
			}
		}
		for _, want := range []string{"# Workshop: Support bot review", "_Latest analysis " + latestDone + ",",
			"## Discovery analysis: Evaluation Criteria", "#### HIGH: rating disagreements (GOOD and BAD) (1)",
			"# Draft rubric (4 items)", "## Accuracy\n\n- Names the approval step before anything else _(finding; traces t1)_\n- Gives the right numbers _(feedback; traces t2)_\n",
			"## Tone\n\n- Keeps a kind tone _(manual)_\n", "## Ungrouped\n\n- Escalates FMLA questions _(manual)_\n"} {
			if !strings.Contains(text, want) {
				t.Errorf("the Markdown export lacks %q:\n%s", want, text)
			}
		}

		never := filepath.Join(dir, "never.csv")
		for _, tc := range []struct {
			args []string
			want string
		}{
			{[]string{"export", wid, "--format", "xml"}, `--format must be jsonl, csv or md, not "xml"`},
			{[]string{"export", wid}, "--format is required"},
			{[]string{"export", "nope", "--format", "csv"}, `workshop "nope" not found`},
			{[]string{"export", "--format", "csv"}, "give the workshop id"},
			{[]string{"export", wid, "extra", "--format", "csv"}, "too many arguments"},
		} {
			c.fails(append(tc.args, "--output", never), tc.want)
			if _, err := os.Stat(never); err == nil {
				t.Errorf("%v left a file behind", tc.args)
			}
		}

		c.fails([]string{"bogus"}, `unknown command "bogus" for "hone workshop"`)

		// list
		out, _ = c.ok("list")
		if !regexpLine(out, wid, "Support bot review", "discovery", "9") {
			t.Errorf("list:\n%s", out)
		}
	})
}

func TestWorkshopAnalyzeWaitsForAServer(t *testing.T) {
	eachTestDatabase(t, func(t *testing.T, d testDatabase) {
		wsClearEnv(t)
		defer func(d time.Duration) { analysisPollEvery = d }(analysisPollEvery)
		analysisPollEvery = 10 * time.Millisecond
		db := d.open(t)
		svc := wsService(t, db)
		admin := hone.WithIdentity(context.Background(), hone.Admin)
		ws, err := svc.Create(admin, workshop.Create{Name: "W", Facilitator: workshop.Person{Name: "Fay"}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.ImportTraces(admin, ws.ID, "", strings.NewReader(`[{"input":"a","output":"b"}]`), workshop.FormatJSON, false); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Begin(admin, ws.ID, "", 0, false); err != nil {
			t.Fatal(err)
		}
		store := db.Workshops()
		// claimed queues an analysis that a server claims first, and runs
		// analyze's runAnalysis on it; wait waits for it to end.
		claimed := func() (id string, progress *logtest.Buffer, wait func() error) {
			st, err := svc.Analyze(admin, ws.ID, workshop.AnalyzeInput{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := store.ClaimAnalysis(context.Background(), st.ID); err != nil {
				t.Fatal(err)
			}
			progress = &logtest.Buffer{}
			var got *workshop.Analysis
			var runErr error
			done := make(chan struct{})
			go func() {
				defer close(done)
				got, runErr = runAnalysis(admin, svc, progress, ws.ID, st.ID)
			}()
			running := "Analysis " + st.ID + ": running"
			for deadline := time.Now().Add(20 * time.Second); !strings.Contains(progress.String(), running); time.Sleep(5 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("analyze does not say the analysis is running:\n%s", progress.String())
				}
			}
			return st.ID, progress, func() error {
				select {
				case <-done:
				case <-time.After(20 * time.Second):
					t.Fatalf("analyze did not end; progress:\n%s", progress.String())
				}
				if runErr == nil && (got.ID != st.ID || got.Status != workshop.StatusDone) {
					t.Errorf("analysis %+v", got)
				}
				return runErr
			}
		}

		// The server finishes it: analyze waits and prints the server's result.
		id, progress, wait := claimed()
		a, err := store.Analysis(context.Background(), ws.ID, id)
		if err != nil {
			t.Fatal(err)
		}
		a.Status, a.AnalysisData = workshop.StatusDone, "# done by the server\n"
		if err := store.SaveAnalysis(context.Background(), a); err != nil {
			t.Fatal(err)
		}
		if err := wait(); err != nil {
			t.Fatal(err)
		}
		if a, _ := svc.Analysis(admin, ws.ID, "", id); a.AnalysisData != "# done by the server\n" {
			t.Errorf("the server's result was replaced: %q", a.AnalysisData)
		}
		if !strings.Contains(progress.String(), "Analysis "+id+": done") {
			t.Errorf("progress %q", progress.String())
		}

		// The server stops: its run is queued again, and analyze runs it.
		id, _, wait = claimed()
		if n, err := store.RequeueStale(context.Background(), time.Now().Add(time.Hour), 5); err != nil || n != 1 {
			t.Fatalf("requeue: %d %v", n, err)
		}
		if err := wait(); err != nil {
			t.Fatal(err)
		}
		if a, _ := svc.Analysis(admin, ws.ID, "", id); a.Status != workshop.StatusDone || !strings.Contains(a.AnalysisData, "# Discovery analysis") {
			t.Errorf("the requeued analysis: %+v", a)
		}
	})
}
