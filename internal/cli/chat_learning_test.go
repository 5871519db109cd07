package cli

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/learning"
	"github.com/honehq/hone/internal/llm/llmtest"
	"github.com/honehq/hone/internal/storage"
)

var clCorrectionID = regexp.MustCompile(`### Correction (\w+)`)

// clAnswer is the fake LLM of the test: the synthesis learns one thing from
// the corrections it is shown; every other call echoes.
func clAnswer(req llmtest.ChatRequest) llmtest.Reply {
	system := req.Messages[0].Content
	switch {
	case strings.Contains(system, "You analyse corrections"):
		var ids []string
		for _, m := range clCorrectionID.FindAllStringSubmatch(req.LastUserMessage(), -1) {
			ids = append(ids, m[1])
		}
		return llmtest.JSON(map[string]any{"learnings": []map[string]any{{"pattern": "User wants every appointment",
			"prompt_adjustment": "When asked about the calendar, list ALL events, including minor appointments.",
			"confidence":        0.85, "source_corrections": ids}}})
	case strings.Contains(system, "You check new learning statements"):
		return llmtest.JSON(map[string]any{"verdicts": []any{}})
	case strings.Contains(system, "A user rated an assistant's answer"):
		return llmtest.JSON(map[string]any{"related": true, "reason": "it says what was missing"})
	}
	return llmtest.Echo(req)
}

// The integration test: 👎 in hone chat, the correction, synthesis,
// and a later answer of hone chat is sent the learned section, in a new
// session since the prompt version changed.
func TestChatAppliesLearnings(t *testing.T) {
	srv := llmtest.New(t)
	srv.SetHandler(clAnswer)
	chatEnv(t, srv)
	dir := t.TempDir()
	prompt := filepath.Join(dir, "MASTER_PROMPT.md")
	if err := os.WriteFile(prompt, []byte("You are Friday."), 0o644); err != nil {
		t.Fatal(err)
	}
	chat := func(script string) string {
		t.Helper()
		var out, errOut strings.Builder
		code := Execute(context.Background(), []string{"--data-dir", dir, "--log-level", "error", "chat", "--prompt", prompt,
			"--tester", "meg", "--conversation", "terminal:meg"}, strings.NewReader(script), &out, &errOut)
		if code != 0 {
			t.Fatalf("hone chat exit %d: %s", code, errOut.String())
		}
		return out.String()
	}
	out := chat("What's on my calendar tomorrow?\n👎\nYou forgot to mention my dentist appointment.\n")
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 3 || lines[1] != learning.AskCorrectionText ||
		lines[2] != "Got it! I noted: “You forgot to mention my dentist appointment.”. Thanks for helping me improve!" {
		t.Fatalf("hone chat printed:\n%s", out)
	}
	for _, req := range srv.Requests() {
		if strings.HasPrefix(req.Messages[0].Content, "You are Friday.") && strings.Contains(req.LastUserMessage(), "dentist") {
			t.Fatal("the correction reached the model under test")
		}
	}

	db, err := storage.Open(context.Background(), filepath.Join(dir, "hone.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	svc := learning.NewService(db.Learning(), learning.Options{LLM: srv.Client(nil)})
	run, err := svc.SynthesizeNow(context.Background())
	if err != nil || run.Status != learning.RunDone || len(run.Learnings) != 1 {
		t.Fatalf("synthesis: %+v %v", run, err)
	}

	before := len(srv.Requests())
	chat("And on Friday?\n")
	reqs := srv.Requests()
	if len(reqs) != before+1 {
		t.Fatalf("%d model calls for one message", len(reqs)-before)
	}
	system := reqs[len(reqs)-1].Messages[0].Content
	if !strings.HasPrefix(system, "You are Friday.\n\n"+learning.SectionTitle) ||
		!strings.Contains(system, "- When asked about the calendar, list ALL events, including minor appointments.") {
		t.Fatalf("the later answer's system prompt:\n%s", system)
	}
	sessions, err := db.Capture().ListSessions(context.Background(), capture.SessionFilter{TesterID: "meg"})
	if err != nil || len(sessions) != 2 || !strings.Contains(sessions[0].PromptVersion, "+") || strings.Contains(sessions[1].PromptVersion, "+") {
		t.Fatalf("the learned section did not start a session of its own prompt version: %+v %v", sessions, err)
	}
}
