package llm_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/llm"
	"github.com/honehq/hone/internal/llm/llmtest"
)

func purposeRequest(purpose string) llm.Request {
	req := userRequest("x")
	req.Purpose = purpose
	return req
}

// sentBounds makes one call per purpose with c and returns the bound each
// request carried in max_tokens, failing when one carried none or
// max_completion_tokens too.
func sentBounds(t *testing.T, srv *llmtest.Server, c *llm.Client) map[string]int {
	t.Helper()
	before := len(srv.Requests())
	for _, p := range llm.Purposes {
		if _, err := c.Complete(context.Background(), purposeRequest(p)); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
	}
	got := map[string]int{}
	for i, r := range srv.Requests()[before:] {
		if r.MaxTokens == nil || r.MaxCompletionTokens != nil {
			t.Fatalf("%s: max_tokens %v, max_completion_tokens %v", llm.Purposes[i], r.MaxTokens, r.MaxCompletionTokens)
		}
		got[llm.Purposes[i]] = *r.MaxTokens
	}
	return got
}

func TestEveryCallCarriesItsPurposesBound(t *testing.T) {
	srv := llmtest.New(t)
	rec := &llmtest.MemoryRecorder{}
	c, _ := llm.New(srv.Config(), rec)
	want := map[string]int{llm.PurposeChat: 4096, llm.PurposeFollowUp: 1024, llm.PurposeAnalysis: 8192, llm.PurposeJudge: 1024, llm.PurposeLearning: 4096}
	if got := sentBounds(t, srv, c); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("bounds sent %v, want %v", got, want)
	}
	for _, call := range rec.Calls() {
		if call.Request.MaxTokens == nil || *call.Request.MaxTokens != want[call.Purpose] {
			t.Errorf("%s: recorded max_tokens %v, want %d", call.Purpose, call.Request.MaxTokens, want[call.Purpose])
		}
	}
	if _, _, err := llm.Generate[verdict](context.Background(), c, judgeRequest()); err == nil {
		t.Fatal("the echo is no verdict, yet Generate succeeded")
	}
	for _, r := range srv.Requests()[len(want):] {
		if r.MaxTokens == nil || *r.MaxTokens != 1024 {
			t.Errorf("typed call (and its repair): max_tokens %v, want 1024", r.MaxTokens)
		}
	}
	if _, err := c.Stream(context.Background(), userRequest("y"), nil); err != nil {
		t.Fatal(err)
	}
	if r := srv.Requests()[len(srv.Requests())-1]; r.Bound() != 4096 {
		t.Errorf("stream: bound %d, want 4096", r.Bound())
	}
	for p, n := range want {
		if c.MaxTokens(p) != n || llm.MaxTokensDefault(p) != n {
			t.Errorf("MaxTokens(%s) = %d, default %d; want %d", p, c.MaxTokens(p), llm.MaxTokensDefault(p), n)
		}
	}
}

func TestBoundOverrides(t *testing.T) {
	srv := llmtest.New(t)
	t.Setenv(llm.EnvMaxTokens, "500")
	t.Setenv("HONE_LLM_MAX_TOKENS_FOLLOW_UP", "64")
	t.Setenv("HONE_LLM_MAX_TOKENS_ANALYSIS", " 16000 ")
	env, err := llm.ConfigFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	cfg := srv.Config()
	cfg.MaxTokens, cfg.PurposeMaxTokens = env.MaxTokens, env.PurposeMaxTokens
	c, err := llm.New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{llm.PurposeChat: 500, llm.PurposeFollowUp: 64, llm.PurposeAnalysis: 16000, llm.PurposeJudge: 500, llm.PurposeLearning: 500}
	if got := sentBounds(t, srv, c); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("bounds sent %v, want %v", got, want)
	}
	req := purposeRequest(llm.PurposeAnalysis)
	req.MaxTokens = llm.Int(7)
	if _, err := c.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if r := srv.Requests()[len(srv.Requests())-1]; r.MaxTokens == nil || *r.MaxTokens != 7 {
		t.Errorf("Request.MaxTokens 7: sent %v", r.MaxTokens)
	}
}

