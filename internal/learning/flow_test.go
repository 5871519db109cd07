package learning_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/learning"
	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/storage/storagetest"
)

// The spec's example, word for word: 👎, the question, the correction, the
// thanks; the correction is stored, linked to the rating of the turn.
func TestCorrectionFlowAsTheSpecShowsIt(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		f := newFixture(t, db, false)
		turn := f.turn("c1", "meg", "What's on my calendar tomorrow?", "You have a team meeting at 10.")
		if r := f.send("c1", "meg", "👎"); !r.Command || r.Text != "Thanks for the feedback. What should I have done differently?" {
			t.Fatalf("👎 answered %+v", r)
		}
		r := f.send("c1", "meg", "You forgot to mention my dentist appointment.")
		if !r.Command || r.Text != "Got it! I noted: “You forgot to mention my dentist appointment.”. Thanks for helping me improve!" {
			t.Fatalf("the correction was answered %+v", r)
		}
		pending, err := f.svc.PendingCorrections(ctx, 0)
		if err != nil || len(pending) != 1 {
			t.Fatalf("pending corrections: %v %v", pending, err)
		}
		c := pending[0]
		if c.TurnID != turn.ID || c.TesterID != "meg" || c.ConversationID != "c1" || c.Processed ||
			c.Text != "You forgot to mention my dentist appointment." || c.UserMessage != "What's on my calendar tomorrow?" {
			t.Fatalf("correction %+v", c)
		}
		neg, _ := f.svc.Negative(ctx, 10)
		if len(neg) != 1 || neg[0].ID != c.FeedbackID || neg[0].Rating != learning.RatingDown || neg[0].Response != turn.Response {
			t.Fatalf("negative ratings %+v", neg)
		}
		// The flow is over: the next message goes on to the application.
		if r := f.send("c1", "meg", "Thanks. And what about Friday?"); r.Command {
			t.Fatalf("a message after the correction was taken: %+v", r)
		}
	})
}

func TestCorrectionFlowIsAbandoned(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		f := newFixture(t, db, false)
		f.turn("c1", "meg", "What's on my calendar tomorrow?", "You have a team meeting at 10.")
		pending := func() int {
			t.Helper()
			list, err := f.svc.PendingCorrections(ctx, 0)
			if err != nil {
				t.Fatal(err)
			}
			return len(list)
		}
		for _, c := range []struct {
			name string
			// before runs after the 👎, before the message.
			before  func()
			message string
			// command is whether the router answers the message itself.
			command bool
		}{
			{"after the timeout", func() { f.advance(learning.DefaultCorrectionTimeout + time.Second) }, "You forgot my dentist appointment.", false},
			{"a new unrelated question", func() {}, "What's the weather like in Lisbon?", false},
			{"a greeting", func() {}, "hello", false},
			{"a command", func() {}, "!help", true},
		} {
			t.Run(c.name, func(t *testing.T) {
				f.send("c1", "meg", "👎")
				c.before()
				r := f.send("c1", "meg", c.message)
				if r.Command != c.command || strings.HasPrefix(r.Text, "Got it") {
					t.Fatalf("%q was answered %+v", c.message, r)
				}
				if n := pending(); n != 0 {
					t.Fatalf("%d corrections stored", n)
				}
				// The flow was abandoned: a correction now is a message.
				if r := f.send("c1", "meg", "You forgot my dentist appointment."); r.Command {
					t.Fatalf("the flow lived on: %+v", r)
				}
			})
		}
		// Just inside the timeout the correction is taken.
		f.send("c1", "meg", "👎")
		f.advance(learning.DefaultCorrectionTimeout - time.Second)
		if r := f.send("c1", "meg", "You forgot my dentist appointment."); !r.Command {
			t.Fatalf("a correction within the timeout was passed on: %+v", r)
		}
		// Another tester's message in the same conversation is theirs.
		f.send("c1", "meg", "👎")
		if r := f.send("c1", "ann", "You forgot my dentist appointment."); r.Command {
			t.Fatalf("another tester's message was taken as meg's correction: %+v", r)
		}
		// 👍 after 👎 changes the rating and ends the flow.
		f.send("c1", "meg", "👍")
		if r := f.send("c1", "meg", "You forgot my dentist appointment."); r.Command {
			t.Fatalf("the flow outlived a 👍: %+v", r)
		}
		st, err := f.svc.Stats(ctx, 30)
		if err != nil || st.Total != 1 || st.Up != 1 || st.Down != 0 {
			t.Fatalf("one rating per turn and tester, changed to up: %+v %v", st, err)
		}
	})
}

