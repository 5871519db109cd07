package llm_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/llm"
	"github.com/honehq/hone/internal/llm/llmtest"
)

func userRequest(content string) llm.Request {
	return llm.Request{Purpose: llm.PurposeChat, CauseType: "turn", CauseID: "t1", Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: "You are terse."},
		{Role: llm.RoleUser, Content: content},
	}}
}

func TestComplete(t *testing.T) {
	srv := llmtest.New(t)
	c := srv.Client(nil)
	req := userRequest("hello there")
	req.Temperature = llm.Float64(0.2)
	req.TopP = llm.Float64(0.9)
	req.MaxTokens = llm.Int(64)
	req.Params = map[string]any{"seed": 7}
	resp, err := c.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Content != "hello there" || resp.Model != "fake-model" || resp.FinishReason != "stop" {
		t.Errorf("resp = %+v", resp)
	}
	if resp.Usage.CompletionTokens != 2 || resp.Usage.TotalTokens != resp.Usage.PromptTokens+2 {
		t.Errorf("usage = %+v", resp.Usage)
	}
	if resp.CallID == "" || resp.LatencyMS <= 0 {
		t.Errorf("CallID = %q, LatencyMS = %v", resp.CallID, resp.LatencyMS)
	}
	got := srv.Requests()[0]
	if got.Model != "fake-model" || *got.Temperature != 0.2 || *got.TopP != 0.9 || *got.MaxTokens != 64 || got.Body["seed"] != float64(7) {
		t.Errorf("request = %+v", got)
	}
	if len(got.Messages) != 2 || got.Messages[0].Role != "system" || got.Messages[1].Content != "hello there" {
		t.Errorf("messages = %+v", got.Messages)
	}
	if got.ResponseFormat != nil || got.Stream {
		t.Errorf("unexpected response_format or stream: %+v", got)
	}
	if a := got.Header.Get("Authorization"); a != "Bearer test-key" {
		t.Errorf("Authorization = %q", a)
	}
}

func TestCompleteModelOverride(t *testing.T) {
	srv := llmtest.New(t)
	cfg := srv.Config()
	cfg.Models = map[string]string{llm.PurposeAnalysis: "big-model"}
	c, err := llm.New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		purpose, model, want string
	}{
		{llm.PurposeChat, "", "fake-model"},
		{llm.PurposeAnalysis, "", "big-model"},
		{llm.PurposeAnalysis, "special", "special"},
	} {
		req := userRequest("x")
		req.Purpose, req.Model = tt.purpose, tt.model
		resp, err := c.Complete(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Model != tt.want {
			t.Errorf("purpose %s model %q: got %q, want %q", tt.purpose, tt.model, resp.Model, tt.want)
		}
	}
}

func TestCompleteInvalidRequest(t *testing.T) {
	c := llmtest.New(t).Client(nil)
	for _, req := range []llm.Request{{}, {Messages: []llm.Message{{Role: "robot", Content: "x"}}}} {
		if _, err := c.Complete(context.Background(), req); hone.ErrorCode(err) != hone.EINVALID {
			t.Errorf("Complete(%+v) = %v, want EINVALID", req, err)
		}
	}
}

func TestStream(t *testing.T) {
	srv := llmtest.New(t)
	c := srv.Client(nil)
	srv.Push(llmtest.Reply{Content: "one two three", Chunks: []string{"one ", "two ", "three"}, FinishReason: "length"})
	var deltas []string
	resp, err := c.Stream(context.Background(), userRequest("count"), func(d string) { deltas = append(deltas, d) })
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(deltas, "|") != "one |two |three" {
		t.Errorf("deltas = %q", deltas)
	}
	if resp.Content != "one two three" || resp.FinishReason != "length" || resp.Model != "fake-model" {
		t.Errorf("resp = %+v", resp)
	}
	if resp.Usage.CompletionTokens != 3 || resp.Usage.TotalTokens == 0 {
		t.Errorf("usage = %+v", resp.Usage)
	}
	if got := srv.Requests()[0]; !got.Stream || got.StreamOptions == nil || !got.StreamOptions.IncludeUsage {
		t.Errorf("request stream=%v stream_options=%+v", got.Stream, got.StreamOptions)
	}
}

