package suggest_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/honehq/hone/suggest"
)

// clock is a clock the test moves.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// memSink keeps what it is sent.
type memSink struct {
	mu      sync.Mutex
	records []*suggest.Record
}

func (m *memSink) Send(r *suggest.Record) {
	m.mu.Lock()
	m.records = append(m.records, r)
	m.mu.Unlock()
}

func (m *memSink) Close() error { return nil }

// exampleContext is the spec's example context.
func exampleContext() map[string]any {
	return map[string]any{
		"nodes": []any{"claude", "bash", "python"}, "graphs": []any{"pipeline"}, "workflows": []any{"debug"},
		"blocks": []any{
			map[string]any{"input": "@claude explain async", "output": "Async is...", "success": true},
			map[string]any{"input": "@bash ls", "output": "file1.py\nfile2.py", "success": true},
		},
		"cwd": "/home/user/project",
	}
}

var exampleSuggestions = []string{"@claude explain this error", "@bash cat logs.txt", "@python debug.py"}

func exampleRequest() map[string]any {
	return map[string]any{"messages": []any{
		map[string]any{"role": "system", "content": "You are a command suggestion assistant..."},
		map[string]any{"role": "user", "content": `{"nodes": [...], "blocks": [...]}`}},
		"model": "gpt-4o-mini", "temperature": 0.7, "max_tokens": 256}
}

func exampleResponse() map[string]any {
	return map[string]any{"raw_content": "1. @claude explain this error\n2. @bash cat logs.txt\n3. @python debug.py",
		"model": "gpt-4o-mini", "usage": map[string]any{"prompt_tokens": 150, "completion_tokens": 50, "total_tokens": 200},
		"finish_reason": "stop", "latency_ms": 234.5}
}

func TestTrackerLifecycle(t *testing.T) {
	c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	sink := &memSink{}
	tr := suggest.NewTracker(suggest.Options{Session: "my-project", Server: "local", Sink: sink, Now: c.now})
	if r := tr.Submit("ls", nil); r != nil || tr.Next() != -1 {
		t.Fatalf("with nothing pending: Submit %+v", r)
	}
	tr.Fetching(5)
	c.advance(234 * time.Millisecond)
	tr.Fetched(exampleContext(), exampleSuggestions, exampleRequest(), exampleResponse(), "v1.0")
	if !tr.Pending() {
		t.Fatal("no round pending after Fetched")
	}
	var seen []int
	for _, step := range []func() int{tr.Next, tr.Next, tr.Prev, tr.Prev, tr.Prev, tr.Next} {
		seen = append(seen, step())
	}
	if !slices.Equal(seen, []int{1, 2, 1, 0, 2, 0}) {
		t.Fatalf("cycling showed %v", seen)
	}
	c.advance(1234500 * time.Microsecond)
	six := 6
	r := tr.Submit("@claude explain this error", &six)
	if r == nil {
		t.Fatal("Submit returned nil")
	}
	if r.MatchType != suggest.MatchExact || r.AcceptedIndex == nil || *r.AcceptedIndex != 0 || r.ActualInput != "@claude explain this error" ||
		!slices.Equal(r.ViewedIndices, []int{0, 1, 2, 1, 0, 2, 0}) || r.CycleCount != 6 || r.DisplayedIndexAtSubmit != 0 ||
		r.TimeToActionMS != 1234.5 || r.FetchLatencyMS != 234 || r.TriggerBlock != 5 || *r.ResultBlock != 6 ||
		r.ContextBlockCount != 2 || r.Version != "v1.0" || r.Session != "my-project" || r.Server != "local" || len(r.ID) != 16 ||
		r.FetchEndTS-r.FetchStartTS < 0.2339 || r.SubmitTS != r.TS || r.SubmitTS-r.FetchEndTS < 1.2344 {
		t.Fatalf("the record: %+v", r)
	}
	if len(sink.records) != 1 || sink.records[0] != r {
		t.Fatalf("the sink got %v", sink.records)
	}
	meta, _ := json.Marshal(r.Metadata())
	if string(meta) != `{"suggestions":["@claude explain this error","@bash cat logs.txt","@python debug.py"],"accepted_index":0,"match_type":"exact","cycle_count":6,"time_to_action_ms":1234.5}` {
		t.Errorf("metadata %s", meta)
	}
	if tr.Pending() || tr.Submit("again", nil) != nil {
		t.Error("a round was submitted twice")
	}

	// The spec's JSONL line: every field, by its name.
	var line map[string]any
	b, _ := json.Marshal(r)
	if err := json.Unmarshal(b, &line); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"id", "ts", "session", "server", "trigger_block", "result_block", "context", "llm_request", "llm_response",
		"suggestions", "suggestion_node_version", "viewed_indices", "cycle_count", "displayed_index_at_submit", "accepted_index",
		"actual_input", "match_type", "time_to_action_ms", "context_block_count"} {
		if _, ok := line[k]; !ok {
			t.Errorf("the JSON line lacks %q: %s", k, b)
		}
	}

	// Skipped inputs end the round and record nothing; no suggestion
	// showing is -1.
	tr.Fetched(exampleContext(), exampleSuggestions, nil, nil, "v1.0")
	if r := tr.Submit(":export", nil); r != nil || tr.Pending() || len(sink.records) != 1 {
		t.Fatalf("a : command was recorded: %+v", r)
	}
	tr.Fetched(map[string]any{}, nil, nil, nil, "")
	if tr.Next() != -1 || tr.Prev() != -1 {
		t.Fatal("cycling through no suggestions")
	}
	r = tr.Submit("whoami", nil)
	if r == nil || r.DisplayedIndexAtSubmit != -1 || len(r.ViewedIndices) != 0 || r.MatchType != suggest.MatchNone || r.AcceptedIndex != nil ||
		r.ResultBlock != nil || r.TriggerBlock != -1 {
		t.Fatalf("a round without suggestions: %+v", r)
	}
	all := suggest.NewTracker(suggest.Options{SkipPrefix: suggest.NoSkip})
	all.Fetched(nil, []string{":q"}, nil, nil, "")
	if r := all.Submit(":q", nil); r == nil || r.MatchType != suggest.MatchExact {
		t.Errorf("NoSkip: %+v", r)
	}
}

// Many goroutines on one tracker: each round is whole (run with -race).
func TestTrackerConcurrentUse(t *testing.T) {
	sink := &memSink{}
	tr := suggest.NewTracker(suggest.Options{Session: "s", Sink: sink})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				tr.Fetched(map[string]any{}, []string{fmt.Sprint("a", g, i), "b"}, nil, nil, "")
				tr.Next()
				tr.Prev()
				tr.Submit(fmt.Sprint("a", g, i), nil)
			}
		})
	}
	wg.Wait()
	if len(sink.records) == 0 {
		t.Fatal("nothing recorded")
	}
	ids := map[string]bool{}
	for _, r := range sink.records {
		if ids[r.ID] || len(r.Suggestions) != 2 || r.CycleCount > 2*8*200 {
			t.Fatalf("record %+v (duplicate id %v)", r, ids[r.ID])
		}
		ids[r.ID] = true
	}
}
