package suggest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/honehq/hone/suggest"
)

// fakeHone stands in for a hone server: it reads each batch with
// suggest.ReadJSONL and answers as hone does, counting an id it already
// stored as a duplicate.
type fakeHone struct {
	t testing.TB
	// gate, when set, holds every request until it is closed.
	gate chan struct{}
	// before, when set, may answer request n (from 1) itself, storing
	// nothing; it returns whether it did.
	before func(n int, w http.ResponseWriter) bool
	// lost, when set, tells which requests are stored but answered 502
	// (the answer lost on the way).
	lost func(n int) bool
	// reject, when set, lists the errors of a batch's lines.
	reject func(batch []*suggest.Record) []map[string]any

	// arrived counts the requests come, before the gate.
	arrived atomic.Int64

	mu       sync.Mutex
	requests int
	bodies   []string
	times    []time.Time
	auth     []string
	types    []string
	batches  [][]*suggest.Record
	stored   []*suggest.Record
	seen     map[string]bool
}

func (f *fakeHone) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	f.arrived.Add(1)
	if f.gate != nil {
		<-f.gate
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests++
	n := f.requests
	f.bodies = append(f.bodies, string(body))
	f.times = append(f.times, time.Now())
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	f.types = append(f.types, r.Header.Get("Content-Type"))
	if err != nil || r.Method != http.MethodPost || r.URL.Path != suggest.SuggestionsPath {
		f.t.Errorf("request %d: %s %s: %v", n, r.Method, r.URL.Path, err)
		http.Error(w, "not here", http.StatusNotFound)
		return
	}
	if f.before != nil && f.before(n, w) {
		return
	}
	var batch []*suggest.Record
	warnings, err := suggest.ReadJSONL(bytes.NewReader(body), func(line int, rec *suggest.Record) error {
		if line != len(batch)+1 {
			return fmt.Errorf("line %d after %d records", line, len(batch))
		}
		batch = append(batch, rec)
		return nil
	})
	if err != nil || len(warnings) > 0 || !strings.HasSuffix(string(body), "\n") {
		f.t.Errorf("request %d: the NDJSON reads with warnings %v, %v:\n%s", n, warnings, err, body)
		http.Error(w, "bad NDJSON", http.StatusBadRequest)
		return
	}
	f.batches = append(f.batches, batch)
	errs := []map[string]any{}
	if f.reject != nil {
		errs = f.reject(batch)
	}
	bad := map[int]bool{}
	for _, e := range errs {
		bad[e["line"].(int)] = true
	}
	if f.seen == nil {
		f.seen = map[string]bool{}
	}
	accepted, duplicates := 0, 0
	for i, rec := range batch {
		switch {
		case bad[i+1]:
		case f.seen[rec.ID]:
			duplicates++
		default:
			f.seen[rec.ID] = true
			f.stored = append(f.stored, rec)
			accepted++
		}
	}
	if f.lost != nil && f.lost(n) {
		http.Error(w, "bad gateway", http.StatusBadGateway)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"accepted": accepted, "duplicates": duplicates, "errors": errs})
}

func (f *fakeHone) snapshot() (requests int, stored []*suggest.Record, batches [][]*suggest.Record) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.requests, append([]*suggest.Record(nil), f.stored...), append([][]*suggest.Record(nil), f.batches...)
}

func (f *fakeHone) requestCount() int {
	n, _, _ := f.snapshot()
	return n
}

// newHone starts a fake hone server.
func newHone(t testing.TB, f *fakeHone) *httptest.Server {
	f.t = t
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return srv
}

// roundRecords runs n rounds and returns their records.
func roundRecords(t testing.TB, n int) []*suggest.Record {
	tr := suggest.NewTracker(suggest.Options{Server: "local", Session: "http"})
	out := make([]*suggest.Record, n)
	for i := range out {
		out[i] = round(t, tr, fmt.Sprintf("@bash cat logs.txt && echo <%d>", i))
	}
	return out
}

