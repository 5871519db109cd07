package workshop_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/llm/llmtest"
	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/storage/storagetest"
	"github.com/honehq/hone/internal/workshop"
)

// reviewed is a workshop where alice and bob reviewed four traces: t1 GOOD
// and BAD (high), t2 BAD and BAD (medium), t3 GOOD and GOOD (lower), t4 by
// alice alone (no disagreement).
func reviewed(t *testing.T, db *storage.DB, withLLM bool) *fixture {
	f := newFixture(t, db, withLLM)
	f.begin(5, 5, false)
	if withLLM {
		f.llm.SetHandler(func(llmtest.ChatRequest) llmtest.Reply { return llmtest.Text("Why?") })
	}
	a, b := f.as(f.alice), f.as(f.bob)
	f.complete(a, f.alice, "t1", "good")
	f.complete(b, f.bob, "t1", "bad")
	f.complete(a, f.alice, "t2", "bad")
	f.complete(b, f.bob, "t2", "bad")
	f.complete(a, f.alice, "t3", "good")
	f.complete(b, f.bob, "t3", "good")
	f.complete(a, f.alice, "t4", "bad")
	return f
}

func distilled() workshop.DistillationOutput {
	return workshop.DistillationOutput{
		Findings: []workshop.Finding{
			{Text: "Cites the policy by name", EvidenceTraceIDs: []string{"t1", "t3", "ghost-9"}, Priority: "HIGH"},
			{Text: "Offers one action at a time", EvidenceTraceIDs: []string{"t2"}, Priority: "urgent"},
			{Text: "  ", EvidenceTraceIDs: []string{"t4"}, Priority: "low"},
		},
		HighPriorityDisagreements: []workshop.DisagreementAnalysis{{TraceID: "t1", Summary: "tone vs content",
			UnderlyingTheme: "empathy", FollowupQuestions: []string{"Which matters more?"}, FacilitatorSuggestions: []string{"Calibrate on tone"}}},
		MediumPriorityDisagreements: []workshop.DisagreementAnalysis{{TraceID: "nowhere", Summary: "invented",
			FollowupQuestions: []string{}, FacilitatorSuggestions: []string{}}},
		LowerPriorityDisagreements: []workshop.DisagreementAnalysis{},
		Summary:                    "Reviewers value citations.",
	}
}

// distillWith makes the fake LLM ask "Why?" as every follow-up question and
// answer every typed call with out.
func (f *fixture) distillWith(out any) {
	f.llm.SetHandler(func(r llmtest.ChatRequest) llmtest.Reply {
		if r.ResponseFormat == nil {
			return llmtest.Text("Why?")
		}
		return llmtest.JSON(out)
	})
}

// output is a DistillationOutput with findings and no disagreement analyses.
func output(findings []workshop.Finding, summary string) workshop.DistillationOutput {
	none := []workshop.DisagreementAnalysis{}
	return workshop.DistillationOutput{Findings: findings, HighPriorityDisagreements: none, MediumPriorityDisagreements: none,
		LowerPriorityDisagreements: none, Summary: summary}
}

