package teams

import (
	"testing"
	"time"

	"github.com/honehq/hone/internal/browsertest"
)

func TestPlaygroundWebUILike(t *testing.T) {
	p := startPlayground(t)
	b := browsertest.New(t)
	b.Navigate(p.URL)
	box := `[contenteditable="true"][role="textbox"]`
	b.WaitVisible(box)
	b.Click(box)
	b.Type(box, "What is our refund policy?\r")

	like := `.fai-FeedbackButtons button[aria-label="Like"]`
	b.WaitUntil(`document.body.innerText.includes("echo: What is our refund policy?") && document.querySelector(`+"`"+like+"`"+`)`, 20*time.Second)
	if n := b.Count(like); n != 1 {
		t.Errorf("%d Like buttons, want 1 under hone's answer", n)
	}
	if n := b.Count(`.fai-FeedbackButtons button[aria-label="Dislike"]`); n != 1 {
		t.Errorf("%d Dislike buttons, want 1 under hone's answer", n)
	}
	b.Click(like)
	b.WaitVisible(`[role="dialog"] textarea`)
	b.Type(`[role="dialog"] textarea`, "Clear and right.")
	browsertest.Eval[bool](b, `(() => { const s = [...document.querySelectorAll('[role="dialog"] button')].find(e => e.innerText.trim() === "Submit"); s.click(); return true })()`)
	b.WaitUntil(`document.body.innerText.includes("Thank you!")`, 20*time.Second)

	_, ratings, _ := p.Bot.snapshot()
	if len(ratings) != 1 || ratings[0].TurnID != "turn-1" || !ratings[0].Up || ratings[0].Comment != "Clear and right." {
		t.Errorf("ratings = %+v, want 👍 on turn-1 with the text typed in the form", ratings)
	}
	msgs, _, _ := p.Bot.snapshot()
	if len(msgs) != 1 || msgs[0].Text != "What is our refund policy?" {
		t.Errorf("the bot got %+v", msgs)
	}
}
