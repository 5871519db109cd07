package storage

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/honehq/hone/internal/capture"
)

// previousTurnColumns are the columns a turn was read with before the
// richer record.
func (db *DB) previousTurnColumns() string {
	return `t.id, t.session_id, t.turn_number, t.user_message, t.response, ` + db.timeText("t.created_at") + `,
	t.search_results, t.avg_similarity, t.processing_time_ms, t.metadata,
	t.metrics, t.scores, t.objective_score, t.subjective_score, t.overall_score`
}

// previousScanTurn reads a turn as scanTurn did before the richer record.
func previousScanTurn(row scanner) (*capture.Turn, error) {
	var t capture.Turn
	var at rawTime
	var search, meta []byte
	var sim, ms sql.NullFloat64
	var measured, scores []byte
	var obj, subj, overall sql.NullFloat64
	if err := row.Scan(&t.ID, &t.SessionID, &t.Number, &t.UserMessage, &t.Response, &at,
		&search, &sim, &ms, &meta, &measured, &scores, &obj, &subj, &overall); err != nil {
		return nil, err
	}
	var err error
	if t.Timestamp, err = at.Time(); err != nil {
		return nil, err
	}
	if len(search) > 0 {
		t.SearchResults = append([]byte(nil), search...)
	}
	if sim.Valid {
		t.AvgSimilarity = &sim.Float64
	}
	if ms.Valid {
		t.ProcessingTimeMS = &ms.Float64
	}
	t.Metadata = jsonOrEmpty(meta)
	if len(measured) > 0 {
		t.Metrics = append([]byte(nil), measured...)
	}
	if t.Scores, err = decodeScores(scores); err != nil {
		return nil, err
	}
	t.ObjectiveScore, t.SubjectiveScore, t.OverallScore = nullFloat(obj), nullFloat(subj), nullFloat(overall)
	return &t, nil
}

// BenchmarkReadTurns reads a session of 20,000 turns of today's shape on
// SQLite, as the exports do, with the columns of the richer record and with
// the columns read before it, in 10 paired rounds, and reports both times
// and the median ratio of the rounds (before/now).
func BenchmarkReadTurns(b *testing.B) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(b.TempDir(), "hone.db"), slog.New(slog.DiscardHandler))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		b.Fatal(err)
	}
	r := capture.NewRecorder(db.Capture(), nil).From(capture.SourceAPI)
	var sessionID string
	for i := range 200 {
		var ins []capture.TurnInput
		for j := range 100 {
			ins = append(ins, capture.TurnInput{ConversationID: "c", TesterID: "meg", UserMessage: fmt.Sprint("question ", i*100+j),
				Response: "Got it — that's definitely something we need to address right away. Per our attendance policy, call first."})
		}
		res, err := r.RecordBatch(ctx, ins, "")
		if err != nil {
			b.Fatal(err)
		}
		sessionID = res[0].Turn.SessionID
	}
	read := func(columns string, scan func(*sql.Rows) error) time.Duration {
		start := time.Now()
		rows, err := db.query(ctx, `SELECT `+columns+` FROM turns t WHERE t.session_id = ? ORDER BY t.turn_number`, sessionID)
		if err != nil {
			b.Fatal(err)
		}
		defer rows.Close()
		n := 0
		for rows.Next() {
			if err := scan(rows); err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != 20_000 {
			b.Fatalf("%d turns", n)
		}
		return time.Since(start)
	}
	now := func(rows *sql.Rows) error { _, err := scanTurn(rows); return err }
	before := func(rows *sql.Rows) error { _, err := previousScanTurn(rows); return err }
	var ratios []float64
	var took [2]time.Duration
	b.ResetTimer()
	for range max(b.N, 10) {
		old, cur := read(db.previousTurnColumns(), before), read(db.turnColumns(), now)
		took[0] += old
		took[1] += cur
		ratios = append(ratios, old.Seconds()/cur.Seconds())
	}
	b.StopTimer()
	slices.Sort(ratios)
	b.ReportMetric(took[0].Seconds()/float64(len(ratios))*1e3, "before-ms")
	b.ReportMetric(took[1].Seconds()/float64(len(ratios))*1e3, "now-ms")
	b.ReportMetric(ratios[len(ratios)/2], "before/now")
}
