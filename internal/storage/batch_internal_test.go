package storage

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

func openWriter(t *testing.T) *DB {
	t.Helper()
	db, err := Open(context.Background(), filepath.Join(t.TempDir(), "hone.db"), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if db.jobs == nil {
		t.Fatal("SQLite has no writer")
	}
	return db
}

// A caller who gives up on a write the writer has begun gets its outcome,
// once the writer is done with it: what the job shares with its caller is
// never written after the caller went on.
func TestUpdateWaitsForAJobTheWriterBegan(t *testing.T) {
	db := openWriter(t)
	ctx, cancel := context.WithCancel(context.Background())
	began := make(chan struct{})
	var finished atomic.Bool
	done := make(chan error)
	go func() {
		done <- db.update(ctx, func(tx *Tx) error {
			close(began)
			time.Sleep(50 * time.Millisecond)
			finished.Store(true)
			return nil
		})
	}()
	<-began
	cancel()
	<-done
	if !finished.Load() {
		t.Fatal("update returned while the writer was still running its job")
	}
}

// A caller who gives up before the writer takes its job up leaves a job
// that is never run, even when the writer already holds it in a batch.
func TestAnAbandonedJobIsNeverRun(t *testing.T) {
	db := openWriter(t)
	hold, held := make(chan struct{}), make(chan struct{})
	go db.update(context.Background(), func(tx *Tx) error { close(held); <-hold; return nil })
	<-held
	// Two jobs wait while the writer is held, so that it takes both up
	// in its next batch; the one it runs first blocks, the other's caller
	// gives up.
	var ctxs [2]context.Context
	var cancels [2]context.CancelFunc
	var ran [2]atomic.Bool
	first := make(chan int, 2)
	release := make(chan struct{})
	results := [2]chan error{make(chan error, 1), make(chan error, 1)}
	for i := range 2 {
		ctxs[i], cancels[i] = context.WithCancel(context.Background())
		defer cancels[i]()
		go func() {
			results[i] <- db.update(ctxs[i], func(tx *Tx) error {
				ran[i].Store(true)
				first <- i
				<-release
				return nil
			})
		}()
	}
	time.Sleep(30 * time.Millisecond)
	close(hold)
	runner := <-first
	other := 1 - runner
	cancels[other]()
	if err := <-results[other]; err == nil {
		t.Fatal("an abandoned write succeeded")
	}
	close(release)
	if err := <-results[runner]; err != nil {
		t.Fatal(err)
	}
	if err := db.update(context.Background(), func(tx *Tx) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if ran[other].Load() {
		t.Fatal("the writer ran a job its caller had given up")
	}
}
