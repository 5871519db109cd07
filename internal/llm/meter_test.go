package llm_test

import (
	"context"
	"net"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/honehq/hone/internal/llm"
	"github.com/honehq/hone/internal/llm/llmtest"
)

// observed is one call a meter was told of.
type observed struct {
	purpose, outcome string
	usage            llm.Usage
}

// callMeter keeps the calls it is told of.
type callMeter struct {
	mu    sync.Mutex
	calls []observed
}

func (m *callMeter) ObserveLLMCall(purpose, outcome string, d time.Duration, usage llm.Usage) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if d <= 0 {
		panic("no duration")
	}
	m.calls = append(m.calls, observed{purpose, outcome, usage})
}

func (m *callMeter) outcomes() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for _, c := range m.calls {
		out = append(out, c.outcome)
	}
	return out
}

// TestMeterOutcomes: every call is told to the meter with its purpose, how
// it went and its tokens; each kind of failure has its own outcome.
func TestMeterOutcomes(t *testing.T) {
	type verdict struct{ Verdict string }
	always := func(r llmtest.Reply) llmtest.Handler { return func(llmtest.ChatRequest) llmtest.Reply { return r } }
	for _, c := range []struct {
		name    string
		handler llmtest.Handler
		purpose string
		call    func(ctx context.Context, c *llm.Client, req llm.Request) error
		want    []string
	}{
		{name: "ok", handler: always(llmtest.Reply{Content: "fine", Usage: &llmtest.Usage{PromptTokens: 11, CompletionTokens: 4, TotalTokens: 15}}),
			want: []string{llm.OutcomeOK}},
		{name: "chat cut off, kept", handler: always(llmtest.Reply{Content: "half", FinishReason: "length"}), want: []string{llm.OutcomeCutOff}},
		{name: "analysis cut off, refused", purpose: llm.PurposeAnalysis, handler: always(llmtest.Reply{Content: "half", FinishReason: "length"}),
			want: []string{llm.OutcomeCutOff}},
		{name: "invalid output, then its repair", purpose: llm.PurposeJudge, handler: always(llmtest.Text("not JSON")),
			call: func(ctx context.Context, c *llm.Client, req llm.Request) error {
				_, _, err := llm.Generate[verdict](ctx, c, req)
				return err
			}, want: []string{llm.OutcomeInvalidOutput, llm.OutcomeInvalidOutput}},
		{name: "typed ok", purpose: llm.PurposeJudge, handler: always(llmtest.JSON(verdict{"good"})),
			call: func(ctx context.Context, c *llm.Client, req llm.Request) error {
				_, _, err := llm.Generate[verdict](ctx, c, req)
				return err
			}, want: []string{llm.OutcomeOK}},
		{name: "rate limited", handler: always(llmtest.RateLimited("0")), want: []string{llm.OutcomeRateLimited}},
		{name: "key refused", handler: always(llmtest.Error(http.StatusUnauthorized, "bad key")), want: []string{llm.OutcomeAuth}},
		{name: "no such model", handler: always(llmtest.Error(http.StatusNotFound, "no model")), want: []string{llm.OutcomeRejected}},
		{name: "bad request", handler: always(llmtest.Error(http.StatusBadRequest, "no")), want: []string{llm.OutcomeRejected}},
		{name: "provider down", handler: always(llmtest.Error(http.StatusBadGateway, "down")), want: []string{llm.OutcomeProviderError}},
		{name: "slow", handler: always(llmtest.Reply{Content: "late", Delay: time.Second}), want: []string{llm.OutcomeTimeout}},
		{name: "not a chat completion", handler: always(llmtest.Reply{Body: "<html>proxy error</html>"}), want: []string{llm.OutcomeBadResponse}},
		{name: "no choices", handler: always(llmtest.Reply{Body: `{"id":"x","object":"chat.completion","choices":[]}`}),
			want: []string{llm.OutcomeBadResponse}},
		{name: "cancelled", handler: always(llmtest.Text("never")), call: func(ctx context.Context, c *llm.Client, req llm.Request) error {
			ctx, cancel := context.WithCancel(ctx)
			cancel()
			_, err := c.Complete(ctx, req)
			return err
		}, want: []string{llm.OutcomeCancelled}},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := llmtest.New(t)
			srv.SetHandler(c.handler)
			cfg := srv.Config()
			cfg.Timeout, cfg.MaxRetries = 200*time.Millisecond, 1
			client, err := llm.New(cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			m := &callMeter{}
			client.SetMeter(m)
			req := userRequest("hello")
			if c.purpose != "" {
				req.Purpose = c.purpose
			}
			call := c.call
			if call == nil {
				call = func(ctx context.Context, c *llm.Client, req llm.Request) error {
					_, err := c.Complete(ctx, req)
					return err
				}
			}
			_ = call(context.Background(), client, req)
			if got := m.outcomes(); !slices.Equal(got, c.want) {
				t.Errorf("outcomes %v, want %v", got, c.want)
			}
			for _, o := range m.calls {
				if o.purpose != req.Purpose {
					t.Errorf("purpose %q, want %q", o.purpose, req.Purpose)
				}
			}
			if c.name == "ok" && m.calls[0].usage != (llm.Usage{PromptTokens: 11, CompletionTokens: 4, TotalTokens: 15}) {
				t.Errorf("usage %+v", m.calls[0].usage)
			}
		})
	}
}

// TestMeterUnreachable: a provider nobody listens for is unreachable.
func TestMeterUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	client, err := llm.New(llm.Config{BaseURL: "http://" + addr + "/v1", APIKey: "k", Model: "m", MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := &callMeter{}
	client.SetMeter(m)
	if _, err := client.Complete(context.Background(), userRequest("hello")); err == nil {
		t.Fatal("a call to nobody succeeded")
	}
	if got := m.outcomes(); !slices.Equal(got, []string{llm.OutcomeUnreachable}) {
		t.Errorf("outcomes %v", got)
	}
}
