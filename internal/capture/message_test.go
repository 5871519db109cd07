package capture

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/honehq/hone"
)

// decodeTurn decodes body as the API does: unknown fields refused.
func decodeTurn(body string) (TurnInput, error) {
	var in TurnInput
	dec := json.NewDecoder(strings.NewReader(body))
	dec.DisallowUnknownFields()
	err := dec.Decode(&in)
	return in, err
}

// prepared decodes body as the API does (explaining an error inside
// messages), cleans, validates and completes it.
func prepared(body string) (TurnInput, error) {
	in, err := decodeTurn(body)
	if err != nil {
		return in, Explain([]byte(body), fieldError("", err))
	}
	in.Clean()
	if err := in.Validate(); err != nil {
		return in, err
	}
	in.Derive()
	return in, nil
}

func TestMessagesNameTheFieldThatIsWrong(t *testing.T) {
	turn := func(messages string) string {
		return `{"conversation_id":"c","user_message":"q","response":"r","messages":` + messages + `}`
	}
	user, tool := `{"role":"user","content":"q"}`, `{"role":"tool","tool_call_id":"call_1","content":"42"}`
	call := func(fn string) string {
		return `{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}},` +
			`{"id":"call_2","type":"function","function":` + fn + `}]}`
	}
	for _, tt := range []struct {
		name, messages, field string
	}{
		{"valid", "[" + user + "," + call(`{"name":"g","arguments":""}`) + "," + tool + "]", ""},
		{"null", "null", ""},
		{"empty", "[]", ""},
		{"not an array", `{"role":"user"}`, "messages"},
		{"a string", `"hi"`, "messages"},
		{"an element not an object", "[" + user + `,"x"]`, "messages[1]"},
		{"an element null", "[" + user + `,null]`, "messages[1].role"},
		{"role missing", `[{"content":"q"}]`, "messages[0].role"},
		{"role unknown", "[" + user + `,{"role":"bot","content":"a"}]`, "messages[1].role"},
		{"role in capitals", `[{"role":"User","content":"q"}]`, "messages[0].role"},
		{"role a number", "[" + user + "," + user + `,{"role":1}]`, "messages[2].role"},
		{"unknown field", "[" + user + `,{"role":"user","content":"q","colour":"blue"}]`, "messages[1].colour"},
		{"content a number", `[{"role":"user","content":5}]`, "messages[0].content"},
		{"content an object", `[{"role":"user","content":{"text":"q"}}]`, "messages[0].content"},
		{"content missing", `[{"role":"system"}]`, "messages[0].content"},
		{"content null in a tool message", `[{"role":"tool","tool_call_id":"c","content":null}]`, "messages[0].content"},
		{"assistant without content or tool calls", "[" + user + `,{"role":"assistant"}]`, "messages[1].content"},
		{"assistant with empty tool calls", "[" + user + `,{"role":"assistant","tool_calls":[]}]`, "messages[1].content"},
		{"empty text", `[{"role":"user","content":""}]`, ""},
		{"parts", `[{"role":"user","content":[{"type":"text","text":"q"},{"type":"image_url","image_url":{"url":"https://x/y.png"}}]}]`, ""},
		{"empty parts", `[{"role":"user","content":[]}]`, ""},
		{"a part not an object", `[{"role":"user","content":[{"type":"text","text":"q"},"x"]}]`, "messages[0].content[1]"},
		{"a part without type", `[{"role":"user","content":[{"text":"q"}]}]`, "messages[0].content[0].type"},
		{"a part of empty type", `[{"role":"user","content":[{"type":"","text":"q"}]}]`, "messages[0].content[0].type"},
		{"a part's type a number", `[{"role":"user","content":[{"type":1}]}]`, "messages[0].content[0].type"},
		{"a text part without text", "[" + user + `,{"role":"user","content":[{"type":"text"},{"type":"text"}]}]`, "messages[1].content[0].text"},
		{"a part's text a number", `[{"role":"user","content":[{"type":"image_url","text":5}]}]`, "messages[0].content[0].text"},
		{"tool calls on a user message", `[{"role":"user","content":"q","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":""}}]}]`, "messages[0].tool_calls"},
		{"tool calls not an array", `[{"role":"assistant","tool_calls":{}}]`, "messages[0].tool_calls"},
		{"a tool call's function missing its name", "[" + user + "," + call(`{"arguments":"{}"}`) + "]", "messages[1].tool_calls[1].function.name"},
		{"a tool call's function name a number", "[" + user + "," + call(`{"name":5,"arguments":"{}"}`) + "]", "messages[1].tool_calls[1].function.name"},
		{"a tool call's function with an unknown field", "[" + user + "," + call(`{"name":"g","arguments":"","x":1}`) + "]", "messages[1].tool_calls[1].function.x"},
		{"a tool call's function a string", "[" + user + "," + call(`"g"`) + "]", "messages[1].tool_calls[1].function"},
		{"a tool call's arguments an object", "[" + user + "," + call(`{"name":"g","arguments":{}}`) + "]", "messages[1].tool_calls[1].function.arguments"},
		{"a part's text null", `[{"role":"user","content":[{"type":"image_url","text":null}]}]`, "messages[0].content[0].text"},
		{"a part's type null", `[{"role":"user","content":[{"type":null}]}]`, "messages[0].content[0].type"},
		{"a tool call's function null", "[" + user + "," + call(`null`) + "]", "messages[1].tool_calls[1].function.name"},
		{"a tool call's function without arguments", "[" + user + "," + call(`{"name":"g"}`) + "]", ""},
		{"a tool call's arguments null", "[" + user + "," + call(`{"name":"g","arguments":null}`) + "]", ""},
		{"a tool call without id", `[{"role":"assistant","tool_calls":[{"type":"function","function":{"name":"f","arguments":""}}]}]`, "messages[0].tool_calls[0].id"},
		{"a tool call of another type", `[{"role":"assistant","tool_calls":[{"id":"a","type":"custom","function":{"name":"f","arguments":""}}]}]`, "messages[0].tool_calls[0].type"},
		{"a tool call with an unknown field", `[{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":""},"x":1}]}]`, "messages[0].tool_calls[0].x"},
		{"a tool message without tool_call_id", `[{"role":"tool","content":"42"}]`, "messages[0].tool_call_id"},
		{"tool_call_id on a user message", `[{"role":"user","content":"q","tool_call_id":"c"}]`, "messages[0].tool_call_id"},
		{"a name", `[{"role":"user","name":"meg","content":"q"}]`, ""},
		{"a name too long", `[{"role":"user","name":"` + strings.Repeat("é", MaxIDLength+1) + `","content":"q"}]`, "messages[0].name"},
		{"a content too long", `[{"role":"user","content":"` + strings.Repeat("é", MaxTextLength+1) + `"}]`, "messages[0].content"},
		{"a text part too long", `[{"role":"user","content":[{"type":"text","text":"` + strings.Repeat("é", MaxTextLength+1) + `"}]}]`, "messages[0].content[0].text"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := prepared(turn(tt.messages))
			if tt.field == "" && err != nil || tt.field != "" && (hone.ErrorCode(err) != hone.EINVALID || hone.ErrorField(err) != tt.field) {
				t.Errorf("err = %v, want field %q", err, tt.field)
			}
		})
	}
}