func TestStreamProviderAnswersJSON(t *testing.T) {
	srv := llmtest.New(t)
	c := srv.Client(nil)
	srv.Push(llmtest.Reply{Body: `{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"whole answer"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}`})
	var deltas []string
	resp, err := c.Stream(context.Background(), userRequest("x"), func(d string) { deltas = append(deltas, d) })
	if err != nil {
		t.Fatal(err)
	}
	if resp.Content != "whole answer" || len(deltas) != 1 || deltas[0] != "whole answer" || resp.Usage.TotalTokens != 3 {
		t.Errorf("resp = %+v, deltas = %q", resp, deltas)
	}
}

func TestRetries(t *testing.T) {
	tests := []struct {
		name     string
		replies  []llmtest.Reply
		attempts int
		wantErr  string
	}{
		{"429 then success", []llmtest.Reply{llmtest.RateLimited("0"), llmtest.Text("ok")}, 2, ""},
		{"429 with retry-after-ms", []llmtest.Reply{{Status: 429, Header: http.Header{"Retry-After-Ms": {"5"}}}, llmtest.Text("ok")}, 2, ""},
		{"500 502 503 then success", []llmtest.Reply{{Status: 500}, {Status: 502}, {Status: 503}, llmtest.Text("ok")}, 4, ""},
		{"500 until budget runs out", []llmtest.Reply{{Status: 500}, {Status: 500}, {Status: 500}, {Status: 500}, llmtest.Text("never")}, 4, "HTTP 500) after 4 attempts"},
		{"429 until budget runs out", []llmtest.Reply{llmtest.RateLimited("0"), llmtest.RateLimited("0"), llmtest.RateLimited("0"), llmtest.RateLimited("0")}, 4, "rate limiting"},
		{"400 is not retried", []llmtest.Reply{llmtest.Error(400, "bad temperature")}, 1, "bad temperature"},
		{"404 is not retried", []llmtest.Reply{llmtest.Error(404, "The model `nope` does not exist")}, 1, llm.EnvModel},
		{"broken body is not retried", []llmtest.Reply{{Body: "<html>hello</html>"}}, 1, llm.EnvBaseURL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.New(t)
			c := srv.Client(nil)
			srv.Push(tt.replies...)
			resp, err := c.Complete(context.Background(), userRequest("x"))
			if n := len(srv.Requests()); n != tt.attempts {
				t.Errorf("attempts = %d, want %d", n, tt.attempts)
			}
			if tt.wantErr == "" {
				if err != nil || resp.Content != "ok" {
					t.Fatalf("Complete() = %+v, %v", resp, err)
				}
				return
			}
			if err == nil || !strings.Contains(hone.ErrorMessage(err), tt.wantErr) {
				t.Fatalf("err = %v, want message containing %q", err, tt.wantErr)
			}
			if hone.ErrorCode(err) != hone.EUNAVAILABLE {
				t.Errorf("code = %q", hone.ErrorCode(err))
			}
		})
	}
}

func TestRetryHonoursRetryAfter(t *testing.T) {
	srv := llmtest.New(t)
	c := srv.Client(nil)
	srv.Push(llmtest.Reply{Status: 429, Header: http.Header{"Retry-After-Ms": {"200"}}}, llmtest.Text("ok"))
	start := time.Now()
	if _, err := c.Complete(context.Background(), userRequest("x")); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 200*time.Millisecond {
		t.Errorf("retried after %v, want ≥ 200ms as retry-after-ms says", d)
	}
}

func TestRetryAfterTooLongGivesUp(t *testing.T) {
	srv := llmtest.New(t)
	c := srv.Client(nil)
	srv.Push(llmtest.RateLimited("3600"), llmtest.Text("ok"))
	_, err := c.Complete(context.Background(), userRequest("x"))
	if err == nil || len(srv.Requests()) != 1 {
		t.Fatalf("err = %v, attempts = %d", err, len(srv.Requests()))
	}
}

