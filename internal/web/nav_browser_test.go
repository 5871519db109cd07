package web_test

import (
	"slices"
	"testing"

	"github.com/honehq/hone/internal/browsertest"
	"github.com/honehq/hone/internal/workshop"
)

// navMarks are the top navigation's links with their aria-current.
func navMarks(b *browsertest.Browser) map[string]string {
	return browsertest.Eval[map[string]string](b, `Object.fromEntries(Array.from(document.querySelectorAll("header.top nav a"),
		a => [a.textContent.trim(), a.getAttribute("aria-current") || ""]))`)
}

func TestBrowserTopNavigationMarksThePage(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		e := wsOpen(t, databaseURL, true, nil)
		ws := e.create("Nav")
		pia := e.member(ws.ID, "Pia", workshop.RoleParticipant)
		b := browsertest.New(t)

		for _, tc := range []struct{ path, current string }{
			{"/", "Sessions"}, {"/workshops", "Workshops"}, {"/learnings", "Learnings"}, {"/quality", "Quality"}, {"/chat", "Chat"},
		} {
			b.Navigate(e.base + tc.path)
			marks := navMarks(b)
			for label, mark := range marks {
				want := ""
				if label == tc.current {
					want = "page"
				}
				if mark != want {
					t.Errorf("on %s the link %q has aria-current %q, want %q", tc.path, label, mark, want)
				}
			}
			if _, ok := marks[tc.current]; !ok {
				t.Errorf("on %s the navigation has no link %q: %v", tc.path, tc.current, marks)
			}
		}

		// A facilitator inside the workshop keeps the way back to the rest
		// of hone, with Workshops marked as the section they are in.
		b.Navigate(e.base + workshop.JoinPath(ws.ID, ws.Facilitator.Token))
		if got := b.Location(); got != e.base+"/w/"+ws.ID {
			t.Fatalf("the facilitator's join link led to %s", got)
		}
		marks := navMarks(b)
		for label, want := range map[string]string{"Sessions": "", "Workshops": "true", "Learnings": "", "Chat": "", "Nav": ""} {
			if got, ok := marks[label]; !ok || got != want {
				t.Errorf("the facilitator's navigation: %q has aria-current %q (present %v), want %q; all %v", label, got, ok, want, marks)
			}
		}
		if got := b.Text("#member"); got != "Fay Nav · facilitator" {
			t.Errorf("the facilitator's header says %q", got)
		}
		b.ClickNavigate(`header.top nav a[href="/workshops"]`)
		if got := b.Location(); got != e.base+"/workshops" {
			t.Errorf("Workshops led the facilitator to %s", got)
		}
		b.Navigate(e.base + "/w/" + ws.ID + "/setup")
		b.ClickNavigate("#nav-workshop")
		if got := b.Location(); got != e.base+"/w/"+ws.ID {
			t.Errorf("the workshop's link led to %s", got)
		}

		// A participant sees only their workshop.
		p := b.NewPerson("pia")
		p.Navigate(e.base + workshop.JoinPath(ws.ID, pia.Token))
		if got := navMarks(p); len(got) != 1 || got["Nav"] != "page" {
			t.Errorf("the participant's navigation = %v, want only the workshop, marked as the page", got)
		}
		if got := p.Texts("header.top nav a"); slices.Contains(got, "Sessions") {
			t.Errorf("the participant's navigation leads to the rest of hone: %q", got)
		}
	})
}
