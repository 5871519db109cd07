package llmtest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/honehq/hone/internal/llm/llmtest"
)

func post(t *testing.T, url, body string, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	for k, v := range header {
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

func TestServerProtocol(t *testing.T) {
	srv := llmtest.New(t)
	if !strings.HasSuffix(srv.URL, "/v1") {
		t.Fatalf("URL = %q", srv.URL)
	}
	base := strings.TrimSuffix(srv.URL, "/v1")
	body := `{"model":"m1","messages":[{"role":"user","content":[{"type":"text","text":"hi you"}]}],"temperature":0.5,"response_format":{"type":"json_object"}}`
	for _, url := range []string{srv.URL + "/chat/completions", base + "/chat/completions"} {
		res, out := post(t, url, body, nil)
		var comp struct {
			Object  string `json:"object"`
			Model   string `json:"model"`
			Choices []struct {
				Message      struct{ Role, Content string }
				FinishReason string `json:"finish_reason"`
			} `json:"choices"`
			Usage struct {
				TotalTokens int `json:"total_tokens"`
			} `json:"usage"`
		}
		if err := json.Unmarshal([]byte(out), &comp); err != nil || res.StatusCode != 200 {
			t.Fatalf("%s: %d %s", url, res.StatusCode, out)
		}
		if comp.Object != "chat.completion" || comp.Model != "m1" || comp.Choices[0].Message.Content != "hi you" || comp.Choices[0].FinishReason != "stop" || comp.Usage.TotalTokens == 0 {
			t.Errorf("%s: %s", url, out)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].ResponseFormat.Type != "json_object" || *reqs[0].Temperature != 0.5 || reqs[0].LastUserMessage() != "hi you" {
		t.Errorf("requests = %+v", reqs)
	}
}

func TestServerStreaming(t *testing.T) {
	srv := llmtest.New(t)
	srv.Push(llmtest.Reply{Content: "a b", FinishReason: "length"})
	res, out := post(t, srv.URL+"/chat/completions", `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"x"}]}`, nil)
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type = %q", ct)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n\n")
	if lines[len(lines)-1] != "data: [DONE]" {
		t.Errorf("last event = %q", lines[len(lines)-1])
	}
	var content, finish string
	var total int
	for _, l := range lines[:len(lines)-1] {
		var chunk struct {
			Object  string `json:"object"`
			Choices []struct {
				Delta        struct{ Content string }
				FinishReason *string `json:"finish_reason"`
			}
			Usage *struct {
				TotalTokens int `json:"total_tokens"`
			}
		}
		if err := json.Unmarshal([]byte(strings.TrimPrefix(l, "data: ")), &chunk); err != nil || chunk.Object != "chat.completion.chunk" {
			t.Fatalf("bad event %q: %v", l, err)
		}
		for _, c := range chunk.Choices {
			content += c.Delta.Content
			if c.FinishReason != nil {
				finish = *c.FinishReason
			}
		}
		if chunk.Usage != nil {
			total = chunk.Usage.TotalTokens
		}
	}
	if content != "a b" || finish != "length" || total == 0 {
		t.Errorf("content %q finish %q total %d", content, finish, total)
	}
}

func TestServerScriptedErrors(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithAPIKey("k"))
	auth := map[string]string{"Authorization": "Bearer k"}
	msg := `{"model":"m","messages":[{"role":"user","content":"x"}]}`
	if res, _ := post(t, srv.URL+"/chat/completions", msg, nil); res.StatusCode != 401 {
		t.Errorf("no key: %d", res.StatusCode)
	}
	srv.Push(llmtest.RateLimited("0"), llmtest.Reply{Status: 500}, llmtest.Text(`{"broken":`))
	res, body := post(t, srv.URL+"/chat/completions", msg, auth)
	if res.StatusCode != 429 || res.Header.Get("Retry-After") != "0" || !strings.Contains(body, `"error"`) {
		t.Errorf("429: %d %v %s", res.StatusCode, res.Header, body)
	}
	if res, _ := post(t, srv.URL+"/chat/completions", msg, auth); res.StatusCode != 500 {
		t.Errorf("500: %d", res.StatusCode)
	}
	if _, body := post(t, srv.URL+"/chat/completions", msg, auth); !strings.Contains(body, `{\"broken\":`) {
		t.Errorf("malformed content: %s", body)
	}
	if res, _ := post(t, srv.URL+"/nope", msg, auth); res.StatusCode != 404 {
		t.Errorf("unknown path: %d", res.StatusCode)
	}
	if srv.Pending() != 0 {
		t.Errorf("pending = %d", srv.Pending())
	}
	srv.SetHandler(func(llmtest.ChatRequest) llmtest.Reply { return llmtest.Text("fixed") })
	if _, body := post(t, srv.URL+"/chat/completions", msg, auth); !strings.Contains(body, `"fixed"`) {
		t.Errorf("handler: %s", body)
	}
}

func TestServerBound(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithRefusedParam("max_tokens"))
	chat := func(body string) (int, string) {
		res, out := post(t, srv.URL+"/chat/completions", body, nil)
		return res.StatusCode, out
	}
	if code, out := chat(`{"model":"m","max_tokens":3,"max_completion_tokens":3,"messages":[{"role":"user","content":"x"}]}`); code != 400 || !strings.Contains(out, "at the same time") {
		t.Errorf("both fields: %d %s", code, out)
	}
	if code, out := chat(`{"model":"m","max_tokens":3,"messages":[{"role":"user","content":"x"}]}`); code != 400 || !strings.Contains(out, "Use 'max_completion_tokens' instead") {
		t.Errorf("refused max_tokens: %d %s", code, out)
	}
	srv.Push(llmtest.Text("one two three four"), llmtest.Reply{Content: "one two three four", FinishReason: "stop"})
	for _, want := range []struct{ content, finish string }{{"one two three", "length"}, {"one two three four", "stop"}} {
		code, out := chat(`{"model":"m","max_completion_tokens":3,"messages":[{"role":"user","content":"x"}]}`)
		if code != 200 || !strings.Contains(out, `"content":"`+want.content+`"`) || !strings.Contains(out, `"finish_reason":"`+want.finish+`"`) {
			t.Errorf("want %q %s: %d %s", want.content, want.finish, code, out)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 4 || reqs[0].Bound() != 3 || reqs[2].Bound() != 3 || reqs[2].MaxTokens != nil || srv.Pending() != 0 {
		t.Errorf("requests %+v, pending %d", reqs, srv.Pending())
	}
}

func TestServerWithoutRequestLog(t *testing.T) {
	body := `{"model":"fake-model","messages":[{"role":"user","content":"hello"}]}`
	for _, c := range []struct {
		name string
		opts []llmtest.Option
		kept int
	}{{"logged", nil, 1}, {"not logged", []llmtest.Option{llmtest.WithoutRequestLog()}, 0}} {
		t.Run(c.name, func(t *testing.T) {
			srv := llmtest.Start(c.opts...)
			defer srv.Close()
			res, out := post(t, srv.URL+"/chat/completions", body, nil)
			if res.StatusCode != http.StatusOK || !strings.Contains(out, "hello") {
				t.Fatalf("%d %s", res.StatusCode, out)
			}
			if got := len(srv.Requests()); got != c.kept {
				t.Errorf("Requests() holds %d requests, want %d", got, c.kept)
			}
		})
	}
}
