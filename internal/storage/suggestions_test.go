package storage_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/storage/storagetest"
	"github.com/honehq/hone/internal/suggestions"
	"github.com/honehq/hone/suggest"
)

// suggestionBatch is n records of one client, spread over days, servers,
// versions, models and outcomes so that every batch counts under many of
// the same rollups as every other.
func suggestionBatch(client, batch, n int) []*suggestions.Record {
	matches := []string{suggest.MatchExact, suggest.MatchPartial, suggest.MatchPrefix, suggest.MatchNone}
	day0 := time.Date(2026, 1, 10, 0, 0, 0, 0, time.UTC)
	out := make([]*suggestions.Record, n)
	for i := range out {
		k := batch*n + i
		r := &suggestions.Record{
			ID: fmt.Sprintf("c%d-%d", client, k), TS: day0.Add(time.Duration(k%5)*suggestions.Day + time.Duration(k)*time.Second),
			Server: fmt.Sprint("s", k%3), Session: fmt.Sprint("client", client), Version: fmt.Sprint("v", k%2),
			Model: fmt.Sprint("m", k%4), MatchType: matches[k%4], Suggestions: 3, CycleCount: k % 12,
			TimeToActionMS: float64(k%40) * 700, ContextBlockCount: k % 25, TotalTokens: k % 2500,
			ViewedButRejected: k%3 == 0, CycledBack: k%7 == 0, Raw: []byte(`{}`),
		}
		if r.MatchType != suggest.MatchNone {
			pos := k % 3
			r.AcceptedIndex = &pos
		}
		out[i] = r
	}
	return out
}

// Concurrent ingestion never deadlocks: four clients adding batches of 500
// records that count under the same rollups all succeed, and every record
// is counted once. The last client sends the third's records again, in
// the opposite order (a client retrying what another sent).
func TestSuggestionAddConcurrently(t *testing.T) {
	const clients, batches, size = 4, 6, 500
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		store := db.Suggestions()
		deltas := func(added []*suggestions.Record) []suggestions.Rollup { return suggestions.Rollups(added, 1) }
		var wg sync.WaitGroup
		errs := make(chan error, clients*batches)
		var mu sync.Mutex
		added := 0
		for c := range clients {
			wg.Go(func() {
				for b := range batches {
					recs := suggestionBatch(min(c, clients-2), b, size)
					if c == clients-1 {
						slices.Reverse(recs)
					}
					n, err := store.Add(context.Background(), recs, deltas)
					if err != nil {
						errs <- fmt.Errorf("client %d, batch %d: %w", c, b, err)
					}
					mu.Lock()
					added += n
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		close(errs)
		failed := 0
		for err := range errs {
			if failed++; failed <= 3 {
				t.Error(err)
			}
		}
		if failed > 0 {
			t.Fatalf("%d of %d batches failed", failed, clients*batches)
		}
		rows, err := store.Rollups(context.Background(), suggestions.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		if want := (clients - 1) * batches * size; added != want || suggestions.Compute(rows).Total != int64(want) {
			t.Errorf("%d records added, %d counted, want %d", added, suggestions.Compute(rows).Total, want)
		}
	})
}
