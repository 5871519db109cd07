package web_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/honehq/hone/internal/browsertest"
	"github.com/honehq/hone/internal/workshop"
)

// sectionOrder are the ids of the cards of the page's main column, in order.
func sectionOrder(b *browsertest.Browser) []string {
	return browsertest.Eval[[]string](b, `Array.from(document.querySelectorAll("main section.card[id]"), s => s.id)`)
}

// TestBrowserWorkshopSetupInOrder: the setup reads as the work goes
// (traces, members, settings, start), an imported trace opens as a
// preview, and the exports sit over every tab of the dashboard.
func TestBrowserWorkshopSetupInOrder(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		e := wsOpen(t, databaseURL, true, nil)
		ws := e.create("Order")
		e.member(ws.ID, "Pia", workshop.RoleParticipant)
		e.traces(ws.ID, 3)
		b := browsertest.New(t)
		b.Navigate(e.base + workshop.JoinPath(ws.ID, ws.Facilitator.Token))

		if got, want := sectionOrder(b), []string{"import", "members", "settings", "start-discovery"}; !slices.Equal(got, want) {
			t.Errorf("the start page's sections = %q, want %q", got, want)
		}
		if got := b.Texts("#trace-list tbody tr .preview-trace"); !slices.Equal(got, []string{"t1", "t2", "t3"}) {
			t.Errorf("the imported traces listed = %q", got)
		}
		if got := b.Texts(`#trace-list tr[data-trace="t2"] .snippet`); !slices.Equal(got, []string{"Question t2", "Answer t2"}) {
			t.Errorf("trace t2's row shows %q", got)
		}
		b.ClickNavigate(`#trace-list tr[data-trace="t2"] .preview-trace`)
		if got := b.Location(); got != e.base+"/w/"+ws.ID+"/traces/t2" {
			t.Errorf("the preview link led to %s", got)
		}
		if got := b.Text("#trace .trace-input"); got != "Question t2" {
			t.Errorf("the preview's input shows %q", got)
		}
		if got := b.Text("#trace .trace-output"); got != "Answer t2" {
			t.Errorf("the preview's output shows %q", got)
		}
		b.Navigate(e.base + "/w/" + ws.ID)
		if !strings.Contains(b.Text("#start-discovery"), "Start Discovery Phase") || b.Count("#begin-form #start-discovery-button") != 1 ||
			b.Count("#begin-form #trace-limit") != 1 {
			t.Error("the settings and the start button are not one form")
		}
		b.ClickNavigate("#start-discovery-button")
		if b.Count("#completion") != 1 {
			t.Fatal("starting discovery did not open the dashboard")
		}

		for _, tab := range []string{"", "/analysis", "/setup"} {
			b.Navigate(e.base + "/w/" + ws.ID + tab)
			if got := b.Texts("#exports a"); !slices.Equal(got, []string{"Feedback (JSONL)", "Feedback (CSV)", "Analysis and rubric (Markdown)"}) {
				t.Errorf("the exports over the tab %q = %q", tab, got)
			}
		}
		if got, want := sectionOrder(b), []string{"import", "members", "settings"}; !slices.Equal(got, want) {
			t.Errorf("the setup tab's sections = %q, want %q", got, want)
		}
		if got := b.Attr("#exports a:nth-of-type(2)", "href"); got != "/w/"+ws.ID+"/export?format=csv" {
			t.Errorf("the CSV export links to %q", got)
		}
	})
}
