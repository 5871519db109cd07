package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/honehq/hone/suggest"
)

// writeHistory records rounds into a session_history tree with the
// library's JSONL sink and returns the root.
func writeHistory(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	sink, err := suggest.NewJSONL(suggest.JSONLOptions{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	clock := time.Date(2026, 1, 10, 9, 0, 0, 0, time.UTC)
	three := []string{"git status", "git diff", "git log"}
	sys := map[string]any{"role": "system", "content": "Suggest commands."}
	for _, c := range []struct {
		session, version, input string
		steps                   int
	}{
		{"alpha", "v1", "git status", 0}, {"alpha", "v1", "git diff", 1}, {"alpha", "v1", "ls", 2},
		{"beta", "v2", "git log --oneline", 2}, {"beta", "v2", "git status", 0},
	} {
		tr := suggest.NewTracker(suggest.Options{Server: "local", Session: c.session, Sink: sink, Now: func() time.Time { return clock }})
		tr.Fetched(map[string]any{"blocks": []any{}}, three, map[string]any{"messages": []any{sys}, "model": "m1"}, nil, c.version)
		for range c.steps {
			tr.Next()
		}
		clock = clock.Add(1500 * time.Millisecond)
		tr.Submit(c.input, nil)
	}
	if err := sink.Close(); err != nil {
		t.Fatal(err)
	}
	return root
}

func TestSuggestionsCLI(t *testing.T) {
	eachTestDatabase(t, func(t *testing.T, d testDatabase) {
		root := writeHistory(t)
		t.Setenv("HONE_SUGGESTION_ROOT", root)
		hone := func(args ...string) (int, string, string) {
			return run(t, append(append(append([]string{}, d.flags...), "--log-level", "error"), args...)...)
		}
		code, out, errOut := hone("suggestions", "import", root)
		if code != 0 || out != "Imported 5 records (0 already imported, 0 invalid lines skipped).\n" ||
			!strings.Contains(errOut, filepath.Join("local", "alpha", suggest.HistoryFile)+": 3 new, 0 already imported, 0 invalid") {
			t.Fatalf("import: %d %q %q", code, out, errOut)
		}
		if code, out, _ := hone("suggestions", "import", root); code != 0 || out != "Imported 0 records (5 already imported, 0 invalid lines skipped).\n" {
			t.Fatalf("import again: %d %q", code, out)
		}

		code, out, _ = hone("suggestions", "stats")
		for _, line := range []string{"Records: 5\n", "Accepted: 4 (80.0%; exact 60.0%)\n", "By match type: exact 3, partial 1, prefix 0, none 1\n",
			"Accepted by position: #0: 2, #1: 1, #2: 1\n", "Time to action: p50 1506 ms, p90 1506 ms, p99 1506 ms\n",
			"Cycle count: 0: 2, 1: 1, 2: 2\n", "viewed_but_rejected 3", "cycled_back 0", "many_cycles 0"} {
			if !strings.Contains(out, line) {
				t.Errorf("stats lack %q:\n%s", line, out)
			}
		}
		if code != 0 || !regexpMatch(`(?m)^v1\s+3\s+66\.7%\s+66\.7%\s+1$`, out) || !regexpMatch(`(?m)^v2\s+2\s+100\.0%\s+50\.0%\s+0$`, out) {
			t.Errorf("the version table:\n%s", out)
		}
		var js map[string]any
		if code, out, _ := hone("suggestions", "stats", "--version", "v2", "--json"); code != 0 || json.Unmarshal([]byte(out), &js) != nil || js["total"] != 2.0 {
			t.Errorf("stats --version v2 --json: %d %s", code, out)
		}
		if code, out, _ := hone("suggestions", "stats", "--since", "2026-01-11"); code != 0 || !strings.HasPrefix(out, "No suggestion records match") {
			t.Errorf("stats --since tomorrow: %d %s", code, out)
		}
		if code, _, errOut := hone("suggestions", "stats", "--since", "last week"); code == 0 || !strings.Contains(errOut, "since must be a time") {
			t.Errorf("a bad --since: %d %s", code, errOut)
		}

		file := filepath.Join(t.TempDir(), "sft.jsonl")
		code, _, errOut = hone("suggestions", "export", "--format", "sft", "-o", file)
		b, _ := os.ReadFile(file)
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if code != 0 || errOut != "Wrote 3 sft lines (0 records skipped).\n" || len(lines) != 3 {
			t.Fatalf("export sft: %d %q %q", code, errOut, b)
		}
		var sft struct {
			Messages []map[string]string `json:"messages"`
		}
		if err := json.Unmarshal([]byte(lines[0]), &sft); err != nil || len(sft.Messages) != 2 || sft.Messages[1]["role"] != "assistant" ||
			sft.Messages[1]["content"] != "git status" {
			t.Errorf("an sft line %s %v", lines[0], err)
		}
		if code, out, errOut := hone("suggestions", "export"); code != 0 || errOut != "Wrote 3 sft lines (0 records skipped).\n" ||
			strings.TrimSpace(out) != strings.TrimSpace(string(b)) {
			t.Errorf("export without --format is not sft: %d %q %q", code, errOut, out)
		}
		code, out, errOut = hone("suggestions", "export", "--format", "dpo", "--session", "beta")
		if code != 0 || errOut != "Wrote 2 dpo lines (1 records skipped).\n" || strings.Count(out, "\n") != 2 || !strings.Contains(out, `"chosen":"git log --oneline"`) {
			t.Errorf("export dpo: %d %q %q", code, out, errOut)
		}
		if code, _, errOut := hone("suggestions", "export", "--format", "csv"); code == 0 || !strings.Contains(errOut, "--format must be sft, ranking or dpo") {
			t.Errorf("export csv: %d %q", code, errOut)
		}

		code, out, _ = hone("suggestions", "forget", "--session", "alpha", "--server", "local")
		if code != 0 || out != "Forgot 3 records of session alpha.\nRemoved "+filepath.Join(root, "local", "alpha")+"\n" {
			t.Fatalf("forget: %d %q", code, out)
		}
		if _, err := os.Stat(filepath.Join(root, "local", "alpha")); !os.IsNotExist(err) {
			t.Errorf("the session directory is still there")
		}
		if _, err := os.Stat(filepath.Join(root, "local", "beta")); err != nil {
			t.Errorf("another session's directory went too: %v", err)
		}
		if code, out, _ := hone("suggestions", "stats", "--json"); code != 0 || !strings.Contains(out, `"total": 2,`) {
			t.Errorf("stats after forgetting: %s", out)
		}
		if code, _, errOut := hone("suggestions", "forget"); code == 0 || !strings.Contains(errOut, "session is required") {
			t.Errorf("forget without a session: %d %q", code, errOut)
		}
	})
}

func regexpMatch(expr, s string) bool { return regexp.MustCompile(expr).MatchString(s) }
