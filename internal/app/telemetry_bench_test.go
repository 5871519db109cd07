package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/honehq/hone/internal/api"
	"github.com/honehq/hone/internal/app"
	"github.com/honehq/hone/internal/config"
	"github.com/honehq/hone/internal/tuning"
)

// telemetryRounds is how many paired rounds the telemetry benchmarks run.
const telemetryRounds = 20

// startBare opens and serves hone on SQLite; without telemetry it keeps no
// metrics.
func startBare(b *testing.B, telemetry bool) *app.App {
	b.Helper()
	cfg := config.Config{Addr: "127.0.0.1:0", DataDir: b.TempDir(), MaxBodyBytes: 1 << 20, MessageLimit: tuning.DefaultMessageLimit}
	open := app.Open
	if !telemetry {
		open = app.OpenWithoutTelemetry
	}
	a, err := open(context.Background(), cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		b.Fatal(err)
	}
	if err := a.Listen(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { a.Close() })
	return a
}

// compareTelemetry posts the same rounds of bodies (per round, per client)
// to a hone with metrics and to one without, in turns (which goes first
// alternates), and reports both rates of turns and the median of the
// rounds' ratios, with metrics to without: 1 means the metrics cost
// nothing.
func compareTelemetry(b *testing.B, path string, rounds [][][][]byte, turnsPerRound int, want int, check func([]byte) error) {
	with, without := startBare(b, true), startBare(b, false)
	var withTime, withoutTime time.Duration
	ratios := make([]float64, 0, len(rounds))
	b.ResetTimer()
	for i, bodies := range rounds {
		var tw, to time.Duration
		if i%2 == 0 {
			tw = postAll(b, with.URL()+path, bodies, want, check)
			to = postAll(b, without.URL()+path, bodies, want, check)
		} else {
			to = postAll(b, without.URL()+path, bodies, want, check)
			tw = postAll(b, with.URL()+path, bodies, want, check)
		}
		withTime += tw
		withoutTime += to
		ratios = append(ratios, to.Seconds()/tw.Seconds())
	}
	b.StopTimer()
	slices.Sort(ratios)
	median := (ratios[(len(ratios)-1)/2] + ratios[len(ratios)/2]) / 2
	n := float64(turnsPerRound * len(rounds))
	b.ReportMetric(n/withTime.Seconds(), "turns/s")
	b.ReportMetric(n/withoutTime.Seconds(), "no-telemetry-turns/s")
	b.ReportMetric(median, "telemetry/no-telemetry")
	b.ReportMetric((1-median)*100, "cost-%")
}

// BenchmarkTelemetryCostSingle measures what the metrics cost the single
// turn ingestion of BenchmarkPostTurns (16 clients posting one turn at a
// time): the same turns go to a hone with metrics and to one without, in
// 20 paired rounds. Use -benchtime 20000x (each hone takes 20,000 turns).
func BenchmarkTelemetryCostSingle(b *testing.B) {
	const clients = 16
	per := max(b.N/clients/telemetryRounds, 1)
	rounds := make([][][][]byte, telemetryRounds)
	for r := range rounds {
		rounds[r] = make([][][]byte, clients)
		for c := range clients {
			for i := range per {
				body, _ := json.Marshal(benchTurn(fmt.Sprint("bench-", c), r*per+i))
				rounds[r][c] = append(rounds[r][c], body)
			}
		}
	}
	compareTelemetry(b, api.Prefix+"/turns", rounds, per*clients, http.StatusCreated, nil)
}

// BenchmarkTelemetryCostBatch measures what the metrics cost the batch
// ingestion of BenchmarkBatchTurns (4 clients posting batches of 100
// turns): the same batches go to a hone with metrics and to one without,
// in 20 paired rounds. Use -benchtime 500x (each hone takes 500 batches).
func BenchmarkTelemetryCostBatch(b *testing.B) {
	const clients, batch = 4, 100
	per := max(b.N/clients/telemetryRounds, 1)
	rounds := make([][][][]byte, telemetryRounds)
	for r := range rounds {
		rounds[r] = make([][][]byte, clients)
		for c := range clients {
			for i := range per {
				items := make([]map[string]any, batch)
				for j := range items {
					items[j] = benchTurn(fmt.Sprintf("bench-%d-%d", c, j%10), (r*per+i)*batch+j)
				}
				body, _ := json.Marshal(items)
				rounds[r][c] = append(rounds[r][c], body)
			}
		}
	}
	check := func(answer []byte) error {
		var out api.BatchAnswer
		if err := json.Unmarshal(answer, &out); err != nil || len(out.Results) != batch {
			return fmt.Errorf("batch answer %.200s: %v", answer, err)
		}
		return nil
	}
	compareTelemetry(b, api.Prefix+"/turns/batch", rounds, per*clients*batch, http.StatusOK, check)
}
