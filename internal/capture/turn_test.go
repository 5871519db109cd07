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
	} {
		in := valid()
		tt.edit(&in)
		in.Clean()
		err := in.Validate()
		if tt.field == "" && err != nil || tt.field != "" && (hone.ErrorCode(err) != hone.EINVALID || hone.ErrorField(err) != tt.field) {
			t.Errorf("%s: err = %v, want field %q", tt.name, err, tt.field)
		}
		if err != nil && strings.Contains(hone.ErrorMessage(err), "bytes") {
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
