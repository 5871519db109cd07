package storage_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/learning"
	"github.com/honehq/hone/internal/score"
	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/storage/storagetest"
)

// Atomically makes the calls of several stores one transaction: each
// sees what the others wrote, and a failure undoes them all.
func TestAtomicallyJoinsEveryStore(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		ctx := context.Background()
		turn := judgedTurn(t, db, "c1", "v1")
		sess, err := db.Capture().FindSession(ctx, turn.SessionID)
		if err != nil {
			t.Fatal(err)
		}
		write := func(ctx context.Context, name string) error {
			c := &score.Config{ID: hone.NewID(12), Name: name, DataType: score.Boolean, Version: 1}
			if err := db.Scores().AddConfig(ctx, c); err != nil {
				return err
			}
			if _, err := db.Scores().Config(ctx, c.ID); err != nil {
				return err // the read sees the write
			}
			now := time.Now().UTC()
			return db.Learning().SetRating(ctx, &learning.Rating{ID: hone.NewID(12), TurnID: turn.ID, SessionID: turn.SessionID,
				ConversationID: sess.ConversationID, TesterID: name, Rating: learning.RatingUp, CreatedAt: now, UpdatedAt: now})
		}
		boom := errors.New("boom")
		err = db.Atomically(ctx, func(ctx context.Context) error {
			if err := write(ctx, "undone"); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("the failure is not the answer: %v", err)
		}
		err = db.Atomically(ctx, func(ctx context.Context) error {
			return db.Atomically(ctx, func(ctx context.Context) error { return write(ctx, "kept") })
		})
		if err != nil {
			t.Fatal(err)
		}
		configs, err := db.Scores().Configs(ctx, true)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, c := range configs {
			if !c.BuiltIn {
				names = append(names, c.Name)
			}
		}
		ratings, err := db.Learning().Ratings(ctx, learning.RatingFilter{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(names) != 1 || names[0] != "kept" || len(ratings) != 1 || ratings[0].TesterID != "kept" {
			t.Fatalf("configs %v and ratings %+v, want only what the committed transaction wrote", names, ratings)
		}
	})
}
