package storage

import (
	"context"
	"sync"
	"testing"
	"time"
)

// dbCall is one call a meter was told of.
type dbCall struct {
	op          string
	unavailable bool
}

// dbMeter keeps the calls it is told of.
type dbMeter struct {
	mu    sync.Mutex
	calls []dbCall
}

func (m *dbMeter) ObserveDBCall(op string, d time.Duration, unavailable bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls = append(m.calls, dbCall{op, unavailable})
}

func (m *dbMeter) count(c dbCall) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, got := range m.calls {
		if got == c {
			n++
		}
	}
	return n
}

// TestWriterQueue: the queue counts the writes waiting for SQLite's writer
// and the one it is writing, and is empty again once they are answered,
// a write whose caller gave up before the writer took it included.
func TestWriterQueue(t *testing.T) {
	db := openWriter(t)
	hold, held := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { _ = db.update(context.Background(), func(tx *Tx) error { close(held); <-hold; return nil }) })
	<-held
	for range 3 {
		wg.Go(func() { _ = db.update(context.Background(), func(tx *Tx) error { return nil }) })
	}
	ctx, cancel := context.WithCancel(context.Background())
	wg.Go(func() { _ = db.update(ctx, func(tx *Tx) error { return nil }) })
	waitFor(t, func() bool { return db.WriterQueue() == 5 }, "5 writes in the queue")
	cancel()
	waitFor(t, func() bool { return db.WriterQueue() == 4 }, "4 writes once one caller gave up")
	close(hold)
	wg.Wait()
	if got := db.WriterQueue(); got != 0 {
		t.Errorf("the queue holds %d writes once all were answered", got)
	}
}

// TestMeterToldOfReadsAndWrites: the meter hears of each read and write,
// and of a write that found the database full.
func TestMeterToldOfReadsAndWrites(t *testing.T) {
	db := openWriter(t)
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	m := &dbMeter{}
	db.Meter = m
	ctx := context.Background()
	if err := db.CheckWrite(ctx); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.queryRow(ctx, `SELECT COUNT(*) FROM health`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if _, err := db.BackgroundRuns(ctx); err != nil {
		t.Fatal(err)
	}
	if got := [2]int{m.count(dbCall{OpWrite, false}), m.count(dbCall{OpRead, false})}; got != [2]int{1, 2} {
		t.Errorf("writes, reads counted %v, want [1 2]", got)
	}
	if err := db.Exec(ctx, "PRAGMA max_page_count = 1"); err != nil {
		t.Fatal(err)
	}
	err := db.update(ctx, func(tx *Tx) error {
		_, err := tx.exec(ctx, `CREATE TABLE filler (x TEXT)`)
		return err
	})
	if err == nil {
		t.Fatal("a full database took a new table")
	}
	if got := m.count(dbCall{OpWrite, true}); got != 1 {
		t.Errorf("%d unavailable writes counted, want 1 (%v)", got, err)
	}
}

// waitFor polls cond for up to 5 s.
func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
