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
	"testing"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/api"
	"github.com/honehq/hone/internal/app"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/storage"
)

// benchTurns records n turns over 10 conversations and returns their ids.
func benchTurns(b *testing.B, a *app.App, n int) []string {
	b.Helper()
	ins := make([]capture.TurnInput, n)
	for i := range ins {
		ins[i] = capture.TurnInput{ConversationID: fmt.Sprint("bench-", i%10), TesterID: "meg", UserMessage: fmt.Sprint("q ", i),
			Response: "Got it.", PromptVersion: "fc26922"}
	}
	res, err := a.Turns.RecordBatch(context.Background(), ins, "")
	if err != nil {
		b.Fatal(err)
	}
	ids := make([]string, n)
	for i, r := range res {
		if r.Err != nil {
			b.Fatal(r.Err)
		}
		ids[i] = r.Turn.ID
	}
	return ids
}

// benchScore is one score of the benchmarks: a helpfulness score (a config
// a user added) of turn with a short comment.
func benchScore(turn string, i int) map[string]any {
	return map[string]any{"turn_id": turn, "config": "helpfulness", "value": 1 + i%10, "author": fmt.Sprint("tester-", i%7),
		"comment": "clear, but it could name the policy"}
}

// BenchmarkPostScoresBatch posts scores in batches of 1,000 (POST /scores,
// a JSON array) from 4 concurrent clients to a server on SQLite, each
// checked against its config and its turn, in 5 rounds; after each round
// it inserts the same number of rows into a SQLite database of hone's
// schema with database/sql alone (1,000 rows a transaction, one prepared
// statement), the raw baseline. It reports both rates and the median of
// the rounds' ratios, so that a moment of a busy machine sways one round
// only. Use -benchtime 100x (100 batches, 100,000 scores).
func BenchmarkPostScoresBatch(b *testing.B) { postScoresBatch(b, "helpfulness") }

// BenchmarkPostDimensionScoresBatch is BenchmarkPostScoresBatch with scores
// of a !score dimension (empathy, 1 to 5): each batch also brings the human
// scores and composites of the turns it judges up to date, in its
// transaction.
func BenchmarkPostDimensionScoresBatch(b *testing.B) { postScoresBatch(b, "empathy") }

func postScoresBatch(b *testing.B, config string) {
	const clients, batch, rounds = 4, 1000, 5
	a := start(b, slog.New(slog.DiscardHandler))
	base := a.URL() + api.Prefix
	if code, out := post(b, base+"/score-configs", map[string]any{"name": "helpfulness", "data_type": "numeric", "min": 1, "max": 10, "step": 1}); code != http.StatusCreated {
		b.Fatalf("config: %d %v", code, out)
	}
	turns := benchTurns(b, a, 500)
	per := max(b.N/(clients*rounds), 1)
	n := 0
	round := func() [][][]byte {
		bodies := make([][][]byte, clients)
		for c := range bodies {
			for range per {
				items := make([]map[string]any, batch)
				for j := range items {
					items[j] = benchScore(turns[n%len(turns)], n)
					if config != "helpfulness" {
						items[j]["config"], items[j]["value"] = config, 1+n%5
					}
					n++
				}
				body, _ := json.Marshal(items)
				bodies[c] = append(bodies[c], body)
			}
		}
		return bodies
	}
	check := func(answer []byte) error {
		var out api.ScoreBatchAnswer
		if err := json.Unmarshal(answer, &out); err != nil || len(out.Results) != batch {
			return fmt.Errorf("batch answer %.200s: %v", answer, err)
		}
		for _, r := range out.Results {
			if r.Error != nil || r.ID == "" {
				return fmt.Errorf("batch result %+v", r)
			}
		}
		return nil
	}
	raw := rawScoreDB(b)
	var posted, inserted time.Duration
	ratios := make([]float64, 0, rounds)
	b.ResetTimer()
	for range rounds {
		b.StopTimer()
		bodies := round()
		b.StartTimer()
		elapsed := postAll(b, base+"/scores", bodies, http.StatusOK, check)
		b.StopTimer()
		rows := clients * per * batch
		rawElapsed := rawScoreInserts(b, raw, rows, batch)
		posted, inserted = posted+elapsed, inserted+rawElapsed
		ratios = append(ratios, rawElapsed.Seconds()/elapsed.Seconds())
		b.StartTimer()
	}
	b.StopTimer()
	slices.Sort(ratios)
	b.ReportMetric(float64(n)/posted.Seconds(), "scores/s")
	b.ReportMetric(float64(n)/inserted.Seconds(), "raw-1000-per-tx/s")
	b.ReportMetric(ratios[len(ratios)/2], "x-raw-1000")
}

// rawScoreDB is a fresh SQLite database of hone's schema opened with
// database/sql alone.
func rawScoreDB(b *testing.B) *sql.DB {
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
	b.Cleanup(func() { raw.Close() })
	raw.SetMaxOpenConns(1)
	return raw
}

