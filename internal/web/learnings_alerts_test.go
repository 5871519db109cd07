package web_test

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/honehq/hone/internal/learning"
)

// The page lists the alert types with their reactions, and a paused type
// is enabled again from it.
func TestLearningsAlertTypes(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		e := lnOpen(t, databaseURL, false)
		c := e.client()
		page := c.page("/learnings")
		if !strings.Contains(page, "No alert recorded yet") ||
			!strings.Contains(page, "<code>clamp(round(5 × (1 &#43; 0.5 × alert_quality_score)), 1, 10)</code>") {
			t.Fatalf("the alerts section without alerts:\n%s", page)
		}
		ctx := context.Background()
		for _, conv := range []string{"c1", "c2", "c3"} {
			a, err := e.Learning.RecordAlert(ctx, learning.AlertInput{ConversationID: conv, Type: "price_drop"})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := e.Learning.React(ctx, a.ID, learning.ReactionInput{TesterID: "meg", Reaction: "down"}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := e.Learning.RecordAlert(ctx, learning.AlertInput{ConversationID: "c1", Type: "<b>news</b>"}); err == nil {
			t.Fatal("a type with markup was recorded")
		}
		if _, err := e.Learning.RecordAlert(ctx, learning.AlertInput{ConversationID: "c1", Type: "reminder"}); err != nil {
			t.Fatal(err)
		}
		page = c.page("/learnings")
		row := regexp.MustCompile(`(?s)<tr data-type="price_drop">(.*?)</tr>`).FindStringSubmatch(page)
		if row == nil || !strings.Contains(row[1], "<td>3</td><td>0</td><td>0</td><td>3</td>") ||
			!strings.Contains(row[1], "paused") || !strings.Contains(row[1], "its 3 latest reactions were all 👎") {
			t.Fatalf("the paused type's row: %q\n%s", row, page)
		}
		if other := regexp.MustCompile(`(?s)<tr data-type="reminder">(.*?)</tr>`).FindStringSubmatch(page); other == nil ||
			strings.Contains(other[1], "<form") || !strings.Contains(other[1], "active") {
			t.Errorf("the active type's row: %q", other)
		}
		if r := c.postAs("/learnings/alert-types/price_drop/enable", nil, c.sameSite()); r.StatusCode != http.StatusForbidden {
			t.Errorf("enabling without the CSRF token = %d, want 403", r.StatusCode)
		}
		if p, _ := e.Learning.Permit(ctx, learning.PermitInput{ConversationID: "c9", Type: "price_drop"}); p == nil || p.Allowed {
			t.Fatalf("a refused form enabled the type: %+v", p)
		}
		next, f := lnSubmit(t, c, page, "/learnings/alert-types/price_drop/enable", nil)
		if f.notice != "Alerts of type price_drop are enabled again." {
			t.Errorf("enable says %+v", f)
		}
		if strings.Contains(next, `action="/learnings/alert-types/price_drop/enable"`) {
			t.Error("the enabled type still offers Enable")
		}
		if p, err := e.Learning.Permit(ctx, learning.PermitInput{ConversationID: "c9", Type: "price_drop"}); err != nil || !p.Allowed {
			t.Errorf("the permit after enabling from the page: %+v %v", p, err)
		}
		r := c.submit(lnForm(t, page, "/learnings/alert-types/price_drop/enable"), nil)
		if r.StatusCode != http.StatusSeeOther {
			t.Fatalf("enabling again = %d", r.StatusCode)
		}
		if f := wsFlash(c.page("/learnings")); f == nil || f.err != `alert type "price_drop" is not paused` {
			t.Errorf("enabling a type that is not paused says %+v", f)
		}
	})
}
