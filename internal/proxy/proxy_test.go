package proxy_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/llm/llmtest"
	"github.com/honehq/hone/internal/proxy"
)

// turns is a fake recorder keeping what it is given; fail makes its writes
// fail, gate holds them until it is closed.
type turns struct {
	mu   sync.Mutex
	got  []capture.TurnInput
	fail bool
	gate chan struct{}
	// held is told when a write waits at the gate.
	held chan struct{}
}

func (f *turns) RecordBatch(ctx context.Context, ins []capture.TurnInput, _ string) ([]capture.TurnResult, error) {
	f.mu.Lock()
	gate, fail := f.gate, f.fail
	f.mu.Unlock()
	if gate != nil {
		select {
		case f.held <- struct{}{}:
		default:
		}
		<-gate
	}
	if fail {
		return nil, errors.New("database is down")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.got = append(f.got, ins...)
	return make([]capture.TurnResult, len(ins)), nil
}

// wait returns the recorded turn of id, failing the test when it does not
// come.
func (f *turns) wait(t *testing.T, id string) capture.TurnInput {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		f.mu.Lock()
		for _, in := range f.got {
			if in.ID == id {
				f.mu.Unlock()
				return in
			}
		}
		f.mu.Unlock()
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("turn %s was not recorded", id)
	return capture.TurnInput{}
}

func (f *turns) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.got)
}