func TestMessagesBounds(t *testing.T) {
	many := func(n int, content string) Messages {
		ms := make(Messages, n)
		for i := range ms {
			ms[i] = Message{Role: RoleUser, Content: content}
		}
		return ms
	}
	in := valid()
	in.Messages = many(MaxMessages, "q")
	if err := in.Validate(); err != nil {
		t.Errorf("%d messages: %v", MaxMessages, err)
	}
	in.Messages = many(MaxMessages+1, "q")
	if err := in.Validate(); hone.ErrorField(err) != "messages" {
		t.Errorf("%d messages: %v", MaxMessages+1, err)
	}
	in.Messages = many(4, strings.Repeat("é", MaxMessagesText/4))
	if err := in.Validate(); err != nil {
		t.Errorf("text at the bound: %v", err)
	}
	in.Messages = append(in.Messages, Message{Role: RoleUser, Content: "é"})
	if err := in.Validate(); hone.ErrorField(err) != "messages" || strings.Contains(hone.ErrorMessage(err), "bytes") {
		t.Errorf("text over the bound: %v", err)
	}
	in.Messages = Messages{{Role: RoleAssistant, ToolCalls: make([]ToolCall, MaxToolCalls+1)}}
	if err := in.Validate(); hone.ErrorField(err) != "messages[0].tool_calls" {
		t.Errorf("too many tool calls: %v", err)
	}
	in.Messages = Messages{{Role: RoleUser, Content: make([]any, MaxParts+1)}}
	if err := in.Validate(); hone.ErrorField(err) != "messages[0].content" {
		t.Errorf("too many parts: %v", err)
	}
}

