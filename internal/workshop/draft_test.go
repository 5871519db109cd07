package workshop_test

import (
	"strings"
	"testing"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/llm/llmtest"
	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/storage/storagetest"
	"github.com/honehq/hone/internal/workshop"
)

func TestDraftRubricPromotionAndGrouping(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		f := reviewed(t, db, true)
		f.distillWith(distilled())
		st, _ := f.svc.Analyze(admin, f.ws.ID, workshop.AnalyzeInput{})
		an, _ := f.svc.RunAnalysis(admin, f.ws.ID, st.ID)
		fac := f.as(f.facilitator)
		finding, err := f.svc.Promote(fac, f.ws.ID, "", workshop.DraftItemInput{Text: an.Findings[0].Text, SourceType: "finding",
			SourceAnalysisID: an.ID, SourceTraceIDs: an.Findings[0].EvidenceTraceIDs})
		if err != nil || finding.PromotedBy != f.facilitator.ID || finding.SourceAnalysisID != an.ID ||
			strings.Join(finding.SourceTraceIDs, ",") != "t1,t3" || finding.GroupID != "" {
			t.Fatalf("promote a finding: %+v %v", finding, err)
		}
		dis, _ := f.svc.Promote(fac, f.ws.ID, "", workshop.DraftItemInput{Text: "Tone vs content on t1", SourceType: "disagreement",
			SourceAnalysisID: an.ID, SourceTraceIDs: []string{"t1"}})
		fb, _ := f.svc.Promote(fac, f.ws.ID, "", workshop.DraftItemInput{Text: "Alice thinks good about t3", SourceType: "feedback",
			SourceTraceIDs: []string{"t3", "t3"}})
		manual, _ := f.svc.Promote(admin, f.ws.ID, "", workshop.DraftItemInput{Text: "Escalate FMLA questions"})
		if manual.SourceType != "manual" || manual.PromotedBy != "admin" || len(fb.SourceTraceIDs) != 1 {
			t.Fatalf("manual %+v, feedback %+v", manual, fb)
		}
		for field, bad := range map[string]workshop.DraftItemInput{
			"text":               {Text: " ", SourceType: "manual"},
			"source_type":        {Text: "x", SourceType: "rumour"},
			"source_trace_ids":   {Text: "x", SourceType: "feedback", SourceTraceIDs: []string{"ghost"}},
			"source_analysis_id": {Text: "x", SourceType: "finding", SourceAnalysisID: "nope"},
		} {
			if _, err := f.svc.Promote(fac, f.ws.ID, "", bad); hone.ErrorField(err) != field {
				t.Errorf("%s: %v", field, err)
			}
		}
		if _, err := f.svc.Promote(f.as(f.alice), f.ws.ID, "", workshop.DraftItemInput{Text: "x"}); hone.ErrorCode(err) != hone.EFORBIDDEN {
			t.Fatalf("a participant promoted: %v", err)
		}
		// Manual grouping: a new group by name, moving an item in, renaming.
		name := "Accuracy"
		grouped, err := f.svc.UpdateDraftItem(fac, f.ws.ID, "", finding.ID, workshop.DraftItemUpdate{GroupName: &name})
		if err != nil || grouped.GroupID == "" || grouped.GroupName != "Accuracy" {
			t.Fatalf("new group: %+v %v", grouped, err)
		}
		// Alone in its group, the item names that group as an existing one.
		same, err := f.svc.UpdateDraftItem(fac, f.ws.ID, "", finding.ID, workshop.DraftItemUpdate{GroupID: &grouped.GroupID})
		if err != nil || same.GroupID != grouped.GroupID || same.GroupName != "Accuracy" {
			t.Fatalf("kept its own group: %+v %v", same, err)
		}
		long := strings.Repeat("é", workshop.MaxNameLength+1)
		if _, err := f.svc.UpdateDraftItem(fac, f.ws.ID, "", finding.ID, workshop.DraftItemUpdate{GroupID: &long, GroupName: &name}); hone.ErrorField(err) != "group_id" {
			t.Fatalf("a group_id of %d characters: %v", workshop.MaxNameLength+1, err)
		}
		moved, err := f.svc.UpdateDraftItem(fac, f.ws.ID, "", fb.ID, workshop.DraftItemUpdate{GroupID: &grouped.GroupID})
		if err != nil || moved.GroupName != "Accuracy" {
			t.Fatalf("move: %+v %v", moved, err)
		}
		if err := f.svc.RenameGroup(fac, f.ws.ID, "", grouped.GroupID, "Citations"); err != nil {
			t.Fatal(err)
		}
		text := "Escalate FMLA and ADA questions"
		if _, err := f.svc.UpdateDraftItem(fac, f.ws.ID, "", manual.ID, workshop.DraftItemUpdate{Text: &text}); err != nil {
			t.Fatal(err)
		}
		items, _ := f.svc.DraftItems(fac, f.ws.ID, "")
		names := map[string]string{}
		for _, it := range items {
			names[it.ID] = it.GroupName
		}
		if names[finding.ID] != "Citations" || names[fb.ID] != "Citations" || names[dis.ID] != "" || len(items) != 4 {
			t.Fatalf("groups after manual moves: %v", names)
		}
		// suggest-groups proposes and saves nothing; invented ids are dropped.
		f.llm.SetHandler(func(llmtest.ChatRequest) llmtest.Reply {
			return llmtest.JSON(workshop.Grouping{Groups: []workshop.ProposedGroup{
				{Name: "Policy", ItemIDs: []string{finding.ID, "invented-1", manual.ID}, Rationale: "rules"},
				{Name: "Tone", ItemIDs: []string{dis.ID, finding.ID}, Rationale: "how it sounds"},
				{Name: "Empty", ItemIDs: []string{"invented-2"}, Rationale: "nothing real"},
			}})
		})
		prop, err := f.svc.SuggestGroups(fac, f.ws.ID, "")
		if err != nil || len(prop.Groups) != 2 || strings.Join(prop.Groups[0].ItemIDs, ",") != finding.ID+","+manual.ID ||
			strings.Join(prop.Groups[1].ItemIDs, ",") != dis.ID {
			t.Fatalf("proposal: %+v %v", prop, err)
		}
		after, _ := f.svc.DraftItems(fac, f.ws.ID, "")
		for _, it := range after {
			if it.GroupName != names[it.ID] {
				t.Fatalf("suggest-groups changed item %s's group to %q", it.ID, it.GroupName)
			}
		}
		if _, err := f.svc.ApplyGroups(fac, f.ws.ID, "", workshop.Grouping{Groups: []workshop.ProposedGroup{{Name: "A", ItemIDs: []string{"ghost"}}}}); hone.ErrorField(err) != "groups[0].item_ids" {
			t.Fatalf("apply with an unknown item: %v", err)
		}
		prop.Groups[0].Name = "Policy and law"
		applied, err := f.svc.ApplyGroups(fac, f.ws.ID, "", *prop)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, it := range applied {
			got[it.ID] = it.GroupName
		}
		if got[finding.ID] != "Policy and law" || got[manual.ID] != "Policy and law" || got[dis.ID] != "Tone" || got[fb.ID] != "" {
			t.Fatalf("applied groups: %v", got)
		}
		if err := f.svc.DeleteDraftItem(fac, f.ws.ID, "", fb.ID); err != nil {
			t.Fatal(err)
		}
		if err := f.svc.DeleteDraftItem(fac, f.ws.ID, "", fb.ID); hone.ErrorCode(err) != hone.ENOTFOUND {
			t.Fatalf("delete twice: %v", err)
		}
	})
}