// With an LLM, the typed call decides what is a correction; when it fails
// the heuristic does.
func TestCorrectionRelatednessByLLM(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		f := newFixture(t, db, true)
		f.turn("c1", "meg", "What's on my calendar tomorrow?", "You have a team meeting at 10.")
		// The LLM says "unrelated" to what the heuristic would take.
		f.related = func(string) bool { return false }
		f.send("c1", "meg", "👎")
		if r := f.send("c1", "meg", "You forgot my dentist appointment."); r.Command {
			t.Fatalf("the LLM's verdict was not followed: %+v", r)
		}
		// And "related" to what the heuristic would pass on.
		f.related = func(string) bool { return true }
		f.send("c1", "meg", "👎")
		if r := f.send("c1", "meg", "Lisbon weather please"); !r.Command || !strings.HasPrefix(r.Text, "Got it") {
			t.Fatalf("the LLM's verdict was not followed: %+v", r)
		}
		// The LLM fails: the heuristic decides.
		f.related = nil
		f.send("c1", "meg", "👎")
		if r := f.send("c1", "meg", "What's the weather like in Lisbon?"); r.Command {
			t.Fatalf("with the LLM down, an unrelated question was taken: %+v", r)
		}
		calls := 0
		for _, req := range f.fake.Requests() {
			if strings.Contains(req.Messages[0].Content, "A user rated") {
				calls++
			}
		}
		if calls < 3 {
			t.Errorf("%d relatedness calls, want 3 at least", calls)
		}
	})
}

func TestRatings(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		f := newFixture(t, db, false)
		if r := f.send("c1", "meg", "👍"); r.Text != learning.NoTurnText {
			t.Fatalf("👍 with no response: %+v", r)
		}
		if _, err := f.svc.RateLatest(ctx, capture.Tester{ConversationID: "c1", TesterID: "meg"}, "up"); !errors.Is(err, capture.ErrNoTurn) {
			t.Fatalf("rate with no response: %v", err)
		}
		t1 := f.turn("c1", "meg", "Book a flight", "Booked.")
		t2 := f.turn("c2", "ann", "Any news?", "None.")
		if r := f.send("c1", "meg", "!good"); !r.Ack || r.Text != "" {
			t.Fatalf("!good answered %+v", r)
		}
		for _, in := range []struct {
			turn string
			in   learning.RatingInput
		}{
			{t1.ID, learning.RatingInput{TesterID: "bob", Rating: "down", Intent: "travel", ContextType: "dm"}},
			{t2.ID, learning.RatingInput{TesterID: "ann", Rating: "UP", Intent: "news", ContextType: "dm"}},
			{t2.ID, learning.RatingInput{TesterID: "bob", Rating: "up", Intent: "news", ContextType: "channel"}},
		} {
			if _, err := f.svc.RateTurn(ctx, in.turn, in.in); err != nil {
				t.Fatal(err)
			}
		}
		// bob changes his mind about t1; the intent given first stays.
		r, err := f.svc.RateTurn(ctx, t1.ID, learning.RatingInput{TesterID: "bob", Rating: "up"})
		if err != nil || r.Rating != learning.RatingUp || r.Intent != "travel" {
			t.Fatalf("changed rating: %+v %v", r, err)
		}
		for field, bad := range map[string]learning.RatingInput{
			"tester_id":    {Rating: "up"},
			"rating":       {TesterID: "x", Rating: "meh"},
			"intent":       {TesterID: "x", Rating: "up", Intent: strings.Repeat("i", 201)},
			"context_type": {TesterID: "x", Rating: "up", ContextType: strings.Repeat("c", 201)},
		} {
			if _, err := f.svc.RateTurn(ctx, t1.ID, bad); hone.ErrorField(err) != field {
				t.Errorf("bad %s: %v", field, err)
			}
		}
		if _, err := f.svc.RateTurn(ctx, "nosuch", learning.RatingInput{TesterID: "x", Rating: "up"}); hone.ErrorCode(err) != hone.ENOTFOUND {
			t.Errorf("no such turn: %v", err)
		}
		st, err := f.svc.Stats(ctx, 30)
		if err != nil {
			t.Fatal(err)
		}
		if st.Total != 4 || st.Up != 4 || st.Percent != 100 {
			t.Fatalf("stats %+v", st)
		}
		byIntent := map[string]learning.Approval{}
		for _, a := range st.ByIntent {
			byIntent[a.Name] = a
		}
		if byIntent["news"].Total != 2 || byIntent["travel"].Total != 1 || len(st.ByIntent) != 2 || len(st.ByContextType) != 2 {
			t.Fatalf("by intent %+v, by context %+v", st.ByIntent, st.ByContextType)
		}
		// Ratings older than the window are left out.
		f.advance(31 * 24 * time.Hour)
		if st, _ := f.svc.Stats(ctx, 30); st.Total != 0 {
			t.Fatalf("stats of the last 30 days a month later: %+v", st)
		}
	})
}

