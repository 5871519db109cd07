package cli

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/chat"
	"github.com/honehq/hone/internal/learning"
	"github.com/honehq/hone/internal/score"
	"github.com/honehq/hone/internal/storage"
)

// learnCLI runs hone feedback and hone learn against one database, seeded
// through the learning loop and a chat router, on a clock the test moves.
type learnCLI struct {
	t      *testing.T
	d      testDatabase
	db     *storage.DB
	svc    *learning.Service
	router *chat.Router
	clock  time.Time
}

func newLearnCLI(t *testing.T, d testDatabase) *learnCLI {
	t.Helper()
	wsClearEnv(t)
	for _, name := range []string{"HONE_LEARN_THRESHOLD", "HONE_LEARN_CORRECTION_TIMEOUT", "HONE_LEARN_SCOPE",
		"HONE_LEARN_EVERY", "HONE_LEARN_PROTECTED"} {
		t.Setenv(name, "")
	}
	c := &learnCLI{t: t, d: d, db: d.open(t), clock: time.Now().UTC().Add(-2 * time.Hour).Truncate(time.Second)}
	c.db.Now = c.now
	scores := score.NewService(c.db.Scores(), score.Options{Turns: c.db.Capture()})
	c.svc = learning.NewService(c.db.Learning(), learning.Options{Now: c.now, Scores: scores})
	scores.Follow(c.svc)
	c.router = chat.NewRouter(nil, nil)
	c.svc.Register(c.router)
	return c
}

func (c *learnCLI) now() time.Time { return c.clock }

// run runs hone with args against the test's database.
func (c *learnCLI) run(args ...string) (int, string, string) {
	c.t.Helper()
	return run(c.t, append(append(append([]string{}, c.d.flags...), "--log-level", "error"), args...)...)
}

