package suggest_test

import (
	"slices"
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
// spec's example size, sent as fast as the caller can and written until
// Close returns: with the default redactor (records/s) and, in the same
// run, with no redactions (unredacted-records/s). The two alternate in
// rounds, in turn first, so that both see the same machine; each writes
// b.N records in all. redacted/unredacted is the median of the rounds'
// ratios, which a burst of load on a shared machine moves least.
func BenchmarkJSONLWriter(b *testing.B) {
	tr := suggest.NewTracker(suggest.Options{Server: "local", Session: "bench"})
	r := round(b, tr, "@bash cat logs.txt | tail")
	line, _ := jsonLine(r)
	const rounds = 20
	per := max(b.N/rounds, 1)
	write := func(redactor *suggest.Redactor) time.Duration {
		sink, err := suggest.NewJSONL(suggest.JSONLOptions{Root: b.TempDir(), Queue: per + 1, Redactor: redactor})
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		for range per {
			sink.Send(r)
		}
		if err := sink.Close(); err != nil {
			b.Fatal(err)
		}
		elapsed := time.Since(start)
		if sink.Written() != int64(per) {
			b.Fatalf("written %d of %d", sink.Written(), per)
		}
		return elapsed
	}
	b.SetBytes(int64(len(line) + 1))
	b.ResetTimer()
	var on, off time.Duration
	ratios := make([]float64, rounds)
	for i := range rounds {
		var a, u time.Duration
		if i%2 == 0 {
			a = write(suggest.DefaultRedactor())
			u = write(suggest.NewRedactor())
		} else {
			u = write(suggest.NewRedactor())
			a = write(suggest.DefaultRedactor())
		}
		on, off = on+a, off+u
		ratios[i] = u.Seconds() / a.Seconds()
	}
	b.StopTimer()
	slices.Sort(ratios)
	n := float64(per * rounds)
	b.ReportMetric(n/on.Seconds(), "records/s")
	b.ReportMetric(n/off.Seconds(), "unredacted-records/s")
	b.ReportMetric((ratios[rounds/2-1]+ratios[rounds/2])/2, "redacted/unredacted")
}
