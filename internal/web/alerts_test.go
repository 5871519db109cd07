package web_test

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/honehq/hone/internal/alerts"
)

// The alerts page lists the alert types with their reactions, and a paused
// type is enabled again from it.
func TestAlertsPage(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		e := lnOpen(t, databaseURL, false)
		svc := alerts.NewService(e.DB.Alerts(), e.DB.Capture(), alerts.Options{})
		c := e.client()
		if page := c.page("/learnings"); strings.Contains(page, "Proactive alerts") || !strings.Contains(page, `href="/alerts"`) {
			t.Errorf("the learnings page still shows the alerts, or the navigation lacks them:\n%s", page)
		}
		page := c.page("/alerts")
		if !strings.Contains(page, "No alert recorded yet") ||
			!strings.Contains(page, "<code>clamp(round(5 × (1 &#43; 0.5 × alert_quality_score)), 1, 10)</code>") {
			t.Fatalf("the alerts section without alerts:\n%s", page)
		}
		ctx := context.Background()
		for _, conv := range []string{"c1", "c2", "c3"} {
			a, err := svc.RecordAlert(ctx, alerts.AlertInput{ConversationID: conv, Type: "price_drop"})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := svc.React(ctx, a.ID, alerts.ReactionInput{TesterID: "meg", Reaction: "down"}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := svc.RecordAlert(ctx, alerts.AlertInput{ConversationID: "c1", Type: "<b>news</b>"}); err == nil {
			t.Fatal("a type with markup was recorded")
		}
		if _, err := svc.RecordAlert(ctx, alerts.AlertInput{ConversationID: "c1", Type: "reminder"}); err != nil {
			t.Fatal(err)
		}
		page = c.page("/alerts")
		row := regexp.MustCompile(`(?s)<tr data-type="price_drop">(.*?)</tr>`).FindStringSubmatch(page)
		if row == nil || !strings.Contains(row[1], "<td>3</td><td>0</td><td>0</td><td>3</td>") ||
			!strings.Contains(row[1], "paused") || !strings.Contains(row[1], "its 3 latest reactions were all 👎") {
			t.Fatalf("the paused type's row: %q\n%s", row, page)
		}
		if other := regexp.MustCompile(`(?s)<tr data-type="reminder">(.*?)</tr>`).FindStringSubmatch(page); other == nil ||
			strings.Contains(other[1], "<form") || !strings.Contains(other[1], "active") {
			t.Errorf("the active type's row: %q", other)
		}
		if r := c.postAs("/alerts/types/price_drop/enable", nil, c.sameSite()); r.StatusCode != http.StatusForbidden {
			t.Errorf("enabling without the CSRF token = %d, want 403", r.StatusCode)
		}
		if p, _ := svc.Permit(ctx, alerts.PermitInput{ConversationID: "c9", Type: "price_drop"}); p == nil || p.Allowed {
			t.Fatalf("a refused form enabled the type: %+v", p)
		}
		next, f := submitTo(t, c, page, "/alerts/types/price_drop/enable", "/alerts", nil)
		if f.notice != "Alerts of type price_drop are enabled again." {
			t.Errorf("enable says %+v", f)
		}
		if strings.Contains(next, `action="/alerts/types/price_drop/enable"`) {
			t.Error("the enabled type still offers Enable")
		}
		if p, err := svc.Permit(ctx, alerts.PermitInput{ConversationID: "c9", Type: "price_drop"}); err != nil || !p.Allowed {
			t.Errorf("the permit after enabling from the page: %+v %v", p, err)
		}
		r := c.submit(lnForm(t, page, "/alerts/types/price_drop/enable"), nil)
		if r.StatusCode != http.StatusSeeOther {
			t.Fatalf("enabling again = %d", r.StatusCode)
		}
		if f := wsFlash(c.page("/alerts")); f == nil || f.err != `alert type "price_drop" is not paused` {
			t.Errorf("enabling a type that is not paused says %+v", f)
		}
	})
}
