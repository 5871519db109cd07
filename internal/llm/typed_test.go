package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/llm"
	"github.com/honehq/hone/internal/llm/llmtest"
)

type verdict struct {
	Score  int      `json:"score" jsonschema:"minimum=1,maximum=5"`
	Reason string   `json:"reason"`
	Tags   []string `json:"tags,omitempty"`
	Detail struct {
		Note string `json:"note"`
	} `json:"detail"`
}

const goodVerdict = `{"score":4,"reason":"clear","tags":["a"],"detail":{"note":"n"}}`

func judgeRequest() llm.Request {
	return llm.Request{Purpose: llm.PurposeJudge, CauseType: "turn", CauseID: "t9", Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: "Judge the answer."},
		{Role: llm.RoleUser, Content: "Answer: 42"},
	}}
}

func TestSchemaIsStrict(t *testing.T) {
	text, err := llm.Schema[verdict]()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(text, "$ref") || strings.Contains(text, "$schema") {
		t.Errorf("schema has $ref or $schema: %s", text)
	}
	var doc struct {
		Type                 string   `json:"type"`
		Required             []string `json:"required"`
		AdditionalProperties *bool    `json:"additionalProperties"`
		Properties           map[string]struct {
			Required             []string `json:"required"`
			AdditionalProperties *bool    `json:"additionalProperties"`
		} `json:"properties"`
	}
	if err := json.Unmarshal([]byte(text), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Type != "object" || strings.Join(doc.Required, ",") != "detail,reason,score,tags" || doc.AdditionalProperties == nil || *doc.AdditionalProperties {
		t.Errorf("root = %+v", doc)
	}
	if d := doc.Properties["detail"]; len(d.Required) != 1 || d.AdditionalProperties == nil || *d.AdditionalProperties {
		t.Errorf("detail = %+v", d)
	}
	if _, err := llm.Schema[[]string](); hone.ErrorCode(err) != hone.EINTERNAL {
		t.Errorf("Schema[[]string]() err = %v", err)
	}
}

type tree struct {
	Name     string  `json:"name"`
	Children []*tree `json:"children"`
}

func TestRecursiveType(t *testing.T) {
	srv := llmtest.New(t)
	c := srv.Client(nil)
	srv.Push(llmtest.Text(`{"name":"root","children":[{"name":"leaf","children":[]}]}`))
	out, _, err := llm.Generate[tree](context.Background(), c, judgeRequest())
	if err != nil {
		t.Fatal(err)
	}
	if out.Name != "root" || len(out.Children) != 1 || out.Children[0].Name != "leaf" {
		t.Errorf("out = %+v", out)
	}
	var rf map[string]any
	_ = json.Unmarshal(srv.Requests()[0].ResponseFormat.JSONSchema.Schema, &rf)
	if rf["type"] != "object" {
		t.Errorf("root of recursive schema is not an object: %v", rf)
	}
}

func TestGenerate(t *testing.T) {
	srv := llmtest.New(t)
	rec := &llmtest.MemoryRecorder{}
	c, _ := llm.New(srv.Config(), rec)
	srv.Push(llmtest.Text(goodVerdict))
	out, resp, err := llm.Generate[verdict](context.Background(), c, judgeRequest())
	if err != nil {
		t.Fatal(err)
	}
	if out.Score != 4 || out.Reason != "clear" || out.Detail.Note != "n" || len(out.Tags) != 1 {
		t.Errorf("out = %+v", out)
	}
	if resp.Content != goodVerdict {
		t.Errorf("resp.Content = %q", resp.Content)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	rf := reqs[0].ResponseFormat
	if rf == nil || rf.Type != "json_schema" || rf.JSONSchema == nil || rf.JSONSchema.Name != "verdict" || rf.JSONSchema.Strict == nil || !*rf.JSONSchema.Strict {
		t.Fatalf("response_format = %+v", rf)
	}
	want, _ := llm.Schema[verdict]()
	if !jsonEqual(t, string(rf.JSONSchema.Schema), want) {
		t.Errorf("schema sent = %s\nwant %s", rf.JSONSchema.Schema, want)
	}
	if reqs[0].Messages[0].Content != "Judge the answer." {
		t.Errorf("json_schema mode changed the system message: %q", reqs[0].Messages[0].Content)
	}
	calls := rec.Calls()
	if len(calls) != 1 || calls[0].Error != "" || calls[0].Request.Params["response_format"] == nil {
		t.Errorf("calls = %+v", calls)
	}
}

func jsonEqual(t *testing.T, a, b string) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal([]byte(a), &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(b), &y); err != nil {
		t.Fatal(err)
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return string(xb) == string(yb)
}

func TestGenerateJSONModeFallback(t *testing.T) {
	srv := llmtest.New(t)
	rec := &llmtest.MemoryRecorder{}
	c, _ := llm.New(srv.Config(), rec)
	srv.Push(
		llmtest.Error(400, "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model."),
		llmtest.Text("```json\n"+goodVerdict+"\n```"),
		llmtest.Text(goodVerdict),
	)
	out, _, err := llm.Generate[verdict](context.Background(), c, judgeRequest())
	if err != nil {
		t.Fatal(err)
	}
	if out.Score != 4 {
		t.Errorf("out = %+v", out)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	assertJSONMode(t, reqs[1])
	if _, _, err := llm.Generate[verdict](context.Background(), c, judgeRequest()); err != nil {
		t.Fatal(err)
	}
	reqs = srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	assertJSONMode(t, reqs[2])
	if n := len(rec.Calls()); n != 3 {
		t.Errorf("recorded %d calls, want 3 (rejected, fallback, later call)", n)
	}
}

func assertJSONMode(t *testing.T, req llmtest.ChatRequest) {
	t.Helper()
	if req.ResponseFormat == nil || req.ResponseFormat.Type != "json_object" {
		t.Errorf("response_format = %+v, want json_object", req.ResponseFormat)
	}
	sys := req.Messages[0]
	if sys.Role != "system" || !strings.HasPrefix(sys.Content, "Judge the answer.") || !strings.Contains(sys.Content, `"required":["detail","reason","score","tags"]`) {
		t.Errorf("system message lacks the schema: %q", sys.Content)
	}
	if len(req.Messages) != 2 {
		t.Errorf("messages = %+v", req.Messages)
	}
}

func TestGenerateJSONModeConfig(t *testing.T) {
	srv := llmtest.New(t)
	cfg := srv.Config()
	cfg.JSONMode = true
	c, _ := llm.New(cfg, nil)
	srv.Push(llmtest.Text(goodVerdict))
	req := judgeRequest()
	req.Messages = req.Messages[1:]
	if _, _, err := llm.Generate[verdict](context.Background(), c, req); err != nil {
		t.Fatal(err)
	}
	got := srv.Requests()[0]
	if got.ResponseFormat.Type != "json_object" || got.Messages[0].Role != "system" || !strings.Contains(got.Messages[0].Content, "JSON schema") {
		t.Errorf("request = %+v", got)
	}
}

func TestGenerateRepair(t *testing.T) {
	tests := []struct {
		name, bad, problem string
	}{
		{"malformed JSON", `{"score": 4, "reason": `, "not valid JSON"},
		{"schema violation", `{"score": 9, "reason": "x", "tags": [], "detail": {"note": ""}}`, "does not match the schema"},
		{"missing field", `{"score": 3}`, "does not match the schema"},
		{"prose", `I think it is a 4.`, "not valid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.New(t)
			rec := &llmtest.MemoryRecorder{}
			c, _ := llm.New(srv.Config(), rec)
			srv.Push(llmtest.Text(tt.bad), llmtest.Text(goodVerdict))
			out, _, err := llm.Generate[verdict](context.Background(), c, judgeRequest())
			if err != nil {
				t.Fatal(err)
			}
			if out.Score != 4 {
				t.Errorf("out = %+v", out)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests", len(reqs))
			}
			msgs := reqs[1].Messages
			if len(msgs) != 4 || msgs[2].Role != "assistant" || msgs[2].Content != tt.bad || msgs[3].Role != "user" || !strings.Contains(msgs[3].Content, tt.problem) {
				t.Errorf("repair messages = %+v", msgs)
			}
			if reqs[1].ResponseFormat == nil || reqs[1].ResponseFormat.Type != "json_schema" {
				t.Errorf("repair response_format = %+v", reqs[1].ResponseFormat)
			}
			calls := rec.Calls()
			if len(calls) != 2 || !strings.Contains(calls[0].Error, tt.problem) || calls[1].Error != "" {
				t.Errorf("calls = %+v", calls)
			}
		})
	}
}

func TestGenerateOutputError(t *testing.T) {
	srv := llmtest.New(t)
	rec := &llmtest.MemoryRecorder{}
	c, _ := llm.New(srv.Config(), rec)
	bad := `{"score": 0, "reason": "x", "tags": [], "detail": {"note": ""}}`
	srv.Push(llmtest.Text(bad), llmtest.Text(bad), llmtest.Text(goodVerdict))
	_, resp, err := llm.Generate[verdict](context.Background(), c, judgeRequest())
	var oe *llm.OutputError
	if !errors.As(err, &oe) {
		t.Fatalf("err = %v, want *OutputError", err)
	}
	if oe.Raw != bad || !strings.Contains(oe.Problem, "does not match the schema") {
		t.Errorf("OutputError = %+v", oe)
	}
	if hone.ErrorCode(err) != hone.EUNAVAILABLE || !strings.Contains(hone.ErrorMessage(err), "expected form") {
		t.Errorf("code = %q, message = %q", hone.ErrorCode(err), hone.ErrorMessage(err))
	}
	if resp == nil || resp.Content != bad {
		t.Errorf("resp = %+v", resp)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d requests, want exactly 2 (one repair)", n)
	}
	if n := len(rec.Calls()); n != 2 {
		t.Errorf("%d calls recorded, want 2", n)
	}
}

func TestGenerateProviderError(t *testing.T) {
	srv := llmtest.New(t)
	c := srv.Client(nil)
	srv.Push(llmtest.Error(401, "bad key"))
	_, _, err := llm.Generate[verdict](context.Background(), c, judgeRequest())
	var oe *llm.OutputError
	if err == nil || errors.As(err, &oe) || !strings.Contains(hone.ErrorMessage(err), llm.EnvAPIKey) {
		t.Fatalf("err = %v", err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests", n)
	}
}
