package storage

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/honehq/hone"
)

// BenchmarkInsertTodaysTurns inserts turns of today's shape, 100 to a
// statement and a transaction, into a database of the schema before the
// richer record (migrations up to 00010) with the statement written before
// it, and into one of the current schema with the current statement, in 10
// paired rounds, and reports the median ratio of the rounds' rates
// (now/before).
func BenchmarkInsertTodaysTurns(b *testing.B) {
	ctx := context.Background()
	open := func(version int64) *DB {
		db, err := Open(ctx, filepath.Join(b.TempDir(), "hone.db"), slog.New(slog.DiscardHandler))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Close() })
		p, err := db.migrator()
		if err != nil {
			b.Fatal(err)
		}
		if version == 0 {
			_, err = p.Up(ctx)
		} else {
			_, err = p.UpTo(ctx, version)
		}
		if err != nil {
			b.Fatal(err)
		}
		if err := db.update(ctx, func(tx *Tx) error {
			_, err := tx.exec(ctx, `INSERT INTO sessions (id, conversation_id, session_start, tester_id) VALUES ('s', 'c', ?, 'meg')`, tx.now)
			return err
		}); err != nil {
			b.Fatal(err)
		}
		return db
	}
	before, now := open(10), open(0)
	const batch = 100
	insert := func(db *DB, columns string, params, from int) time.Duration {
		row := "(?" + strings.Repeat(", ?", params-1) + ")"
		query := `INSERT INTO turns (` + columns + `) VALUES ` + row + strings.Repeat(", "+row, batch-1)
		args := make([]any, 0, batch*params)
		for i := range batch {
			args = append(args, hone.NewID(12), "s", from+i+1, fmt.Sprint("My employee didn't show up for 3 days, case ", from+i),
				"Got it — that's definitely something we need to address right away. Per our attendance policy, call first.",
				time.Now().UTC(), nil, 0.82, 812.5, "{}", `{"has_policy_citation":0,"objective_quality_score":0.6}`, 0.6, nil, nil)
			if params == turnInsertParams {
				args = append(args, "api")
			}
		}
		start := time.Now()
		if err := db.update(ctx, func(tx *Tx) error { _, err := tx.exec(ctx, query, args...); return err }); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	const previousColumns = `id, session_id, turn_number, user_message, response, created_at, search_results, avg_similarity,
	processing_time_ms, metadata, metrics, objective_score, idempotency_key, fingerprint`
	per := max(b.N/10, 1)
	var ratios []float64
	var n [2]int
	b.ResetTimer()
	for r := range 10 {
		var took [2]time.Duration
		for k := range 2 {
			s := (k + r) % 2
			for range per {
				if s == 0 {
					took[0] += insert(before, previousColumns, turnInsertParams-1, n[0])
				} else {
					took[1] += insert(now, turnInsertColumns, turnInsertParams, n[1])
				}
				n[s] += batch
			}
		}
		ratios = append(ratios, took[0].Seconds()/took[1].Seconds())
	}
	b.StopTimer()
	slices.Sort(ratios)
	b.ReportMetric((ratios[4]+ratios[5])/2, "now/before")
}
