package tuning_test

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/chat"
	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/storage/storagetest"
	"github.com/honehq/hone/internal/tuning"
)

// seedSession fills a new session of conversation with turns turns carrying
// notesPerTurn improvements each, in bulk.
func seedSession(tb testing.TB, db *storage.DB, conversation string, turns, notesPerTurn int) *capture.Session {
	tb.Helper()
	ctx := context.Background()
	_, s, err := db.Capture().ResetSession(ctx, capture.Tester{ConversationID: conversation, TesterID: "meg"})
	if err != nil {
		tb.Fatal(err)
	}
	at := time.Date(2025, 10, 24, 10, 0, 0, 0, time.UTC)
	response := "Got it — that's definitely something we need to address right away. " + strings.Repeat("Here is the guidance, step by step. ", 5)
	if err := db.Exec(ctx, `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
		INSERT INTO turns (id, session_id, turn_number, user_message, response, created_at, metadata)
		SELECT ? || '-' || i, ?, i, 'My employee did not show up, case ' || i, ?, ?, '{}' FROM n`,
		turns, s.ID, s.ID, response, at); err != nil {
		tb.Fatal(err)
	}
	for k := range notesPerTurn {
		if err := db.Exec(ctx, `INSERT INTO improvements (id, turn_id, session_id, improvement_note, category, created_at)
			SELECT t.id || '-' || ?, t.id, t.session_id, 'Should mention the "email" option, earlier', 'tone', ?
			FROM turns t WHERE t.session_id = ?`, fmt.Sprint(k), at.Add(time.Duration(k)*time.Second), s.ID); err != nil {
			tb.Fatal(err)
		}
	}
	if err := db.Exec(ctx, `UPDATE sessions SET total_turns = ?, total_improvements = ? WHERE id = ?`,
		turns, turns*notesPerTurn, s.ID); err != nil {
		tb.Fatal(err)
	}
	s, err = db.Capture().FindSession(ctx, s.ID)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// BenchmarkImproveOn10kTurns times !improve on a session that already has
// 10,000 turns, through the engine and SQLite, and reports the median and p99.
func BenchmarkImproveOn10kTurns(b *testing.B) {
	db := storagetest.SQLite(b)
	seedSession(b, db, meg.ConversationID, 10_000, 0)
	router := newRouter(db, tuning.NewService(db.Capture(), db.Tuning(), tuning.Options{}), nil)
	ctx := context.Background()
	msg := chat.Message{Tester: meg, Text: "!improve tone: too formal, should be more conversational"}
	times := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		r, err := router.Handle(ctx, msg)
		times = append(times, time.Since(start))
		if err != nil || !r.Ack {
			b.Fatalf("%+v %v", r, err)
		}
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(times[len(times)*99/100].Microseconds()), "p99-µs")
}

// BenchmarkExport100kTurns exports a session of 100,000 turns with two
// improvements each as CSV, and reports the heap in use at its peak.
func BenchmarkExport100kTurns(b *testing.B) {
	for _, format := range []string{"csv", "json"} {
		b.Run(format, func(b *testing.B) {
			db := storagetest.SQLite(b)
			s := seedSession(b, db, "big", 100_000, 2)
			ctx := context.Background()
			var peak uint64
			b.ResetTimer()
			for b.Loop() {
				w := &heapWatcher{w: io.Discard}
				var err error
				if format == "csv" {
					err = tuning.WriteCSV(ctx, w, db.Tuning(), s, "Bot")
				} else {
					err = tuning.WriteJSON(ctx, w, db.Tuning(), s, time.Now())
				}
				if err != nil {
					b.Fatal(err)
				}
				peak = max(peak, w.peak)
				b.SetBytes(w.n)
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
		})
	}
}

// heapWatcher samples the heap while an export writes through it.
type heapWatcher struct {
	w      io.Writer
	n      int64
	writes int
	peak   uint64
}

func (h *heapWatcher) Write(p []byte) (int, error) {
	h.n += int64(len(p))
	if h.writes++; h.writes%4096 == 0 {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		h.peak = max(h.peak, m.HeapAlloc)
	}
	return h.w.Write(p)
}

// TestExportMemoryDoesNotGrowWithSession streams 100,000 turns with two
// improvements each (about 60 MB of CSV, more of JSON) and checks that the heap never holds
// more than a fraction of it.
func TestExportMemoryDoesNotGrowWithSession(t *testing.T) {
	if testing.Short() {
		t.Skip("seeds 300,000 rows")
	}
	db := storagetest.SQLite(t)
	s := seedSession(t, db, "big", 100_000, 2)
	for _, format := range []string{"csv", "json"} {
		runtime.GC()
		w := &heapWatcher{w: io.Discard}
		var err error
		if format == "csv" {
			err = tuning.WriteCSV(context.Background(), w, db.Tuning(), s, "Bot")
		} else {
			err = tuning.WriteJSON(context.Background(), w, db.Tuning(), s, time.Now())
		}
		if err != nil {
			t.Fatal(err)
		}
		if w.n < 50<<20 {
			t.Fatalf("%s export of %d bytes is smaller than expected", format, w.n)
		}
		if limit := uint64(w.n / 4); w.peak > limit {
			t.Fatalf("%s: heap peaked at %d MB while exporting %d MB", format, w.peak>>20, w.n>>20)
		}
	}
}
