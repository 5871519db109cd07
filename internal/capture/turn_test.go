package capture

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/honehq/hone"
)

func valid() TurnInput {
	return TurnInput{ConversationID: "c", TesterID: "meg", TesterEmail: "meg@example.com", UserMessage: "q", Response: "r"}
}

// The W3C trace context example's ids.
const (
	traceID  = "4bf92f3577b34da6a3ce929d0e0e4736"
	spanID   = "00f067aa0ba902b7"
	parentID = "53995c3f42cd8ad8"
)

// bigObject is a JSON object of n bytes.
func bigObject(n int) json.RawMessage {
	return json.RawMessage(`{"k":"` + strings.Repeat("x", n-len(`{"k":""}`)) + `"}`)
}

func TestTurnInputValidate(t *testing.T) {
	long := func(n int) string { return strings.Repeat("é", n) }
	num := func(f float64) *float64 { return &f }
	for _, tt := range []struct {
		name  string
		edit  func(*TurnInput)
		field string
	}{
		{"valid", func(*TurnInput) {}, ""},
		{"blank conversation", func(in *TurnInput) { in.ConversationID = " \t" }, "conversation_id"},
		{"conversation at the limit", func(in *TurnInput) { in.ConversationID = long(MaxIDLength) }, ""},
		{"conversation over the limit", func(in *TurnInput) { in.ConversationID = long(MaxIDLength + 1) }, "conversation_id"},
		{"blank tester", func(in *TurnInput) { in.TesterID = "\n" }, "tester_id"},
		{"no email", func(in *TurnInput) { in.TesterEmail = "" }, ""},
		{"email without @", func(in *TurnInput) { in.TesterEmail = "meg" }, "tester_email"},
		{"email with two @", func(in *TurnInput) { in.TesterEmail = "a@b@c" }, "tester_email"},
		{"email with a space", func(in *TurnInput) { in.TesterEmail = "meg @example.com" }, "tester_email"},
		{"email without domain", func(in *TurnInput) { in.TesterEmail = "meg@" }, "tester_email"},
		{"local email", func(in *TurnInput) { in.TesterEmail = "meg@localhost" }, ""},
		{"blank message", func(in *TurnInput) { in.UserMessage = "   " }, "user_message"},
		{"message at the limit in characters", func(in *TurnInput) { in.UserMessage = long(MaxTextLength) }, ""},
		{"message over the limit", func(in *TurnInput) { in.UserMessage = long(MaxTextLength + 1) }, "user_message"},
		{"blank response", func(in *TurnInput) { in.Response = "" }, "response"},
		{"response over the limit", func(in *TurnInput) { in.Response = long(MaxTextLength + 1) }, "response"},
		{"version over the limit", func(in *TurnInput) { in.PromptVersion = long(MaxIDLength + 1) }, "prompt_version"},
		{"branch over the limit", func(in *TurnInput) { in.Branch = long(MaxIDLength + 1) }, "branch"},
		{"similarity above 1", func(in *TurnInput) { in.AvgSimilarity = num(1.5) }, "avg_similarity"},
		{"similarity of 1", func(in *TurnInput) { in.AvgSimilarity = num(1) }, ""},
		{"negative time", func(in *TurnInput) { in.ProcessingTimeMS = num(-1) }, "processing_time_ms"},
		{"search results not JSON", func(in *TurnInput) { in.SearchResults = json.RawMessage(`{`) }, "search_results"},
		{"metadata not an object", func(in *TurnInput) { in.Metadata = json.RawMessage(`[1]`) }, "metadata"},
		{"client id", func(in *TurnInput) { in.ID = "app-42:turn.7_a" }, ""},
		{"client id with a slash", func(in *TurnInput) { in.ID = "a/b" }, "id"},
		{"client id starting with a dot", func(in *TurnInput) { in.ID = ".a" }, "id"},
		{"client id too long", func(in *TurnInput) { in.ID = strings.Repeat("a", MaxTurnIDLength+1) }, "id"},
		{"no tester: anonymous", func(in *TurnInput) { in.TesterID = "" }, ""},
		{"no tester, blank conversation", func(in *TurnInput) { in.TesterID, in.ConversationID = "", " " }, "conversation_id"},
		{"metadata at the bound", func(in *TurnInput) { in.Metadata = bigObject(MaxMetadataBytes) }, ""},
		{"metadata over the bound", func(in *TurnInput) { in.Metadata = bigObject(MaxMetadataBytes + 1) }, "metadata"},
		{"model", func(in *TurnInput) { in.Model = "gpt-4o-mini" }, ""},
		{"model over the limit", func(in *TurnInput) { in.Model = long(MaxIDLength + 1) }, "model"},
		{"negative latency", func(in *TurnInput) { in.LatencyMS = num(-0.5) }, "latency_ms"},
		{"latency", func(in *TurnInput) { in.LatencyMS = num(812.5) }, ""},
		{"negative usage made in Go", func(in *TurnInput) { in.Usage = &Usage{PromptTokens: -1} }, "usage.prompt_tokens"},
		{"usage over the bound made in Go", func(in *TurnInput) { in.Usage = &Usage{TotalTokens: MaxTokens + 1} }, "usage.total_tokens"},
		{"every source", func(in *TurnInput) { in.Source = SourceImport }, ""},
		{"unknown source", func(in *TurnInput) { in.Source = "web" }, "source"},
		{"source in capitals", func(in *TurnInput) { in.Source = "API" }, "source"},
		{"trace context", func(in *TurnInput) { in.TraceID, in.SpanID, in.ParentID = traceID, spanID, parentID }, ""},
		{"trace id alone", func(in *TurnInput) { in.TraceID = traceID }, ""},
		{"trace id in capitals", func(in *TurnInput) { in.TraceID = strings.ToUpper(traceID) }, "trace_id"},
		{"trace id all zero", func(in *TurnInput) { in.TraceID = strings.Repeat("0", 32) }, "trace_id"},
		{"trace id too short", func(in *TurnInput) { in.TraceID = traceID[1:] }, "trace_id"},
		{"trace id too long", func(in *TurnInput) { in.TraceID = traceID + "a" }, "trace_id"},
		{"span id all zero", func(in *TurnInput) { in.TraceID, in.SpanID = traceID, strings.Repeat("0", 16) }, "span_id"},
		{"span id of a trace's length", func(in *TurnInput) { in.TraceID, in.SpanID = traceID, traceID }, "span_id"},
		{"span id not hex", func(in *TurnInput) { in.TraceID, in.SpanID = traceID, "00f067aa0ba902bg" }, "span_id"},
		{"parent id all zero", func(in *TurnInput) { in.TraceID, in.ParentID = traceID, strings.Repeat("0", 16) }, "parent_id"},
		{"span id without trace", func(in *TurnInput) { in.SpanID = spanID }, "trace_id"},
		{"parent id without trace", func(in *TurnInput) { in.ParentID = parentID }, "trace_id"},
	} {
		in := valid()
		tt.edit(&in)
		in.Clean()
		err := in.Validate()
		if tt.field == "" && err != nil || tt.field != "" && (hone.ErrorCode(err) != hone.EINVALID || hone.ErrorField(err) != tt.field) {
			t.Errorf("%s: err = %v, want field %q", tt.name, err, tt.field)
		}
		if err != nil && tt.field != "metadata" && strings.Contains(hone.ErrorMessage(err), "bytes") {
			t.Errorf("%s: a limit counted in bytes: %v", tt.name, err)
		}
	}
}

func TestTurnInputClean(t *testing.T) {
	in := valid()
	in.UserMessage, in.Response = "nul\x00inside", "broken \xff utf-8"
	in.Metadata, in.SearchResults = json.RawMessage(`{"k":"a\u0000b"}`), json.RawMessage("null")
	in.Clean()
	if in.UserMessage != "nul\uFFFDinside" || in.Response != "broken \uFFFD utf-8" ||
		string(in.Metadata) != `{"k":"a\ufffdb"}` || in.SearchResults != nil {
		t.Fatalf("cleaned %+v", in)
	}
	if err := in.Validate(); err != nil {
		t.Fatal(err)
	}
}