func TestRetriesDisabled(t *testing.T) {
	srv := llmtest.New(t)
	cfg := srv.Config()
	cfg.MaxRetries = -1
	c, _ := llm.New(cfg, nil)
	srv.Push(llmtest.Reply{Status: 500}, llmtest.Text("ok"))
	if _, err := c.Complete(context.Background(), userRequest("x")); err == nil || len(srv.Requests()) != 1 {
		t.Fatalf("err = %v, attempts = %d", err, len(srv.Requests()))
	}
}

func TestStreamRetriesBeforeFirstChunk(t *testing.T) {
	srv := llmtest.New(t)
	c := srv.Client(nil)
	srv.Push(llmtest.Reply{Status: 503}, llmtest.Text("fine now"))
	resp, err := c.Stream(context.Background(), userRequest("x"), nil)
	if err != nil || resp.Content != "fine now" || len(srv.Requests()) != 2 {
		t.Fatalf("resp = %+v, err = %v, attempts = %d", resp, err, len(srv.Requests()))
	}
}

func TestTimeout(t *testing.T) {
	srv := llmtest.New(t)
	cfg := srv.Config()
	cfg.Timeout = 50 * time.Millisecond
	c, _ := llm.New(cfg, nil)
	srv.SetHandler(func(llmtest.ChatRequest) llmtest.Reply { return llmtest.Reply{Content: "late", Delay: time.Second} })
	for _, stream := range []bool{false, true} {
		start := time.Now()
		var err error
		if stream {
			_, err = c.Stream(context.Background(), userRequest("x"), nil)
		} else {
			_, err = c.Complete(context.Background(), userRequest("x"))
		}
		if err == nil {
			t.Fatalf("stream=%v: no error", stream)
		}
		if msg := hone.ErrorMessage(err); !strings.Contains(msg, "50ms") || !strings.Contains(msg, "timeout") || !strings.Contains(msg, llm.EnvTimeout) {
			t.Errorf("stream=%v: message %q does not mention the timeout", stream, msg)
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("stream=%v: errors.Is(err, DeadlineExceeded) = false", stream)
		}
		if d := time.Since(start); d > 500*time.Millisecond {
			t.Errorf("stream=%v: took %v", stream, d)
		}
	}
}

func TestStreamTimeoutIsPerChunk(t *testing.T) {
	srv := llmtest.New(t)
	cfg := srv.Config()
	cfg.Timeout = 150 * time.Millisecond
	c, _ := llm.New(cfg, nil)
	srv.Push(llmtest.Reply{Content: "a b c d e", ChunkDelay: 50 * time.Millisecond})
	resp, err := c.Stream(context.Background(), userRequest("x"), nil)
	if err != nil || resp.Content != "a b c d e" {
		t.Fatalf("resp = %+v, err = %v", resp, err)
	}
	srv.Push(llmtest.Reply{Content: "a b c", ChunkDelay: time.Second})
	var got strings.Builder
	_, err = c.Stream(context.Background(), userRequest("x"), func(d string) { got.WriteString(d) })
	if err == nil || !strings.Contains(hone.ErrorMessage(err), "timeout") || got.String() != "a " {
		t.Fatalf("err = %v, got %q", err, got.String())
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("a stream that delivered content was retried: %d requests", n)
	}
}

func TestCancellation(t *testing.T) {
	srv := llmtest.New(t)
	c := srv.Client(nil)
	srv.SetHandler(func(llmtest.ChatRequest) llmtest.Reply { return llmtest.Reply{Content: "late", Delay: 5 * time.Second} })
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(30*time.Millisecond, cancel)
	start := time.Now()
	_, err := c.Complete(ctx, userRequest("x"))
	if !errors.Is(err, context.Canceled) || !strings.Contains(hone.ErrorMessage(err), "cancelled") {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("took %v", d)
	}

	srv.SetHandler(func(llmtest.ChatRequest) llmtest.Reply { return llmtest.Reply{Status: 500} })
	cfg := srv.Config()
	cfg.RetryBaseDelay = 10 * time.Second
	slow, _ := llm.New(cfg, nil)
	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(30*time.Millisecond, cancel)
	if _, err := slow.Complete(ctx, userRequest("x")); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancel during backoff: err = %v", err)
	}
}

