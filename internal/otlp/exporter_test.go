package otlp_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/honehq/hone/internal/otlp"
	"github.com/honehq/hone/internal/score"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
)

type counts struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *counts) ScoresExported(outcome string, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n[outcome] += n
}

func (c *counts) get(outcome string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[outcome]
}

type noSpans struct{}

func (noSpans) TurnSpans(_ context.Context, _ []string) (map[string][2]string, error) {
	return nil, nil
}

// TestExporterQueueRetriesAndStop: what a full queue cannot take is
// dropped and counted, never waited for; an endpoint that keeps refusing
// with 503 is retried and the batch counted failed; one that refuses
// with 400 is not retried; Stop sends what is queued, and returns at once
// for an exporter never started.
func TestExporterQueueRetriesAndStop(t *testing.T) {
	var status atomic.Int32
	var requests, records atomic.Int32
	status.Store(http.StatusOK)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if s := int(status.Load()); s != http.StatusOK {
			w.WriteHeader(s)
			return
		}
		b, _ := io.ReadAll(r.Body)
		req := plogotlp.NewExportRequest()
		if err := req.UnmarshalProto(b); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		records.Add(int32(req.Logs().LogRecordCount()))
	}))
	defer srv.Close()
	c := &counts{n: map[string]int{}}
	exp, err := otlp.NewExporter(otlp.ExporterOptions{URL: srv.URL + "/otlp/", Spans: noSpans{}, Queue: 2, Batch: 10,
		Interval: 20 * time.Millisecond, Backoff: time.Millisecond, Retries: 2, Counter: c})
	if err != nil {
		t.Fatal(err)
	}
	sc := func(id string) *score.Score {
		return &score.Score{ID: id, TurnID: "t1", Config: "empathy", DataType: score.Numeric, Value: 4.0, Source: "api", CreatedAt: time.Now()}
	}
	done := make(chan struct{})
	go func() { exp.Enqueue([]*score.Score{sc("a"), sc("b"), sc("c")}); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Second):
		t.Fatal("Enqueue blocked on a full queue")
	}
	if got := c.get(otlp.ExportDropped); got != 1 {
		t.Fatalf("dropped %d, want 1", got)
	}
	status.Store(http.StatusServiceUnavailable)
	exp.Start()
	wait := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); !ok(); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: counts %v, %d requests", what, c.n, requests.Load())
			}
		}
	}
	wait("failed after the retries", func() bool { return c.get(otlp.ExportFailed) == 2 })
	if n := requests.Load(); n != 3 {
		t.Errorf("%d requests for a batch refused with 503, want 3 (2 retries)", n)
	}
	status.Store(http.StatusBadRequest)
	requests.Store(0)
	exp.Enqueue([]*score.Score{sc("d")})
	wait("failed at once", func() bool { return c.get(otlp.ExportFailed) == 3 })
	if n := requests.Load(); n != 1 {
		t.Errorf("%d requests for a batch refused with 400, want 1", n)
	}
	status.Store(http.StatusOK)
	exp.Enqueue([]*score.Score{sc("e"), sc("f")})
	exp.Stop()
	if c.get(otlp.ExportSent) != 2 || records.Load() != 2 {
		t.Errorf("after Stop: sent %d, the endpoint got %d records, want 2", c.get(otlp.ExportSent), records.Load())
	}
	idle, _ := otlp.NewExporter(otlp.ExporterOptions{URL: srv.URL, Spans: noSpans{}})
	stopped := make(chan struct{})
	go func() { idle.Stop(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(time.Second):
		t.Fatal("Stop of an exporter never started blocks")
	}
}
