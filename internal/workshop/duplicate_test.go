package workshop_test

import (
	"strings"
	"testing"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/storage/storagetest"
	"github.com/honehq/hone/internal/workshop"
)

func TestPromoteRefusesAnExactDuplicate(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		f := reviewed(t, db, true)
		f.distillWith(distilled())
		st, _ := f.svc.Analyze(admin, f.ws.ID, workshop.AnalyzeInput{})
		an, _ := f.svc.RunAnalysis(admin, f.ws.ID, st.ID)
		fac := f.as(f.facilitator)
		finding := workshop.DraftItemInput{Text: an.Findings[0].Text, SourceType: "finding",
			SourceAnalysisID: an.ID, SourceTraceIDs: an.Findings[0].EvidenceTraceIDs}
		first, err := f.svc.Promote(fac, f.ws.ID, "", finding)
		if err != nil {
			t.Fatal(err)
		}
		for name, again := range map[string]workshop.DraftItemInput{
			"the same finding":             finding,
			"its text with space around":   {Text: "  " + finding.Text + "\n", SourceType: "finding", SourceAnalysisID: an.ID},
			"its text as a manual item":    {Text: finding.Text},
			"its text from other evidence": {Text: finding.Text, SourceType: "feedback", SourceTraceIDs: []string{"t2"}},
		} {
			_, err := f.svc.Promote(fac, f.ws.ID, "", again)
			if hone.ErrorCode(err) != hone.ECONFLICT || hone.ErrorField(err) != "text" ||
				!strings.Contains(hone.ErrorMessage(err), "already in the draft rubric") {
				t.Errorf("%s promoted again: %v, want a conflict saying it is already in the draft rubric", name, err)
			}
		}
		items, err := f.svc.DraftItems(fac, f.ws.ID, "")
		if err != nil || len(items) != 1 || items[0].ID != first.ID {
			t.Fatalf("after the refused duplicates the draft rubric holds %+v, %v; want the first item only", items, err)
		}
		if !workshop.PromotedTexts(items)[workshop.DraftText(" "+finding.Text+" ")] {
			t.Error("PromotedTexts does not know the promoted finding's text")
		}
		if _, err := f.svc.Promote(fac, f.ws.ID, "", workshop.DraftItemInput{Text: finding.Text + " (for managers)"}); err != nil {
			t.Fatalf("a different text was refused: %v", err)
		}
		if err := f.svc.DeleteDraftItem(fac, f.ws.ID, "", first.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := f.svc.Promote(fac, f.ws.ID, "", finding); err != nil {
			t.Fatalf("promoting again after the item was removed: %v", err)
		}
	})
}