// serve starts a proxy to upstream recording into rec, with opts' other
// settings, and returns its base URL (ending in /v1).
func serve(t *testing.T, upstream string, rec *turns, opts proxy.Options) (string, *proxy.Proxy) {
	t.Helper()
	u, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	opts.Upstream, opts.Turns = u, rec
	p, err := proxy.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	p.Queue().Start()
	t.Cleanup(p.Queue().Stop)
	mux := http.NewServeMux()
	for _, pattern := range proxy.Patterns {
		mux.Handle(pattern, p)
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL + "/v1", p
}

// do sends a JSON request with headers and returns the answer and its body.
func do(t *testing.T, method, url, body string, h map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range h {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

const chatBody = `{"model":"fake-model","messages":[{"role":"system","content":"You are ERA."},{"role":"user","content":"How do I resign?"}]}`

func meta(t *testing.T, in capture.TurnInput) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(in.Metadata, &m); err != nil {
		t.Fatalf("metadata %s: %v", in.Metadata, err)
	}
	return m
}

func TestChatCompletionForwardedAndRecorded(t *testing.T) {
	fake := llmtest.New(t)
	fake.Push(llmtest.Reply{Content: "Write to HR.", Model: "fake-model-2025", Usage: &llmtest.Usage{PromptTokens: 11, CompletionTokens: 3, TotalTokens: 14}})
	rec := &turns{}
	base, _ := serve(t, fake.URL, rec, proxy.Options{})
	res, body := do(t, "POST", base+"/chat/completions?probe=1", chatBody, map[string]string{"Authorization": "Bearer sk-caller",
		proxy.HeaderConversation: "conv-1", proxy.HeaderTester: "meg", proxy.HeaderPromptVersion: "v7"})
	if res.StatusCode != 200 || !strings.Contains(body, `"content":"Write to HR."`) || !strings.Contains(body, `"chatcmpl-llmtest-1"`) {
		t.Fatalf("answer %d %s", res.StatusCode, body)
	}
	id := res.Header.Get(proxy.HeaderTurnID)
	if id == "" {
		t.Fatal("no X-Hone-Turn-Id")
	}
	got := fake.Requests()[0]
	if got.Header.Get("Authorization") != "Bearer sk-caller" || got.Header.Get(proxy.HeaderTester) != "" {
		t.Errorf("upstream headers: Authorization %q, X-Hone-Tester %q", got.Header.Get("Authorization"), got.Header.Get(proxy.HeaderTester))
	}
	var sent map[string]any
	_ = json.Unmarshal([]byte(chatBody), &sent)
	if b, _ := json.Marshal(got.Body); string(b) != mustJSON(sent) || got.Path != "/v1/chat/completions" {
		t.Errorf("upstream got %s at %s, want the body unchanged", b, got.Path)
	}
	in := rec.wait(t, id)
	if in.ConversationID != "conv-1" || in.TesterID != "meg" || in.PromptVersion != "v7" || in.Source != capture.SourceProxy ||
		in.Model != "fake-model-2025" || in.Usage == nil || *in.Usage != (capture.Usage{PromptTokens: 11, CompletionTokens: 3, TotalTokens: 14}) ||
		in.LatencyMS == nil || len(in.Messages) != 3 || in.Messages[2].Text() != "Write to HR." || in.Messages[2].Role != "assistant" {
		t.Fatalf("recorded %+v", in)
	}
	if err := in.Validate(); err != nil {
		t.Fatalf("the recorded turn is not valid: %v", err)
	}
	m := meta(t, in)
	if m["endpoint"] != "chat.completions" || m["stream"] != false || m["status"] != 200.0 || m["failed"] != nil || m["response_id"] != "chatcmpl-llmtest-1" {
		t.Errorf("metadata %v", m)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestIdentity(t *testing.T) {
	fake := llmtest.New(t)
	rec := &turns{}
	base, _ := serve(t, fake.URL, rec, proxy.Options{})
	other := `{"model":"m","messages":[{"role":"system","content":"You are ERA."},{"role":"user","content":"Something else"}]}`
	later := `{"model":"m","messages":[{"role":"system","content":"You are ERA."},{"role":"user","content":"How do I resign?"},{"role":"assistant","content":"Write."},{"role":"user","content":"And then?"}]}`
	withUser := `{"model":"m","user":"user-42","messages":[{"role":"user","content":"Hi"}]}`
	record := func(body string, h map[string]string) capture.TurnInput {
		res, b := do(t, "POST", base+"/chat/completions", body, h)
		if res.StatusCode != 200 {
			t.Fatalf("%d %s", res.StatusCode, b)
		}
		return rec.wait(t, res.Header.Get(proxy.HeaderTurnID))
	}
	first := record(chatBody, nil)
	if !strings.HasPrefix(first.ConversationID, "proxy-") || first.TesterID != "" || !strings.HasPrefix(first.PromptVersion, "system-") {
		t.Fatalf("without headers: %q %q %q", first.ConversationID, first.TesterID, first.PromptVersion)
	}
	for _, c := range []struct {
		name, body string
		h          map[string]string
		same       bool
		conv, pv   string
	}{
		{name: "a later turn of the same chat", body: later, same: true},
		{name: "another first message", body: other, same: false},
		{name: "the request's user", body: withUser, conv: "user-42"},
		{name: "the header over the user", body: withUser, h: map[string]string{proxy.HeaderConversation: "c-9"}, conv: "c-9"},
		{name: "the prompt version header", body: chatBody, h: map[string]string{proxy.HeaderPromptVersion: "v2"}, same: true, pv: "v2"},
	} {
		in := record(c.body, c.h)
		switch {
		case c.conv != "" && in.ConversationID != c.conv:
			t.Errorf("%s: conversation %q, want %q", c.name, in.ConversationID, c.conv)
		case c.conv == "" && (in.ConversationID == first.ConversationID) != c.same:
			t.Errorf("%s: conversation %q, first %q", c.name, in.ConversationID, first.ConversationID)
		case c.pv != "" && in.PromptVersion != c.pv:
			t.Errorf("%s: prompt version %q", c.name, in.PromptVersion)
		case c.pv == "" && c.body != withUser && in.PromptVersion != first.PromptVersion:
			t.Errorf("%s: prompt version %q, want the system message's %q", c.name, in.PromptVersion, first.PromptVersion)
		}
	}
}

// events reads an SSE answer into its data lines.
func events(t *testing.T, body string) []string {
	t.Helper()
	var out []string
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			out = append(out, d)
		}
	}
	return out
}

func TestStreamPassedOnAndRecorded(t *testing.T) {
	fake := llmtest.New(t)
	rec := &turns{}
	base, _ := serve(t, fake.URL, rec, proxy.Options{})
	stream := `{"model":"fake-model","stream":true,"messages":[{"role":"user","content":"one two three"}]}`
	res, body := do(t, "POST", base+"/chat/completions", stream, nil)
	evs := events(t, body)
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/event-stream" || evs[len(evs)-1] != "[DONE]" {
		t.Fatalf("stream %d %q %s", res.StatusCode, res.Header.Get("Content-Type"), body)
	}
	if strings.Contains(body, `"usage"`) {
		t.Errorf("the caller did not ask for usage and got it: %s", body)
	}
	req := fake.Requests()[0]
	if req.StreamOptions == nil || !req.StreamOptions.IncludeUsage {
		t.Errorf("hone did not ask the upstream for usage: %v", req.Body)
	}
	in := rec.wait(t, res.Header.Get(proxy.HeaderTurnID))
	m := meta(t, in)
	if in.Usage == nil || in.Usage.CompletionTokens != 3 || in.Messages[1].Text() != "one two three" || m["stream"] != true ||
		m["ttft_ms"] == nil || m["finish_reason"] != "stop" {
		t.Fatalf("recorded %+v %v", in, m)
	}

	asked := `{"model":"fake-model","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"one two"}]}`
	res, body = do(t, "POST", base+"/chat/completions", asked, nil)
	evs = events(t, body)
	if len(evs) < 2 || !strings.Contains(evs[len(evs)-2], `"usage":{"prompt_tokens"`) {
		t.Fatalf("the caller asked for usage: %s", body)
	}
	if in := rec.wait(t, res.Header.Get(proxy.HeaderTurnID)); in.Usage == nil || in.Usage.CompletionTokens != 2 {
		t.Fatalf("recorded usage %+v", in.Usage)
	}
	options := `{"model":"fake-model","stream":true,"stream_options":{"include_obfuscation":false},"messages":[{"role":"user","content":"x"}]}`
	res, body = do(t, "POST", base+"/chat/completions", options, nil)
	if strings.Contains(body, `"usage"`) || fake.Requests()[2].Body["stream_options"].(map[string]any)["include_obfuscation"] != false {
		t.Fatalf("stream_options kept and usage stripped: %s %v", body, fake.Requests()[2].Body)
	}
	if in := rec.wait(t, res.Header.Get(proxy.HeaderTurnID)); in.Usage == nil {
		t.Fatal("no usage recorded")
	}
}

// TestStreamArrivesChunkByChunk holds the upstream's second chunk until the
// caller has read the first.
func TestStreamArrivesChunkByChunk(t *testing.T) {
	release := make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"id":"c1","model":"m","choices":[{"index":0,"delta":{"content":"first "}}]}`+"\n\n")
		w.(http.Flusher).Flush()
		<-release
		io.WriteString(w, `data: {"id":"c1","model":"m","choices":[{"index":0,"delta":{"content":"second"},"finish_reason":"stop"}]}`+"\n\n")
		io.WriteString(w, `data: {"id":"c1","model":"m","choices":[],"usage":{"prompt_tokens":2,"completion_tokens":2,"total_tokens":4}}`+"\n\n")
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	defer up.Close()
	rec := &turns{}
	base, _ := serve(t, up.URL+"/v1", rec, proxy.Options{})
	res, err := http.Post(base+"/chat/completions", "application/json",
		strings.NewReader(`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	r := bufio.NewReader(res.Body)
	line, err := r.ReadString('\n')
	if err != nil || !strings.Contains(line, "first ") {
		t.Fatalf("first chunk %q %v", line, err)
	}
	close(release)
	rest, _ := io.ReadAll(r)
	if !strings.Contains(string(rest), "second") || strings.Contains(string(rest), "usage") {
		t.Fatalf("the rest %s", rest)
	}
	in := rec.wait(t, res.Header.Get(proxy.HeaderTurnID))
	if in.Messages[1].Text() != "first second" || in.Usage == nil || in.Usage.TotalTokens != 4 {
		t.Fatalf("recorded %+v", in)
	}
}

