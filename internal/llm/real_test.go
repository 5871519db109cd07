package llm_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/honehq/hone/internal/llm"
)

// Environment variables that point the LLM-layer tests at a real
// OpenAI-compatible server (OpenAI, Ollama, vLLM, llama.cpp's server …) as
// well as the in-process fake; without HONE_TEST_LLM_BASE_URL they skip.
const (
	envRealBaseURL = "HONE_TEST_LLM_BASE_URL"
	envRealModel   = "HONE_TEST_LLM_MODEL"
	envRealAPIKey  = "HONE_TEST_LLM_API_KEY"
)

// realClient returns a client of the real server the environment names,
// recording into rec; the test is skipped when there is none.
func realClient(t *testing.T, rec llm.Recorder) *llm.Client {
	t.Helper()
	base := os.Getenv(envRealBaseURL)
	if base == "" {
		t.Skip(envRealBaseURL + " is not set: no real LLM server to test against")
	}
	cfg := llm.Config{BaseURL: base, APIKey: os.Getenv(envRealAPIKey), Model: os.Getenv(envRealModel),
		Timeout: 5 * time.Minute, RetryBaseDelay: 200 * time.Millisecond}
	if cfg.Model == "" {
		cfg.Model = "default"
	}
	c, err := llm.New(cfg, rec)
	if err != nil {
		t.Fatalf("%s and %s: %v", envRealBaseURL, envRealModel, err)
	}
	return c
}

// memoryRecorder keeps the calls it is given.
type memoryRecorder struct {
	mu    sync.Mutex
	calls []llm.Call
}

func (m *memoryRecorder) RecordCall(_ context.Context, c *llm.Call) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls = append(m.calls, *c)
	return nil
}

func TestRealServerComplete(t *testing.T) {
	rec := &memoryRecorder{}
	c := realClient(t, rec)
	req := userRequest("Reply with the single word: pong")
	req.MaxTokens = llm.Int(32)
	req.Temperature = llm.Float64(0)
	resp, err := c.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(resp.Content) == "" || resp.Usage.CompletionTokens <= 0 || resp.CallID == "" || resp.LatencyMS <= 0 {
		t.Errorf("answer %+v", resp)
	}
	if len(rec.calls) != 1 || rec.calls[0].Response == nil || rec.calls[0].Response.RawContent != resp.Content ||
		rec.calls[0].Request.Model == "" || rec.calls[0].Error != "" {
		t.Errorf("recorded %+v", rec.calls)
	}
}

func TestRealServerStream(t *testing.T) {
	c := realClient(t, nil)
	req := userRequest("Count from 1 to 5, separated by spaces.")
	req.MaxTokens = llm.Int(48)
	var parts []string
	resp, err := c.Stream(context.Background(), req, func(d string) { parts = append(parts, d) })
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) == 0 || strings.Join(parts, "") != resp.Content || resp.Content == "" {
		t.Errorf("%d deltas %q make %q, the answer is %q", len(parts), parts, strings.Join(parts, ""), resp.Content)
	}
}

func TestRealServerGenerate(t *testing.T) {
	c := realClient(t, nil)
	req := judgeRequest()
	req.Messages[1].Content = "Answer: The capital of France is Paris. Score it from 1 to 5 with a short reason, no tags, and a note."
	v, resp, err := llm.Generate[verdict](context.Background(), c, req)
	if err != nil {
		t.Fatalf("%v (answer %+v)", err, resp)
	}
	if v.Score < 1 || v.Score > 5 {
		t.Errorf("verdict %+v out of the schema", v)
	}
}

func TestRealServerConcurrentCalls(t *testing.T) {
	c := realClient(t, nil)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Go(func() {
			req := userRequest("Say hi.")
			req.MaxTokens = llm.Int(8)
			if _, err := c.Complete(context.Background(), req); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestRealServerBound checks that the real server reads the field the bound
// goes out in: an answer that needs far more stops at it, cut off; a chat
// answer comes back, a typed one is an error naming its purpose.
func TestRealServerBound(t *testing.T) {
	c := realClient(t, nil)
	req := userRequest("Count from 1 to 300, one number per line, and nothing else.")
	req.MaxTokens = llm.Int(16)
	resp, err := c.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if !resp.CutOff() || resp.Usage.CompletionTokens > 16 {
		t.Errorf("bound 16: finish_reason %q after %d tokens", resp.FinishReason, resp.Usage.CompletionTokens)
	}
	typed := judgeRequest()
	typed.Messages[1].Content = "Answer: The capital of France is Paris. Score it from 1 to 5 with a reason of at least 200 words."
	typed.MaxTokens = llm.Int(8)
	_, _, err = llm.Generate[verdict](context.Background(), c, typed)
	var oe *llm.OutputError
	if !errors.As(err, &oe) || oe.MaxTokens != 8 || oe.Purpose != llm.PurposeJudge {
		t.Errorf("typed answer at bound 8: %v", err)
	}
}
