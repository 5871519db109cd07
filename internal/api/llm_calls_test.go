package api_test

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/honehq/hone/internal/api"
	"github.com/honehq/hone/internal/config"
	"github.com/honehq/hone/internal/llm"
)

func TestListLLMCalls(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		cfg.APIToken = "s3cret"
		s := start(t, cfg)
		ctx := context.Background()
		at := time.Date(2025, 10, 24, 10, 0, 0, 0, time.UTC)
		calls := []*llm.Call{
			{ID: "chat1", Purpose: llm.PurposeChat, CauseType: "turn", CauseID: "t1", CreatedAt: at,
				Request: llm.CallRequest{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}, Model: "gpt-4o",
					Temperature: llm.Float64(0.2), MaxTokens: llm.Int(64), Params: map[string]any{"seed": 7, "stop": []any{"END"}}},
				Response: &llm.CallResponse{RawContent: "hello", Model: "gpt-4o-2024-08-06", FinishReason: "stop", LatencyMS: 120.5,
					Usage: llm.Usage{PromptTokens: 3, CompletionTokens: 1, TotalTokens: 4}}},
			{ID: "follow1", Purpose: llm.PurposeFollowUp, CauseType: "turn", CauseID: "t1", CreatedAt: at.Add(time.Second),
				Request: llm.CallRequest{Messages: []llm.Message{{Role: llm.RoleUser, Content: "more"}}, Model: "gpt-4o-mini"},
				Error:   "The LLM provider answered 429 Too Many Requests."},
			{ID: "analysis1", Purpose: llm.PurposeAnalysis, CauseType: "session", CauseID: "s1", CreatedAt: at.Add(2 * time.Second),
				Request: llm.CallRequest{Model: "gpt-4o"}},
		}
		for _, c := range calls {
			if err := s.app.DB.LLMCalls().RecordCall(ctx, c); err != nil {
				t.Fatal(err)
			}
		}

		ids := func(path string) []string {
			t.Helper()
			var list api.LLMCallList
			s.json("GET", path, "", http.StatusOK, "LLMCallList", &list)
			out := []string{}
			for _, c := range list.Calls {
				out = append(out, c.ID)
			}
			return out
		}
		for path, want := range map[string][]string{
			"/llm-calls":                               {"analysis1", "follow1", "chat1"},
			"/llm-calls?purpose=chat":                  {"chat1"},
			"/llm-calls?cause_id=t1":                   {"follow1", "chat1"},
			"/llm-calls?cause_id=t1&purpose=follow-up": {"follow1"},
			"/llm-calls?limit=1":                       {"analysis1"},
			"/llm-calls?purpose=judge":                 {},
		} {
			if got := ids(path); !slices.Equal(got, want) {
				t.Errorf("GET %s = %v, want %v", path, got, want)
			}
		}

		var doc struct {
			Calls []map[string]json.RawMessage `json:"llm_calls"`
		}
		s.json("GET", "/llm-calls?cause_id=t1", "", http.StatusOK, "LLMCallList", &doc)
		if len(doc.Calls) != 2 {
			t.Fatalf("calls %v", doc.Calls)
		}
		failed, ok := doc.Calls[0], doc.Calls[1]
		if string(failed["llm_response"]) != "null" || string(failed["error"]) != `"The LLM provider answered 429 Too Many Requests."` {
			t.Errorf("failed call %v", failed)
		}
		if _, has := ok["error"]; has {
			t.Errorf("successful call has an error: %s", ok["error"])
		}
		var req map[string]any
		if err := json.Unmarshal(ok["llm_request"], &req); err != nil {
			t.Fatal(err)
		}
		if got := slices.Sorted(maps.Keys(req)); !slices.Equal(got, []string{"max_tokens", "messages", "model", "seed", "stop", "temperature"}) ||
			req["seed"] != float64(7) || req["temperature"] != 0.2 {
			t.Errorf("llm_request %v", req)
		}
		if string(ok["created_at"]) != `"2025-10-24T10:00:00Z"` || string(ok["cause_type"]) != `"turn"` {
			t.Errorf("successful call %v", ok)
		}
		var resp llm.CallResponse
		if err := json.Unmarshal(ok["llm_response"], &resp); err != nil || resp != *calls[0].Response {
			t.Errorf("llm_response %s: %v", ok["llm_response"], err)
		}

		for _, limit := range []string{"0", "1001", "x", "-1"} {
			s.wantError("GET", "/llm-calls?limit="+limit, "", http.StatusBadRequest, "invalid", "limit")
		}
		if res, _ := s.send("GET", "/llm-calls", "", nil); res.StatusCode != http.StatusUnauthorized {
			t.Errorf("without a token: %d", res.StatusCode)
		}
	})
}

func TestOpenAPILLMCallSchemasMatchGoTypes(t *testing.T) {
	d := parseDocument(t, openAPIFile(t))
	for _, c := range []struct {
		schema string
		typ    reflect.Type
	}{
		{"LLMCallList", reflect.TypeFor[api.LLMCallList]()},
		{"LLMCall", reflect.TypeFor[llm.Call]()},
		{"LLMMessage", reflect.TypeFor[llm.Message]()},
		{"LLMResponse", reflect.TypeFor[llm.CallResponse]()},
		{"LLMUsage", reflect.TypeFor[llm.Usage]()},
	} {
		t.Run(c.schema, func(t *testing.T) {
			s, ok := d.Components.Schemas[c.schema]
			if !ok {
				t.Fatalf("openapi.json has no schema %s", c.schema)
			}
			fields := jsonFields(c.typ)
			if got, want := slices.Sorted(maps.Keys(s.Properties)), slices.Sorted(maps.Keys(fields)); !slices.Equal(got, want) {
				t.Errorf("properties %v, the Go type has %v", got, want)
			}
			if s.AdditionalProperties == nil || *s.AdditionalProperties {
				t.Error("additionalProperties is not false")
			}
			var always []string
			for name, omitempty := range fields {
				if !omitempty {
					always = append(always, name)
				}
			}
			if got, want := slices.Sorted(slices.Values(s.Required)), slices.Sorted(slices.Values(always)); !slices.Equal(got, want) {
				t.Errorf("required %v, but the server always sends %v", got, want)
			}
		})
	}

	req := d.Components.Schemas["LLMRequest"]
	b, err := json.Marshal(llm.CallRequest{Model: "m", Temperature: llm.Float64(1), MaxTokens: llm.Int(1), TopP: llm.Float64(1)})
	if err != nil {
		t.Fatal(err)
	}
	var named map[string]any
	if err := json.Unmarshal(b, &named); err != nil {
		t.Fatal(err)
	}
	if got, want := slices.Sorted(maps.Keys(req.Properties)), slices.Sorted(maps.Keys(named)); !slices.Equal(got, want) {
		t.Errorf("LLMRequest properties %v, llm.CallRequest writes %v", got, want)
	}
	if req.AdditionalProperties == nil || !*req.AdditionalProperties {
		t.Error("LLMRequest does not allow the other request parameters")
	}
	validate(t, "LLMRequest", []byte(`{"messages":[],"model":"m","seed":1,"response_format":{"type":"json_object"}}`))
}
