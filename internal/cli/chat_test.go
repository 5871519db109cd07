package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/llm/llmtest"
	"github.com/honehq/hone/internal/storage"
)

func chatEnv(t *testing.T, srv *llmtest.Server) {
	cfg := srv.Config()
	t.Setenv("HONE_LLM_BASE_URL", cfg.BaseURL)
	t.Setenv("HONE_LLM_API_KEY", cfg.APIKey)
	t.Setenv("HONE_LLM_MODEL", cfg.Model)
}

func TestChatScriptedSession(t *testing.T) {
	srv := llmtest.New(t)
	chatEnv(t, srv)
	dir := t.TempDir()
	prompt := filepath.Join(dir, "MASTER_PROMPT.md")
	os.WriteFile(prompt, []byte("You are ERA."), 0o644)
	script := "My employee didn't show up\n\n!improve tone: too formal\n!score clarity:4\n!print\n"
	var out, errOut strings.Builder
	code := Execute(context.Background(), []string{"--data-dir", dir, "--log-level", "error", "chat", "--prompt", prompt,
		"--tester", "meg", "--email", "meg@example.com"}, strings.NewReader(script), &out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	lines := strings.Split(out.String(), "\n")
	if lines[0] != "My employee didn't show up" || lines[1] != "👍" || !strings.HasPrefix(lines[7], "📊 **Session Export (Session ID: ") {
		t.Fatalf("stdout =\n%s", out.String())
	}
	if !strings.Contains(out.String(), "My employee didn't show up,My employee didn't show up,too formal,tone,") {
		t.Fatalf("!print lacks the turn and note:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "✅ Subjective scores added!") || !strings.Contains(out.String(), ",tone,0.") ||
		!strings.Contains(out.String(), ",0.80,") {
		t.Fatalf("chat turns are not scored:\n%s", out.String())
	}
	if !strings.HasPrefix(errOut.String(), "hone chat: session ") {
		t.Fatalf("stderr = %q", errOut.String())
	}
	db, err := storage.Open(context.Background(), filepath.Join(dir, "hone.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	list, _ := db.Capture().ListSessions(context.Background(), capture.SessionFilter{TesterID: "meg"})
	if len(list) != 1 || list[0].TotalTurns != 1 || list[0].TotalImprovements != 1 || list[0].TesterEmail != "meg@example.com" {
		t.Fatalf("sessions = %+v", list)
	}
}

func TestChatWithoutLLMSaysWhatToSet(t *testing.T) {
	for _, v := range []string{"HONE_LLM_BASE_URL", "HONE_LLM_API_KEY", "HONE_LLM_MODEL"} {
		t.Setenv(v, "")
	}
	prompt := filepath.Join(t.TempDir(), "p.md")
	os.WriteFile(prompt, []byte("x"), 0o644)
	var out, errOut strings.Builder
	code := Execute(context.Background(), []string{"--data-dir", t.TempDir(), "chat", "--prompt", prompt}, strings.NewReader("hi\n"), &out, &errOut)
	if code == 0 {
		t.Fatal("hone chat without an LLM exited 0")
	}
	for _, want := range []string{"HONE_LLM_BASE_URL", "HONE_LLM_API_KEY", "HONE_LLM_MODEL", "https://api.openai.com/v1", "http://localhost:11434/v1"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("help lacks %s:\n%s", want, errOut.String())
		}
	}
	if strings.Contains(errOut.String(), "goroutine") || out.Len() != 0 {
		t.Fatalf("stdout %q stderr %q", out.String(), errOut.String())
	}
}

func TestChatWithoutPromptFile(t *testing.T) {
	chatEnv(t, llmtest.New(t))
	var errOut strings.Builder
	code := Execute(context.Background(), []string{"--data-dir", t.TempDir(), "chat", "--prompt", "/nonexistent/MASTER_PROMPT.md"},
		strings.NewReader(""), &strings.Builder{}, &errOut)
	if code == 0 || !strings.Contains(errOut.String(), "cannot read the prompt file /nonexistent/MASTER_PROMPT.md") {
		t.Fatalf("exit %d, %q", code, errOut.String())
	}
}
