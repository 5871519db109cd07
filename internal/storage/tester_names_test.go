package storage_test

import (
	"context"
	"testing"

	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/storage/storagetest"
)

// Sessions carry their tester's display name, the latest one kept; a
// tester without a name has none.
func TestSessionsCarryTesterNames(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		ctx := context.Background()
		names := capture.NewNames(db.Capture())
		meg := mustTurn(t, db, capture.TurnInput{ConversationID: "c1", TesterID: "teams:meg", UserMessage: "q", Response: "r"})
		mustTurn(t, db, capture.TurnInput{ConversationID: "c2", TesterID: "teams:bob", UserMessage: "q", Response: "r"})
		if err := names.SetTesterName(ctx, "teams:meg", "Meg Bowen"); err != nil {
			t.Fatal(err)
		}
		if err := capture.NewNames(db.Capture()).SetTesterName(ctx, "teams:meg", "Megan Bowen"); err != nil {
			t.Fatal(err)
		}
		list, err := db.Capture().ListSessions(ctx, capture.SessionFilter{})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, s := range list {
			got[s.TesterID] = s.TesterName
		}
		if len(got) != 2 || got["teams:meg"] != "Megan Bowen" || got["teams:bob"] != "" {
			t.Fatalf("the sessions' tester names: %v", got)
		}
		s, err := db.Capture().FindSession(ctx, meg.SessionID)
		if err != nil || s.TesterName != "Megan Bowen" {
			t.Fatalf("the session's tester name: %+v %v", s, err)
		}
	})
}
