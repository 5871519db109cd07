package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/honehq/hone/internal/alerts"
)

func TestAlertsStatusAndEnable(t *testing.T) {
	eachTestDatabase(t, func(t *testing.T, d testDatabase) {
		c := newLearnCLI(t, d)
		svc := alerts.NewService(c.db.Alerts(), c.db.Capture(), alerts.Options{Now: c.now})
		for _, name := range []string{"HONE_ALERT_BUDGET", "HONE_ALERT_BUDGET_MIN", "HONE_ALERT_BUDGET_MAX", "HONE_ALERT_PAUSE_AFTER"} {
			t.Setenv(name, "")
		}
		ctx := context.Background()
		head := "Budget per conversation in 24 hours: clamp(round(5 × (1 + 0.5 × alert_quality_score)), 1, 10)\n" +
			"Score: the mean of the latest 20 alerts: 👍 1, ack 0.5, 👎 -1, no reaction within 24 hours 0.\n" +
			"A type is paused after 3 👎 in a row, until hone alerts enable TYPE.\n\n"
		if out := c.ok("alerts"); out != head+"No alert recorded yet: applications record them with POST /api/v1/alerts.\n" {
			t.Errorf("hone alerts with none:\n%s", out)
		}
		var ids []string
		for _, conv := range []string{"c1", "c2", "c3"} {
			a, err := svc.RecordAlert(ctx, alerts.AlertInput{ConversationID: conv, Type: "price_drop", Text: "Cheaper now"})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, a.ID)
			c.clock = c.clock.Add(time.Minute)
		}
		reminder, err := svc.RecordAlert(ctx, alerts.AlertInput{ConversationID: "c1", Type: "reminder"})
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			if _, err := svc.React(ctx, id, alerts.ReactionInput{TesterID: "meg", Reaction: "down"}); err != nil {
				t.Fatal(err)
			}
			c.clock = c.clock.Add(time.Second)
		}
		if _, err := svc.React(ctx, reminder.ID, alerts.ReactionInput{TesterID: "meg", Reaction: "ack"}); err != nil {
			t.Fatal(err)
		}
		paused := c.clock.Add(-time.Second).UTC().Format("2006-01-02 15:04Z")
		want := head +
			"Type        Sent  Up  Ack  Down  State\n" +
			"price_drop  3     0   0    3     paused since " + paused + ": its 3 latest reactions were all 👎 (hone alerts enable price_drop)\n" +
			"reminder    1     0   1    0     active\n" +
			"\nConversation c1 may get an alert of type reminder now.\n" +
			"2 of the conversation's budget of 4 alerts in 24 hours remain.\n" +
			"alert_quality_score -0.25 over 2 alerts; budget 4; sent in the last 24 hours 2; remaining 2\n"
		if out := c.ok("alerts", "status", "--conversation", "c1", "--type", "reminder"); out != want {
			t.Errorf("hone alerts status --conversation c1:\n%s\nwant:\n%s", out, want)
		}
		out := c.ok("alerts", "status", "--conversation", "c1", "--type", "price_drop")
		if !strings.Contains(out, "\nConversation c1 may not get an alert of type price_drop now.\nAlerts of type price_drop are paused") {
			t.Errorf("the status of a paused type:\n%s", out)
		}
		var js struct {
			Formula string              `json:"formula"`
			Types   []*alerts.AlertType `json:"types"`
			Permit  *alerts.Permit      `json:"permit"`
		}
		if err := json.Unmarshal([]byte(c.ok("alerts", "status", "--json", "--conversation", "c2")), &js); err != nil ||
			len(js.Types) != 2 || !js.Types[0].Paused || js.Permit == nil || js.Permit.Type != "any" || js.Permit.Budget != 3 ||
			!strings.HasPrefix(js.Formula, "clamp(") {
			t.Errorf("hone alerts status --json: %+v %v", js, err)
		}
		c.fails(1, []string{"alerts", "status", "--type", "x"}, "--type needs --conversation")

		if out := c.ok("alerts", "enable", "price_drop"); out != "Alerts of type price_drop are enabled again; only reactions from now on can pause them.\n" {
			t.Errorf("hone alerts enable: %q", out)
		}
		if p, err := svc.Permit(ctx, alerts.PermitInput{ConversationID: "c9", Type: "price_drop"}); err != nil || !p.Allowed {
			t.Errorf("the permit after hone alerts enable: %+v %v", p, err)
		}
		c.fails(1, []string{"alerts", "enable", "price_drop"}, `alert type "price_drop" is not paused`)

		t.Setenv("HONE_ALERT_BUDGET", "2")
		if out := c.ok("alerts"); !strings.HasPrefix(out, "Budget per conversation in 24 hours: clamp(round(2 × (1 + 0.5 × alert_quality_score)), 1, 10)\n") {
			t.Errorf("HONE_ALERT_BUDGET=2:\n%s", out)
		}
		t.Setenv("HONE_ALERT_BUDGET_MAX", "1")
		c.fails(1, []string{"alerts"}, "HONE_ALERT_BUDGET_MIN (1) ≤ HONE_ALERT_BUDGET (2) ≤ HONE_ALERT_BUDGET_MAX (1)")
	})
}
