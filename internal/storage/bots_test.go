package storage_test

import (
	"context"
	"testing"
	"time"

	"github.com/honehq/hone/internal/bots"

	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/storage/storagetest"
)

func TestBotOffsetsOnlyMoveForward(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		ctx, s := context.Background(), db.Bots()
		if n, err := s.NextUpdate(ctx, "telegram:42"); err != nil || n != 0 {
			t.Fatalf("a new bot's next update: %d %v", n, err)
		}
		for _, step := range []struct{ save, want int64 }{{101, 101}, {105, 105}, {103, 105}, {106, 106}} {
			if err := s.SaveNextUpdate(ctx, "telegram:42", step.save); err != nil {
				t.Fatal(err)
			}
			if n, err := s.NextUpdate(ctx, "telegram:42"); err != nil || n != step.want {
				t.Fatalf("after saving %d: %d %v, want %d", step.save, n, err, step.want)
			}
		}
		if n, _ := s.NextUpdate(ctx, "telegram:43"); n != 0 {
			t.Fatalf("another bot's next update: %d", n)
		}
	})
}

func TestBotConversationsKeepReferencesAndAnswers(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		ctx, s := context.Background(), db.Bots()
		now := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
		db.Now = func() time.Time { return now }
		if _, ok, err := s.Reference(ctx, bots.Teams, "a:conv"); err != nil || ok {
			t.Fatalf("an unknown conversation's reference: %v %v", ok, err)
		}
		ref := bots.Reference{Platform: bots.Teams, ConversationID: "a:conv", ServiceURL: "https://smba.example/emea/",
			BotID: "28:hone", BotName: "hone", TenantID: "t1"}
		if err := s.SaveReference(ctx, ref); err != nil {
			t.Fatal(err)
		}
		ref.ServiceURL = "https://smba.example/amer/"
		if err := s.SaveReference(ctx, ref); err != nil {
			t.Fatal(err)
		}
		if got, ok, err := s.Reference(ctx, bots.Teams, "a:conv"); err != nil || !ok || got != ref {
			t.Fatalf("the reference: %+v %v %v, want %+v", got, ok, err, ref)
		}
		if _, ok, _ := s.Reference(ctx, bots.Telegram, "a:conv"); ok {
			t.Fatal("another platform's conversation of the same id has the reference")
		}
		if _, ok, err := s.LatestAnswer(ctx, bots.Teams, "a:conv"); err != nil || ok {
			t.Fatalf("the latest answer before any: %v %v", ok, err)
		}

		if err := s.SaveAnswer(ctx, bots.Teams, "a:conv", "act-1", "turn-1"); err != nil {
			t.Fatal(err)
		}
		now = now.Add(bots.AnswerMaxAge - time.Hour)
		if err := s.SaveAnswer(ctx, bots.Teams, "a:conv", "act-2", "turn-2"); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			id, want string
			ok       bool
		}{{"act-1", "turn-1", true}, {"act-2", "turn-2", true}, {"act-3", "", false}} {
			if got, ok, err := s.AnswerTurn(ctx, bots.Teams, c.id); err != nil || ok != c.ok || got != c.want {
				t.Fatalf("answer %s: %q %v %v, want %q %v", c.id, got, ok, err, c.want, c.ok)
			}
		}
		if got, ok, err := s.LatestAnswer(ctx, bots.Teams, "a:conv"); err != nil || !ok || got != "turn-2" {
			t.Fatalf("the latest answer: %q %v %v", got, ok, err)
		}

		now = now.Add(2 * time.Hour)
		if _, ok, _ := s.AnswerTurn(ctx, bots.Teams, "act-1"); ok {
			t.Fatal("an answer older than AnswerMaxAge is still rateable")
		}
		if err := s.SaveAnswer(ctx, bots.Teams, "a:conv", "act-3", "turn-3"); err != nil {
			t.Fatal(err)
		}
		now = time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
		if _, ok, _ := s.AnswerTurn(ctx, bots.Teams, "act-1"); ok {
			t.Fatal("an answer older than AnswerMaxAge was not forgotten when a newer one was kept")
		}
		if got, ok, _ := s.AnswerTurn(ctx, bots.Teams, "act-3"); !ok || got != "turn-3" {
			t.Fatalf("the newest answer: %q %v", got, ok)
		}
	})
}
