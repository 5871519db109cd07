package app_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/honehq/hone/internal/config"
)

// nodeOTel is the directory of the OpenTelemetry JS SDK interop script
// with its packages installed (HONE_TEST_NODE_OTEL, set by .ci/run); the
// test is skipped without it or without Node.
func nodeOTel(t *testing.T) string {
	dir := os.Getenv("HONE_TEST_NODE_OTEL")
	if dir == "" {
		t.Skip("HONE_TEST_NODE_OTEL is not set: the directory of internal/otlp/testdata/node after npm ci")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@opentelemetry", "sdk-trace-node")); err != nil {
		t.Skipf("the OpenTelemetry packages are not installed in %s (npm ci)", dir)
	}
	return dir
}

// TestNodeOTelSDKExportsToHone: the OpenTelemetry JS SDK's OTLP/HTTP
// exporters, protobuf and JSON, send hone a chat span, which becomes a
// turn with its trace context, and evaluation events, which become scores
// of that turn; with an API token, the exporters' Authorization header
// is what lets them in.
func TestNodeOTelSDKExportsToHone(t *testing.T) {
	dir := nodeOTel(t)
	const token = "node-interop-token-0123456789"
	a := startWith(t, config.Config{APIToken: token})
	for _, enc := range []string{"proto", "json"} {
		t.Run(enc, func(t *testing.T) {
			conv := "node-" + enc
			cmd := exec.Command("node", "send.mjs", a.URL(), enc, conv, token)
			cmd.Dir = dir
			cmd.Stderr = t.Output()
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("node: %v\n%s", err, out)
			}
			var sent struct {
				TraceID string `json:"trace_id"`
				SpanID  string `json:"span_id"`
				Failed  int    `json:"failed"`
			}
			if err := json.Unmarshal(out, &sent); err != nil || sent.Failed != 0 {
				t.Fatalf("node said %s (%v)", out, err)
			}
			turns := conversationTurns(t, a, conv)
			if len(turns) != 1 {
				t.Fatalf("%d turns, want 1", len(turns))
			}
			tu := turns[0]
			if tu.Source != "otlp" || tu.TraceID != sent.TraceID || tu.SpanID != sent.SpanID || tu.Model != "gpt-4o-mini-2024-07-18" ||
				tu.UserMessage != "My employee didn't show up" || tu.Response != "Call them first." || tu.Usage == nil || tu.Usage.TotalTokens != 28 {
				t.Errorf("turn %+v", tu)
			}
			code, body := raw(t, "GET", a.URL()+"/api/v1/scores?turn_id="+tu.ID, "", map[string]string{"Authorization": "Bearer " + token})
			var page struct {
				Scores []struct {
					Config string `json:"config"`
					Value  any    `json:"value"`
					Source string `json:"source"`
					Author string `json:"author"`
				} `json:"scores"`
			}
			if err := json.Unmarshal([]byte(body), &page); code != http.StatusOK || err != nil {
				t.Fatalf("scores: %d %s", code, body)
			}
			got := map[string]string{}
			for _, s := range page.Scores {
				got[s.Config] = fmt.Sprintf("%v|%s|%s", s.Value, s.Source, s.Author)
			}
			if got["relevance"] != "0.9|otlp|node-evaluator" || got["verdict"] != "pass|otlp|node-evaluator" {
				t.Errorf("scores %v", got)
			}
		})
	}
	t.Run("without the token", func(t *testing.T) {
		cmd := exec.Command("node", "send.mjs", a.URL(), "proto", "node-refused")
		cmd.Dir = dir
		cmd.Stderr = t.Output()
		out, err := cmd.Output()
		var sent struct{ Failed int }
		if err != nil || json.Unmarshal(out, &sent) != nil || sent.Failed == 0 {
			t.Fatalf("exports without the token: %s %v, want them to fail", out, err)
		}
	})
}
