package proxy_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/honehq/hone/internal/llm/llmtest"
	"github.com/honehq/hone/internal/proxy"
)

// responsesUpstream answers the Responses API: whole, or streamed as its
// events.
func responsesUpstream(t *testing.T) string {
	t.Helper()
	const response = `{"id":"resp_1","object":"response","model":"gpt-x","status":"completed","output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Write to HR."}]}],"usage":{"input_tokens":9,"output_tokens":3,"total_tokens":12}}`
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/responses" {
			http.NotFound(w, r)
			return
		}
		b, _ := io.ReadAll(r.Body)
		if !strings.Contains(string(b), `"stream":true`) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, response)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for _, e := range [][2]string{
			{"response.created", `{"type":"response.created","response":{"id":"resp_1","status":"in_progress","output":[]}}`},
			{"response.output_text.delta", `{"type":"response.output_text.delta","delta":"Write "}`},
			{"response.output_text.delta", `{"type":"response.output_text.delta","delta":"to HR."}`},
			{"response.completed", `{"type":"response.completed","response":` + response + `}`},
		} {
			io.WriteString(w, "event: "+e[0]+"\ndata: "+e[1]+"\n\n")
		}
	}))
	t.Cleanup(up.Close)
	return up.URL + "/v1"
}

func TestResponsesForwardedAndRecorded(t *testing.T) {
	rec := &turns{}
	base, _ := serve(t, responsesUpstream(t), rec, proxy.Options{})
	for _, c := range []struct {
		name, body string
	}{
		{"whole", `{"model":"gpt-x","instructions":"You are ERA.","input":"How do I resign?"}`},
		{"streamed", `{"model":"gpt-x","stream":true,"instructions":"You are ERA.","input":[{"role":"user","content":[{"type":"input_text","text":"How do I resign?"}]}]}`},
	} {
		res, body := do(t, "POST", base+"/responses", c.body, nil)
		if res.StatusCode != 200 || !strings.Contains(body, "resp_1") {
			t.Fatalf("%s: %d %s", c.name, res.StatusCode, body)
		}
		in := rec.wait(t, res.Header.Get(proxy.HeaderTurnID))
		m := meta(t, in)
		if len(in.Messages) != 3 || in.Messages[0].Text() != "You are ERA." || in.Messages[1].Text() != "How do I resign?" ||
			in.Messages[2].Text() != "Write to HR." || in.Model != "gpt-x" || in.Usage == nil || in.Usage.TotalTokens != 12 ||
			m["endpoint"] != "responses" || m["failed"] != nil || m["response_id"] != "resp_1" {
			t.Fatalf("%s: recorded %+v %v", c.name, in, m)
		}
		if err := in.Validate(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
	}
}

func TestResponsesNotRecordedWhereTheUpstreamLacksThem(t *testing.T) {
	fake := llmtest.New(t)
	rec := &turns{}
	base, _ := serve(t, fake.URL, rec, proxy.Options{})
	res, body := do(t, "POST", base+"/responses", `{"model":"m","input":"hi"}`, nil)
	if res.StatusCode != http.StatusNotFound || !strings.Contains(body, "Unknown request URL") || res.Header.Get(proxy.HeaderTurnID) != "" {
		t.Fatalf("%d %q %s", res.StatusCode, res.Header.Get(proxy.HeaderTurnID), body)
	}
	res, _ = do(t, "POST", base+"/chat/completions", chatBody, nil)
	rec.wait(t, res.Header.Get(proxy.HeaderTurnID))
	if rec.count() != 1 {
		t.Fatalf("recorded %d turns, want only the chat completion", rec.count())
	}
}