func TestBoundSettingsRejectBadValues(t *testing.T) {
	for _, tt := range []struct{ name, value string }{
		{"HONE_LLM_MAX_TOKENS", "0"},
		{"HONE_LLM_MAX_TOKENS", "-5"},
		{"HONE_LLM_MAX_TOKENS", "lots"},
		{"HONE_LLM_MAX_TOKENS", "1.5"},
		{"HONE_LLM_MAX_TOKENS", "4k"},
		{"HONE_LLM_MAX_TOKENS_ANALYSIS", "99999999999"},
		{"HONE_LLM_MAX_TOKENS_FOLLOW_UP", "0"},
		{"HONE_LLM_MAX_TOKENS_ANALYSES", "4096"},
	} {
		t.Run(tt.name+"="+tt.value, func(t *testing.T) {
			t.Setenv(tt.name, tt.value)
			_, err := llm.ConfigFromEnv()
			if hone.ErrorCode(err) != hone.EINVALID || hone.ErrorField(err) != tt.name || !strings.Contains(hone.ErrorMessage(err), tt.name) {
				t.Fatalf("err = %v (field %q), want EINVALID naming %s", err, hone.ErrorField(err), tt.name)
			}
		})
	}
	base := llm.Config{BaseURL: "http://localhost:11434/v1", Model: "m"}
	for _, tt := range []struct {
		cfg   llm.Config
		field string
	}{
		{llm.Config{MaxTokens: -1}, "HONE_LLM_MAX_TOKENS"},
		{llm.Config{PurposeMaxTokens: map[string]int{llm.PurposeFollowUp: 0}}, "HONE_LLM_MAX_TOKENS_FOLLOW_UP"},
	} {
		cfg := tt.cfg
		cfg.BaseURL, cfg.Model = base.BaseURL, base.Model
		if _, err := llm.New(cfg, nil); hone.ErrorField(err) != tt.field {
			t.Errorf("New(%+v) = %v, want an error naming %s", tt.cfg, err, tt.field)
		}
	}
	c := llmtest.New(t).Client(nil)
	for _, req := range []llm.Request{
		{Purpose: llm.PurposeChat, MaxTokens: llm.Int(0), Messages: []llm.Message{{Role: llm.RoleUser, Content: "x"}}},
		{Purpose: llm.PurposeChat, Params: map[string]any{"max_completion_tokens": 5}, Messages: []llm.Message{{Role: llm.RoleUser, Content: "x"}}},
		{Purpose: llm.PurposeChat, Params: map[string]any{"max_tokens": 5}, Messages: []llm.Message{{Role: llm.RoleUser, Content: "x"}}},
	} {
		if _, err := c.Complete(context.Background(), req); hone.ErrorCode(err) != hone.EINVALID {
			t.Errorf("Complete(MaxTokens %v, Params %v) = %v, want EINVALID", req.MaxTokens, req.Params, err)
		}
	}
}