func TestAnalysisFindsTiersAndDropsUnknownEvidence(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		f := reviewed(t, db, true)
		f.distillWith(distilled())
		if _, err := f.svc.Analyze(f.as(f.alice), f.ws.ID, workshop.AnalyzeInput{}); hone.ErrorCode(err) != hone.EFORBIDDEN {
			t.Fatalf("a participant started an analysis: %v", err)
		}
		if _, err := f.svc.Analyze(admin, f.ws.ID, workshop.AnalyzeInput{Template: "nope"}); hone.ErrorField(err) != "template" {
			t.Fatalf("unknown template: %v", err)
		}
		st, err := f.svc.Analyze(f.as(f.facilitator), f.ws.ID, workshop.AnalyzeInput{})
		if err != nil || st.Status != workshop.StatusQueued || st.Message != "" {
			t.Fatalf("analyze: %+v %v", st, err)
		}
		f.svc.Start(1)
		defer f.svc.Stop()
		a := f.waitAnalysis(st.ID)
		if a.Status != workshop.StatusDone || a.Template != workshop.TemplateEvaluationCriteria || a.ParticipantCount != 2 {
			t.Fatalf("analysis: %+v", a)
		}
		if len(a.Findings) != 2 || a.Findings[0].Priority != "high" || a.Findings[1].Priority != "medium" ||
			strings.Join(a.Findings[0].EvidenceTraceIDs, ",") != "t1,t3" {
			t.Fatalf("findings %+v", a.Findings)
		}
		if a.DroppedEvidence != 2 {
			t.Errorf("dropped evidence %d, want 2 (ghost-9 and the disagreement of trace nowhere)", a.DroppedEvidence)
		}
		d := a.Disagreements
		if len(d.High) != 1 || d.High[0].TraceID != "t1" || len(d.Medium) != 1 || d.Medium[0].TraceID != "t2" ||
			len(d.Lower) != 1 || d.Lower[0].TraceID != "t3" {
			t.Fatalf("tiers %+v", d)
		}
		if d.High[0].Analysis == nil || d.High[0].Analysis.UnderlyingTheme != "empathy" || d.Medium[0].Analysis != nil || len(d.High[0].Reviews) != 2 {
			t.Fatalf("merged disagreement analyses %+v / %+v", d.High[0], d.Medium[0])
		}
		for _, want := range []string{"# Discovery analysis: Evaluation Criteria", "**[HIGH]** Cites the policy by name _(evidence: t1, t3)_",
			"### HIGH: rating disagreements", "**Underlying theme:** empathy", "Reviewers value citations.", "#### Trace t3"} {
			if !strings.Contains(a.AnalysisData, want) {
				t.Errorf("analysis_data lacks %q:\n%s", want, a.AnalysisData)
			}
		}
		var req llmtest.ChatRequest
		for _, r := range f.llm.Requests() {
			if r.ResponseFormat != nil {
				req = r
			}
		}
		user := req.Messages[len(req.Messages)-1].Content
		for _, want := range []string{"## instruction\nAnalyze the participant feedback below to extract evaluation criteria",
			"### Trace t1", "- Alice (" + f.alice.ID + "): GOOD — Alice thinks good about t1", "Q1: Why?",
			"HIGH (rating disagreement: one GOOD, another BAD): t1", "MEDIUM (both BAD, different issues): t2",
			"LOWER (both GOOD, different strengths): t3"} {
			if !strings.Contains(user, want) {
				t.Errorf("the distillation prompt lacks %q:\n%s", want, user)
			}
		}
		if req.ResponseFormat.JSONSchema == nil || !strings.Contains(string(req.ResponseFormat.JSONSchema.Schema), "high_priority_disagreements") {
			t.Errorf("the typed output does not carry the spec's field names: %+v", req.ResponseFormat)
		}
		st2, _ := f.svc.Analyze(admin, f.ws.ID, workshop.AnalyzeInput{Template: workshop.TemplateThemesPatterns})
		f.waitAnalysis(st2.ID)
		all, _ := f.svc.Analyses(admin, f.ws.ID, "", "")
		themes, _ := f.svc.Analyses(admin, f.ws.ID, "", workshop.TemplateThemesPatterns)
		if len(all) != 2 || all[0].ID != st2.ID || len(themes) != 1 || themes[0].ID != st2.ID {
			t.Fatalf("history: %d runs (newest %s), themes %d", len(all), all[0].ID, len(themes))
		}
		// The runs to choose from come without their results.
		runs, err := f.svc.AnalysisRuns(admin, f.ws.ID)
		if err != nil || len(runs) != 2 || runs[0].ID != st2.ID || runs[1].Template != workshop.TemplateEvaluationCriteria ||
			runs[0].Status != workshop.StatusDone || runs[0].ParticipantCount != all[0].ParticipantCount ||
			len(runs[0].Findings) != 0 || len(runs[0].Disagreements.High) != 0 || runs[0].AnalysisData != "" ||
			len(all[0].Disagreements.High) == 0 {
			t.Fatalf("analysis runs: %+v %v", runs, err)
		}
		for _, d := range all[0].Disagreements.High {
			for _, r := range d.Reviews {
				if r.QnA != nil {
					t.Fatalf("a disagreement of the record holds %s's answers", r.Name)
				}
			}
		}
		if _, err := f.svc.AnalysisRuns(f.as(f.alice), f.ws.ID); hone.ErrorCode(err) != hone.EFORBIDDEN {
			t.Fatalf("analysis runs for a participant: %v", err)
		}
	})
}

