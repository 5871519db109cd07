package web_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/honehq/hone/internal/browsertest"
	"github.com/honehq/hone/internal/workshop"
)

// press sends a key to the element with focus, as the keyboard would.
func press(b *browsertest.Browser, key string, ctrl bool) {
	browsertest.Eval[bool](b, `(document.activeElement || document.body).dispatchEvent(new KeyboardEvent("keydown",
		{key: `+strconv.Quote(key)+`, ctrlKey: `+strconv.FormatBool(ctrl)+`, bubbles: true, cancelable: true})), true`)
}

// TestBrowserReviewerKeyboard: a participant reviews a trace with the
// keyboard alone (g, Ctrl+Enter, n), lists the shortcuts with ?, goes back
// with p to their earlier feedback and changes it while discovery is open.
func TestBrowserReviewerKeyboard(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		e := wsOpen(t, databaseURL, true, nil)
		ws := e.create("Keys")
		pia := e.member(ws.ID, "Pia", workshop.RoleParticipant)
		e.traces(ws.ID, 2)
		e.begin(ws.ID, 2)
		b := browsertest.New(t)
		b.Navigate(e.base + workshop.JoinPath(ws.ID, pia.Token))
		t1 := e.base + "/w/" + ws.ID + "/traces/t1"
		if got := b.Location(); got != t1 {
			t.Fatalf("the join link led to %s, want %s", got, t1)
		}

		visible := `document.getElementById("shortcuts").checkVisibility()`
		if browsertest.Eval[bool](b, visible) {
			t.Error("the shortcuts show before ? is pressed")
		}
		press(b, "?", false)
		if !browsertest.Eval[bool](b, visible) {
			t.Fatal("? does not show the shortcuts")
		}
		list := b.Text("#shortcuts dl")
		for _, want := range []string{"Good", "Bad", "Submit", "Next trace", "Previous trace"} {
			if !strings.Contains(list, want) {
				t.Errorf("the shortcuts list %q lacks %q", list, want)
			}
		}
		press(b, "Escape", false)
		if browsertest.Eval[bool](b, visible) {
			t.Error("Esc does not hide the shortcuts")
		}

		press(b, "g", false)
		if !browsertest.Eval[bool](b, `document.getElementById("label-good").checked && document.activeElement.id === "comment"`) {
			t.Fatal("g did not choose Good and move to the comment")
		}
		b.Type("#comment", "Clear and kind")
		press(b, "Enter", true)
		for n := 1; n <= 3; n++ {
			b.WaitUntil(`document.getElementById("current-question")?.textContent.includes("Question `+strconv.Itoa(n)+` of 3") === true`, 10*time.Second)
			b.Type("#answer", "answer "+strconv.Itoa(n))
			press(b, "Enter", true)
		}
		b.WaitUntil(`document.getElementById("trace-done") !== null`, 10*time.Second)
		press(b, "n", false)
		t2 := e.base + "/w/" + ws.ID + "/traces/t2"
		b.WaitUntil(`location.href === `+strconv.Quote(t2)+` && document.readyState === "complete"`, 10*time.Second)
		if got := browsertest.Eval[[]string](b, `Array.from(document.querySelectorAll("#your-traces li .muted"), s => s.textContent)`); len(got) != 2 || got[0] != "done" || got[1] != "to do" {
			t.Errorf("the list of Pia's traces says %q, want [done to do]", got)
		}

		// Back to the earlier feedback, and changed.
		press(b, "p", false)
		b.WaitUntil(`location.href === `+strconv.Quote(t1)+` && document.readyState === "complete"`, 10*time.Second)
		if got := strings.ToLower(b.Text("#given")); !strings.Contains(got, "good") || !strings.Contains(got, "clear and kind") {
			t.Errorf("Pia's earlier feedback shows as %q", got)
		}
		b.Click("#change-feedback summary")
		press(b, "b", false)
		if !browsertest.Eval[bool](b, `document.querySelector('#change-feedback-form input[value="bad"]').checked`) {
			t.Fatal("b did not choose Bad in the change form")
		}
		browsertest.Eval[bool](b, `(document.getElementById("change-comment").value = "", true)`)
		b.Type("#change-comment", "Too vague after all")
		b.ClickNavigate("#save-feedback")
		if got := strings.ToLower(b.Text("#given")); !strings.Contains(got, "bad") || !strings.Contains(got, "too vague after all") {
			t.Errorf("after the change the feedback shows as %q", got)
		}
		fb, err := e.Workshops.ListFeedback(e.as(pia), ws.ID, "")
		if err != nil || len(fb) != 1 || fb[0].Label != "bad" || fb[0].Comment != "Too vague after all" || len(fb[0].FollowupQnA) != 3 {
			t.Fatalf("Pia's stored feedback: %+v %v", fb, err)
		}
	})
}
