package storage_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/honehq/hone/internal/llm"
	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/storage/storagetest"
)

func okCall(id, purpose, causeID string, at time.Time) *llm.Call {
	return &llm.Call{
		ID: id, Purpose: purpose, CauseType: "turn", CauseID: causeID, CreatedAt: at,
		Request: llm.CallRequest{
			Messages:    []llm.Message{{Role: llm.RoleSystem, Content: "Be terse."}, {Role: llm.RoleUser, Content: "Hi \"there\" ✓\n"}},
			Model:       "gpt-4o",
			Temperature: llm.Float64(0.7),
			MaxTokens:   llm.Int(256),
			TopP:        llm.Float64(1),
			Params: map[string]any{
				"seed":            3,
				"stop":            []any{"\n\n", "END"},
				"response_format": map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "s", "strict": true}},
			},
		},
		Response: &llm.CallResponse{RawContent: "Hello!\n{\"a\": [1, 2.5]}", Model: "gpt-4o-2024-08-06",
			Usage:        llm.Usage{PromptTokens: 12, CompletionTokens: 5, TotalTokens: 17},
			FinishReason: "stop", LatencyMS: 812.25},
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func listCalls(t *testing.T, db *storage.DB, f llm.CallFilter) []llm.Call {
	t.Helper()
	list, err := db.LLMCalls().ListCalls(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	return list
}

func callIDs(list []llm.Call) []string {
	out := []string{}
	for _, c := range list {
		out = append(out, c.ID)
	}
	return out
}

func TestRecordAndListCalls(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		ctx := context.Background()
		at := time.Date(2025, 10, 24, 10, 0, 0, 123456789, time.FixedZone("CEST", 2*3600))
		ok := okCall("call-ok", llm.PurposeChat, "t1", at)
		failed := &llm.Call{ID: "call-failed", Purpose: llm.PurposeAnalysis, CauseType: "session", CauseID: "s1",
			Request:   llm.CallRequest{Messages: []llm.Message{{Role: llm.RoleUser, Content: "analyse"}}, Model: "gpt-4o-mini"},
			Error:     "The LLM provider answered 400 Bad Request: nope",
			CreatedAt: at.Add(time.Second)}
		invalid := okCall("call-invalid", llm.PurposeFollowUp, "t1", at.Add(2*time.Second))
		invalid.Error = "invalid output: not JSON"
		for _, c := range []*llm.Call{ok, failed, invalid} {
			if err := db.LLMCalls().RecordCall(ctx, c); err != nil {
				t.Fatal(err)
			}
		}
		if want := time.Date(2025, 10, 24, 8, 0, 0, 123456000, time.UTC); ok.CreatedAt != want {
			t.Errorf("CreatedAt after RecordCall = %v, want %v", ok.CreatedAt, want)
		}

		all := listCalls(t, db, llm.CallFilter{})
		if got := fmt.Sprint(callIDs(all)); got != "[call-invalid call-failed call-ok]" {
			t.Fatalf("ListCalls = %s, want newest first", got)
		}
		for i, want := range []*llm.Call{invalid, failed, ok} {
			if got, w := mustJSON(t, all[i]), mustJSON(t, want); got != w {
				t.Errorf("round trip of %s:\n got %s\nwant %s", want.ID, got, w)
			}
			if !all[i].CreatedAt.Equal(want.CreatedAt) || all[i].CreatedAt.Location() != time.UTC {
				t.Errorf("%s: created_at %v, want %v in UTC", want.ID, all[i].CreatedAt, want.CreatedAt)
			}
		}
		got := all[2]
		if got.Request.Params["seed"] != float64(3) || *got.Request.Temperature != 0.7 || *got.Request.MaxTokens != 256 ||
			got.Response.Usage.TotalTokens != 17 || got.Response.Model != "gpt-4o-2024-08-06" || got.Error != "" {
			t.Errorf("successful call = %+v %+v", got.Request, got.Response)
		}
		if f := all[1]; f.Response != nil || f.Error != failed.Error || f.CauseType != "session" || f.CauseID != "s1" {
			t.Errorf("failed call = %+v", f)
		}

		for _, c := range []struct {
			f    llm.CallFilter
			want string
		}{
			{llm.CallFilter{Purpose: llm.PurposeChat}, "[call-ok]"},
			{llm.CallFilter{CauseID: "t1"}, "[call-invalid call-ok]"},
			{llm.CallFilter{CauseID: "t1", Purpose: llm.PurposeAnalysis}, "[]"},
			{llm.CallFilter{Purpose: llm.PurposeAnalysis, CauseID: "s1"}, "[call-failed]"},
			{llm.CallFilter{Limit: 2}, "[call-invalid call-failed]"},
			{llm.CallFilter{CauseID: "nope"}, "[]"},
		} {
			if got := fmt.Sprint(callIDs(listCalls(t, db, c.f))); got != c.want {
				t.Errorf("ListCalls(%+v) = %s, want %s", c.f, got, c.want)
			}
		}
	})
}