func TestCutOffTypedAnswerIsAnError(t *testing.T) {
	srv := llmtest.New(t)
	rec := &llmtest.MemoryRecorder{}
	c, _ := llm.New(srv.Config(), rec)
	srv.Push(llmtest.Reply{Content: `{"score":4,"reason":"the answer is cl`, FinishReason: "length"}, llmtest.Text(goodVerdict))
	_, resp, err := llm.Generate[verdict](context.Background(), c, judgeRequest())
	var oe *llm.OutputError
	if !errors.As(err, &oe) || oe.Purpose != llm.PurposeJudge || oe.MaxTokens != 1024 || !strings.HasPrefix(oe.Raw, `{"score":4`) {
		t.Fatalf("err = %#v, want a cut-off *OutputError for judge at 1024", err)
	}
	msg := hone.ErrorMessage(err)
	for _, want := range []string{"for judge", "cut off", "1024 tokens", "HONE_LLM_MAX_TOKENS_JUDGE"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if hone.ErrorCode(err) != hone.EUNAVAILABLE || resp == nil || !resp.CutOff() {
		t.Errorf("code %q, resp %+v", hone.ErrorCode(err), resp)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests, want 1: a cut-off answer gets no repair", n)
	}
	calls := rec.Calls()
	if len(calls) != 1 || !strings.Contains(calls[0].Error, "cut off at 1024 tokens") || calls[0].Response == nil ||
		calls[0].Response.FinishReason != "length" || *calls[0].Request.MaxTokens != 1024 {
		t.Errorf("recorded %+v", calls)
	}
}

func TestCutOffAnswerOfEveryPurposeButChat(t *testing.T) {
	srv := llmtest.New(t)
	rec := &llmtest.MemoryRecorder{}
	cfg := srv.Config()
	cfg.MaxTokens = 3
	c, _ := llm.New(cfg, rec)
	for _, p := range llm.Purposes {
		req := purposeRequest(p)
		req.Messages[1].Content = "one two three four five"
		resp, err := c.Complete(context.Background(), req)
		if resp == nil || resp.Content != "one two three" || !resp.CutOff() {
			t.Fatalf("%s: the fake did not cut the answer to its bound: %+v", p, resp)
		}
		if p == llm.PurposeChat {
			if err != nil {
				t.Errorf("chat: %v, want the cut-off answer", err)
			}
			continue
		}
		var oe *llm.OutputError
		if !errors.As(err, &oe) || oe.Purpose != p || !strings.Contains(hone.ErrorMessage(err), "for "+p+" was cut off at its limit of 3 tokens") ||
			!strings.Contains(hone.ErrorMessage(err), llm.MaxTokensVariable(p)) {
			t.Errorf("%s: err = %v", p, err)
		}
	}
	if calls := rec.Calls(); calls[0].Error != "" || calls[1].Error == "" {
		t.Errorf("recorded errors: chat %q, follow-up %q", calls[0].Error, calls[1].Error)
	}
	req := purposeRequest(llm.PurposeChat)
	req.Messages[1].Content = "one two three four five"
	var deltas []string
	resp, err := c.Stream(context.Background(), req, func(d string) { deltas = append(deltas, d) })
	if err != nil || !resp.CutOff() || strings.Join(deltas, "") != "one two three" {
		t.Errorf("streamed chat: %+v %v, deltas %q", resp, err, deltas)
	}
	req.MaxTokens = llm.Int(2)
	req.Purpose = llm.PurposeFollowUp
	if _, err := c.Complete(context.Background(), req); strings.Contains(hone.ErrorMessage(err), "HONE_LLM") || !strings.Contains(hone.ErrorMessage(err), "2 tokens") {
		t.Errorf("a bound set in code names no variable: %v", err)
	}
}

func TestBoundGoesToOpenAIAsMaxCompletionTokens(t *testing.T) {
	for url, want := range map[string]bool{
		"https://api.openai.com/v1":                            true,
		"https://API.OpenAI.com/v1":                            true,
		"https://my-res.openai.azure.com/openai/v1":            true,
		"https://my-res.cognitiveservices.azure.com/openai/v1": true,
		"https://my-res.services.ai.azure.com/openai/v1":       true,
		"http://localhost:11434/v1":                            false,
		"http://127.0.0.1:8080/v1":                             false,
		"https://api.openai.com.evil.example/v1":               false,
		"https://dbc-1.cloud.databricks.com/serving-endpoints": false,
		"https://openrouter.ai/api/v1":                         false,
	} {
		if got := llm.ReadsMaxCompletionTokens(url); got != want {
			t.Errorf("%s: max_completion_tokens = %v, want %v", url, got, want)
		}
	}
	srv := llmtest.New(t)
	rec := &llmtest.MemoryRecorder{}
	c, _ := llm.New(srv.Config(), rec)
	llm.UseMaxCompletionTokens(c)
	if _, err := c.Complete(context.Background(), purposeRequest(llm.PurposeAnalysis)); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[0]
	if r.MaxTokens != nil || r.MaxCompletionTokens == nil || *r.MaxCompletionTokens != 8192 {
		t.Errorf("sent max_tokens %v, max_completion_tokens %v", r.MaxTokens, r.MaxCompletionTokens)
	}
	if call := rec.Calls()[0]; call.Request.MaxTokens != nil || call.Request.Params["max_completion_tokens"] != 8192 {
		t.Errorf("recorded %+v", call.Request)
	}
}

func TestRefusedBoundFieldSwitchesToTheOther(t *testing.T) {
	for _, tt := range []struct {
		refused    string
		completion bool
	}{{"max_tokens", false}, {"max_completion_tokens", true}} {
		t.Run(tt.refused, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.WithRefusedParam(tt.refused))
			rec := &llmtest.MemoryRecorder{}
			c, _ := llm.New(srv.Config(), rec)
			if tt.completion {
				llm.UseMaxCompletionTokens(c)
			}
			for range 2 {
				if resp, err := c.Complete(context.Background(), purposeRequest(llm.PurposeFollowUp)); err != nil || resp.Content != "x" {
					t.Fatalf("%+v %v", resp, err)
				}
			}
			reqs := srv.Requests()
			if len(reqs) != 3 {
				t.Fatalf("%d requests, want 3: the refused one, its retry, and the next call", len(reqs))
			}
			for i, r := range reqs {
				_, sent := r.Body[tt.refused]
				if (i == 0) != sent || r.Bound() != 1024 || (r.MaxTokens != nil) == (r.MaxCompletionTokens != nil) {
					t.Errorf("request %d: max_tokens %v, max_completion_tokens %v", i, r.MaxTokens, r.MaxCompletionTokens)
				}
			}
			if calls := rec.Calls(); len(calls) != 2 || calls[0].Error != "" {
				t.Errorf("recorded %+v", calls)
			}
		})
	}
}

func TestBoundTooLargeNamesTheSetting(t *testing.T) {
	srv := llmtest.New(t)
	c := srv.Client(nil)
	srv.Push(llmtest.Error(400, "'max_tokens' or 'max_completion_tokens' is too large: 8192. This model's maximum context length is 4096 tokens and your request has 1200 input tokens (8192 > 4096 - 1200)."))
	_, err := c.Complete(context.Background(), purposeRequest(llm.PurposeAnalysis))
	msg := hone.ErrorMessage(err)
	if !strings.Contains(msg, "too large: 8192") || !strings.Contains(msg, "at most 8192 tokens") || !strings.Contains(msg, "HONE_LLM_MAX_TOKENS_ANALYSIS") {
		t.Errorf("message %q", msg)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests: a bound too large is no refused field", n)
	}
	srv.Push(llmtest.Error(400, "Invalid value for 'temperature'."))
	_, err = c.Complete(context.Background(), purposeRequest(llm.PurposeAnalysis))
	if strings.Contains(hone.ErrorMessage(err), "HONE_LLM_MAX_TOKENS") {
		t.Errorf("an unrelated 400 points at the bound: %v", err)
	}
}
