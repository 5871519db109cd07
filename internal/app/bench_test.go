package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/storage"
)

const benchClients = 16

func benchTurn(client, i int) map[string]any {
	return map[string]any{
		"conversation_id": fmt.Sprint("bench-", client), "tester_id": fmt.Sprint("tester-", client),
		"tester_email": "meg@example.com", "user_message": fmt.Sprint("My employee didn't show up for 3 days, case ", i),
		"response":       "Got it — that's definitely something we need to address right away. Per our attendance policy, call first.",
		"prompt_version": "fc26922", "processing_time_ms": 812.5, "avg_similarity": 0.82,
	}
}

// BenchmarkPostTurns posts turns from 16 concurrent keep-alive clients over
// loopback to a server on SQLite, then inserts the same rows straight into a
// fresh SQLite database, one statement each, and reports both rates and
// their ratio.
func BenchmarkPostTurns(b *testing.B) {
	a := start(b, slog.New(slog.DiscardHandler))
	bodies := make([][][]byte, benchClients)
	per := max(b.N/benchClients, 1)
	for c := range bodies {
		for i := range per {
			body, _ := json.Marshal(benchTurn(c, i))
			bodies[c] = append(bodies[c], body)
		}
	}
	transport := &http.Transport{MaxIdleConnsPerHost: benchClients, MaxConnsPerHost: benchClients}
	client := &http.Client{Transport: transport}
	defer transport.CloseIdleConnections()
	var failed atomic.Int64
	url := a.URL() + "/api/v1/turns"
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for c := range benchClients {
		wg.Go(func() {
			for _, body := range bodies[c] {
				resp, err := client.Post(url, "application/json", bytes.NewReader(body))
				if err != nil {
					failed.Add(1)
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusCreated {
					failed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if n := failed.Load(); n > 0 {
		b.Fatalf("%d turns failed", n)
	}
	total := per * benchClients
	httpRate := float64(total) / elapsed.Seconds()
	rawRate := rawInsertRate(b, total)
	b.ReportMetric(httpRate, "turns/s")
	b.ReportMetric(rawRate, "raw-inserts/s")
	b.ReportMetric(httpRate/rawRate, "ratio")
}

// rawInsertRate inserts n turn rows like the benchmark's into a fresh SQLite
// database, one INSERT each (autocommit), and returns the rate.
func rawInsertRate(b *testing.B, n int) float64 {
	ctx := context.Background()
	db, err := storage.Open(ctx, filepath.Join(b.TempDir(), "raw.db"), slog.New(slog.DiscardHandler))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		b.Fatal(err)
	}
	if err := db.Exec(ctx, `INSERT INTO sessions (id, conversation_id, session_start, tester_id) VALUES ('raw', 'raw', ?, 'raw')`, time.Now()); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	for i := range n {
		t := benchTurn(i%benchClients, i)
		if err := db.Exec(ctx, `INSERT INTO turns (id, session_id, turn_number, user_message, response, created_at,
			avg_similarity, processing_time_ms, metadata) VALUES (?, 'raw', ?, ?, ?, ?, ?, ?, '{}')`,
			hone.NewID(12), i+1, t["user_message"], t["response"], time.Now().UTC(), t["avg_similarity"], t["processing_time_ms"]); err != nil {
			b.Fatal(err)
		}
	}
	return float64(n) / time.Since(start).Seconds()
}
