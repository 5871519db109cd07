package suggest_test

import (
	"testing"
	"time"

	"github.com/honehq/hone/suggest"
)

// discard is a sink that drops everything.
type discard struct{}

func (discard) Send(*suggest.Record) {}
func (discard) Close() error         { return nil }

// BenchmarkSubmit times the caller's path of one round: Submit, which
// classifies and finalises the record, and the hand-over to the JSONL sink
// (whose writer runs on another goroutine). Fetched and a Next are run
// too, outside the timed part's figure (fetch-ns).
func BenchmarkSubmit(b *testing.B) {
	sink, err := suggest.NewJSONL(suggest.JSONLOptions{Root: b.TempDir(), Queue: b.N + 1})
	if err != nil {
		b.Fatal(err)
	}
	tr := suggest.NewTracker(suggest.Options{Server: "local", Session: "bench", Sink: sink})
	ctx, req, resp := exampleContext(), exampleRequest(), exampleResponse()
	var fetch, submit time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		tr.Fetched(ctx, exampleSuggestions, req, resp, "v1.0")
		tr.Next()
		t1 := time.Now()
		tr.Submit("@bash cat logs.txt | tail", nil)
		submit += time.Since(t1)
		fetch += t1.Sub(t0)
	}
	b.StopTimer()
	b.ReportMetric(float64(submit.Nanoseconds())/float64(b.N)/1000, "submit-µs")
	b.ReportMetric(float64(fetch.Nanoseconds())/float64(b.N), "fetch-ns")
	if err := sink.Close(); err != nil {
		b.Fatal(err)
	}
	if sink.Written() != int64(b.N) {
		b.Fatalf("written %d of %d", sink.Written(), b.N)
	}
}

// BenchmarkJSONLWriter is the JSONL sink's throughput with records of the
// spec's example size: sent as fast as the caller can, written until Close
// returns.
func BenchmarkJSONLWriter(b *testing.B) {
	tr := suggest.NewTracker(suggest.Options{Server: "local", Session: "bench"})
	r := round(b, tr, "@bash cat logs.txt | tail")
	line, _ := jsonLine(r)
	sink, err := suggest.NewJSONL(suggest.JSONLOptions{Root: b.TempDir(), Queue: b.N + 1})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(line) + 1))
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		sink.Send(r)
	}
	if err := sink.Close(); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "records/s")
	if sink.Written() != int64(b.N) {
		b.Fatalf("written %d of %d", sink.Written(), b.N)
	}
}
