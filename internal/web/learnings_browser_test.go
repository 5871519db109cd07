package web_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/honehq/hone/internal/browsertest"
	"github.com/honehq/hone/internal/learning"
)

// lbRated waits until the chat page has answered n ratings.
func lbRated(t *testing.T, b *browsertest.Browser, n int) {
	t.Helper()
	waitFor(t, b, fmt.Sprintf(`Number(document.getElementById("chat-form").dataset.rated || 0) >= %d`, n))
}

// lbPressed is the aria-pressed of the 👍 and 👎 of the answer to turn.
func lbPressed(b *browsertest.Browser, turn string) []string {
	return browsertest.Eval[[]string](b, `Array.from(document.querySelectorAll('#messages li.chat-msg.bot[data-turn-id=`+bwJS(turn)+
		`] .rate button'), e => e.className + "=" + e.getAttribute("aria-pressed"))`)
}

// lbLastHone is the text of hone's latest message in the chat.
func lbLastHone(b *browsertest.Browser) string {
	return browsertest.Eval[string](b, `(() => { const m = document.querySelectorAll("#messages li.chat-msg.hone .body");
		return m.length ? m[m.length - 1].innerText.trim() : ""; })()`)
}

func TestBrowserChatRating(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		e := lnOpen(t, databaseURL, true)
		ctx := context.Background()
		b := browsertest.New(t)
		b.OnNewDocument(recordAlerts)
		if status := b.NavigateStatus(e.base + "/chat"); status != http.StatusOK {
			t.Fatalf("GET /chat = %d", status)
		}

		say(t, b, "When is the team meeting?")
		first := browsertest.Eval[string](b, `document.querySelector("#messages li.chat-msg.bot")?.dataset.turnId ?? ""`)
		if first == "" {
			t.Fatal("the answer has no turn id to rate")
		}
		labels := browsertest.Eval[[]string](b, `Array.from(document.querySelectorAll("#messages li.chat-msg.bot .rate button"),
			e => e.textContent + " " + e.getAttribute("aria-label"))`)
		if !slices.Equal(labels, []string{"👍 Good answer", "👎 Bad answer"}) {
			t.Errorf("the answer's rating buttons are %q", labels)
		}
		if got := lbPressed(b, first); !slices.Equal(got, []string{"rate-up=false", "rate-down=false"}) {
			t.Errorf("before a rating the buttons are %q", got)
		}

		// 👎: hone asks what should have been different, and the next
		// message is the correction.
		b.Click(`#messages li.chat-msg.bot[data-turn-id="` + first + `"] .rate-down`)
		lbRated(t, b, 1)
		if got := lbLastHone(b); got != learning.AskCorrectionText {
			t.Errorf("after 👎 hone says %q, want %q", got, learning.AskCorrectionText)
		}
		if got := lbPressed(b, first); !slices.Equal(got, []string{"rate-up=false", "rate-down=true"}) {
			t.Errorf("after 👎 the buttons are %q", got)
		}
		if !browsertest.Eval[bool](b, `document.activeElement === document.getElementById("chat-input")`) {
			t.Error("after 👎 the message box does not have the focus")
		}
		const correction = "You should have said the meeting is at 10:00."
		chats := len(e.llm.calls(""))
		say(t, b, correction)
		if got, want := lbLastHone(b), fmt.Sprintf(learning.ThanksText, correction); got != want {
			t.Errorf("after the correction hone says %q, want %q", got, want)
		}
		if n := len(e.llm.calls("")); n != chats {
			t.Error("the correction went to the model under test")
		}
		if n := b.Count("#messages li.chat-msg.bot"); n != 1 {
			t.Errorf("%d answers of the model after the correction, want 1", n)
		}
		pending, err := e.Learning.PendingCorrections(ctx, 10)
		if err != nil || len(pending) != 1 || pending[0].Text != correction || pending[0].TurnID != first {
			t.Fatalf("stored corrections %+v, %v; want %q on turn %s", pending, err, correction, first)
		}
		tester := pending[0].TesterID
		if !strings.HasPrefix(tester, "web:") {
			t.Errorf("the correction's tester is %q, want the browser's web: tester", tester)
		}

		// 👍 on the next answer: marked, no question asked.
		say(t, b, "And the holidays?")
		second := browsertest.Eval[string](b, `Array.from(document.querySelectorAll("#messages li.chat-msg.bot")).at(-1).dataset.turnId`)
		if second == "" || second == first {
			t.Fatalf("the second answer's turn is %q", second)
		}
		asks := b.Count("#messages li.chat-msg.hone")
		b.Click(`#messages li.chat-msg.bot[data-turn-id="` + second + `"] .rate-up`)
		lbRated(t, b, 2)
		if got := lbPressed(b, second); !slices.Equal(got, []string{"rate-up=true", "rate-down=false"}) {
			t.Errorf("after 👍 the buttons are %q", got)
		}
		if got := browsertest.Eval[string](b, `document.querySelector('#messages li.chat-msg.bot[data-turn-id=`+bwJS(second)+`]').dataset.rating`); got != "up" {
			t.Errorf("after 👍 the answer's data-rating is %q", got)
		}
		if n := b.Count("#messages li.chat-msg.hone"); n != asks {
			t.Errorf("👍 made hone say something: %q", lbLastHone(b))
		}
		ratings, err := e.Learning.TesterRatings(ctx, tester, 10)
		if err != nil || len(ratings) != 2 || ratings[first] != learning.RatingDown || ratings[second] != learning.RatingUp {
			t.Errorf("stored ratings %v, %v; want %s down and %s up", ratings, err, first, second)
		}

		// After a reload the buttons still show the ratings.
		b.Navigate(e.base + "/chat")
		if got := lbPressed(b, first); !slices.Equal(got, []string{"rate-up=false", "rate-down=true"}) {
			t.Errorf("after a reload the first answer's buttons are %q", got)
		}
		if got := lbPressed(b, second); !slices.Equal(got, []string{"rate-up=true", "rate-down=false"}) {
			t.Errorf("after a reload the second answer's buttons are %q", got)
		}

		// The /learnings page lists the correction and counts the ratings.
		if status := b.NavigateStatus(e.base + "/learnings"); status != http.StatusOK {
			t.Fatalf("GET /learnings = %d", status)
		}
		if got := b.Texts("#pending-corrections li"); len(got) != 1 || !strings.Contains(got[0], correction) ||
			!strings.HasPrefix(got[0], "turn 1 · "+tester) {
			t.Errorf("the pending corrections shown are %q", got)
		}
		if got := b.Attr("#pending-corrections li a", "href"); got != "/sessions/"+pending[0].SessionID+"#turn-1" {
			t.Errorf("the correction links to %q", got)
		}
		if up, down := b.Text("#rated-up"), b.Text("#rated-down"); up != "1" || down != "1" {
			t.Errorf("the page counts %s 👍 and %s 👎, want 1 and 1", up, down)
		}
		if got := browsertest.Eval[[]string](b, `window.__alerts`); len(got) != 0 {
			t.Errorf("alert was called with %q", got)
		}
		if logs := b.Logs(); len(logs) != 0 {
			t.Errorf("the pages wrote to the console: %q", logs)
		}
	})
}