func TestDeriveTakesTheExchangeFromMessages(t *testing.T) {
	sys := `{"role":"system","content":"Be brief."}`
	for _, tt := range []struct {
		name, body, user, response, field string
	}{
		{"last user, last assistant", `{"conversation_id":"c","messages":[` + sys + `,{"role":"user","content":"q1"},{"role":"assistant","content":"a1"},` +
			`{"role":"user","content":"q2"},{"role":"assistant","content":"a2"}]}`, "q2", "a2", ""},
		{"through tool calls", `{"conversation_id":"c","messages":[{"role":"user","content":"weather?"},` +
			`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"w","arguments":"{}"}}]},` +
			`{"role":"tool","tool_call_id":"c1","content":"sunny"},{"role":"assistant","content":"It is sunny."}]}`, "weather?", "It is sunny.", ""},
		{"text parts joined", `{"conversation_id":"c","messages":[{"role":"user","content":[{"type":"text","text":"look"},` +
			`{"type":"image_url","image_url":{"url":"https://x/y.png"}},{"type":"text","text":"at this"}]},` +
			`{"role":"assistant","content":[{"type":"text","text":"A cat."}]}]}`, "look\nat this", "A cat.", ""},
		{"blank messages skipped", `{"conversation_id":"c","messages":[{"role":"user","content":"q"},{"role":"user","content":" "},` +
			`{"role":"assistant","content":"a"},{"role":"assistant","content":"\n"}]}`, "q", "a", ""},
		{"given fields kept", `{"conversation_id":"c","user_message":"mine","response":"ours","messages":[{"role":"user","content":"q"},` +
			`{"role":"assistant","content":"a"}]}`, "mine", "ours", ""},
		{"request messages and a given response", `{"conversation_id":"c","response":"a2","messages":[{"role":"user","content":"q1"},` +
			`{"role":"assistant","content":"a1"},{"role":"user","content":"q2"}]}`, "q2", "a2", ""},
		{"no answer after the last question", `{"conversation_id":"c","messages":[{"role":"user","content":"q1"},` +
			`{"role":"assistant","content":"a1"},{"role":"user","content":"q2"}]}`, "", "", "messages"},
		{"no user message", `{"conversation_id":"c","messages":[` + sys + `,{"role":"assistant","content":"a"}]}`, "", "", "messages"},
		{"no user message but user_message", `{"conversation_id":"c","user_message":"q","messages":[` + sys + `,{"role":"assistant","content":"a"}]}`, "q", "a", ""},
		{"only a blank user message", `{"conversation_id":"c","messages":[{"role":"user","content":"  "},{"role":"assistant","content":"a"}]}`, "", "", "messages"},
		{"nothing", `{"conversation_id":"c"}`, "", "", "user_message"},
		{"no response, no messages", `{"conversation_id":"c","user_message":"q"}`, "", "", "response"},
		{"a blank user_message is not left out", `{"conversation_id":"c","user_message":" ","messages":[{"role":"user","content":"q"},{"role":"assistant","content":"a"}]}`, "", "", "user_message"},
		{"a blank response is not left out", `{"conversation_id":"c","response":"\t","messages":[{"role":"user","content":"q"},{"role":"assistant","content":"a"}]}`, "", "", "response"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in, err := prepared(tt.body)
			if tt.field != "" {
				if hone.ErrorField(err) != tt.field {
					t.Fatalf("err = %v, want field %q", err, tt.field)
				}
				return
			}
			if err != nil || in.UserMessage != tt.user || in.Response != tt.response || in.TesterID != AnonymousTester {
				t.Fatalf("user %q, response %q, tester %q, err %v", in.UserMessage, in.Response, in.TesterID, err)
			}
		})
	}
}

func TestDeriveTakesProcessingTimeFromLatency(t *testing.T) {
	for _, tt := range []struct {
		latency, processing *float64
		want                *float64
	}{
		{nil, nil, nil}, {ptr(800.0), nil, ptr(800.0)}, {nil, ptr(900.0), ptr(900.0)}, {ptr(800.0), ptr(950.0), ptr(950.0)},
	} {
		in := valid()
		in.LatencyMS, in.ProcessingTimeMS = tt.latency, tt.processing
		in.Derive()
		if fmt.Sprint(deref(in.ProcessingTimeMS)) != fmt.Sprint(deref(tt.want)) || fmt.Sprint(deref(in.LatencyMS)) != fmt.Sprint(deref(tt.latency)) {
			t.Errorf("latency %v, processing %v: processing %v, latency %v", deref(tt.latency), deref(tt.processing),
				deref(in.ProcessingTimeMS), deref(in.LatencyMS))
		}
	}
}

