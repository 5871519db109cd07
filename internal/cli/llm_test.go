package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/honehq/hone/internal/llm"
)

func seedCalls(t *testing.T, dir string, calls ...*llm.Call) {
	t.Helper()
	ctx := context.Background()
	db := openDataDir(t, dir)
	for _, c := range calls {
		if err := db.LLMCalls().RecordCall(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLLMCallsCommand(t *testing.T) {
	dir := t.TempDir()
	at := time.Date(2025, 10, 24, 10, 0, 0, 0, time.UTC)
	long := "Got it —\tthat's definitely something\n\nwe need to address right away, starting with a call today."
	seedCalls(t, dir,
		&llm.Call{ID: "chatcall1", Purpose: llm.PurposeChat, CauseType: "turn", CauseID: "t1", CreatedAt: at,
			Request: llm.CallRequest{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}, Model: "gpt-4o",
				Temperature: llm.Float64(0.5), Params: map[string]any{"seed": 9}},
			Response: &llm.CallResponse{RawContent: long, Model: "gpt-4o-2024-08-06", FinishReason: "stop", LatencyMS: 812.4,
				Usage: llm.Usage{PromptTokens: 31, CompletionTokens: 17, TotalTokens: 48}}},
		&llm.Call{ID: "failcall2", Purpose: llm.PurposeAnalysis, CauseType: "session", CauseID: "s1", CreatedAt: at.Add(time.Minute),
			Request: llm.CallRequest{Model: "gpt-4o-mini"}, Error: "The LLM provider answered 429:\nslow down"},
	)
	base := []string{"--data-dir", dir, "--log-level", "error", "llm", "calls"}

	code, out, errOut := run(t, base...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "TIME ") || !strings.HasPrefix(lines[1], "2025-10-24 10:01:00  failcall2") {
		t.Fatalf("table:\n%s", out)
	}
	for _, want := range []string{"analysis", "session s1", "gpt-4o-mini", "error: The LLM provider answered 429: slow down"} {
		if !strings.Contains(lines[1], want) {
			t.Errorf("failed call row %q lacks %q", lines[1], want)
		}
	}
	answer := "Got it — that's definitely something we need to address righ…"
	for _, want := range []string{"chatcall1", "chat", "turn t1", "gpt-4o → gpt-4o-2024-08-06", "31+17", "812ms", "stop", answer} {
		if !strings.Contains(lines[2], want) {
			t.Errorf("successful call row %q lacks %q", lines[2], want)
		}
	}
	if !strings.HasSuffix(lines[2], answer) {
		t.Errorf("the answer is not cut to 60 characters: %q", lines[2])
	}

	code, out, errOut = run(t, append(base, "--json")...)
	if code != 0 {
		t.Fatalf("--json: exit %d: %s", code, errOut)
	}
	lines = strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("--json: %d lines:\n%s", len(lines), out)
	}
	var failed, ok llm.Call
	if err := json.Unmarshal([]byte(lines[0]), &failed); err != nil || failed.ID != "failcall2" || failed.Response != nil || failed.Error == "" {
		t.Errorf("--json line %s: %v", lines[0], err)
	}
	if err := json.Unmarshal([]byte(lines[1]), &ok); err != nil || ok.Response.RawContent != long || ok.Request.Params["seed"] != float64(9) {
		t.Errorf("--json line %s: %v", lines[1], err)
	}
	if !strings.Contains(lines[1], `"llm_request":{"messages":[{"role":"user","content":"hi"}],"model":"gpt-4o","seed":9,"temperature":0.5}`) {
		t.Errorf("--json line lacks the llm_request: %s", lines[1])
	}

	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--purpose", "chat", "--json"}, []string{"chatcall1"}},
		{[]string{"--cause", "s1", "--json"}, []string{"failcall2"}},
		{[]string{"--cause", "t1", "--purpose", "analysis", "--json"}, nil},
		{[]string{"--limit", "1", "--json"}, []string{"failcall2"}},
	} {
		code, out, errOut := run(t, append(base, c.args...)...)
		var got []string
		for line := range strings.Lines(out) {
			var call llm.Call
			if err := json.Unmarshal([]byte(line), &call); err != nil {
				t.Fatalf("%v: %v: %q", c.args, err, line)
			}
			got = append(got, call.ID)
		}
		if code != 0 || strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("%v: exit %d, calls %v, want %v; stderr %q", c.args, code, got, c.want, errOut)
		}
	}

	if code, _, errOut := run(t, append(base, "--limit", "0")...); code == 0 || !strings.Contains(errOut, "--limit must be from 1 to 1000") {
		t.Errorf("--limit 0: exit %d, stderr %q", code, errOut)
	}
}

func TestLLMCallsCommandWithoutCalls(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := run(t, "--data-dir", dir, "--log-level", "error", "llm", "calls")
	if code != 0 || strings.Count(out, "\n") != 1 || !strings.HasPrefix(out, "TIME") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, _ = run(t, "--data-dir", dir, "--log-level", "error", "llm", "calls", "--json")
	if code != 0 || out != "" {
		t.Errorf("--json: exit %d, stdout %q", code, out)
	}
}

func TestCell(t *testing.T) {
	for in, want := range map[string]string{
		"":                       "",
		"  a\n\t b\x00c ":        "a b c",
		"\x00ab":                 "ab",
		strings.Repeat("é", 61):  strings.Repeat("é", 60) + "…",
		strings.Repeat("x", 60):  strings.Repeat("x", 60),
		strings.Repeat("y ", 40): strings.TrimSpace(strings.Repeat("y ", 30)) + "…",
	} {
		if got := cell(in); got != want {
			t.Errorf("cell(%q) = %q, want %q", in, got, want)
		}
	}
}
