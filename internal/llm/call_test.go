package llm_test

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/honehq/hone/internal/llm"
	"github.com/honehq/hone/internal/llm/llmtest"
)

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func TestCallsRecorded(t *testing.T) {
	srv := llmtest.New(t)
	rec := &llmtest.MemoryRecorder{}
	c, _ := llm.New(srv.Config(), rec)
	req := userRequest("hello")
	req.Temperature = llm.Float64(0.7)
	req.MaxTokens = llm.Int(256)
	req.TopP = llm.Float64(1)
	req.Params = map[string]any{"seed": 3}
	resp, err := c.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Stream(context.Background(), userRequest("streamed"), nil); err != nil {
		t.Fatal(err)
	}
	srv.Push(llmtest.Error(400, "nope"))
	if _, err := c.Complete(context.Background(), userRequest("fails")); err == nil {
		t.Fatal("no error")
	}

	calls := rec.Calls()
	if len(calls) != 3 {
		t.Fatalf("recorded %d calls, want 3", len(calls))
	}
	first := calls[0]
	if first.ID != resp.CallID || first.Purpose != llm.PurposeChat || first.CauseType != "turn" || first.CauseID != "t1" || first.CreatedAt.IsZero() || first.Error != "" {
		t.Errorf("call = %+v", first)
	}
	b, err := json.Marshal(first)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Request  map[string]any `json:"llm_request"`
		Response map[string]any `json:"llm_response"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if got, want := keys(doc.Request), []string{"max_tokens", "messages", "model", "seed", "temperature", "top_p"}; !reflect.DeepEqual(got, want) {
		t.Errorf("llm_request keys = %v, want %v", got, want)
	}
	if doc.Request["model"] != "fake-model" || doc.Request["temperature"] != 0.7 || doc.Request["max_tokens"] != float64(256) || doc.Request["top_p"] != float64(1) || doc.Request["seed"] != float64(3) {
		t.Errorf("llm_request = %v", doc.Request)
	}
	msgs, _ := doc.Request["messages"].([]any)
	if len(msgs) != 2 || !reflect.DeepEqual(keys(msgs[1].(map[string]any)), []string{"content", "role"}) || msgs[1].(map[string]any)["content"] != "hello" {
		t.Errorf("llm_request.messages = %v", msgs)
	}
	if got, want := keys(doc.Response), []string{"finish_reason", "latency_ms", "model", "raw_content", "usage"}; !reflect.DeepEqual(got, want) {
		t.Errorf("llm_response keys = %v, want %v", got, want)
	}
	usage, _ := doc.Response["usage"].(map[string]any)
	if got, want := keys(usage), []string{"completion_tokens", "prompt_tokens", "total_tokens"}; !reflect.DeepEqual(got, want) {
		t.Errorf("usage keys = %v, want %v", got, want)
	}
	if doc.Response["raw_content"] != "hello" || doc.Response["finish_reason"] != "stop" || doc.Response["latency_ms"].(float64) <= 0 {
		t.Errorf("llm_response = %v", doc.Response)
	}

	if s := calls[1]; s.Response == nil || s.Response.RawContent != "streamed" || s.Response.Usage.TotalTokens == 0 {
		t.Errorf("stream call = %+v", s)
	}
	if f := calls[2]; f.Response != nil || !strings.Contains(f.Error, "400") {
		t.Errorf("failed call = %+v", f)
	}

	var back llm.Call
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Request.Params["seed"] != float64(3) || *back.Request.Temperature != 0.7 || back.Response.RawContent != "hello" || back.ID != first.ID {
		t.Errorf("round trip = %+v", back)
	}

	list, _ := rec.ListCalls(context.Background(), llm.CallFilter{CauseID: "t1", Limit: 2})
	if len(list) != 2 || list[0].ID != calls[2].ID {
		t.Errorf("ListCalls = %d calls", len(list))
	}
}

func TestCallRequestOmitsUnsetParams(t *testing.T) {
	b, err := json.Marshal(llm.CallRequest{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"messages":[],"model":"m"}` {
		t.Errorf("json = %s", b)
	}
}

func BenchmarkComplete(b *testing.B) {
	srv := llmtest.New(b)
	c, _ := llm.New(srv.Config(), &llmtest.MemoryRecorder{})
	req := userRequest("hello")
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Complete(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}