func TestPhasesMoveForwardsThroughTheGate(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		f := newFixture(t, db, false)
		f.begin(2, 2, false)
		fac := f.as(f.facilitator)
		if _, err := f.svc.SetPhase(f.as(f.alice), f.ws.ID, "", workshop.PhaseRubricCreation); hone.ErrorCode(err) != hone.EFORBIDDEN {
			t.Fatalf("a participant changed the phase: %v", err)
		}
		if _, err := f.svc.SetPhase(fac, f.ws.ID, "", "party"); hone.ErrorField(err) != "phase" {
			t.Fatalf("unknown phase: %v", err)
		}
		if _, err := f.svc.SetPhase(fac, f.ws.ID, "", workshop.PhaseRubricCreation); hone.ErrorCode(err) != hone.ECONFLICT {
			t.Fatalf("leaving discovery with nothing: %v", err)
		}
		if _, err := f.svc.SubmitFeedback(f.as(f.alice), f.ws.ID, workshop.FeedbackInput{TraceID: "t1", Label: "good", Comment: "fine"}); err != nil {
			t.Fatal(err)
		}
		w, err := f.svc.SetPhase(fac, f.ws.ID, "", workshop.PhaseRubricCreation)
		if err != nil || w.Phase != workshop.PhaseRubricCreation {
			t.Fatalf("to rubric creation: %+v %v", w, err)
		}
		if _, err := f.svc.SetPhase(fac, f.ws.ID, "", workshop.PhaseDiscovery); hone.ErrorCode(err) != hone.ECONFLICT {
			t.Fatalf("backwards: %v", err)
		}
		if _, err := f.svc.SubmitFeedback(f.as(f.bob), f.ws.ID, workshop.FeedbackInput{TraceID: "t1", Label: "good", Comment: "late"}); hone.ErrorCode(err) != hone.ECONFLICT {
			t.Fatalf("feedback after discovery: %v", err)
		}
		if _, err := f.svc.Promote(fac, f.ws.ID, "", workshop.DraftItemInput{Text: "still editable"}); err != nil {
			t.Fatalf("the draft rubric in rubric creation: %v", err)
		}
		if _, err := f.svc.SetPhase(fac, f.ws.ID, "", workshop.PhaseJudgeTuning); err != nil {
			t.Fatal(err)
		}
		if _, err := f.svc.Promote(fac, f.ws.ID, "", workshop.DraftItemInput{Text: "too late"}); hone.ErrorCode(err) != hone.ECONFLICT {
			t.Fatalf("the draft rubric in judge tuning: %v", err)
		}
	})
}