// ok runs hone with args, requires success and returns standard output.
func (c *learnCLI) ok(args ...string) string {
	c.t.Helper()
	code, out, errOut := c.run(args...)
	if code != 0 {
		c.t.Fatalf("hone %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

// fails runs hone with args and requires exit code and each of want on
// standard error.
func (c *learnCLI) fails(code int, args []string, want ...string) {
	c.t.Helper()
	got, out, errOut := c.run(args...)
	if got != code {
		c.t.Errorf("hone %s: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), got, code, out, errOut)
	}
	for _, w := range want {
		if !strings.Contains(errOut, w) {
			c.t.Errorf("hone %s: stderr %q lacks %q", strings.Join(args, " "), errOut, w)
		}
	}
}

// turn records an exchange of the tester's conversation, a minute later.
func (c *learnCLI) turn(conversation, tester, user, response string) *capture.Turn {
	c.t.Helper()
	c.clock = c.clock.Add(time.Minute)
	t, _, err := capture.NewRecorder(c.db.Capture(), nil).Record(context.Background(), capture.TurnInput{
		ConversationID: conversation, TesterID: tester, UserMessage: user, Response: response, PromptVersion: "v1"}, "")
	if err != nil {
		c.t.Fatal(err)
	}
	return t
}

// rate rates a turn with an intent and a context type, a minute later.
func (c *learnCLI) rate(turn *capture.Turn, tester, rating, intent, contextType string) {
	c.t.Helper()
	c.clock = c.clock.Add(time.Minute)
	if _, err := c.svc.RateTurn(context.Background(), turn.ID, learning.RatingInput{TesterID: tester, Rating: rating,
		Intent: intent, ContextType: contextType}); err != nil {
		c.t.Fatal(err)
	}
}

// send passes a chat message through the router, a minute later.
func (c *learnCLI) send(conversation, tester, text string) chat.Reply {
	c.t.Helper()
	c.clock = c.clock.Add(time.Minute)
	r, err := c.router.Handle(context.Background(), chat.Message{Tester: capture.Tester{ConversationID: conversation,
		TesterID: tester}, Text: text})
	if err != nil {
		c.t.Fatalf("send %q: %v", text, err)
	}
	return r
}

// correct gives a 👎 on the conversation's latest answer in chat, and the
// correction.
func (c *learnCLI) correct(conversation, tester, correction string) {
	c.t.Helper()
	if r := c.send(conversation, tester, "👎"); r.Text != learning.AskCorrectionText {
		c.t.Fatalf("👎 answered %q", r.Text)
	}
	if r := c.send(conversation, tester, correction); !r.Command || !strings.HasPrefix(r.Text, "Got it!") {
		c.t.Fatalf("the correction %q was answered %+v", correction, r)
	}
}

// pending are the corrections awaiting synthesis.
func (c *learnCLI) pending() []*learning.Correction {
	c.t.Helper()
	list, err := c.svc.PendingCorrections(context.Background(), 0)
	if err != nil {
		c.t.Fatal(err)
	}
	return list
}

func TestFeedbackCommandsWithoutFeedback(t *testing.T) {
	eachTestDatabase(t, func(t *testing.T, d testDatabase) {
		c := newLearnCLI(t, d)
		want := "No responses rated in the last 30 days. Testers rate them with 👍 or 👎 in the chat.\n\nCorrections awaiting synthesis: 0\n"
		for _, args := range [][]string{{"feedback"}, {"feedback", "stats"}} {
			if out := c.ok(args...); out != want {
				t.Errorf("hone %s:\n%s\nwant:\n%s", strings.Join(args, " "), out, want)
			}
		}
		if out := c.ok("feedback", "negative"); out != "No response was rated 👎.\n" {
			t.Errorf("feedback negative: %q", out)
		}
		if out := c.ok("feedback", "corrections"); out != "No corrections await synthesis.\n" {
			t.Errorf("feedback corrections: %q", out)
		}
		c.fails(1, []string{"feedback", "stats", "--days", "0"}, "--days must be from 1 to 36500, not 0")
		c.fails(1, []string{"feedback", "negative", "--limit", "0"}, "--limit must be from 1 to 1000, not 0")
		c.fails(1, []string{"feedback", "corrections", "--limit", "1001"}, "--limit must be from 1 to 1000, not 1001")
		c.fails(1, []string{"feedback", "positive"}, `unknown command "positive" for "hone feedback"`)
	})
}

func TestFeedbackCommands(t *testing.T) {
	eachTestDatabase(t, func(t *testing.T, d testDatabase) {
		c := newLearnCLI(t, d)
		recent := c.clock
		c.clock = recent.Add(-40 * 24 * time.Hour)
		c.rate(c.turn("old", "meg", "Remember my keys", "Noted."), "meg", "up", "memory_save", "")
		c.clock = recent

		c.rate(c.turn("c1", "meg", "What's on my calendar tomorrow?", "Team meeting at 10."), "meg", "up", "calendar_query", "calendar")
		c.rate(c.turn("c2", "meg", "And on Friday?", "Nothing."), "meg", "up", "calendar_query", "calendar")
		c.rate(c.turn("c3", "meg", "Remember I parked on level 2", "Saved."), "meg", "up", "memory_save", "")
		c.rate(c.turn("c4", "meg", "How many steps today?", "8,000 steps."), "meg", "up", "health_query", "health")
		sleep := c.turn("c5", "ana", "How did I sleep?", "You slept 7 hours.\nDeep sleep: 1 hour.")
		c.rate(sleep, "ana", "down", "health_query", "health")
		c.send("c5", "ana", "You should say where the sleep data comes from.")
		dentist := c.turn("c6", "meg", "Anything else tomorrow?", "No.")
		c.correct("c6", "meg", "You forgot to mention my dentist appointment.")

		out := c.ok("feedback", "stats")
		want := `Last 30 days:
- Total responses rated: 6
- Thumbs up: 4 (67%)
- Thumbs down: 2 (33%)

By Intent:
- calendar_query: 100% approval
- health_query: 50% approval
- memory_save: 100% approval

By Context Type:
- calendar: 100% approval
- health: 50% approval

Corrections awaiting synthesis: 2 (hone feedback corrections lists them; hone learn synthesize learns from them)
`
		if out != want {
			t.Errorf("feedback stats:\n%s\nwant:\n%s", out, want)
		}
		out = c.ok("feedback", "stats", "--days", "60")
		if !strings.HasPrefix(out, "Last 60 days:\n- Total responses rated: 7\n- Thumbs up: 5 (71%)\n- Thumbs down: 2 (29%)\n") ||
			!strings.Contains(out, "- memory_save: 100% approval\n") {
			t.Errorf("feedback stats --days 60:\n%s", out)
		}

		ratings, err := c.svc.Negative(context.Background(), 0)
		if err != nil || len(ratings) != 2 {
			t.Fatalf("negative %v %v", ratings, err)
		}
		want = fmt.Sprintf(`2 responses rated 👎, newest first:

%s · meg · turn %s · session %s
  User:       Anything else tomorrow?
  Response:   No.

%s · ana · turn %s · session %s · intent health_query · context health
  User:       How did I sleep?
  Response:   You slept 7 hours.
              Deep sleep: 1 hour.
`, stamp(ratings[0].UpdatedAt), dentist.ID, dentist.SessionID, stamp(ratings[1].UpdatedAt), sleep.ID, sleep.SessionID)
		if out := c.ok("feedback", "negative"); out != want {
			t.Errorf("feedback negative:\n%s\nwant:\n%s", out, want)
		}
		if out := c.ok("feedback", "negative", "--limit", "1"); !strings.HasPrefix(out, "1 response rated 👎, newest first:\n\n"+
			stamp(ratings[0].UpdatedAt)) || !strings.HasSuffix(out, "  Response:   No.\n\nOlder ones are left out: --limit shows more.\n") {
			t.Errorf("feedback negative --limit 1:\n%s", out)
		}

		p := c.pending()
		if len(p) != 2 {
			t.Fatalf("%d corrections pending", len(p))
		}
		want = fmt.Sprintf(`2 corrections awaiting synthesis, oldest first (hone learn synthesize learns from them):

Correction %s · %s · ana · turn %s
  User:       How did I sleep?
  Response:   You slept 7 hours.
              Deep sleep: 1 hour.
  Correction: You should say where the sleep data comes from.

Correction %s · %s · meg · turn %s
  User:       Anything else tomorrow?
  Response:   No.
  Correction: You forgot to mention my dentist appointment.
`, p[0].ID, stamp(p[0].CreatedAt), sleep.ID, p[1].ID, stamp(p[1].CreatedAt), dentist.ID)
		if out := c.ok("feedback", "corrections"); out != want {
			t.Errorf("feedback corrections:\n%s\nwant:\n%s", out, want)
		}
		if out := c.ok("feedback", "corrections", "--limit", "1"); !strings.HasPrefix(out, "2 corrections awaiting synthesis") ||
			strings.Contains(out, p[1].ID) || !strings.HasSuffix(out, "\n\nShowing the oldest 1 of 2: --limit shows more.\n") {
			t.Errorf("feedback corrections --limit 1:\n%s", out)
		}
	})
}
