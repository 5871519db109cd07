package app_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/honehq/hone/internal/config"
	recording "github.com/honehq/hone/internal/proxy"
	"github.com/honehq/hone/internal/scoring"
)

// nodeOpenAI is the directory of the Node script with the official openai
// package installed (HONE_TEST_NODE_OPENAI, which .ci/run sets after npm
// ci; by default the script's own directory); the test is skipped when
// Node or the package is missing.
func nodeOpenAI(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("HONE_TEST_NODE_OPENAI")
	if dir == "" {
		dir = filepath.Join("..", "proxy", "testdata", "node")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "openai", "package.json")); err != nil {
		t.Skipf("the openai package is not installed in %s (npm ci there)", dir)
	}
	v, err := exec.Command(node, "-p", "process.versions.node").Output()
	if major, _ := strconv.Atoi(strings.Split(strings.TrimSpace(string(v)), ".")[0]); err != nil || major < 20 {
		t.Skipf("node %s is older than the openai package needs (20)", strings.TrimSpace(string(v)))
	}
	return dir
}

// nodeRun is what the Node script prints.
type nodeRun struct {
	Whole struct {
		Content string
		Usage   *struct {
			TotalTokens int64 `json:"total_tokens"`
		}
		TurnID string
	}
	Streamed, StreamedWithUsage struct {
		Content string
		Usage   *struct {
			TotalTokens int64 `json:"total_tokens"`
		}
		Chunks int
		TurnID string
	}
	Score, Thumb string
	Models       []string
}

func TestProxyWithNodeSDK(t *testing.T) {
	dir := nodeOpenAI(t)
	for _, up := range sdkUpstreams(t) {
		t.Run(up.name, func(t *testing.T) {
			a := startProxy(t, up.url, config.Config{})
			conversation := "node-sdk-" + up.name
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "node", "proxy.mjs")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "HONE_BASE_URL="+a.URL()+"/v1", "HONE_KEY="+up.key, "HONE_MODEL="+up.model,
				"HONE_CONVERSATION="+conversation)
			out, err := cmd.Output()
			if err != nil {
				var stderr string
				if ee, ok := err.(*exec.ExitError); ok {
					stderr = string(ee.Stderr)
				}
				t.Fatalf("node: %v\n%s", err, stderr)
			}
			var run nodeRun
			if err := json.Unmarshal(out, &run); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if run.Whole.Content == "" || (up.fake != nil && run.Whole.Content != "How do I process a resignation?") {
				t.Fatalf("answer %q", run.Whole.Content)
			}
			turn := proxiedTurn(t, a, conversation, run.Whole.TurnID)
			if turn.Response != run.Whole.Content || turn.Usage == nil || turn.Usage.TotalTokens != run.Whole.Usage.TotalTokens {
				t.Fatalf("recorded %+v", turn)
			}
			if run.Streamed.Content == "" || run.Streamed.Usage != nil || run.Streamed.Chunks < 2 {
				t.Fatalf("streamed %+v (the caller did not ask for usage)", run.Streamed)
			}
			if turn := proxiedTurn(t, a, conversation, run.Streamed.TurnID); turn.Response != run.Streamed.Content || turn.Usage == nil {
				t.Fatalf("recorded %+v", turn)
			}
			if run.StreamedWithUsage.Usage == nil {
				t.Fatalf("asked for usage: %+v", run.StreamedWithUsage)
			}
			turn = proxiedTurn(t, a, conversation, run.StreamedWithUsage.TurnID)
			if turn.Usage == nil || turn.Usage.TotalTokens != run.StreamedWithUsage.Usage.TotalTokens {
				t.Fatalf("recorded usage %+v", turn.Usage)
			}
			if !strings.HasPrefix(run.Score, scoring.ScoredText) || run.Thumb != recording.AckText || len(run.Models) == 0 {
				t.Fatalf("!score %q, 👍 %q, models %v", run.Score, run.Thumb, run.Models)
			}
		})
	}
}
