package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/tuning"
)

func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Execute(context.Background(), args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

// openDataDir opens and migrates the SQLite database of a data directory,
// closed at the end of the test.
func openDataDir(t *testing.T, dir string) *storage.DB {
	t.Helper()
	db, err := storage.Open(context.Background(), filepath.Join(dir, "hone.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db
}

func seed(t *testing.T, dir string) *capture.Turn {
	t.Helper()
	ctx := context.Background()
	db := openDataDir(t, dir)
	turn, _, err := capture.NewRecorder(db.Capture(), nil).Record(ctx, capture.TurnInput{ConversationID: "c", TesterID: "meg", UserMessage: `say "hi", then`,
		Response: "line 1\nline 2", PromptVersion: "v1"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Tuning().AddImprovement(ctx, "c", "tone", "warmer"); err != nil {
		t.Fatal(err)
	}
	return turn
}

func TestExportCommand(t *testing.T) {
	dir := t.TempDir()
	turn := seed(t, dir)
	code, out, errOut := run(t, "--data-dir", dir, "--log-level", "error", "export", "--session", turn.SessionID)
	want := "Turn,User Message,Bot Response,Improvement Notes,Category,Objective Score,Subjective Score,Overall Score,Timestamp\n1,\"say \"\"hi\"\", then\",\"line 1\nline 2\",warmer,tone,,,,2"
	if code != 0 || !strings.HasPrefix(out, want) {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	file := filepath.Join(dir, "out.json")
	if code, _, errOut := run(t, "--data-dir", dir, "--log-level", "error", "export", "--session", turn.SessionID, "--format", "json", "--output", file); code != 0 {
		t.Fatalf("json export: %s", errOut)
	}
	var doc struct {
		Session capture.Session
		Turns   []tuning.Turn
	}
	b, _ := os.ReadFile(file)
	if err := json.Unmarshal(b, &doc); err != nil || doc.Session.ID != turn.SessionID || doc.Turns[0].Improvements[0].Note != "warmer" {
		t.Fatalf("json export %s: %v", b, err)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"export"}, "--session is required"},
		{[]string{"export", "--session", turn.SessionID, "--format", "xml"}, `--format must be csv or json, not "xml"`},
		{[]string{"export", "--session", "nope"}, `session "nope" not found`},
	} {
		missing := filepath.Join(dir, "never.csv")
		code, _, errOut := run(t, append([]string{"--data-dir", dir, "--log-level", "error"}, append(tt.args, "--output", missing)...)...)
		if code == 0 || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want %q", tt.args, code, errOut, tt.want)
		}
		if _, err := os.Stat(missing); err == nil {
			t.Errorf("%v left a file behind", tt.args)
		}
	}
}

func TestMigrateAndSessionsCommands(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := run(t, "--data-dir", dir, "--log-level", "error", "migrate")
	if code != 0 || !strings.Contains(out, "00001 applied") {
		t.Fatalf("migrate: %d %q %q", code, out, errOut)
	}
	turn := seed(t, dir)
	code, out, _ = run(t, "--data-dir", dir, "--log-level", "error", "sessions", "--tester", "meg")
	if code != 0 || !strings.Contains(out, turn.SessionID) || !strings.Contains(out, "v1") {
		t.Fatalf("sessions: %q", out)
	}
	if code, _, errOut := run(t, "--database-url", "mysql://x", "sessions"); code == 0 || !strings.Contains(errOut, "HONE_DATABASE_URL must start with postgres://") {
		t.Fatalf("bad database url: %d %q", code, errOut)
	}
}
