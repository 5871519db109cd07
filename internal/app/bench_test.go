package app_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/api"
	"github.com/honehq/hone/internal/storage"
)

func benchTurn(conversation string, i int) map[string]any {
	return map[string]any{
		"conversation_id": conversation, "tester_id": "tester-" + conversation,
		"tester_email": "meg@example.com", "user_message": fmt.Sprint("My employee didn't show up for 3 days, case ", i),
		"response":       "Got it — that's definitely something we need to address right away. Per our attendance policy, call first.",
		"prompt_version": "fc26922", "processing_time_ms": 812.5, "avg_similarity": 0.82,
	}
}

// richBenchTurn is benchTurn as a recording proxy would send it, with the
// richer record: the whole chat in messages (a system prompt, the user's
// message and the answer) instead of user_message and response, the model,
// token usage, latency, source and trace context.
func richBenchTurn(conversation string, i int) map[string]any {
	t := benchTurn(conversation, i)
	t["messages"] = []map[string]any{
		{"role": "system", "content": "You are ERA, the HR assistant of Acme. Answer from the attendance policy, briefly and kindly."},
		{"role": "user", "content": t["user_message"]},
		{"role": "assistant", "content": t["response"]},
	}
	delete(t, "user_message")
	delete(t, "response")
	t["model"], t["latency_ms"], t["source"] = "gpt-4o-mini", 640.5, "proxy"
	t["usage"] = map[string]any{"prompt_tokens": 412, "completion_tokens": 38, "total_tokens": 450}
	t["trace_id"], t["span_id"], t["parent_id"] = fmt.Sprintf("%032x", i+1), fmt.Sprintf("%016x", i+1), fmt.Sprintf("%016x", i+1<<32)
	return t
}

// postAll sends bodies from clients concurrent keep-alive clients to url and
// returns how long they took; every answer must have the status want.
func postAll(b *testing.B, url string, bodies [][][]byte, want int, check func([]byte) error) time.Duration {
	b.Helper()
	return postAllAs(b, url, "application/json", bodies, want, check)
}