func TestStreamedToolCallsRecorded(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, c := range []string{
			`{"id":"c","model":"m","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"leave_balance","arguments":""}}]}}]}`,
			`{"id":"c","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"who\":"}}]}}]}`,
			`{"id":"c","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"meg\"}"}}]},"finish_reason":"tool_calls"}]}`,
			`[DONE]`,
		} {
			io.WriteString(w, "data: "+c+"\n\n")
		}
	}))
	defer up.Close()
	rec := &turns{}
	base, _ := serve(t, up.URL+"/v1", rec, proxy.Options{})
	res, _ := do(t, "POST", base+"/chat/completions", `{"model":"m","stream":true,"messages":[{"role":"user","content":"my balance?"}]}`, nil)
	in := rec.wait(t, res.Header.Get(proxy.HeaderTurnID))
	calls := in.Messages[1].ToolCalls
	if len(calls) != 1 || calls[0].ID != "call_1" || calls[0].Function.Name != "leave_balance" || calls[0].Function.Arguments != `{"who":"meg"}` {
		t.Fatalf("tool calls %+v", calls)
	}
}

func TestUpstreamErrorsPassedOnAndRecordedAsFailed(t *testing.T) {
	fake := llmtest.New(t)
	rec := &turns{}
	base, _ := serve(t, fake.URL, rec, proxy.Options{})
	for _, c := range []struct {
		name   string
		reply  llmtest.Reply
		status int
		error  string
	}{
		{"429", llmtest.RateLimited("7"), 429, "Rate limit reached."},
		{"500", llmtest.Error(500, "The server had an error."), 500, "The server had an error."},
		{"400", llmtest.Error(400, "Invalid 'messages'."), 400, "Invalid 'messages'."},
	} {
		fake.Push(c.reply)
		res, body := do(t, "POST", base+"/chat/completions", chatBody, nil)
		if res.StatusCode != c.status || body != c.reply.Body || (c.status == 429 && res.Header.Get("Retry-After") != "7") {
			t.Errorf("%s: %d %s, want the upstream's %d %s", c.name, res.StatusCode, body, c.status, c.reply.Body)
			continue
		}
		in := rec.wait(t, res.Header.Get(proxy.HeaderTurnID))
		m := meta(t, in)
		if m["failed"] != true || !strings.Contains(in.Response, c.error) || m["status"] != float64(c.status) {
			t.Errorf("%s: recorded %q %v", c.name, in.Response, m)
		}
	}
}

