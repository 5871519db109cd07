package suggestions_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/suggestions"
)

// BenchmarkStats1M times the statistics of 1,000,000 records on SQLite,
// spread over 30 days, 2 servers, 3 versions and 4 models. Filling the
// database takes a while: it is kept in HONE_BENCH_DIR when that is set.
func BenchmarkStats1M(b *testing.B) {
	dir := os.Getenv("HONE_BENCH_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	path := filepath.Join(dir, "suggestions-1m.db")
	_, statErr := os.Stat(path)
	db, err := storage.Open(ctx, path, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		b.Fatal(err)
	}
	svc := suggestions.NewService(db.Suggestions(), suggestions.Options{HistoryRoot: b.TempDir()})
	if st, _ := svc.Stats(ctx, suggestions.Filter{}); statErr != nil || st.Total < 1_000_000 {
		fill(b, db, 1_000_000)
	}
	b.ResetTimer()
	for range b.N {
		st, err := svc.Stats(ctx, suggestions.Filter{})
		if err != nil || st.Total != 1_000_000 {
			b.Fatalf("stats %d %v", st.Total, err)
		}
	}
	b.StopTimer()
	st, _ := svc.Stats(ctx, suggestions.Filter{Version: "v2", Since: time.Date(2026, 1, 15, 0, 0, 0, 0, time.UTC)})
	b.Logf("v2 since the 15th: %d records", st.Total)
}

func fill(b *testing.B, db *storage.DB, n int) {
	start := time.Now()
	rng := rand.New(rand.NewPCG(1, 2))
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	store := db.Suggestions()
	matches := []string{"exact", "partial", "prefix", "none"}
	batch := make([]*suggestions.Record, 0, 5000)
	for i := range n {
		m := matches[rng.IntN(4)]
		r := &suggestions.Record{ID: fmt.Sprintf("r%07d", i), TS: t0.Add(time.Duration(rng.Int64N(int64(30 * 24 * time.Hour)))),
			Server: []string{"local", "prod"}[rng.IntN(2)], Session: fmt.Sprint("s", rng.IntN(500)), Version: fmt.Sprint("v", 1+rng.IntN(3)),
			Model: []string{"gpt-4o-mini", "gpt-4o", "llama3", "qwen"}[rng.IntN(4)], MatchType: m, Suggestions: 3,
			CycleCount: rng.IntN(8), TimeToActionMS: rng.ExpFloat64() * 2500, ContextBlockCount: rng.IntN(30), TotalTokens: 50 + rng.IntN(2000),
			ViewedButRejected: rng.IntN(2) == 0, CycledBack: rng.IntN(4) == 0, Raw: []byte(`{}`)}
		temp := []float64{0.2, 0.7, 1.0}[rng.IntN(3)]
		r.Temperature = &temp
		if m != "none" {
			p := rng.IntN(3)
			r.AcceptedIndex = &p
		}
		batch = append(batch, r)
		if len(batch) == cap(batch) || i == n-1 {
			if _, err := store.Add(ctx, batch, func(added []*suggestions.Record) []suggestions.Rollup { return suggestions.Rollups(added, 1) }); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	b.Logf("filled %d records in %v", n, time.Since(start))
}
