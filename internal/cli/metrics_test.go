package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/quality"
	"github.com/honehq/hone/internal/score"
	"github.com/honehq/hone/internal/scoring"
)

// seedVersions records measured, scored turns: six of v1 scored 5, six of
// v2 scored 1 or 2, and returns v1's session id.
func seedVersions(t *testing.T, dir string) string {
	t.Helper()
	ctx := context.Background()
	db := openDataDir(t, dir)
	svc := scoring.New(db.Scoring(), db.Capture(), quality.Builtin("era-hr"))
	svc.Scores = score.NewService(db.Scores(), score.Options{Turns: db.Capture()})
	svc.Scores.Follow(svc)
	turns := capture.NewRecorder(db.Capture(), svc)
	var session string
	for _, v := range []string{"v1", "v2"} {
		for i := range 6 {
			turn, _, err := turns.Record(ctx, capture.TurnInput{ConversationID: "c-" + v, TesterID: "meg",
				UserMessage: fmt.Sprintf("question %d", i), Response: "Per our Attendance policy, call the employee.", PromptVersion: v}, "")
			if err != nil {
				t.Fatal(err)
			}
			score := 5
			if v == "v2" {
				score = 1 + i%2
			} else {
				session = turn.SessionID
			}
			if _, err := svc.ScoreTurn(ctx, scoring.TurnRef{TurnID: turn.ID}, map[string]int{"clarity": score}, scoring.Judge{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	return session
}

// The metrics commands with the metrics spec's set, chosen by its built-in
// name.
func TestMetricsCommands(t *testing.T) {
	t.Setenv("HONE_METRICS_FILE", "era-hr")
	dir := t.TempDir()
	session := seedVersions(t, dir)
	base := []string{"--data-dir", dir, "--log-level", "error", "metrics"}

	code, out, errOut := run(t, append(base, "session", session)...)
	if code != 0 || !strings.Contains(out, "Session "+session+", prompt version v1, 6 turns") ||
		!strings.Contains(out, "has_policy_citation") || !regexpLine(out, "subjective_quality_score", "6", "1.00") ||
		!regexpLine(out, "asks_clarifying_questions", "0", "N/A") {
		t.Fatalf("metrics session: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = run(t, append(base, "compare", "v1", "v2")...)
	if code != 0 || !strings.Contains(out, "A = v1 (6 turns), B = v2 (6 turns)") || !strings.Contains(out, "bootstrap CI + Mann–Whitney") ||
		!regexpLine(out, "overall_quality_score", "6", "6", "yes") || !regexpLine(out, "objective_quality_score", "+0.00", "no") {
		t.Fatalf("metrics compare: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = run(t, append(base, "regressions")...)
	if code != 0 || !regexpLine(out, "v1 → v2", "yes", "REGRESSED") || !strings.Contains(out, "1 regression(s):\n- v2 fell below v1: overall") {
		t.Fatalf("metrics regressions: exit %d\n%s\n%s", code, out, errOut)
	}
	if code, _, errOut := run(t, append(base, "compare", "v1", "nosuch")...); code == 0 || !strings.Contains(errOut, `no turns of prompt version "nosuch"`) {
		t.Errorf("compare with an unknown version: %d %q", code, errOut)
	}
	if code, _, errOut := run(t, append(base, "session", "nosuch")...); code == 0 || !strings.Contains(errOut, `session "nosuch" not found`) {
		t.Errorf("unknown session: %d %q", code, errOut)
	}
}

// regexpLine reports whether a line of out holds every part, in order.
func regexpLine(out string, parts ...string) bool {
	for _, line := range strings.Split(out, "\n") {
		rest, ok := line, true
		for _, p := range parts {
			i := strings.Index(rest, p)
			if i < 0 {
				ok = false
				break
			}
			rest = rest[i+len(p):]
		}
		if ok {
			return true
		}
	}
	return false
}

func TestServeRejectsBadMetricsFile(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("metrics:\n  - name: has_policy_citation\n    kind: pattern_any\n    patterns: ['(']\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := run(t, "--data-dir", dir, "--log-level", "error", "serve", "--addr", "127.0.0.1:0", "--metrics", bad)
	if code == 0 || !strings.Contains(errOut, `has_policy_citation`) || !strings.Contains(errOut, "patterns[0]") {
		t.Fatalf("serve --metrics bad.yaml: exit %d, stderr %q", code, errOut)
	}
	t.Setenv("HONE_METRICS_FILE", filepath.Join(dir, "missing.json"))
	if code, _, errOut := run(t, "--data-dir", dir, "--log-level", "error", "serve", "--addr", "127.0.0.1:0"); code == 0 || !strings.Contains(errOut, "missing.json") {
		t.Fatalf("HONE_METRICS_FILE missing: exit %d, stderr %q", code, errOut)
	}
}
