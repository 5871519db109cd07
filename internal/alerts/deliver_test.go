package alerts_test

import (
	"context"
	"testing"

	"github.com/honehq/hone/internal/alerts"
	"github.com/honehq/hone/internal/storage/storagetest"
)

func TestRecordedAlertsWithinBudgetAreDelivered(t *testing.T) {
	db := storagetest.SQLite(t)
	f := newFixture(t, db)
	var delivered []string
	f.svc = alerts.NewService(db.Alerts(), db.Capture(), alerts.Options{Now: f.now, Budget: alerts.BudgetRules{},
		Deliver: func(_ context.Context, a *alerts.Alert) { delivered = append(delivered, a.ID) }})
	first, err := f.svc.RecordAlert(ctx, alerts.AlertInput{ID: "a1", ConversationID: "telegram:1", Type: "reminder", Text: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.RecordAlert(ctx, alerts.AlertInput{ID: first.ID, ConversationID: "telegram:1", Type: "reminder", Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		f.alert("telegram:1", "reminder")
	}
	if len(delivered) != 5 || delivered[0] != "a1" {
		t.Fatalf("delivered %v: want the first alert once and the four more the budget of 5 allowed", delivered)
	}
}
