package cli

import (
	"os"
	"strings"
	"testing"
)

// TestServeUpstreamFlag: serve --upstream sets HONE_UPSTREAM_URL, so a URL
// the proxy cannot use stops hone with the setting named.
func TestServeUpstreamFlag(t *testing.T) {
	t.Setenv("HONE_UPSTREAM_URL", "")
	code, _, errOut := run(t, "--data-dir", t.TempDir(), "--log-level", "error", "serve", "--addr", "127.0.0.1:0",
		"--upstream", "ftp://models.example")
	if code == 0 || !strings.Contains(errOut, "HONE_UPSTREAM_URL") || !strings.Contains(errOut, "ftp://models.example") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if got := os.Getenv("HONE_UPSTREAM_URL"); got != "ftp://models.example" {
		t.Fatalf("HONE_UPSTREAM_URL = %q", got)
	}
}
