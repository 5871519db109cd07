package storage_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/storage/storagetest"
	"github.com/honehq/hone/internal/tuning"
)

// benchSessions is how many sessions the sessions list benchmark holds.
const benchSessions = 10000

// seedListBench records benchSessions sessions of two turns each, every
// turn rated (the first 👍, the second 👎) and scored.
func seedListBench(b *testing.B, db *storage.DB) {
	ctx := context.Background()
	var recs []capture.TurnRecord
	for i := range benchSessions {
		for k := range 2 {
			rec := benchRecord(fmt.Sprintf("list-%d", i), 2*i+k, false)
			rec.Input.TesterID = fmt.Sprintf("tester-%d", i%50)
			rec.Input.PromptVersion = fmt.Sprintf("v%d", i%7)
			recs = append(recs, rec)
		}
		if len(recs) >= 1000 {
			if _, err := db.Capture().RecordTurns(ctx, recs); err != nil {
				b.Fatal(err)
			}
			recs = recs[:0]
		}
	}
	for _, q := range []string{
		`UPDATE turns SET overall_score = (turn_number * 0.3), objective_score = 0.5`,
		`INSERT INTO turn_feedback (id, turn_id, session_id, conversation_id, tester_id, rating, created_at, updated_at)
			SELECT 'f' || id, id, session_id, 'c', 'x', CASE WHEN turn_number = 1 THEN 'up' ELSE 'down' END, created_at, created_at
			FROM turns`,
	} {
		if err := db.Exec(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSessionsList lists page 1 (51 rows) of 10,000 sessions: the list
// before this release (ListSessions, newest first) as the baseline, then
// the reviewers' list with its columns newest first, filtered on a tester,
// sorted by 👎, and searched in the messages. Each op runs all of them;
// the ratios to the baseline are reported. SQLite, and PostgreSQL when
// HONE_TEST_DATABASE_URL is set.
func BenchmarkSessionsList(b *testing.B) {
	run := func(b *testing.B, db *storage.DB) {
		seedListBench(b, db)
		ctx := context.Background()
		cases := []struct {
			name string
			run  func() error
		}{
			{"baseline", func() error {
				_, err := db.Capture().ListSessions(ctx, capture.SessionFilter{Limit: 51})
				return err
			}},
			{"newest", func() error {
				_, err := db.Tuning().SearchSessions(ctx, tuning.SessionSearch{Sort: tuning.SortStarted, Desc: true, Limit: 51})
				return err
			}},
			{"tester", func() error {
				_, err := db.Tuning().SearchSessions(ctx, tuning.SessionSearch{TesterID: "tester-7", Sort: tuning.SortStarted, Desc: true, Limit: 51})
				return err
			}},
			{"by-down", func() error {
				_, err := db.Tuning().SearchSessions(ctx, tuning.SessionSearch{HasThumbsDown: true, Sort: tuning.SortDown, Desc: true, Limit: 51})
				return err
			}},
			{"search", func() error {
				_, err := db.Tuning().SearchSessions(ctx, tuning.SessionSearch{Text: "case 1999", Sort: tuning.SortStarted, Desc: true, Limit: 51})
				return err
			}},
		}
		took := make([]time.Duration, len(cases))
		b.ResetTimer()
		for range b.N {
			for i, c := range cases {
				start := time.Now()
				if err := c.run(); err != nil {
					b.Fatal(err)
				}
				took[i] += time.Since(start)
			}
		}
		b.StopTimer()
		for i, c := range cases {
			b.ReportMetric(float64(took[i].Microseconds())/float64(b.N), c.name+"-µs/op")
			if i > 0 {
				b.ReportMetric(took[i].Seconds()/took[0].Seconds(), c.name+"/baseline")
			}
		}
	}
	b.Run("sqlite", func(b *testing.B) { run(b, storagetest.SQLite(b)) })
	if os.Getenv(storagetest.PostgresURLEnv) != "" {
		b.Run("postgres", func(b *testing.B) { run(b, storagetest.Postgres(b)) })
	}
}
