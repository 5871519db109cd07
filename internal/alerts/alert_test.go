package alerts_test

import (
	"strings"
	"testing"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/alerts"
	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/storage/storagetest"
)

func (f *fixture) permit(conversation, typ string) *alerts.Permit {
	f.t.Helper()
	p, err := f.svc.Permit(ctx, alerts.PermitInput{ConversationID: conversation, Type: typ})
	if err != nil {
		f.t.Fatal(err)
	}
	return p
}

func (f *fixture) alert(conversation, typ string) *alerts.Alert {
	f.t.Helper()
	a, err := f.svc.RecordAlert(ctx, alerts.AlertInput{ConversationID: conversation, Type: typ, Text: "Your " + typ})
	if err != nil {
		f.t.Fatal(err)
	}
	return a
}

func (f *fixture) react(alertID, tester, reaction string) *alerts.Reacted {
	f.t.Helper()
	r, err := f.svc.React(ctx, alertID, alerts.ReactionInput{TesterID: tester, Reaction: reaction})
	if err != nil {
		f.t.Fatal(err)
	}
	return r
}

func TestReachOutBudget(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		f := newFixture(t, db)
		p := f.permit("c1", "Reminder")
		if !p.Allowed || p.Type != "reminder" || p.Budget != 5 || p.Sent != 0 || p.Remaining != 5 || p.Score != 0 || p.Scored != 0 ||
			p.RetryAt != nil || p.Reason != "5 of the conversation's budget of 5 alerts in 24 hours remain." {
			t.Fatalf("the first permit: %+v", p)
		}
		first := f.alert("c1", "reminder")
		if !first.WithinBudget || first.Type != "reminder" || first.Text != "Your reminder" {
			t.Fatalf("the first alert: %+v", first)
		}
		again, err := f.svc.RecordAlert(ctx, alerts.AlertInput{ID: first.ID, ConversationID: "c1", Type: "reminder"})
		if err != nil || again.ID != first.ID || again.Text != "Your reminder" {
			t.Fatalf("recording an alert's id again: %+v %v", again, err)
		}
		var sent []*alerts.Alert
		sent = append(sent, first)
		for range 4 {
			f.advance(time.Minute)
			sent = append(sent, f.alert("c1", "reminder"))
		}
		p = f.permit("c1", "reminder")
		wantRetry := first.SentAt.Add(24 * time.Hour)
		if p.Allowed || p.Sent != 5 || p.Remaining != 0 || p.RetryAt == nil || !p.RetryAt.Equal(wantRetry) ||
			!strings.Contains(p.Reason, "got 5 alerts in the last 24 hours, its whole budget of 5") {
			t.Fatalf("the permit after 5 alerts: %+v", p)
		}
		if other := f.permit("c2", "reminder"); !other.Allowed || other.Sent != 0 {
			t.Errorf("another conversation's budget: %+v", other)
		}
		over := f.alert("c1", "reminder")
		if over.WithinBudget {
			t.Errorf("an alert over the budget was recorded within it")
		}
		sent = append(sent, over)

		// 👍 from two testers raise the score and the budget.
		for _, a := range sent {
			f.react(a.ID, "meg", "up")
		}
		p = f.permit("c1", "reminder")
		if p.Score != 1 || p.Scored != 6 || p.Budget != 8 || p.Sent != 6 || !p.Allowed || p.Remaining != 2 {
			t.Fatalf("after six 👍: %+v", p)
		}
		f.advance(time.Second)
		f.react(sent[0].ID, "ana", "down")
		f.react(sent[1].ID, "meg", "ack") // a tester's reaction is changed, not added
		p = f.permit("c1", "reminder")
		if want := (4 + 0 + 0.5) / 6; abs(p.Score-want) > 1e-9 || p.Budget != 7 || !p.Allowed || p.Remaining != 1 {
			t.Fatalf("after a 👎 and an ack: score %v budget %d allowed %v, want score %v budget 7 allowed", p.Score, p.Budget, p.Allowed, want)
		}
		got, err := f.svc.Alert(ctx, sent[0].ID)
		if err != nil || len(got.Reactions) != 2 || got.Reactions[0].TesterID != "meg" || got.Reactions[0].Reaction != "up" ||
			got.Reactions[1].TesterID != "ana" || got.Reactions[1].Reaction != "down" {
			t.Fatalf("the first alert's reactions: %+v %v", got, err)
		}

		// A day later the window is empty; unanswered alerts past their
		// grace period count as 0.
		f.advance(24 * time.Hour)
		for range 4 {
			f.alert("c1", "reminder")
		}
		f.advance(25 * time.Hour)
		p = f.permit("c1", "reminder")
		if want := (4 + 0 + 0.5) / 10; abs(p.Score-want) > 1e-9 || p.Scored != 10 || p.Sent != 0 || p.Budget != 6 || !p.Allowed {
			t.Fatalf("after four ignored alerts: %+v, want score %v", p, want)
		}
	})
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func TestAlertTypesPauseAfterThreeThumbsDown(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		f := newFixture(t, db)
		var ids []string
		for _, conv := range []string{"c1", "c2", "c3", "c4"} {
			ids = append(ids, f.alert(conv, "price_drop").ID)
			f.advance(time.Minute)
		}
		f.alert("c1", "reminder")
		if r := f.react(ids[0], "meg", "down"); r.Paused || r.TypePaused {
			t.Fatalf("one 👎 paused the type: %+v", r)
		}
		f.advance(time.Second)
		f.react(ids[1], "ana", "ack")
		f.advance(time.Second)
		f.react(ids[2], "meg", "down")
		f.advance(time.Second)
		if r := f.react(ids[3], "bo", "down"); r.Paused {
			t.Fatalf("👎, ack, 👎, 👎 paused the type: %+v", r)
		}
		f.advance(time.Second)
		r := f.react(ids[1], "ana", "down") // the changed reaction is the latest
		if !r.Paused || !r.TypePaused || r.PauseNote != "its 3 latest reactions were all 👎" {
			t.Fatalf("three 👎 in a row did not pause the type: %+v", r)
		}
		p := f.permit("c9", "price_drop")
		if p.Allowed || !p.TypePaused || p.Budget != 5 ||
			p.Reason != "Alerts of type price_drop are paused: its 3 latest reactions were all 👎. Enable them again with hone alerts enable price_drop." {
			t.Fatalf("the permit of a paused type: %+v", p)
		}
		if p := f.permit("c9", "reminder"); !p.Allowed {
			t.Errorf("another type was paused too: %+v", p)
		}
		types, err := f.svc.AlertTypes(ctx)
		if err != nil || len(types) != 2 || types[0].Type != "price_drop" || !types[0].Paused || types[0].Sent != 4 ||
			types[0].Down != 4 || types[0].Up != 0 || types[0].PausedAt == nil || types[1].Type != "reminder" || types[1].Paused || types[1].Sent != 1 {
			t.Fatalf("alert types: %+v %v", types, err)
		}

		if _, err := f.svc.EnableAlertType(ctx, "reminder"); hone.ErrorCode(err) != hone.ECONFLICT {
			t.Errorf("enabling a type that is not paused: %v", err)
		}
		enabled, err := f.svc.EnableAlertType(ctx, " Price_Drop ")
		if err != nil || enabled.Paused || enabled.EnabledAt == nil || enabled.Reason != "" {
			t.Fatalf("enable: %+v %v", enabled, err)
		}
		if p := f.permit("c9", "price_drop"); !p.Allowed || p.TypePaused {
			t.Fatalf("the permit after enabling: %+v", p)
		}
		// Only reactions from the re-enabling on count towards a new pause.
		f.advance(time.Second)
		fresh := f.alert("c5", "price_drop")
		if r := f.react(fresh.ID, "meg", "down"); r.Paused {
			t.Fatalf("one 👎 after re-enabling paused the type again: %+v", r)
		}
		f.advance(time.Second)
		f.react(ids[0], "ana", "down")
		f.advance(time.Second)
		if r := f.react(ids[2], "bo", "down"); !r.Paused {
			t.Fatalf("three new 👎 did not pause the type again: %+v", r)
		}
	})
}