const rawScoreInsert = `INSERT INTO scores (id, turn_id, workshop_id, trace_id, config_id, value_number, value_text, comment, source,
	author, prompt_version, fingerprint, created_at) VALUES (?, ?, NULL, NULL, 'builtin-empathy', ?, NULL, ?, 'api', ?, 'fc26922', ?, ?)`

// rawScoreInserts inserts n score rows like the benchmark's into raw, perTx
// a transaction with one prepared statement, and returns how long it took.
func rawScoreInserts(b *testing.B, raw *sql.DB, n, perTx int) time.Duration {
	ctx := context.Background()
	start := time.Now()
	for done := 0; done < n; {
		tx, err := raw.BeginTx(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		st, err := tx.PrepareContext(ctx, rawScoreInsert)
		if err != nil {
			b.Fatal(err)
		}
		for k := 0; k < perTx && done < n; k++ {
			s := benchScore(fmt.Sprint("turn-", done%500), done)
			if _, err := st.ExecContext(ctx, hone.NewID(12), s["turn_id"], s["value"], s["comment"], s["author"],
				"0123456789abcdef0123456789abcdef", time.Now().UTC()); err != nil {
				b.Fatal(err)
			}
			done++
		}
		st.Close()
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	return time.Since(start)
}

// BenchmarkReadTurnScores reads one turn's 20 scores (GET
// /scores?turn_id=…) from a server on SQLite holding 100,000 scores of
// 5,000 turns, and reports the time of a read beside the time of the raw
// SQL query of the same rows (one prepared SELECT on an open connection)
// measured in the same run, and the ratio.
func BenchmarkReadTurnScores(b *testing.B) {
	a := start(b, slog.New(slog.DiscardHandler))
	base := a.URL() + api.Prefix
	if code, out := post(b, base+"/score-configs", map[string]any{"name": "helpfulness", "data_type": "numeric", "min": 1, "max": 10, "step": 1}); code != http.StatusCreated {
		b.Fatalf("config: %d %v", code, out)
	}
	turns := benchTurns(b, a, 5000)
	for k := range 100 {
		items := make([]map[string]any, 1000)
		for j := range items {
			i := k*1000 + j
			items[j] = benchScore(turns[i%len(turns)], i)
		}
		body, _ := json.Marshal(items)
		resp, err := http.Post(base+"/scores", "application/json", bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("fill: %d", resp.StatusCode)
		}
	}
	target := turns[1234]
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
	url := base + "/scores?turn_id=" + target
	read := func() {
		resp, err := client.Get(url)
		if err != nil {
			b.Fatal(err)
		}
		var page struct {
			Scores []json.RawMessage `json:"scores"`
		}
		err = json.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || len(page.Scores) != 20 {
			b.Fatalf("read: %d %v %d scores", resp.StatusCode, err, len(page.Scores))
		}
	}
	read()
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		read()
	}
	perRead := time.Since(start) / time.Duration(b.N)
	b.StopTimer()
	rawRead := rawTurnScoresRead(b, filepath.Join(a.Config.DataDir, "hone.db"), target, b.N)
	b.ReportMetric(float64(perRead.Microseconds()), "µs/read")
	b.ReportMetric(float64(rawRead.Microseconds()), "raw-µs/read")
	b.ReportMetric(float64(perRead)/float64(rawRead), "x-raw")
}

// rawTurnScoresRead times n reads of one turn's scores with one prepared
// SELECT of the columns the API reads, from the server's own file.
func rawTurnScoresRead(b *testing.B, path, turn string, n int) time.Duration {
	ctx := context.Background()
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=query_only(1)")
	if err != nil {
		b.Fatal(err)
	}
	defer raw.Close()
	st, err := raw.PrepareContext(ctx, `SELECT s.id, s.turn_id, s.workshop_id, s.trace_id, s.config_id, c.name, c.data_type, s.value_number,
		s.value_text, s.comment, s.source, s.author, s.prompt_version, s.fingerprint, CAST(s.created_at AS TEXT)
		FROM scores s JOIN score_configs c ON c.id = s.config_id WHERE s.turn_id = ? ORDER BY s.created_at DESC, s.id DESC LIMIT 101`)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	start := time.Now()
	for range n {
		rows, err := st.QueryContext(ctx, turn)
		if err != nil {
			b.Fatal(err)
		}
		got := 0
		for rows.Next() {
			var id, turnID, config, name, typ, comment, source, author, version, fp, at string
			var ws, trace, text sql.NullString
			var number sql.NullFloat64
			if err := rows.Scan(&id, &turnID, &ws, &trace, &config, &name, &typ, &number, &text, &comment, &source, &author, &version, &fp, &at); err != nil {
				b.Fatal(err)
			}
			got++
		}
		rows.Close()
		if got != 20 {
			b.Fatalf("raw read %d rows", got)
		}
	}
	return time.Since(start) / time.Duration(n)
}