func TestAnalysisWithoutLLMStillDetectsDisagreements(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		f := reviewed(t, db, false)
		st, err := f.svc.Analyze(admin, f.ws.ID, workshop.AnalyzeInput{})
		if err != nil || !strings.Contains(st.Message, "HONE_LLM_BASE_URL") {
			t.Fatalf("analyze without an LLM: %+v %v", st, err)
		}
		a, err := f.svc.RunAnalysis(admin, f.ws.ID, st.ID)
		if err != nil || a.Status != workshop.StatusDone || len(a.Disagreements.High) != 1 || len(a.Findings) != 0 ||
			!strings.Contains(strings.Join(a.Warnings, " "), "HONE_LLM_") {
			t.Fatalf("deterministic analysis: %+v %v", a, err)
		}
	})
}

func TestAnalysisWarnsWithFewerThanTwoParticipants(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		f := newFixture(t, db, true)
		f.begin(2, 2, false)
		f.distillWith(output([]workshop.Finding{{Text: "x", Priority: "low", EvidenceTraceIDs: []string{"t1"}}}, "one view"))
		f.complete(f.as(f.alice), f.alice, "t1", "good")
		st, _ := f.svc.Analyze(admin, f.ws.ID, workshop.AnalyzeInput{})
		a, err := f.svc.RunAnalysis(admin, f.ws.ID, st.ID)
		if err != nil || a.Status != workshop.StatusDone || a.ParticipantCount != 1 || len(a.Findings) != 1 ||
			!strings.Contains(a.Warnings[0], "fewer than 2 there can be no disagreement") {
			t.Fatalf("one participant: %+v %v", a, err)
		}
	})
}

func TestLargeWorkshopIsAnalysedInChunks(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		f := reviewed(t, db, true)
		budget := 1000
		if _, err := f.svc.Update(admin, f.ws.ID, "", workshop.Settings{TokenBudget: &budget}); err != nil {
			t.Fatal(err)
		}
		calls := 0
		f.llm.SetHandler(func(r llmtest.ChatRequest) llmtest.Reply {
			if r.ResponseFormat == nil {
				return llmtest.Text("Why?")
			}
			calls++
			if strings.Contains(r.Messages[0].Content, "Merge the findings") {
				return llmtest.JSON(map[string]any{"findings": []workshop.Finding{{Text: "merged", Priority: "high",
					EvidenceTraceIDs: []string{"t1", "t4"}}}, "summary": "all parts"})
			}
			id := r.Messages[1].Content[strings.Index(r.Messages[1].Content, "### Trace ")+10:][:2]
			return llmtest.JSON(output([]workshop.Finding{{Text: "from " + id, Priority: "low", EvidenceTraceIDs: []string{id}}}, "part"))
		})
		st, _ := f.svc.Analyze(admin, f.ws.ID, workshop.AnalyzeInput{})
		a, err := f.svc.RunAnalysis(admin, f.ws.ID, st.ID)
		if err != nil || a.Status != workshop.StatusDone {
			t.Fatalf("chunked analysis: %+v %v", a, err)
		}
		if a.ChunksTotal < 3 || a.ChunksDone != a.ChunksTotal || calls != a.ChunksTotal {
			t.Fatalf("%d of %d chunks, %d typed calls", a.ChunksDone, a.ChunksTotal, calls)
		}
		if len(a.Findings) != 1 || a.Findings[0].Text != "merged" || a.Summary != "all parts" ||
			!strings.Contains(strings.Join(a.Warnings, " "), "analysed in") {
			t.Fatalf("merged result: %+v %q %v", a.Findings, a.Summary, a.Warnings)
		}
	})
}