// lbFill replaces the value of the field sel by typing text into it.
func lbFill(b *browsertest.Browser, sel, text string) {
	browsertest.Eval[bool](b, `(document.querySelector(`+bwJS(sel)+`).value = "", true)`)
	b.Type(sel, text)
}

// lbRow is the learning of a row as the page shows it.
func lbRow(b *browsertest.Browser, id string) map[string]string {
	return browsertest.Eval[map[string]string](b, `(() => { const r = document.querySelector('tr[data-learning=`+bwJS(id)+`]');
		return r ? {confidence: r.querySelector(".confidence").innerText.trim(), pattern: r.querySelector(".pattern strong").innerText,
			adjustment: r.querySelector(".adjustment").innerText, status: r.querySelector(".badge").textContent.trim()} : {}; })()`)
}

func TestBrowserLearnings(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		e := lnOpen(t, databaseURL, true)
		ctx := context.Background()
		b := browsertest.New(t)
		b.OnNewDocument(recordAlerts)
		if status := b.NavigateStatus(e.base + "/"); status != http.StatusOK {
			t.Fatalf("GET / = %d", status)
		}
		if status := b.ClickNavigate(`nav a[href="/learnings"]`); status != http.StatusOK {
			t.Fatalf("the Learnings link led to status %d", status)
		}
		if got := b.Title(); got != "Learnings · hone" {
			t.Errorf("title = %q", got)
		}
		if got := b.Text("#learnings .empty"); !strings.HasPrefix(got, "Nothing learned yet.") {
			t.Errorf("the empty page says %q", got)
		}

		// Add a learning, markup and all.
		adjustment := `Answer in the language of the question <img src=x onerror="window.__xss=true"><script>window.__xss=true</script>`
		b.Type("#new-adjustment", adjustment)
		b.Type("#new-pattern", "Same language")
		if status := b.ClickNavigate("#add-learning-button"); status != http.StatusOK {
			t.Fatalf("adding a learning led to status %d", status)
		}
		list, err := e.Learning.Learnings(ctx, learning.LearningFilter{})
		if err != nil || len(list) != 1 || list[0].PromptAdjustment != adjustment {
			t.Fatalf("stored learnings %+v, %v", list, err)
		}
		id := list[0].ID
		if got := b.Text("#flash .notice"); got != "Learning "+id+" added." {
			t.Errorf("the page after adding says %q", got)
		}
		want := map[string]string{"confidence": "1.00", "pattern": "Same language", "adjustment": adjustment, "status": "active"}
		if got := lbRow(b, id); !lbSameMap(got, want) {
			t.Errorf("the added learning shows as %q, want %q", got, want)
		}
		bwNoXSS(t, b, "/learnings")

		// Edit it under the threshold.
		b.Click(`tr[data-learning="` + id + `"] details.edit-learning summary`)
		form := `tr[data-learning="` + id + `"] details.edit-learning `
		lbFill(b, form+`input[name="pattern"]`, "Mirror the language")
		lbFill(b, form+`textarea[name="prompt_adjustment"]`, "Answer in the language the user writes in.")
		lbFill(b, form+`input[name="confidence"]`, "0.5")
		if status := b.ClickNavigate(form + `button[type="submit"]`); status != http.StatusOK {
			t.Fatalf("saving the learning led to status %d", status)
		}
		if got := b.Text("#flash .notice"); got != "Learning "+id+" saved." {
			t.Errorf("the page after saving says %q", got)
		}
		want = map[string]string{"confidence": "0.50", "pattern": "Mirror the language",
			"adjustment": "Answer in the language the user writes in.", "status": "below threshold, not applied"}
		if got := lbRow(b, id); !lbSameMap(got, want) {
			t.Errorf("the edited learning shows as %q, want %q", got, want)
		}
		if l := e.lnLearning(t, id); l.Confidence != 0.5 || l.Pattern != "Mirror the language" || l.Status != learning.StatusBelowThreshold {
			t.Errorf("the edit stored %+v", l)
		}

		// Disable learnings, then enable them again.
		if status := b.ClickNavigate("#disable-learnings"); status != http.StatusOK {
			t.Fatalf("Disable learnings led to status %d", status)
		}
		if got := bwTextContent(b, "#learnings-state"); got != "Off: none is applied" {
			t.Errorf("after Disable learnings the state is %q", got)
		}
		if b.Count("#enable-learnings") != 1 || b.Count("#disable-learnings") != 0 {
			t.Error("after Disable learnings the page does not offer to enable them")
		}
		if b.Count("tr[data-learning]") != 1 {
			t.Error("disabling learnings hid the learning")
		}
		if on, err := e.Learning.Enabled(ctx); err != nil || on {
			t.Errorf("after Disable learnings, enabled = %v, %v", on, err)
		}
		if status := b.ClickNavigate("#enable-learnings"); status != http.StatusOK {
			t.Fatalf("Enable learnings led to status %d", status)
		}
		if got := bwTextContent(b, "#learnings-state"); got != "On" {
			t.Errorf("after Enable learnings the state is %q", got)
		}
		if on, err := e.Learning.Enabled(ctx); err != nil || !on {
			t.Errorf("after Enable learnings, enabled = %v, %v", on, err)
		}

		// Remove it.
		if status := b.ClickNavigate(`tr[data-learning="` + id + `"] button.remove`); status != http.StatusOK {
			t.Fatalf("Remove led to status %d", status)
		}
		if got := b.Text("#flash .notice"); got != "Learning "+id+" removed." {
			t.Errorf("the page after removing says %q", got)
		}
		if n := b.Count("tr[data-learning]"); n != 0 {
			t.Errorf("%d learnings listed after removing the only one", n)
		}
		if list, err := e.Learning.Learnings(ctx, learning.LearningFilter{}); err != nil || len(list) != 0 {
			t.Errorf("stored learnings after removing: %+v, %v", list, err)
		}
		bwNoXSS(t, b, "/learnings")
		if got := browsertest.Eval[[]string](b, `window.__alerts`); len(got) != 0 {
			t.Errorf("alert was called with %q", got)
		}
		if logs := b.Logs(); len(logs) != 0 {
			t.Errorf("the pages wrote to the console: %q", logs)
		}
	})
}

// lbSameMap reports whether got has want's values.
func lbSameMap(got, want map[string]string) bool {
	for k, v := range want {
		if got[k] != v {
			return false
		}
	}
	return len(got) == len(want)
}