func TestAlertReactionsInChat(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		f := newFixture(t, db)
		if r := f.send("c1", "meg", "!ack"); r.Text != "⚠️ There is no alert to react to in this conversation." {
			t.Errorf("!ack without an alert: %+v", r)
		}
		f.turn("c1", "meg", "Remind me to call mum", "I will.")
		f.advance(time.Minute)
		a := f.alert("c1", "reminder")
		if r := f.send("c1", "meg", "👍"); !r.Ack || r.Text != "" {
			t.Fatalf("👍 after an alert: %+v", r)
		}
		if got, _ := f.svc.Alert(ctx, a.ID); len(got.Reactions) != 1 || got.Reactions[0].Reaction != "up" {
			t.Fatalf("👍 after an alert did not rate it: %+v", got)
		}
		if stats, _ := f.learn.Stats(ctx, 1); stats.Total != 0 {
			t.Errorf("👍 after an alert rated the response before it: %+v", stats)
		}
		if r := f.send("c1", "meg", "!ack"); !r.Ack {
			t.Errorf("!ack: %+v", r)
		}
		if got, _ := f.svc.Alert(ctx, a.ID); len(got.Reactions) != 1 || got.Reactions[0].Reaction != "ack" {
			t.Fatalf("!ack did not replace the 👍: %+v", got)
		}
		// 👎 on an alert asks for no correction.
		if r := f.send("c1", "meg", "👎"); !r.Ack || r.Text != "" {
			t.Fatalf("👎 after an alert: %+v", r)
		}
		if r := f.send("c1", "meg", "You should remind me earlier."); r.Command {
			t.Errorf("the message after a 👎 on an alert was taken as a correction: %+v", r)
		}
		if pending, _ := f.learn.PendingCorrections(ctx, 0); len(pending) != 0 {
			t.Errorf("👎 on an alert started a correction flow: %+v", pending)
		}

		// After a newer response, 👍 rates the response.
		f.advance(time.Minute)
		f.turn("c1", "meg", "Thanks", "You're welcome.")
		if r := f.send("c1", "meg", "👍"); !r.Ack {
			t.Fatalf("👍 after a response: %+v", r)
		}
		if stats, _ := f.learn.Stats(ctx, 1); stats.Total != 1 || stats.Up != 1 {
			t.Errorf("👍 after a response did not rate it: %+v", stats)
		}
		// An alert past its grace period takes no more chat reactions.
		b := f.alert("c2", "reminder")
		f.advance(24 * time.Hour)
		if r := f.send("c2", "meg", "!ack"); !strings.Contains(r.Text, "no alert to react to") {
			t.Errorf("!ack a day later: %+v", r)
		}
		if got, _ := f.svc.Alert(ctx, b.ID); len(got.Reactions) != 0 {
			t.Errorf("an expired alert took a reaction: %+v", got.Reactions)
		}

		// Pausing from chat says so.
		for i, conv := range []string{"c3", "c4", "c5"} {
			f.alert(conv, "news")
			f.advance(time.Second)
			r := f.send(conv, "meg", "👎")
			if i < 2 && !r.Ack {
				t.Fatalf("👎 %d on news: %+v", i, r)
			}
			if i == 2 && r.Text != "Noted. Alerts of type news are paused: its 3 latest reactions were all 👎. hone alerts enable news resumes them." {
				t.Fatalf("the third 👎 on news: %+v", r)
			}
		}
	})
}