func TestRolesAreEnforced(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		f := newFixture(t, db, false)
		f.begin(3, 3, false)
		alice := f.as(f.alice)
		other, _ := f.svc.Create(admin, workshop.Create{Name: "Other", Facilitator: workshop.Person{Name: "Oz"}})
		id := f.ws.ID
		facilitatorOnly := map[string]error{
			"members":        must2(f.svc.Members(alice, id, "")),
			"add member":     must2(f.svc.AddMember(alice, id, "", workshop.Person{Name: "Eve"})),
			"new token":      must2(f.svc.NewToken(alice, id, "", f.bob.ID)),
			"settings":       must2(f.svc.Update(alice, id, "", workshop.Settings{})),
			"import":         must2(f.svc.ImportTraces(alice, id, "", strings.NewReader("[]"), workshop.FormatJSON, false)),
			"phase":          must2(f.svc.SetPhase(alice, id, "", workshop.PhaseRubricCreation)),
			"begin":          must2(f.svc.Begin(alice, id, "", 3, false)),
			"completion":     must2(f.svc.Completion(alice, id, "")),
			"analyze":        must2(f.svc.Analyze(alice, id, workshop.AnalyzeInput{})),
			"analyses":       must2(f.svc.Analyses(alice, id, "", "")),
			"templates":      must2(f.svc.Templates(alice, id, "")),
			"add template":   must2(f.svc.AddTemplate(alice, id, "", workshop.Template{Name: "x", Title: "x", Instruction: "x"})),
			"draft items":    must2(f.svc.DraftItems(alice, id, "")),
			"promote":        must2(f.svc.Promote(alice, id, "", workshop.DraftItemInput{Text: "x"})),
			"suggest":        must2(f.svc.SuggestGroups(alice, id, "")),
			"apply":          must2(f.svc.ApplyGroups(alice, id, "", workshop.Grouping{})),
			"rename group":   f.svc.RenameGroup(alice, id, "", "g", "x"),
			"agreement":      must2(f.svc.Agreement(alice, id, "")),
			"export":         must2(f.svc.Export(alice, id, "", workshop.ExportCSV)),
			"delete item":    f.svc.DeleteDraftItem(alice, id, "", "x"),
			"import turns":   must2(f.svc.ImportSessions(alice, id, "", workshop.SessionImport{SessionID: "x"})),
			"local as alice": must2(f.svc.Completion(hone.WithIdentity(admin, hone.Local), id, f.alice.ID)),
		}
		for what, err := range facilitatorOnly {
			wantCode(t, what, err, hone.EFORBIDDEN)
		}
		wantCode(t, "feedback as bob", must2(f.svc.SubmitFeedback(alice, id, workshop.FeedbackInput{TraceID: "t1", UserID: f.bob.ID,
			Label: "good", Comment: "x"})), hone.EFORBIDDEN)
		wantCode(t, "bob's feedback", must2(f.svc.ListFeedback(alice, id, f.bob.ID)), hone.EFORBIDDEN)
		wantCode(t, "another workshop", must2(f.svc.Get(alice, other.ID)), hone.EFORBIDDEN)
		wantCode(t, "admin without user_id", must2(f.svc.SubmitFeedback(admin, id, workshop.FeedbackInput{TraceID: "t1",
			Label: "good", Comment: "x"})), hone.EINVALID)
		if _, err := f.svc.SubmitFeedback(admin, id, workshop.FeedbackInput{TraceID: "t1", UserID: f.bob.ID, Label: "bad", Comment: "by admin"}); err != nil {
			t.Fatalf("the admin acting for bob: %v", err)
		}
		if list, err := f.svc.List(alice); err != nil || len(list) != 1 || list[0].ID != id {
			t.Fatalf("alice sees workshops %v %v", list, err)
		}
		if _, err := f.svc.Completion(hone.WithIdentity(admin, hone.Local), id, ""); err != nil {
			t.Fatalf("local use without user_id: %v", err)
		}
		if _, err := f.svc.Completion(hone.WithIdentity(admin, hone.Local), id, f.facilitator.ID); err != nil {
			t.Fatalf("local use as the facilitator: %v", err)
		}
		fresh, err := f.svc.NewToken(admin, id, "", f.alice.ID)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := f.svc.Authenticate(admin, f.alice.Token); ok {
			t.Fatal("the old token still works after a new one was issued")
		}
		if _, ok, _ := f.svc.Authenticate(admin, fresh.Token); !ok || !strings.HasSuffix(fresh.JoinURL, "/w/"+id+"/join/"+fresh.Token) {
			t.Fatalf("new token %+v", fresh)
		}
	})
}