func TestUnreachableUpstreamIs502AndFailedTurn(t *testing.T) {
	up := httptest.NewServer(http.NotFoundHandler())
	addr := up.URL
	up.Close()
	rec := &turns{}
	base, _ := serve(t, addr+"/v1", rec, proxy.Options{})
	res, body := do(t, "POST", base+"/chat/completions", chatBody, nil)
	if res.StatusCode != http.StatusBadGateway || !strings.Contains(body, `"error"`) {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	in := rec.wait(t, res.Header.Get(proxy.HeaderTurnID))
	if m := meta(t, in); m["failed"] != true || !strings.Contains(in.Response, "could not reach the upstream") {
		t.Fatalf("recorded %q %v", in.Response, m)
	}
}

func TestDroppedStreamPassedOnAndRecordedAsFailed(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"id":"c","model":"m","choices":[{"index":0,"delta":{"content":"half an"}}]}`+"\n\n")
		w.(http.Flusher).Flush()
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close()
		}
	}))
	defer up.Close()
	rec := &turns{}
	base, _ := serve(t, up.URL+"/v1", rec, proxy.Options{})
	res, err := http.Post(base+"/chat/completions", "application/json",
		strings.NewReader(`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err == nil || !strings.Contains(string(b), "half an") {
		t.Fatalf("the caller should see the stream break after the first chunk: %q %v", b, err)
	}
	in := rec.wait(t, res.Header.Get(proxy.HeaderTurnID))
	if m := meta(t, in); m["failed"] != true || !strings.Contains(in.Response, "broke off") {
		t.Fatalf("recorded %q %v", in.Response, m)
	}
}

func TestModelsPassedThrough(t *testing.T) {
	fake := llmtest.New(t)
	rec := &turns{}
	base, _ := serve(t, fake.URL, rec, proxy.Options{})
	res, body := do(t, "GET", base+"/models", "", nil)
	if res.StatusCode != 200 || !strings.Contains(body, `"id":"fake-model"`) {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	if res, _ := do(t, "GET", base+"/chat/completions", "", nil); res.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("GET /chat/completions: %d", res.StatusCode)
	}
	time.Sleep(50 * time.Millisecond)
	if rec.count() != 0 {
		t.Fatalf("/models was recorded")
	}
}

// checker is hone's sign-in with token.
type checker string

func (c checker) Enabled() bool            { return c != "" }
func (c checker) CheckToken(s string) bool { return c != "" && s == string(c) }

