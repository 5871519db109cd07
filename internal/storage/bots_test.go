package storage_test

import (
	"context"
	"testing"

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