// postAllAs is postAll of bodies of the content type ct.
func postAllAs(b *testing.B, url, ct string, bodies [][][]byte, want int, check func([]byte) error) time.Duration {
	b.Helper()
	clients := len(bodies)
	transport := &http.Transport{MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients}
	client := &http.Client{Transport: transport}
	defer transport.CloseIdleConnections()
	var failed atomic.Int64
	var firstErr atomic.Value
	start := time.Now()
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			for _, body := range bodies[c] {
				resp, err := client.Post(url, ct, bytes.NewReader(body))
				if err != nil {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				answer, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != want {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, fmt.Sprintf("status %d: %s", resp.StatusCode, answer))
				} else if check != nil {
					if err := check(answer); err != nil {
						failed.Add(1)
						firstErr.CompareAndSwap(nil, err.Error())
					}
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	if n := failed.Load(); n > 0 {
		b.Fatalf("%d requests failed, the first: %v", n, firstErr.Load())
	}
	return elapsed
}

// BenchmarkPostTurns posts single turns (POST /turns, scored) from 16
// concurrent keep-alive clients over loopback to a server on SQLite, and
// reports the rate beside the raw SQLite insert rates of the same rows
// measured in the same run: one INSERT per transaction, and 1,000 per
// transaction. Use -benchtime 20000x.
func BenchmarkPostTurns(b *testing.B) {
	const clients = 16
	a := start(b, slog.New(slog.DiscardHandler))
	per := max(b.N/clients, 1)
	bodies := make([][][]byte, clients)
	for c := range bodies {
		for i := range per {
			body, _ := json.Marshal(benchTurn(fmt.Sprint("bench-", c), i))
			bodies[c] = append(bodies[c], body)
		}
	}
	b.ResetTimer()
	elapsed := postAll(b, a.URL()+api.Prefix+"/turns", bodies, http.StatusCreated, nil)
	b.StopTimer()
	report(b, float64(per*clients)/elapsed.Seconds(), per*clients)
}

// BenchmarkBatchTurns posts turns in batches of 100 (POST /turns/batch,
// scored), spread over 10 conversations per client, from 4 concurrent
// clients to a server on SQLite, and reports the rate beside the same raw
// SQLite baselines. Use -benchtime 500x (500 batches, 50,000 turns).
func BenchmarkBatchTurns(b *testing.B) {
	const clients, batch = 4, 100
	a := start(b, slog.New(slog.DiscardHandler))
	per := max(b.N/clients, 1)
	bodies := make([][][]byte, clients)
	n := 0
	for c := range bodies {
		for i := range per {
			items := make([]map[string]any, batch)
			for j := range items {
				items[j] = benchTurn(fmt.Sprintf("bench-%d-%d", c, j%10), i*batch+j)
				n++
			}
			body, _ := json.Marshal(items)
			bodies[c] = append(bodies[c], body)
		}
	}
	check := func(answer []byte) error {
		var out api.BatchAnswer
		if err := json.Unmarshal(answer, &out); err != nil || len(out.Results) != batch {
			return fmt.Errorf("batch answer %.200s: %v", answer, err)
		}
		for _, r := range out.Results {
			if r.Error != nil || r.TurnNumber < 1 {
				return fmt.Errorf("batch result %+v", r)
			}
		}
		return nil
	}
	b.ResetTimer()
	elapsed := postAll(b, a.URL()+api.Prefix+"/turns/batch", bodies, http.StatusOK, check)
	b.StopTimer()
	report(b, float64(n)/elapsed.Seconds(), n)
}

// shapes are the record shapes the rich benchmarks compare: today's and
// the richer record.
var shapes = []struct {
	name string
	make func(conversation string, i int) map[string]any
}{{"today", benchTurn}, {"rich", richBenchTurn}}

// benchRounds is how many paired rounds the rich benchmarks run.
const benchRounds = 10

// comparePaired posts bodies[round][shape] in paired rounds, alternating
// which shape goes first, and reports the rate of each shape and the median
// of the rounds' ratios of the richer record's rate to today's.
func comparePaired(b *testing.B, url string, bodies [][2][][][]byte, perShape, want int, check func([]byte) error) {
	var elapsed [2]time.Duration
	ratios := make([]float64, 0, len(bodies))
	b.ResetTimer()
	for r := range bodies {
		var took [2]time.Duration
		for k := range 2 {
			s := (k + r) % 2
			took[s] = postAll(b, url, bodies[r][s], want, check)
			elapsed[s] += took[s]
		}
		ratios = append(ratios, took[0].Seconds()/took[1].Seconds())
	}
	b.StopTimer()
	slices.Sort(ratios)
	b.ReportMetric(float64(perShape)/elapsed[0].Seconds(), "today-turns/s")
	b.ReportMetric(float64(perShape)/elapsed[1].Seconds(), "rich-turns/s")
	b.ReportMetric((ratios[(len(ratios)-1)/2]+ratios[len(ratios)/2])/2, "rich/today")
}

// BenchmarkPostRichTurns posts single turns (POST /turns, scored) as
// BenchmarkPostTurns does, today's record shape and the richer record
// (richBenchTurn) on one server in 10 paired rounds, and reports both
// rates and the median ratio of the rounds (rich/today; the goal is at
// least 0.9). Use -benchtime 20000x: 20,000 turns of each shape.
func BenchmarkPostRichTurns(b *testing.B) {
	const clients = 16
	a := start(b, slog.New(slog.DiscardHandler))
	per := max(b.N/clients/benchRounds, 1)
	bodies := make([][2][][][]byte, benchRounds)
	for r := range bodies {
		for s, shape := range shapes {
			bodies[r][s] = make([][][]byte, clients)
			for c := range clients {
				for i := range per {
					body, _ := json.Marshal(shape.make(fmt.Sprintf("bench-%s-%d", shape.name, c), r*per+i))
					bodies[r][s][c] = append(bodies[r][s][c], body)
				}
			}
		}
	}
	comparePaired(b, a.URL()+api.Prefix+"/turns", bodies, benchRounds*clients*per, http.StatusCreated, nil)
}

// BenchmarkBatchRichTurns posts batches of 100 turns (POST /turns/batch,
// scored) as BenchmarkBatchTurns does, today's record shape and the richer
// record on one server in 10 paired rounds, and reports both rates and the
// median ratio of the rounds (rich/today; the goal is at least 0.9). Use
// -benchtime 500x: 500 batches, 50,000 turns, of each shape.
func BenchmarkBatchRichTurns(b *testing.B) {
	const clients, batch = 4, 100
	a := start(b, slog.New(slog.DiscardHandler))
	per := max(b.N/clients/benchRounds, 1)
	bodies := make([][2][][][]byte, benchRounds)
	for r := range bodies {
		for s, shape := range shapes {
			bodies[r][s] = make([][][]byte, clients)
			for c := range clients {
				for i := range per {
					items := make([]map[string]any, batch)
					for j := range items {
						items[j] = shape.make(fmt.Sprintf("bench-%s-%d-%d", shape.name, c, j%10), (r*per+i)*batch+j)
					}
					body, _ := json.Marshal(items)
					bodies[r][s][c] = append(bodies[r][s][c], body)
				}
			}
		}
	}
	comparePaired(b, a.URL()+api.Prefix+"/turns/batch", bodies, benchRounds*clients*per*batch, http.StatusOK, batchCheck(batch))
}

// batchCheck requires a batch answer of n recorded turns.
func batchCheck(n int) func([]byte) error {
	return func(answer []byte) error {
		var out api.BatchAnswer
		if err := json.Unmarshal(answer, &out); err != nil || len(out.Results) != n {
			return fmt.Errorf("batch answer %.200s: %v", answer, err)
		}
		for _, r := range out.Results {
			if r.Error != nil || r.TurnNumber < 1 {
				return fmt.Errorf("batch result %+v", r)
			}
		}
		return nil
	}
}

// report reports rate beside the raw SQLite baselines of n rows.
func report(b *testing.B, rate float64, n int) {
	single := rawInsertRate(b, min(n, 20_000), 1)
	bulk := rawInsertRate(b, max(n, 10_000), 1000)
	b.ReportMetric(rate, "turns/s")
	b.ReportMetric(single, "raw-1-per-tx/s")
	b.ReportMetric(bulk, "raw-1000-per-tx/s")
	b.ReportMetric(rate/single, "x-raw-1")
	b.ReportMetric(rate/bulk, "x-raw-1000")
}

// rawInsertRate inserts n turn rows like the benchmarks' into a fresh
// SQLite database of hone's schema, perTx rows per transaction, with one
// prepared statement, and returns the rate.
func rawInsertRate(b *testing.B, n, perTx int) float64 {
	ctx := context.Background()
	dir := b.TempDir()
	db, err := storage.Open(ctx, filepath.Join(dir, "raw.db"), slog.New(slog.DiscardHandler))
	if err != nil {
		b.Fatal(err)
	}
	if err := db.Migrate(ctx); err != nil {
		b.Fatal(err)
	}
	db.Close()
	raw, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "raw.db")+"?_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(1)&_txlock=immediate")
	if err != nil {
		b.Fatal(err)
	}
	defer raw.Close()
	raw.SetMaxOpenConns(1)
	if _, err := raw.ExecContext(ctx, `INSERT INTO sessions (id, conversation_id, session_start, tester_id) VALUES ('raw', 'raw', ?, 'raw')`, time.Now()); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	for done := 0; done < n; {
		tx, err := raw.BeginTx(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		st, err := tx.PrepareContext(ctx, `INSERT INTO turns (id, session_id, turn_number, user_message, response, created_at,
			avg_similarity, processing_time_ms, metadata, metrics, objective_score) VALUES (?, 'raw', ?, ?, ?, ?, ?, ?, '{}', ?, ?)`)
		if err != nil {
			b.Fatal(err)
		}
		for k := 0; k < perTx && done < n; k++ {
			t := benchTurn("raw", done)
			if _, err := st.ExecContext(ctx, hone.NewID(12), done+1, t["user_message"], t["response"], time.Now().UTC(),
				t["avg_similarity"], t["processing_time_ms"], `{"m":1}`, 0.5); err != nil {
				b.Fatal(err)
			}
			done++
		}
		st.Close()
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	return float64(n) / time.Since(start).Seconds()
}
