package suggestions_test

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/suggestions"
	"github.com/honehq/hone/suggest"
)

// specRecords are n records of the spec's example size, from a few
// sessions.
func specRecords(n int) []*suggest.Record {
	clock := time.Date(2026, 1, 10, 0, 0, 0, 0, time.UTC)
	out := make([]*suggest.Record, 0, n)
	for i := range n {
		tr := suggest.NewTracker(suggest.Options{Server: "local", Session: fmt.Sprint("s", i%20), Now: func() time.Time { return clock }})
		tr.Fetched(map[string]any{"nodes": []any{"claude", "bash", "python"}, "graphs": []any{"pipeline"}, "workflows": []any{"debug"},
			"blocks": []any{map[string]any{"input": "@claude explain async", "output": "Async is...", "success": true},
				map[string]any{"input": "@bash ls", "output": "file1.py\nfile2.py", "success": true}}, "cwd": "/home/user/project"},
			three, map[string]any{"messages": []any{map[string]any{"role": "system", "content": "You are a command suggestion assistant..."},
				map[string]any{"role": "user", "content": `{"nodes": [...], "blocks": [...]}`}}, "model": "gpt-4o-mini", "temperature": 0.7, "max_tokens": 256},
			map[string]any{"raw_content": "1. @claude explain this error\n2. @bash cat logs.txt\n3. @python debug.py", "model": "gpt-4o-mini",
				"usage": map[string]any{"prompt_tokens": 150, "completion_tokens": 50, "total_tokens": 200}, "finish_reason": "stop", "latency_ms": 234.5},
			fmt.Sprint("v", i%3))
		for range i % 4 {
			tr.Next()
		}
		clock = clock.Add(time.Duration(i%5000) * time.Millisecond)
		out = append(out, tr.Submit(three[i%3], nil))
		clock = clock.Add(time.Second)
	}
	return out
}

// BenchmarkIngestNDJSON times Ingest of batches of 1,000 spec-size records
// on SQLite, in the process (no HTTP): parsing, checking and storing with
// the rollups.
func BenchmarkIngestNDJSON(b *testing.B) {
	db, err := storage.Open(ctx, b.TempDir()+"/b.db", nil)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		b.Fatal(err)
	}
	svc := suggestions.NewService(db.Suggestions(), suggestions.Options{})
	recs := specRecords(b.N * 1000)
	bodies := make([][]byte, b.N)
	for i := range bodies {
		var buf bytes.Buffer
		for _, r := range recs[i*1000 : (i+1)*1000] {
			line, _ := jsonMarshal(r)
			buf.Write(line)
			buf.WriteByte('\n')
		}
		bodies[i] = buf.Bytes()
	}
	b.SetBytes(int64(len(bodies[0])))
	b.ResetTimer()
	start := time.Now()
	for i := range b.N {
		res, err := svc.Ingest(ctx, bytes.NewReader(bodies[i]), "application/x-ndjson")
		if err != nil || res.Accepted != 1000 {
			b.Fatalf("%+v %v", res, err)
		}
	}
	b.ReportMetric(float64(b.N*1000)/time.Since(start).Seconds(), "records/s")
}
