package web_test

import (
	"strings"
	"testing"
)

func TestPromoteTwiceIsRefusedAndTheSourceSaysPromoted(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		e := wsOpen(t, databaseURL, false, nil)
		ws := e.create("Promote")
		alice := e.member(ws.ID, "Alice", "participant")
		e.traces(ws.ID, 2)
		e.begin(ws.ID, 2)
		e.feedback(alice, "t1", "good")
		e.feedback(alice, "t2", "bad")
		fay := e.join(ws.Facilitator)
		monitor := "/w/" + ws.ID + "?member=" + alice.ID
		page := fay.page(monitor)
		comment := "Alice finds t1 good"
		form := wsFindForm(t, page, "promote", "text", comment)
		if got := strings.Count(page, "Already promoted"); got != 0 {
			t.Fatalf("before any promotion the page says “Already promoted” %d times", got)
		}
		page = fay.follow(fay.submit(form, nil))
		if f := wsFlash(page); f == nil || !strings.HasPrefix(f.notice, "Promoted to the draft rubric") {
			t.Fatalf("after promoting, the flash is %+v", f)
		}
		if got := strings.Count(page, "Already promoted"); got != 1 {
			t.Errorf("after one promotion the page says “Already promoted” %d times, want 1 (the comment promoted)", got)
		}
		for _, f := range wsForms(page) {
			if f.class == "promote" && f.values.Get("text") == comment {
				t.Errorf("the promoted comment still offers Promote to Rubric")
			}
		}
		wsFindForm(t, page, "promote", "text", "Alice finds t2 bad")

		r := fay.submit(form, nil)
		page = fay.follow(r)
		if r.location() != monitor {
			t.Errorf("the refused promotion went to %q, want back to %q", r.location(), monitor)
		}
		if f := wsFlash(page); f == nil || f.err != "“"+comment+"” is already in the draft rubric: it was not added again" {
			t.Errorf("promoting the same comment again: flash %+v, want it refused as already in the draft rubric", f)
		}
		if n := len(e.items(ws.ID)); n != 1 {
			t.Errorf("the draft rubric holds %d items after promoting one comment twice, want 1", n)
		}
		manual := wsFindForm(t, page, "add-item", "source_type", "manual")
		page = fay.follow(fay.submit(manual, map[string][]string{"text": {"  " + comment + " "}}))
		if f := wsFlash(page); f == nil || !strings.Contains(f.err, "already in the draft rubric") {
			t.Errorf("adding the same text by hand: flash %+v, want it refused", f)
		}
		if n := len(e.items(ws.ID)); n != 1 {
			t.Errorf("the draft rubric holds %d items, want 1", n)
		}
	})
}