func TestAuth(t *testing.T) {
	const token = "hone-token-0123456789"
	for _, c := range []struct {
		name        string
		auth        checker
		keys        []string
		upstreamKey string
		caller      string
		status      int
		upstream    string
	}{
		{name: "open: the caller's key goes on", caller: "Bearer sk-caller", status: 200, upstream: "Bearer sk-caller"},
		{name: "open: the upstream key replaces it", upstreamKey: "sk-up", caller: "Bearer sk-caller", status: 200, upstream: "Bearer sk-up"},
		{name: "token: none", auth: token, upstreamKey: "sk-up", status: 401},
		{name: "token: a wrong one", auth: token, keys: []string{"pk-1"}, upstreamKey: "sk-up", caller: "Bearer sk-caller", status: 401},
		{name: "token: hone's", auth: token, upstreamKey: "sk-up", caller: "Bearer " + token, status: 200, upstream: "Bearer sk-up"},
		{name: "token: a proxy key", auth: token, keys: []string{"pk-1", "pk-2"}, upstreamKey: "sk-up", caller: "Bearer pk-2", status: 200, upstream: "Bearer sk-up"},
		{name: "token without upstream key: hone's token stays home", auth: token, caller: "Bearer " + token, status: 200, upstream: ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			fake := llmtest.New(t)
			base, _ := serve(t, fake.URL, &turns{}, proxy.Options{Auth: c.auth, Keys: c.keys, UpstreamKey: c.upstreamKey})
			for _, path := range []string{"/chat/completions", "/models"} {
				h := map[string]string{}
				if c.caller != "" {
					h["Authorization"] = c.caller
				}
				method := "POST"
				if path == "/models" {
					method = "GET"
				}
				res, body := do(t, method, base+path, chatBody, h)
				if res.StatusCode != c.status {
					t.Fatalf("%s: %d %s, want %d", path, res.StatusCode, body, c.status)
				}
			}
			reqs := fake.Requests()
			if c.status != 200 {
				if len(reqs) != 0 {
					t.Fatal("a refused call reached the upstream")
				}
				return
			}
			if got := reqs[0].Header.Get("Authorization"); got != c.upstream {
				t.Fatalf("the upstream got Authorization %q, want %q", got, c.upstream)
			}
		})
	}
}

func TestRecordingNeverHoldsACall(t *testing.T) {
	fake := llmtest.New(t)
	rec := &turns{gate: make(chan struct{}), held: make(chan struct{}, 1)}
	base, p := serve(t, fake.URL, rec, proxy.Options{QueueSize: 4})
	open := sync.OnceFunc(func() {
		rec.mu.Lock()
		close(rec.gate)
		rec.gate = nil
		rec.mu.Unlock()
	})
	t.Cleanup(open)
	do(t, "POST", base+"/chat/completions", chatBody, nil)
	<-rec.held
	for i := range 20 {
		res, body := do(t, "POST", base+"/chat/completions", chatBody, nil)
		if res.StatusCode != 200 || !strings.Contains(body, "How do I resign?") {
			t.Fatalf("call %d with the database stuck: %d %s", i, res.StatusCode, body)
		}
	}
	if n := p.Queue().Dropped(proxy.DropQueueFull); n != 20-4 {
		t.Fatalf("dropped %d of 20 with a queue of 4 and a stuck database, want 16", n)
	}
	rec.mu.Lock()
	rec.fail = true
	rec.mu.Unlock()
	open()
	p.Queue().Flush(context.Background())
	if p.Queue().Dropped(proxy.DropStore) == 0 {
		t.Fatal("turns the database refused were not counted")
	}
	rec.mu.Lock()
	rec.fail = false
	rec.mu.Unlock()
	res, _ := do(t, "POST", base+"/chat/completions", chatBody, nil)
	rec.wait(t, res.Header.Get(proxy.HeaderTurnID))
}

func TestMessagesHoneCannotKeepLeaveTheExchange(t *testing.T) {
	fake := llmtest.New(t)
	fake.Push(llmtest.Text("It is sunny."))
	rec := &turns{}
	base, _ := serve(t, fake.URL, rec, proxy.Options{})
	body := `{"model":"m","messages":[{"role":"user","content":"Weather?"},{"role":"function","name":"weather","content":"sunny"}]}`
	res, _ := do(t, "POST", base+"/chat/completions", body, nil)
	in := rec.wait(t, res.Header.Get(proxy.HeaderTurnID))
	if in.Messages != nil || in.UserMessage != "Weather?" || in.Response != "It is sunny." || !strings.Contains(string(in.Metadata), "messages_dropped") {
		t.Fatalf("recorded %+v %s", in, in.Metadata)
	}
	if err := in.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestCallerTimeoutRecordedAsFailed(t *testing.T) {
	fake := llmtest.New(t)
	fake.Push(llmtest.Reply{Content: "late", Delay: 5 * time.Second})
	rec := &turns{}
	base, _ := serve(t, fake.URL, rec, proxy.Options{})
	client := &http.Client{Timeout: 200 * time.Millisecond}
	if _, err := client.Post(base+"/chat/completions", "application/json", strings.NewReader(chatBody)); err == nil {
		t.Fatal("the call did not time out")
	}
	deadline := time.Now().Add(5 * time.Second)
	for rec.count() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.got) != 1 || !strings.Contains(rec.got[0].Response, "the caller went away") || !strings.Contains(string(rec.got[0].Metadata), `"failed":true`) {
		t.Fatalf("recorded %+v", rec.got)
	}
}