func TestFailedLLMFailsTheRunAndKeepsTheTiers(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		f := reviewed(t, db, true)
		f.llm.SetHandler(func(r llmtest.ChatRequest) llmtest.Reply { return llmtest.Error(500, "overloaded") })
		st, _ := f.svc.Analyze(admin, f.ws.ID, workshop.AnalyzeInput{})
		a, err := f.svc.RunAnalysis(admin, f.ws.ID, st.ID)
		if err != nil || a.Status != workshop.StatusFailed || !strings.Contains(a.Error, "HTTP 500") || len(a.Disagreements.High) != 1 {
			t.Fatalf("failed run: %+v %v", a, err)
		}
	})
}

func TestInterruptedAnalysisIsTakenUpAgain(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		f := reviewed(t, db, true)
		f.distillWith(distilled())
		st, _ := f.svc.Analyze(admin, f.ws.ID, workshop.AnalyzeInput{})
		// A server claims the run and dies without a word.
		if _, err := db.Workshops().ClaimAnalysis(admin, st.ID); err != nil {
			t.Fatal(err)
		}
		if a, _ := f.svc.Analysis(admin, f.ws.ID, "", st.ID); a.Status != workshop.StatusRunning {
			t.Fatalf("claimed run is %s", a.Status)
		}
		restarted := workshop.NewService(db.Workshops(), nil, workshop.Options{LLM: f.llm.Client(nil), StaleAfter: time.Millisecond})
		time.Sleep(5 * time.Millisecond)
		restarted.Start(1)
		defer restarted.Stop()
		deadline := time.Now().Add(20 * time.Second)
		for {
			a, _ := f.svc.Analysis(admin, f.ws.ID, "", st.ID)
			if a.Status == workshop.StatusDone {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the interrupted run is %s", a.Status)
			}
			time.Sleep(20 * time.Millisecond)
		}
		// A run that keeps dying is marked failed, never left running.
		st2, _ := f.svc.Analyze(admin, f.ws.ID, workshop.AnalyzeInput{})
		for range 2 {
			if _, err := db.Workshops().ClaimAnalysis(admin, st2.ID); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Workshops().RequeueStale(admin, time.Now().Add(time.Hour), 2); err != nil {
				t.Fatal(err)
			}
		}
		a, _ := f.svc.Analysis(admin, f.ws.ID, "", st2.ID)
		if a.Status != workshop.StatusFailed || !strings.Contains(a.Error, "interrupted") {
			t.Fatalf("a run interrupted twice: %s %q", a.Status, a.Error)
		}
	})
}

func TestAnalysisRecordRoundTripsJSON(t *testing.T) {
	var a workshop.Analysis
	b, _ := json.Marshal(workshop.Analysis{Disagreements: workshop.Disagreements{High: []workshop.Disagreement{{TraceID: "t1"}}}})
	if err := json.Unmarshal(b, &a); err != nil || a.Disagreements.High[0].TraceID != "t1" ||
		!strings.Contains(string(b), `"disagreements":{"high":[{"trace_id":"t1","reviews":null}],"medium":null,"lower":null}`) {
		t.Fatalf("%s %v", b, err)
	}
}

func TestRunAnalysisOfAnotherWorkshopClaimsNothing(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		f := reviewed(t, db, false)
		other, _ := f.svc.Create(admin, workshop.Create{Name: "Other", Facilitator: workshop.Person{Name: "Oz"}})
		st, _ := f.svc.Analyze(admin, f.ws.ID, workshop.AnalyzeInput{})
		if _, err := f.svc.RunAnalysis(admin, other.ID, st.ID); hone.ErrorCode(err) != hone.ENOTFOUND {
			t.Fatalf("run through another workshop: %v", err)
		}
		a, err := f.svc.RunAnalysis(admin, f.ws.ID, st.ID)
		if err != nil || a.Status != workshop.StatusDone {
			t.Fatalf("the run after the wrong call: %+v %v", a, err)
		}
	})
}
