package app_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/honehq/hone/internal/app"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/config"
	"github.com/honehq/hone/internal/llm/llmtest"
	recording "github.com/honehq/hone/internal/proxy"
	"github.com/honehq/hone/internal/scoring"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// startProxy serves hone as a recording proxy to upstream with cfg.
func startProxy(t *testing.T, upstream string, cfg config.Config) *app.App {
	t.Helper()
	t.Setenv("HONE_UPSTREAM_URL", upstream)
	return startWith(t, cfg)
}

// proxiedTurn waits until the turn id of the conversation is recorded and
// returns it.
func proxiedTurn(t *testing.T, a *app.App, conversation, id string) *capture.Turn {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if s, err := a.DB.Capture().CurrentSession(ctx, conversation); err == nil {
			turns, err := a.DB.Capture().RecentTurns(ctx, s.ID, 1000)
			if err != nil {
				t.Fatal(err)
			}
			for _, turn := range turns {
				if turn.ID == id {
					return turn
				}
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("turn %s of %s was not recorded", id, conversation)
	return nil
}

// sdkUpstream is what the SDK tests run against: the in-process fake, and
// the real server HONE_TEST_LLM_BASE_URL names when it is set.
type sdkUpstream struct {
	name, url, key, model string
	fake                  *llmtest.Server
}

func sdkUpstreams(t *testing.T) []sdkUpstream {
	fake := llmtest.New(t)
	out := []sdkUpstream{{name: "fake", url: fake.URL, model: "fake-model", fake: fake}}
	if u := os.Getenv("HONE_TEST_LLM_BASE_URL"); u != "" {
		out = append(out, sdkUpstream{name: "real", url: u, key: os.Getenv("HONE_TEST_LLM_API_KEY"), model: os.Getenv("HONE_TEST_LLM_MODEL")})
	}
	return out
}

func TestProxyWithGoSDK(t *testing.T) {
	for _, up := range sdkUpstreams(t) {
		t.Run(up.name, func(t *testing.T) {
			a := startProxy(t, up.url, config.Config{})
			ctx := context.Background()
			client := openai.NewClient(option.WithBaseURL(a.URL()+"/v1"), option.WithAPIKey(up.key), option.WithMaxRetries(0),
				option.WithHeader(recording.HeaderConversation, "go-sdk-"+up.name), option.WithHeader(recording.HeaderTester, "meg"))
			params := openai.ChatCompletionNewParams{Model: up.model, Messages: []openai.ChatCompletionMessageParamUnion{
				openai.SystemMessage("You are ERA, an HR assistant. Answer in one short sentence."),
				openai.UserMessage("How do I process a resignation?")}}

			var res *http.Response
			comp, err := client.Chat.Completions.New(ctx, params, option.WithResponseInto(&res))
			if err != nil {
				t.Fatal(err)
			}
			answer := comp.Choices[0].Message.Content
			if answer == "" || (up.fake != nil && answer != "How do I process a resignation?") {
				t.Fatalf("answer %q", answer)
			}
			turn := proxiedTurn(t, a, "go-sdk-"+up.name, res.Header.Get(recording.HeaderTurnID))
			if turn.Source != capture.SourceProxy || turn.Response != answer || turn.UserMessage != "How do I process a resignation?" ||
				turn.Usage == nil || turn.Usage.TotalTokens != comp.Usage.TotalTokens || turn.Model != comp.Model || turn.LatencyMS == nil {
				t.Fatalf("recorded %+v", turn)
			}

			stream := client.Chat.Completions.NewStreaming(ctx, params, option.WithResponseInto(&res))
			var acc openai.ChatCompletionAccumulator
			chunks := 0
			for stream.Next() {
				acc.AddChunk(stream.Current())
				chunks++
			}
			if err := stream.Err(); err != nil {
				t.Fatal(err)
			}
			streamed := acc.Choices[0].Message.Content
			if streamed == "" || chunks < 2 || acc.Usage.TotalTokens != 0 {
				t.Fatalf("streamed %q in %d chunks, usage %+v (the caller did not ask for it)", streamed, chunks, acc.Usage)
			}
			turn = proxiedTurn(t, a, "go-sdk-"+up.name, res.Header.Get(recording.HeaderTurnID))
			var meta map[string]any
			_ = json.Unmarshal(turn.Metadata, &meta)
			if turn.Response != streamed || turn.Usage == nil || turn.Usage.CompletionTokens == 0 || meta["ttft_ms"] == nil || meta["stream"] != true {
				t.Fatalf("recorded %+v %s", turn, turn.Metadata)
			}

			params.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
			stream = client.Chat.Completions.NewStreaming(ctx, params, option.WithResponseInto(&res))
			acc = openai.ChatCompletionAccumulator{}
			for stream.Next() {
				acc.AddChunk(stream.Current())
			}
			if err := stream.Err(); err != nil || acc.Usage.TotalTokens == 0 {
				t.Fatalf("asked for usage: %+v %v", acc.Usage, err)
			}
			turn = proxiedTurn(t, a, "go-sdk-"+up.name, res.Header.Get(recording.HeaderTurnID))
			if turn.Usage == nil || turn.Usage.TotalTokens != acc.Usage.TotalTokens {
				t.Fatalf("recorded usage %+v, the caller got %+v", turn.Usage, acc.Usage)
			}

			// A chat command is answered by hone, streamed or not, and
			// scores the turn just recorded.
			calls := 0
			if up.fake != nil {
				calls = len(up.fake.Requests())
			}
			params.StreamOptions = openai.ChatCompletionStreamOptionsParam{}
			params.Messages = append(params.Messages, openai.AssistantMessage(streamed), openai.UserMessage("!score empathy:4"))
			comp, err = client.Chat.Completions.New(ctx, params)
			if err != nil || !strings.HasPrefix(comp.Choices[0].Message.Content, scoring.ScoredText) {
				t.Fatalf("!score: %+v %v", comp, err)
			}
			params.Messages[len(params.Messages)-1] = openai.UserMessage("👍")
			stream = client.Chat.Completions.NewStreaming(ctx, params)
			acc = openai.ChatCompletionAccumulator{}
			for stream.Next() {
				acc.AddChunk(stream.Current())
			}
			if err := stream.Err(); err != nil || acc.Choices[0].Message.Content != recording.AckText {
				t.Fatalf("👍 streamed: %+v %v", acc.Choices, err)
			}
			if up.fake != nil && len(up.fake.Requests()) != calls {
				t.Fatal("a chat command reached the upstream")
			}
			got := call(t, "GET", a.URL()+"/api/v1/scores?turn_id="+turn.ID, nil)
			if !strings.Contains(got.raw, `"empathy"`) || !strings.Contains(got.raw, `"thumbs"`) {
				t.Fatalf("the score and the 👍 did not reach the turn: %s", got.raw)
			}
		})
	}
}

func TestProxyMetricsAndSettings(t *testing.T) {
	fake := llmtest.New(t)
	a := startProxy(t, fake.URL, config.Config{})
	do := call(t, "POST", a.URL()+"/v1/chat/completions", map[string]any{"model": "m",
		"messages": []map[string]string{{"role": "user", "content": "hi"}}})
	if do.status != http.StatusOK || conversationOf(t, a, do.header.Get(recording.HeaderTurnID)) == "" {
		t.Fatalf("%d %s", do.status, do.raw)
	}
	series, _ := scrape(t, a.URL(), "")
	for _, name := range []string{`hone_proxy_turns_dropped_total{reason="queue_full"}`, `hone_proxy_turns_dropped_total{reason="store"}`,
		`hone_proxy_queue_turns{}`} {
		if _, ok := series[name]; !ok {
			t.Errorf("the metrics lack %s", name)
		}
	}
	if series[`hone_turns_recorded_total{source="proxy"}`] != 1 {
		t.Errorf("proxy turns recorded: %v", series[`hone_turns_recorded_total{source="proxy"}`])
	}

	for _, c := range []struct{ env, value, field string }{
		{"HONE_UPSTREAM_URL", "ftp://example.com", "HONE_UPSTREAM_URL"},
		{"HONE_PROXY_QUEUE", "-3", "HONE_PROXY_QUEUE"},
	} {
		t.Setenv("HONE_UPSTREAM_URL", fake.URL)
		t.Setenv(c.env, c.value)
		_, err := app.Open(context.Background(), config.Config{DataDir: t.TempDir(), MaxBodyBytes: 1 << 20, MessageLimit: 1 << 10}, nil)
		if err == nil || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s=%s: %v", c.env, c.value, err)
		}
		t.Setenv("HONE_PROXY_QUEUE", "")
	}
}

// conversationOf finds the conversation a recorded turn id belongs to.
func conversationOf(t *testing.T, a *app.App, id string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		sessions, err := a.DB.Capture().ListSessions(context.Background(), capture.SessionFilter{})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range sessions {
			turns, _ := a.DB.Capture().RecentTurns(context.Background(), s.ID, 1000)
			for _, turn := range turns {
				if turn.ID == id {
					return s.ConversationID
				}
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("turn %s was not recorded", id)
	return ""
}

// TestProxyRefusesOtherHostsWithoutToken: without HONE_API_TOKEN, a page
// of another site that had its name resolve to hone (DNS rebinding) cannot
// spend the upstream key through the proxy.
func TestProxyRefusesOtherHostsWithoutToken(t *testing.T) {
	fake := llmtest.New(t)
	t.Setenv("HONE_UPSTREAM_API_KEY", "sk-upstream")
	a := startProxy(t, fake.URL, config.Config{})
	for _, host := range []string{"evil.example", ""} {
		req, _ := http.NewRequest("POST", a.URL()+"/v1/chat/completions",
			strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`))
		if host != "" {
			req.Host = host
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		want := http.StatusOK
		if host != "" {
			want = http.StatusForbidden
		}
		if res.StatusCode != want {
			t.Fatalf("Host %q: %d, want %d", host, res.StatusCode, want)
		}
	}
	if n := len(fake.Requests()); n != 1 {
		t.Fatalf("the upstream got %d calls, want the one from localhost", n)
	}
}