func TestLooksLikeCorrection(t *testing.T) {
	const user, resp = "What's on my calendar tomorrow?", "You have a team meeting at 10 and lunch with Sam."
	for _, c := range []struct {
		text string
		want bool
	}{
		{"You forgot to mention my dentist appointment.", true},
		{"Too long, keep it short", true},
		{"It should list every event", true},
		{"Use bullet points", true},
		{"The lunch with Sam was cancelled", true},
		{"I didn’t ask about lunch", true},
		{"Include the time zone", true},
		{"What's the weather like in Lisbon?", false},
		{"Book a table for two at 8pm", false},
		{"hello", false},
		{"thanks!", false},
		{"ok", false},
	} {
		if got := learning.LooksLikeCorrection(user, resp, c.text); got != c.want {
			t.Errorf("LooksLikeCorrection(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}

// A correction given with its 👎 (a platform's feedback form) is kept as
// written, though the relatedness check would take it for a new message;
// without a 👎 waiting for one it is not found, and empty it is refused.
func TestCorrectKeepsWhatTheFormGave(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		f := newFixture(t, db, false)
		tester := capture.Tester{ConversationID: "c1", TesterID: "meg"}
		if _, err := f.svc.Correct(ctx, tester, "Cite the HR portal."); hone.ErrorCode(err) != hone.ENOTFOUND {
			t.Fatalf("a correction without a 👎: %v", err)
		}
		turn := f.turn("c1", "meg", "What's on my calendar tomorrow?", "You have a team meeting at 10.")
		if _, err := f.svc.RateTurn(ctx, turn.ID, learning.RatingInput{TesterID: "meg", Rating: "down"}); err != nil {
			t.Fatal(err)
		}
		if _, err := f.svc.Correct(ctx, tester, "  "); hone.ErrorField(err) != "text" {
			t.Fatalf("an empty correction: %v", err)
		}
		r, err := f.svc.Correct(ctx, tester, "Cite the HR portal.")
		if err != nil || r.Text != "Got it! I noted: “Cite the HR portal.”. Thanks for helping me improve!" {
			t.Fatalf("the correction: %+v %v", r, err)
		}
		pending, err := f.svc.PendingCorrections(ctx, 0)
		if err != nil || len(pending) != 1 || pending[0].TurnID != turn.ID || pending[0].Text != "Cite the HR portal." {
			t.Fatalf("pending corrections: %+v %v", pending, err)
		}
		if _, err := f.svc.Correct(ctx, tester, "Again."); hone.ErrorCode(err) != hone.ENOTFOUND {
			t.Fatalf("a second correction of the same 👎: %v", err)
		}
	})
}