func TestRecordCallFillsIDAndTime(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		tick(db)
		ctx := context.Background()
		c := &llm.Call{Purpose: llm.PurposeJudge, Request: llm.CallRequest{Model: "m"}}
		if err := db.LLMCalls().RecordCall(ctx, c); err != nil {
			t.Fatal(err)
		}
		if len(c.ID) != 12 || c.CreatedAt != time.Date(2025, 10, 24, 10, 0, 1, 0, time.UTC) {
			t.Fatalf("call = %+v", c)
		}
		if err := db.LLMCalls().RecordCall(ctx, c); err == nil {
			t.Error("recording a call twice did not fail")
		}
		list := listCalls(t, db, llm.CallFilter{})
		if len(list) != 1 || list[0].ID != c.ID || !list[0].CreatedAt.Equal(c.CreatedAt) || mustJSON(t, list[0].Request) != `{"messages":[],"model":"m"}` {
			t.Fatalf("ListCalls = %+v", list)
		}
	})
}

func TestListCallsLimits(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		tick(db)
		ctx := context.Background()
		for i := range storage.DefaultCallLimit + 5 {
			if err := db.LLMCalls().RecordCall(ctx, &llm.Call{Purpose: llm.PurposeChat, CauseID: fmt.Sprint(i)}); err != nil {
				t.Fatal(err)
			}
		}
		if got := listCalls(t, db, llm.CallFilter{}); len(got) != storage.DefaultCallLimit || got[0].CauseID != "54" {
			t.Errorf("default limit: %d calls, first %s", len(got), got[0].CauseID)
		}
		if got := listCalls(t, db, llm.CallFilter{Limit: storage.MaxCallLimit + 1}); len(got) != storage.DefaultCallLimit+5 {
			t.Errorf("limit above the maximum: %d calls", len(got))
		}
	})
}

// A small model can answer with NUL characters and broken UTF-8, which
// PostgreSQL refuses: the call is kept on both databases, cleaned alike.
func TestRecordCallWithNULAndInvalidUTF8(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		c := okCall("badbytes", "chat", "conv\x00", time.Date(2025, 10, 24, 10, 0, 0, 0, time.UTC))
		c.Request.Messages[1].Content = "question with \x00 and \xff"
		c.Response.RawContent = "answer \x00 cut \xe2\x82"
		c.Error = "invalid output: \x00"
		if err := db.LLMCalls().RecordCall(context.Background(), c); err != nil {
			t.Fatal(err)
		}
		got := listCalls(t, db, llm.CallFilter{})
		if len(got) != 1 {
			t.Fatalf("%d calls", len(got))
		}
		g := got[0]
		if g.CauseID != "conv\uFFFD" || g.Request.Messages[1].Content != "question with \uFFFD and \uFFFD" ||
			g.Response.RawContent != "answer \uFFFD cut \uFFFD\uFFFD" || g.Error != "invalid output: \uFFFD" {
			t.Errorf("stored %q %q %q %q", g.CauseID, g.Request.Messages[1].Content, g.Response.RawContent, g.Error)
		}
	})
}