func ptr(v float64) *float64 { return &v }

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestUsageDecoding(t *testing.T) {
	for _, tt := range []struct {
		usage, field string
		want         Usage
	}{
		{`{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}`, "", Usage{10, 5, 15}},
		{`{"prompt_tokens":10,"completion_tokens":5}`, "", Usage{10, 5, 15}},
		{`{"prompt_tokens":10,"completion_tokens":5,"total_tokens":null}`, "", Usage{10, 5, 15}},
		{`{"prompt_tokens":10,"completion_tokens":5,"total_tokens":20}`, "", Usage{10, 5, 20}},
		{`{"prompt_tokens":1e3,"completion_tokens":2.0}`, "", Usage{1000, 2, 1002}},
		{`{"prompt_tokens":0,"completion_tokens":9007199254740991,"total_tokens":9007199254740991}`, "", Usage{0, MaxTokens, MaxTokens}},
		{`{"prompt_tokens":0,"completion_tokens":9007199254740993}`, "usage.completion_tokens", Usage{}},
		{`{"completion_tokens":5}`, "usage.prompt_tokens", Usage{}},
		{`{"prompt_tokens":5}`, "usage.completion_tokens", Usage{}},
		{`{"prompt_tokens":null,"completion_tokens":5}`, "usage.prompt_tokens", Usage{}},
		{`{"prompt_tokens":-1,"completion_tokens":5}`, "usage.prompt_tokens", Usage{}},
		{`{"prompt_tokens":1.5,"completion_tokens":5}`, "usage.prompt_tokens", Usage{}},
		{`{"prompt_tokens":"5","completion_tokens":5}`, "usage.prompt_tokens", Usage{}},
		{`{"prompt_tokens":1e400,"completion_tokens":5}`, "usage.prompt_tokens", Usage{}},
		{`{"prompt_tokens":1,"completion_tokens":5,"total_tokens":-2}`, "usage.total_tokens", Usage{}},
		{`{"prompt_tokens":1,"completion_tokens":5,"cached_tokens":2}`, "usage.cached_tokens", Usage{}},
		{`[1,2]`, "usage", Usage{}},
		{`"15"`, "usage", Usage{}},
	} {
		in, err := prepared(`{"conversation_id":"c","user_message":"q","response":"r","usage":` + tt.usage + `}`)
		switch {
		case tt.field != "" && hone.ErrorField(err) != tt.field:
			t.Errorf("%s: err %v, want field %s", tt.usage, err, tt.field)
		case tt.field == "" && (err != nil || *in.Usage != tt.want):
			t.Errorf("%s: %+v, %v", tt.usage, in.Usage, err)
		}
	}
	if in, err := prepared(`{"conversation_id":"c","user_message":"q","response":"r","usage":null}`); err != nil || in.Usage != nil {
		t.Errorf("null usage: %+v %v", in.Usage, err)
	}
}

func TestMessagesRoundTripAsGivenAndCleaned(t *testing.T) {
	body := `{"conversation_id":"c","messages":[{"role":"system","content":"nul\u0000here"},` +
		`{"role":"user","name":"meg","content":[{"type":"text","text":"hi \ud800"},{"type":"input_audio","input_audio":{"data":"AAA=","format":"wav"}}]},` +
		`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}]},` +
		`{"role":"tool","tool_call_id":"c1","content":"ok"},{"role":"assistant","content":"done \"quoted\""}]}`
	in, err := prepared(body)
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(in.Messages)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"role":"system","content":"nul\ufffdhere"},` +
		`{"role":"user","content":[{"type":"text","text":"hi \ufffd"},{"type":"input_audio","input_audio":{"data":"AAA=","format":"wav"}}],"name":"meg"},` +
		`{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}]},` +
		`{"role":"tool","content":"ok","tool_call_id":"c1"},{"role":"assistant","content":"done \"quoted\""}]`
	var a, b any
	if err := json.Unmarshal(got, &a); err != nil {
		t.Fatal(err)
	}
	_ = json.Unmarshal([]byte(want), &b)
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("messages\n got %s\nwant %s", got, want)
	}
	if bytes.Contains(got, []byte(`\u0000`)) || in.UserMessage != "hi \uFFFD" || in.Response != `done "quoted"` {
		t.Errorf("not cleaned: %s; user %q response %q", got, in.UserMessage, in.Response)
	}
}

// An input of the shape turns had before messages existed encodes as it did,
// so that a client's retry across an upgrade matches the turn's fingerprint.
func TestFingerprintOfTheOldShapeIsUnchanged(t *testing.T) {
	sim := 0.5
	in := TurnInput{ID: "t1", ConversationID: "c", TesterID: "meg", TesterEmail: "m@x", UserMessage: "q", Response: "r",
		PromptVersion: "v1", AvgSimilarity: &sim, Metadata: json.RawMessage(`{"a":1}`)}
	b, _ := json.Marshal(&in)
	const want = `{"id":"t1","conversation_id":"c","tester_id":"meg","tester_email":"m@x","user_message":"q","response":"r",` +
		`"prompt_version":"v1","avg_similarity":0.5,"metadata":{"a":1}}`
	if string(b) != want {
		t.Errorf("encoded\n %s\nwant\n %s", b, want)
	}
}
