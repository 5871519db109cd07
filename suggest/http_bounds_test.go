package suggest_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/honehq/hone/internal/ndjson"
	"github.com/honehq/hone/suggest"
)

// A batch never holds more records than a hone server takes in one
// request, whatever BatchSize asks.
func TestHTTPBatchesStayWithinTheServersBound(t *testing.T) {
	hone := &fakeHone{}
	srv := newHone(t, hone)
	sink, err := suggest.NewHTTP(suggest.HTTPOptions{BaseURL: srv.URL, BatchSize: 3 * ndjson.MaxBatchItems, FlushInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	one := roundRecords(t, 1)[0]
	n := 2*ndjson.MaxBatchItems + 7
	for i := range n {
		r := *one
		r.ID = fmt.Sprint(one.ID, "-", i)
		sink.Send(&r)
	}
	if err := sink.Close(); err != nil {
		t.Fatal(err)
	}
	requests, stored, batches := hone.snapshot()
	if len(stored) != n || sink.Sent() != int64(n) {
		t.Fatalf("stored %d, sent %d of %d", len(stored), sink.Sent(), n)
	}
	for i, b := range batches {
		if len(b) > ndjson.MaxBatchItems {
			t.Errorf("request %d of %d holds %d records, more than %d", i+1, requests, len(b), ndjson.MaxBatchItems)
		}
	}
}

// Records the server refused past those it listed count as refused.
func TestHTTPCountsRefusalsNotListed(t *testing.T) {
	const n, listed = 150, 100
	hone := &fakeHone{before: func(_ int, w http.ResponseWriter) bool {
		errs := []map[string]any{}
		for i := range listed {
			errs = append(errs, map[string]any{"line": i + 1, "field": "ts", "message": "ts is required"})
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"accepted": 0, "duplicates": 0, "errors": errs, "errors_not_listed": n - listed})
		return true
	}}
	srv := newHone(t, hone)
	var errs errorLog
	sink, err := suggest.NewHTTP(suggest.HTTPOptions{BaseURL: srv.URL, BatchSize: n, FlushInterval: time.Hour, OnError: errs.add})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range roundRecords(t, n) {
		sink.Send(r)
	}
	_ = sink.Close()
	if sink.Rejected() != n || sink.Sent() != 0 {
		t.Errorf("rejected %d, sent %d; want %d rejected", sink.Rejected(), sink.Sent(), n)
	}
	got := errs.all()
	var re *suggest.RejectedError
	if len(got) != 1 || !errors.As(got[0], &re) || len(re.Rejections) != listed || re.NotListed != n-listed ||
		!strings.Contains(re.Error(), "50 not listed") {
		t.Errorf("errors %v", got)
	}
}