// sameRecords checks that got are want, whole and in order.
func sameRecords(t testing.TB, got, want []*suggest.Record) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("the server stored %d records, want %d", len(got), len(want))
	}
	for i := range want {
		g, err1 := jsonLine(got[i])
		w, err2 := jsonLine(want[i])
		if err1 != nil || err2 != nil || g != w {
			t.Fatalf("record %d: the server stored\n%s\nwant\n%s", i, g, w)
		}
	}
}

// waitFor polls cond until it holds, failing the test after 10 s.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// errorLog collects what OnError is told.
type errorLog struct {
	mu   sync.Mutex
	errs []error
}

func (l *errorLog) add(err error) {
	l.mu.Lock()
	l.errs = append(l.errs, err)
	l.mu.Unlock()
}

func (l *errorLog) all() []error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]error(nil), l.errs...)
}

// downAddress is an address nothing listens on.
func downAddress(t testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func TestHTTPSendsWholeRecordsInOrderInBatches(t *testing.T) {
	hone := &fakeHone{}
	srv := newHone(t, hone)
	var errs errorLog
	sink, err := suggest.NewHTTP(suggest.HTTPOptions{BaseURL: srv.URL, Token: "tok-123", BatchSize: 4, FlushInterval: time.Hour, OnError: errs.add})
	if err != nil {
		t.Fatal(err)
	}
	records := roundRecords(t, 6)
	sink.Send(records[0])
	// The sender waits for the first record's interval; the batch filling
	// up must wake it.
	time.Sleep(20 * time.Millisecond)
	for _, r := range records[1:4] {
		sink.Send(r)
	}
	// A full batch goes at once, without waiting for the hour.
	waitFor(t, "the full batch", func() bool { return hone.requestCount() == 1 })
	for _, r := range records[4:] {
		sink.Send(r)
	}
	// The partial batch waits for its interval, or Close.
	time.Sleep(100 * time.Millisecond)
	if n := hone.requestCount(); n != 1 {
		t.Fatalf("%d requests before the interval, want 1", n)
	}
	if err := sink.Close(); err != nil {
		t.Fatal(err)
	}
	requests, stored, batches := hone.snapshot()
	if requests != 2 || len(batches) != 2 || len(batches[0]) != 4 || len(batches[1]) != 2 {
		t.Fatalf("%d requests, batches %d", requests, len(batches))
	}
	sameRecords(t, stored, records)
	for i := range requests {
		if hone.auth[i] != "Bearer tok-123" || hone.types[i] != "application/x-ndjson" {
			t.Errorf("request %d: Authorization %q, Content-Type %q", i+1, hone.auth[i], hone.types[i])
		}
	}
	// Encoded as the JSONL sink does: no HTML escaping.
	if !strings.Contains(hone.bodies[0], `"actual_input":"@bash cat logs.txt && echo <0>"`) {
		t.Errorf("the first body:\n%s", hone.bodies[0])
	}
	if sink.Sent() != 6 || sink.Dropped() != 0 || sink.Rejected() != 0 || sink.Failed() != 0 || len(errs.all()) != 0 {
		t.Errorf("sent %d dropped %d rejected %d failed %d, errors %v", sink.Sent(), sink.Dropped(), sink.Rejected(), sink.Failed(), errs.all())
	}
}

func TestHTTPSendsAPartialBatchAfterTheInterval(t *testing.T) {
	hone := &fakeHone{}
	srv := newHone(t, hone)
	const interval = 80 * time.Millisecond
	sink, err := suggest.NewHTTP(suggest.HTTPOptions{BaseURL: srv.URL, BatchSize: 100, FlushInterval: interval})
	if err != nil {
		t.Fatal(err)
	}
	defer sink.Close()
	records := roundRecords(t, 5)
	for i, part := range [][]*suggest.Record{records[:3], records[3:]} {
		start := time.Now()
		for _, r := range part {
			sink.Send(r)
		}
		waitFor(t, "the partial batch", func() bool { return hone.requestCount() == i+1 })
		hone.mu.Lock()
		waited := hone.times[i].Sub(start)
		n := len(hone.batches[i])
		hone.mu.Unlock()
		if waited < interval || n != len(part) {
			t.Errorf("batch %d: %d records after %v, want %d after %v", i+1, n, waited, len(part), interval)
		}
	}
	_, stored, _ := hone.snapshot()
	sameRecords(t, stored, records)
}

func TestHTTPRetriesA503AndDeliversOnce(t *testing.T) {
	hone := &fakeHone{before: func(n int, w http.ResponseWriter) bool {
		if n <= 2 {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return true
		}
		return false
	}}
	srv := newHone(t, hone)
	var errs errorLog
	sink, err := suggest.NewHTTP(suggest.HTTPOptions{BaseURL: srv.URL, BatchSize: 3, RetryInitial: time.Millisecond,
		RetryMaxWait: 5 * time.Millisecond, OnError: errs.add})
	if err != nil {
		t.Fatal(err)
	}
	records := roundRecords(t, 3)
	for _, r := range records {
		sink.Send(r)
	}
	if err := sink.Close(); err != nil {
		t.Fatal(err)
	}
	requests, stored, _ := hone.snapshot()
	if requests != 3 || hone.bodies[0] != hone.bodies[1] || hone.bodies[1] != hone.bodies[2] {
		t.Fatalf("%d requests, or the batch changed between them", requests)
	}
	sameRecords(t, stored, records)
	if sink.Sent() != 3 || sink.Failed() != 0 || len(errs.all()) != 0 {
		t.Errorf("sent %d failed %d, errors %v", sink.Sent(), sink.Failed(), errs.all())
	}
}

// When the answer is lost the batch is sent again: the server counts the
// records as duplicates, stores them once, and they count as sent once.
func TestHTTPLostAnswerIsNotDoubled(t *testing.T) {
	hone := &fakeHone{lost: func(n int) bool { return n == 1 }}
	srv := newHone(t, hone)
	sink, err := suggest.NewHTTP(suggest.HTTPOptions{BaseURL: srv.URL, BatchSize: 2, RetryInitial: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	records := roundRecords(t, 2)
	for _, r := range records {
		sink.Send(r)
	}
	if err := sink.Close(); err != nil {
		t.Fatal(err)
	}
	requests, stored, batches := hone.snapshot()
	if requests != 2 || len(batches) != 2 {
		t.Fatalf("%d requests", requests)
	}
	sameRecords(t, stored, records)
	if sink.Sent() != 2 {
		t.Errorf("sent %d, want 2", sink.Sent())
	}
}

func TestHTTPHonoursRetryAfter(t *testing.T) {
	t.Parallel()
	hone := &fakeHone{before: func(n int, w http.ResponseWriter) bool {
		switch n {
		case 1:
			w.Header().Set("Retry-After", "1")
			http.Error(w, "slow down", http.StatusTooManyRequests)
		case 2:
			w.Header().Set("Retry-After", time.Now().Add(2*time.Second).UTC().Format(http.TimeFormat))
			http.Error(w, "down for a moment", http.StatusServiceUnavailable)
		default:
			return false
		}
		return true
	}}
	srv := newHone(t, hone)
	sink, err := suggest.NewHTTP(suggest.HTTPOptions{BaseURL: srv.URL, BatchSize: 2, RetryInitial: time.Millisecond, RetryMaxWait: 2 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	records := roundRecords(t, 2)
	for _, r := range records {
		sink.Send(r)
	}
	if err := sink.Close(); err != nil {
		t.Fatal(err)
	}
	requests, stored, _ := hone.snapshot()
	if requests != 3 {
		t.Fatalf("%d requests, want 3", requests)
	}
	// Without Retry-After the waits would be of milliseconds; the date is
	// in whole seconds, so at least 1 s after the second answer.
	for i := 1; i < 3; i++ {
		if gap := hone.times[i].Sub(hone.times[i-1]); gap < time.Second {
			t.Errorf("request %d came %v after the Retry-After of request %d", i+1, gap, i)
		}
	}
	sameRecords(t, stored, records)
}

// countingTransport counts the requests that got no answer.
type countingTransport struct {
	base     http.RoundTripper
	refused  atomic.Int64
	answered atomic.Int64
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.base.RoundTrip(r)
	if err != nil {
		c.refused.Add(1)
	} else {
		c.answered.Add(1)
	}
	return resp, err
}

func TestHTTPBuffersWhileTheServerIsDown(t *testing.T) {
	addr := downAddress(t)
	transport := &countingTransport{base: http.DefaultTransport.(*http.Transport).Clone()}
	sink, err := suggest.NewHTTP(suggest.HTTPOptions{BaseURL: "http://" + addr, Client: &http.Client{Transport: transport, Timeout: 5 * time.Second},
		BatchSize: 4, FlushInterval: 5 * time.Millisecond, RetryInitial: 2 * time.Millisecond, RetryMaxWait: 10 * time.Millisecond, RetryMaxElapsed: -1})
	if err != nil {
		t.Fatal(err)
	}
	records := roundRecords(t, 15)
	for _, r := range records[:10] {
		sink.Send(r)
	}
	waitFor(t, "refused attempts", func() bool { return transport.refused.Load() >= 3 })
	if sink.Sent() != 0 || sink.Failed() != 0 || sink.Dropped() != 0 {
		t.Fatalf("while down: sent %d failed %d dropped %d", sink.Sent(), sink.Failed(), sink.Dropped())
	}
	// The server comes up at the same address.
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listen again on %s: %v", addr, err)
	}
	hone := &fakeHone{t: t}
	srv := httptest.NewUnstartedServer(hone)
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	defer srv.Close()
	for _, r := range records[10:] {
		sink.Send(r)
	}
	if err := sink.Close(); err != nil {
		t.Fatal(err)
	}
	_, stored, _ := hone.snapshot()
	sameRecords(t, stored, records)
	if sink.Sent() != 15 || transport.answered.Load() < 4 {
		t.Errorf("sent %d in %d answered requests", sink.Sent(), transport.answered.Load())
	}
	t.Logf("%d attempts refused while down", transport.refused.Load())
}

func TestHTTPDropsPastTheBuffer(t *testing.T) {
	hone := &fakeHone{gate: make(chan struct{})}
	srv := newHone(t, hone)
	release := sync.OnceFunc(func() { close(hone.gate) })
	defer release()
	sink, err := suggest.NewHTTP(suggest.HTTPOptions{BaseURL: srv.URL, Buffer: 10, BatchSize: 4, FlushInterval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	records := roundRecords(t, 25)
	for i, r := range records {
		sink.Send(r)
		if i == 5 {
			// A batch is out, held by the slow server: it counts in the buffer.
			waitFor(t, "the first request", func() bool { return hone.arrived.Load() == 1 })
		}
	}
	if sink.Dropped() != 15 || sink.Sent() != 0 {
		t.Fatalf("dropped %d sent %d, want 15 and 0", sink.Dropped(), sink.Sent())
	}
	release()
	err = sink.Close()
	if err == nil || !strings.Contains(err.Error(), "15 records dropped") || !strings.Contains(err.Error(), "0 undelivered") {
		t.Fatalf("Close: %v", err)
	}
	_, stored, _ := hone.snapshot()
	sameRecords(t, stored, records[:10])
	sink.Send(records[0])
	if sink.Sent() != 10 || sink.Dropped() != 16 {
		t.Errorf("sent %d, dropped %d after one more Send after Close", sink.Sent(), sink.Dropped())
	}
}

func TestHTTPDoesNotRetryA400(t *testing.T) {
	hone := &fakeHone{before: func(n int, w http.ResponseWriter) bool {
		if n == 1 {
			http.Error(w, `{"error":"the batch is bad"}`, http.StatusBadRequest)
			return true
		}
		return false
	}}
	srv := newHone(t, hone)
	var errs errorLog
	sink, err := suggest.NewHTTP(suggest.HTTPOptions{BaseURL: srv.URL, BatchSize: 2, RetryInitial: time.Millisecond, OnError: errs.add})
	if err != nil {
		t.Fatal(err)
	}
	records := roundRecords(t, 4)
	sink.Send(records[0])
	sink.Send(records[1])
	waitFor(t, "the batch failed", func() bool { return sink.Failed() == 2 })
	sink.Send(records[2])
	sink.Send(records[3])
	waitFor(t, "the next batch sent", func() bool { return sink.Sent() == 2 })
	err = sink.Close()
	if err == nil || !strings.Contains(err.Error(), "2 undelivered") {
		t.Fatalf("Close: %v", err)
	}
	requests, stored, _ := hone.snapshot()
	if requests != 2 {
		t.Fatalf("%d requests, want 2 (no retry)", requests)
	}
	sameRecords(t, stored, records[2:])
	got := errs.all()
	var de *suggest.DeliveryError
	if len(got) != 1 || !errors.As(got[0], &de) || de.StatusCode != http.StatusBadRequest || len(de.IDs) != 2 ||
		de.IDs[0] != records[0].ID || de.IDs[1] != records[1].ID || !strings.Contains(de.Error(), "the batch is bad") {
		t.Fatalf("errors %v", got)
	}
}

func TestHTTPCountsRejectedLines(t *testing.T) {
	hone := &fakeHone{reject: func(batch []*suggest.Record) []map[string]any {
		return []map[string]any{
			{"line": 2, "field": "match_type", "message": "match_type must be exact, partial, prefix or none"},
			{"line": 2, "field": "accepted_index", "message": "accepted_index must be null for none"},
		}
	}}
	srv := newHone(t, hone)
	var errs errorLog
	sink, err := suggest.NewHTTP(suggest.HTTPOptions{BaseURL: srv.URL, BatchSize: 3, RetryInitial: time.Millisecond, OnError: errs.add})
	if err != nil {
		t.Fatal(err)
	}
	records := roundRecords(t, 3)
	for _, r := range records {
		sink.Send(r)
	}
	err = sink.Close()
	if err == nil || !strings.Contains(err.Error(), "1 rejected") || !strings.Contains(err.Error(), "0 undelivered") {
		t.Fatalf("Close: %v", err)
	}
	requests, stored, _ := hone.snapshot()
	if requests != 1 || sink.Rejected() != 1 || sink.Sent() != 2 || sink.Failed() != 0 {
		t.Fatalf("%d requests; rejected %d sent %d failed %d", requests, sink.Rejected(), sink.Sent(), sink.Failed())
	}
	sameRecords(t, stored, []*suggest.Record{records[0], records[2]})
	got := errs.all()
	var re *suggest.RejectedError
	if len(got) != 1 || !errors.As(got[0], &re) || len(re.Rejections) != 2 {
		t.Fatalf("errors %v", got)
	}
	for _, x := range re.Rejections {
		if x.ID != records[1].ID || x.Line != 2 || x.Field == "" || x.Message == "" {
			t.Errorf("rejection %+v, want record %s on line 2", x, records[1].ID)
		}
	}
	if !strings.Contains(re.Error(), records[1].ID) {
		t.Errorf("the error does not name the record: %v", re)
	}
}

func TestHTTPRedacts(t *testing.T) {
	hone := &fakeHone{}
	srv := newHone(t, hone)
	key := "sk-proj-abcdefghijklmnopqrstuvwx"
	sink, err := suggest.NewHTTP(suggest.HTTPOptions{BaseURL: srv.URL, BatchSize: 1, Redactor: suggest.NewRedactor(suggest.APIKeys...)})
	if err != nil {
		t.Fatal(err)
	}
	tr := suggest.NewTracker(suggest.Options{Session: "s", Sink: sink})
	ctx := exampleContext()
	ctx["blocks"] = append(ctx["blocks"].([]any), map[string]any{"input": "@bash env", "output": "OPENAI_API_KEY=" + key})
	tr.Fetched(ctx, []string{"@bash curl -H 'x-key: " + key + "'"}, exampleRequest(), exampleResponse(), "v1")
	r := tr.Submit("export password=hunter22", nil)
	if err := sink.Close(); err != nil {
		t.Fatal(err)
	}
	_, stored, _ := hone.snapshot()
	if len(stored) != 1 || stored[0].ID != r.ID {
		t.Fatalf("stored %d records", len(stored))
	}
	body := hone.bodies[0]
	for _, secret := range []string{key, "hunter22"} {
		if strings.Contains(body, secret) {
			t.Errorf("the server saw %q:\n%s", secret, body)
		}
	}
	for _, mark := range []string{"[REDACTED:openai_key]", "password=[REDACTED:secret_assignment]"} {
		if !strings.Contains(body, mark) {
			t.Errorf("the body lacks %q:\n%s", mark, body)
		}
	}
	if r.ActualInput != "export password=hunter22" || !strings.Contains(r.Suggestions[0], key) {
		t.Errorf("redaction changed the caller's record: %+v", r)
	}
}

func TestHTTPCloseGivesUpWhenTheServerIsDown(t *testing.T) {
	const limit = 300 * time.Millisecond
	for _, withContext := range []bool{false, true} {
		t.Run(fmt.Sprintf("context=%v", withContext), func(t *testing.T) {
			t.Parallel()
			var errs errorLog
			opts := suggest.HTTPOptions{BaseURL: "http://" + downAddress(t), BatchSize: 3, RetryInitial: time.Millisecond,
				RetryMaxWait: 20 * time.Millisecond, RetryMaxElapsed: time.Minute, OnError: errs.add}
			if !withContext {
				opts.CloseTimeout = limit
			}
			sink, err := suggest.NewHTTP(opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range roundRecords(t, 7) {
				sink.Send(r)
			}
			start := time.Now()
			if withContext {
				ctx, cancel := context.WithTimeout(context.Background(), limit)
				defer cancel()
				err = sink.CloseContext(ctx)
			} else {
				err = sink.Close()
			}
			took := time.Since(start)
			if took < limit || took > limit+2*time.Second {
				t.Errorf("Close took %v, want about %v", took, limit)
			}
			if err == nil || !strings.Contains(err.Error(), "7 undelivered") || !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("Close: %v", err)
			}
			if sink.Failed() != 7 || sink.Sent() != 0 {
				t.Errorf("failed %d sent %d", sink.Failed(), sink.Sent())
			}
			// A second Close says the same.
			if err2 := sink.Close(); err2 == nil || !strings.Contains(err2.Error(), "7 undelivered") {
				t.Errorf("second Close: %v", err2)
			}
		})
	}
}

func TestHTTPConcurrentSends(t *testing.T) {
	hone := &fakeHone{}
	srv := newHone(t, hone)
	sink, err := suggest.NewHTTP(suggest.HTTPOptions{BaseURL: srv.URL, BatchSize: 50, FlushInterval: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	const senders, each = 8, 250
	var wg sync.WaitGroup
	for g := range senders {
		wg.Go(func() {
			for i := range each {
				sink.Send(&suggest.Record{ID: fmt.Sprintf("g%d-%04d", g, i), Session: "s", Server: "local",
					Context: map[string]any{"cwd": "/"}, MatchType: suggest.MatchNone, DisplayedIndexAtSubmit: -1})
			}
		})
	}
	wg.Wait()
	if err := sink.Close(); err != nil {
		t.Fatal(err)
	}
	_, stored, _ := hone.snapshot()
	if len(stored) != senders*each || sink.Sent() != senders*each {
		t.Fatalf("stored %d, sent %d, want %d", len(stored), sink.Sent(), senders*each)
	}
	next := make([]int, senders)
	for _, r := range stored {
		var g, i int
		if _, err := fmt.Sscanf(r.ID, "g%d-%d", &g, &i); err != nil || i != next[g] {
			t.Fatalf("record %s after %d of sender %d", r.ID, next[g], g)
		}
		next[g]++
	}
}

func TestNewHTTPOptions(t *testing.T) {
	for _, opts := range []suggest.HTTPOptions{{}, {BaseURL: "ftp://hone"}, {BaseURL: "localhost:8080"}, {BaseURL: "http://"},
		{BaseURL: "http://localhost:8080", Token: "a\r\nX-Evil: 1"}} {
		if _, err := suggest.NewHTTP(opts); err == nil {
			t.Errorf("NewHTTP(%+v) took them", opts)
		}
	}
	// A base URL with a path: the records go below it.
	hone := &fakeHone{t: t}
	srv := httptest.NewServer(http.StripPrefix("/hone", hone))
	defer srv.Close()
	sink, err := suggest.NewHTTP(suggest.HTTPOptions{BaseURL: srv.URL + "/hone/", BatchSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	records := roundRecords(t, 1)
	sink.Send(records[0])
	if err := sink.Close(); err != nil {
		t.Fatal(err)
	}
	_, stored, _ := hone.snapshot()
	sameRecords(t, stored, records)
}

// BenchmarkHTTPSend times the caller's path: Send, while the sink's
// goroutine encodes and posts to a local server. What is still buffered at
// the end is given up, not timed.
func BenchmarkHTTPSend(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, `{"accepted":%d,"duplicates":0,"errors":[]}`, bytes.Count(body, []byte("\n")))
	}))
	defer srv.Close()
	r := roundRecords(b, 1)[0]
	for _, parallel := range []bool{false, true} {
		name := "serial"
		if parallel {
			name = "parallel"
		}
		b.Run(name, func(b *testing.B) {
			sink, err := suggest.NewHTTP(suggest.HTTPOptions{BaseURL: srv.URL, Buffer: b.N + 1})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			if parallel {
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						sink.Send(r)
					}
				})
			} else {
				for range b.N {
					sink.Send(r)
				}
			}
			b.StopTimer()
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			_ = sink.CloseContext(ctx)
			if sink.Dropped() != 0 {
				b.Fatalf("dropped %d", sink.Dropped())
			}
			b.ReportMetric(float64(sink.Sent())/float64(b.N), "sent/op")
		})
	}
}

func TestHTTPGivesUpAfterItsRetries(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts suggest.HTTPOptions
	}{
		{"attempts", suggest.HTTPOptions{RetryMaxAttempts: 3, RetryInitial: time.Millisecond}},
		{"elapsed", suggest.HTTPOptions{RetryMaxElapsed: 100 * time.Millisecond, RetryInitial: 5 * time.Millisecond, RetryMaxWait: 10 * time.Millisecond}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hone := &fakeHone{before: func(n int, w http.ResponseWriter) bool {
				http.Error(w, "down", http.StatusServiceUnavailable)
				return true
			}}
			srv := newHone(t, hone)
			var errs errorLog
			opts := tc.opts
			opts.BaseURL, opts.BatchSize, opts.OnError = srv.URL, 2, errs.add
			sink, err := suggest.NewHTTP(opts)
			if err != nil {
				t.Fatal(err)
			}
			records := roundRecords(t, 2)
			start := time.Now()
			sink.Send(records[0])
			sink.Send(records[1])
			waitFor(t, "the batch given up", func() bool { return sink.Failed() == 2 })
			took := time.Since(start)
			requests := hone.requestCount()
			switch tc.name {
			case "attempts":
				if requests != 3 {
					t.Errorf("%d requests, want 3", requests)
				}
			case "elapsed":
				if requests < 3 || took < 100*time.Millisecond || took > 2*time.Second {
					t.Errorf("%d requests in %v, want several in about 100ms", requests, took)
				}
			}
			got := errs.all()
			var de *suggest.DeliveryError
			if len(got) != 1 || !errors.As(got[0], &de) || de.StatusCode != http.StatusServiceUnavailable || len(de.IDs) != 2 || de.IDs[0] != records[0].ID {
				t.Errorf("errors %v", got)
			}
			if err := sink.Close(); err == nil || !strings.Contains(err.Error(), "2 undelivered") {
				t.Errorf("Close: %v", err)
			}
		})
	}
}

// BenchmarkHTTPThroughput is the HTTP sink's throughput to a local server
// that reads each batch, with records of the spec's example size: sent as
// fast as the caller can, delivered until Close returns.
func BenchmarkHTTPThroughput(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, `{"accepted":%d,"duplicates":0,"errors":[]}`, bytes.Count(body, []byte("\n")))
	}))
	defer srv.Close()
	r := roundRecords(b, 1)[0]
	line, _ := jsonLine(r)
	sink, err := suggest.NewHTTP(suggest.HTTPOptions{BaseURL: srv.URL, Buffer: b.N + 1})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(line) + 1))
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		sink.Send(r)
	}
	if err := sink.Close(); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "records/s")
	if sink.Sent() != int64(b.N) {
		b.Fatalf("sent %d of %d", sink.Sent(), b.N)
	}
}