func TestAuthErrorNeverLeaksKey(t *testing.T) {
	const key = "sk-secret-123"
	srv := llmtest.New(t, llmtest.WithAPIKey("sk-other-456"))
	rec := &llmtest.MemoryRecorder{}
	cfg := srv.Config()
	cfg.APIKey = key
	c, err := llm.New(cfg, rec)
	if err != nil {
		t.Fatal(err)
	}
	srv.Push(llmtest.Error(401, "Incorrect API key provided: "+key+"."))
	_, err = c.Complete(context.Background(), userRequest("x"))
	if err == nil {
		t.Fatal("no error")
	}
	msg := hone.ErrorMessage(err)
	if !strings.Contains(msg, llm.EnvAPIKey) || !strings.Contains(msg, "401") {
		t.Errorf("message %q does not point at %s", msg, llm.EnvAPIKey)
	}
	_, err403 := c.Complete(context.Background(), userRequest("x"))
	for _, e := range []error{err, err403} {
		for _, s := range []string{e.Error(), hone.ErrorMessage(e), errorChain(e)} {
			if strings.Contains(s, key) {
				t.Errorf("error text contains the API key: %q", s)
			}
		}
	}
	for _, call := range rec.Calls() {
		if strings.Contains(call.Error, key) {
			t.Errorf("recorded error contains the API key: %q", call.Error)
		}
	}
}

func errorChain(err error) string {
	var b strings.Builder
	var walk func(error)
	walk = func(e error) {
		if e == nil {
			return
		}
		b.WriteString(e.Error() + "\n")
		switch u := e.(type) {
		case interface{ Unwrap() error }:
			walk(u.Unwrap())
		case interface{ Unwrap() []error }:
			for _, x := range u.Unwrap() {
				walk(x)
			}
		}
	}
	walk(err)
	return b.String()
}

func TestConnectionErrors(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	for _, tt := range []struct {
		name, url, want string
	}{
		{"refused", "http://" + addr + "/v1", "connection refused"},
		{"dns", "http://no-such-host.invalid/v1", "Could not find"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := llm.New(llm.Config{BaseURL: tt.url, APIKey: "sk-secret-123", Model: "m", RetryBaseDelay: time.Millisecond}, nil)
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Complete(context.Background(), userRequest("x"))
			msg := hone.ErrorMessage(err)
			if !strings.Contains(msg, tt.want) || !strings.Contains(msg, llm.EnvBaseURL) || strings.Contains(errorChain(err), "sk-secret-123") {
				t.Errorf("message = %q", msg)
			}
		})
	}
}

type failingRecorder struct{ n atomic.Int32 }

func (f *failingRecorder) RecordCall(context.Context, *llm.Call) error {
	f.n.Add(1)
	return errors.New("disk full")
}

func TestRecorderFailureDoesNotFailCall(t *testing.T) {
	srv := llmtest.New(t)
	rec := &failingRecorder{}
	c, _ := llm.New(srv.Config(), rec)
	if _, err := c.Complete(context.Background(), userRequest("x")); err != nil {
		t.Fatal(err)
	}
	if rec.n.Load() != 1 {
		t.Errorf("RecordCall called %d times", rec.n.Load())
	}
}

func TestIgnoresOpenAIEnvironment(t *testing.T) {
	srv := llmtest.New(t)
	t.Setenv("OPENAI_API_KEY", "sk-from-env")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
	t.Setenv("OPENAI_ORG_ID", "org-x")
	cfg := srv.Config()
	cfg.APIKey = ""
	c, _ := llm.New(cfg, nil)
	if _, err := c.Complete(context.Background(), userRequest("x")); err != nil {
		t.Fatal(err)
	}
	h := srv.Requests()[0].Header
	if h.Get("Authorization") != "" || h.Get("OpenAI-Organization") != "" {
		t.Errorf("headers from OPENAI_* leaked: %v", h)
	}
}

func TestConcurrentCalls(t *testing.T) {
	srv := llmtest.New(t)
	rec := &llmtest.MemoryRecorder{}
	c, _ := llm.New(srv.Config(), rec)
	errs := make(chan error, 20)
	for range 20 {
		go func() {
			_, err := c.Complete(context.Background(), userRequest("x"))
			errs <- err
		}()
	}
	for range 20 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if n := len(rec.Calls()); n != 20 {
		t.Errorf("recorded %d calls", n)
	}
}