func TestAlertInputErrors(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		f := newFixture(t, db)
		a := f.alert("c1", "reminder")
		for _, c := range []struct {
			name  string
			err   error
			field string
		}{
			{"permit without a conversation", second(f.svc.Permit(ctx, alerts.PermitInput{Type: "x"})), "conversation_id"},
			{"permit without a type", second(f.svc.Permit(ctx, alerts.PermitInput{ConversationID: "c1", Type: "  "})), "type"},
			{"a type of two words", second(f.svc.Permit(ctx, alerts.PermitInput{ConversationID: "c1", Type: "price drop"})), "type"},
			{"a type with a slash", second(f.svc.RecordAlert(ctx, alerts.AlertInput{ConversationID: "c1", Type: "a/b"})), "type"},
			{"alert with a long type", second(f.svc.RecordAlert(ctx, alerts.AlertInput{ConversationID: "c1", Type: strings.Repeat("t", 300)})), "type"},
			{"alert with a long text", second(f.svc.RecordAlert(ctx, alerts.AlertInput{ConversationID: "c1", Type: "t", Text: strings.Repeat("t", alerts.MaxAlertText+1)})), "text"},
			{"reaction without a tester", second(f.svc.React(ctx, a.ID, alerts.ReactionInput{Reaction: "up"})), "tester_id"},
			{"an unknown reaction", second(f.svc.React(ctx, a.ID, alerts.ReactionInput{TesterID: "meg", Reaction: "meh"})), "reaction"},
		} {
			if hone.ErrorCode(c.err) != hone.EINVALID || hone.ErrorField(c.err) != c.field {
				t.Errorf("%s: %v (field %q), want invalid %s", c.name, c.err, hone.ErrorField(c.err), c.field)
			}
		}
		if _, err := f.svc.React(ctx, "nope", alerts.ReactionInput{TesterID: "meg", Reaction: "up"}); hone.ErrorCode(err) != hone.ENOTFOUND {
			t.Errorf("a reaction to an unknown alert: %v", err)
		}
		if p := f.permit("c1", "reminder"); p.Sent != 1 {
			t.Errorf("bad input changed the alerts: %+v", p)
		}
	})
}

func second[T any](_ T, err error) error { return err }
