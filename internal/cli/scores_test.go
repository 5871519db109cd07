package cli

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/honehq/hone/internal/score"
)

func TestScoresCommands(t *testing.T) {
	dir := t.TempDir()
	turn := seed(t, dir)
	db := openDataDir(t, dir)
	_, err := score.NewService(db.Scores(), score.Options{Turns: db.Capture()}).RecordBatch(context.Background(), []score.Input{
		{TurnID: turn.ID, Config: "empathy", Value: score.Number(4), Author: "meg", Comment: "=warm"},
		{TurnID: turn.ID, Config: "thumbs", Value: score.Bool(true), Source: score.SourceChat, Author: "meg"},
	})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	hone := func(args ...string) (int, string, string) {
		return run(t, append([]string{"--data-dir", dir, "--log-level", "error"}, args...)...)
	}

	code, out, errOut := hone("scores", "configs", "add", "Helpfulness", "--type", "numeric", "--min", "1", "--max", "10", "--step", "1",
		"--description", "Did it help?")
	if code != 0 || !strings.Contains(out, "Added score config helpfulness (numeric, a whole number from 1 to 10)") {
		t.Fatalf("add: %d %q %q", code, out, errOut)
	}
	if code, out, errOut = hone("scores", "configs", "add", "tone", "--type", "categorical", "--category", "formal=1", "--category", "casual"); code != 0 ||
		!strings.Contains(out, "formal or casual") {
		t.Fatalf("add categorical: %d %q %q", code, out, errOut)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"scores", "configs", "add", "helpfulness", "--type", "boolean"}, "a score config named helpfulness exists"},
		{[]string{"scores", "configs", "add", "x", "--type", "boolean", "--min", "0"}, "min is for numeric configs only"},
		{[]string{"scores", "configs", "add", "x", "--type", "categorical", "--category", "a=b"}, `"b" is not a number`},
		{[]string{"scores", "configs", "archive", "thumbs"}, "thumbs is never archived"},
		{[]string{"scores", "configs", "archive", "nosuch"}, `no score config is named "nosuch"`},
		{[]string{"scores", "export", "--format", "xml"}, "--format must be jsonl, csv or otlp-json"},
		{[]string{"scores", "export", "--since", "yesterday"}, "since must be"},
	} {
		if code, _, errOut := hone(tt.args...); code == 0 || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: %d %q, want %q", tt.args, code, errOut, tt.want)
		}
	}
	if code, out, errOut = hone("scores", "configs", "archive", "tone"); code != 0 || !strings.Contains(out, "Archived score config tone") {
		t.Fatalf("archive: %d %q %q", code, out, errOut)
	}
	code, out, _ = hone("scores", "configs", "list")
	if code != 0 || !strings.Contains(out, "helpfulness") || strings.Contains(out, "\ntone") || !strings.Contains(out, "empathy *") {
		t.Fatalf("list: %q", out)
	}
	if code, out, _ = hone("scores", "configs", "list", "--archived"); code != 0 || !strings.Contains(out, "tone (archived)") {
		t.Fatalf("list --archived: %q", out)
	}

	code, out, errOut = hone("scores", "export", "--format", "csv")
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if code != 0 || err != nil || len(rows) != 3 || !slices.Equal(rows[0], score.ExportColumns) {
		t.Fatalf("csv: %d %q %v %q", code, out, err, errOut)
	}
	if rows[1][6] != "empathy" || rows[1][9] != "4" || rows[1][5] != "v1" || rows[1][11] != "'=warm" || rows[2][6] != "thumbs" || rows[2][9] != "true" {
		t.Fatalf("csv rows %q", rows)
	}
	file := filepath.Join(dir, "thumbs.jsonl")
	if code, _, errOut = hone("scores", "export", "--config", "thumbs", "--source", "chat", "--output", file); code != 0 {
		t.Fatalf("jsonl: %s", errOut)
	}
	b, _ := os.ReadFile(file)
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	var row map[string]any
	if len(lines) != 1 || json.Unmarshal(lines[0], &row) != nil || row["value"] != true || row["numeric_value"] != 1.0 ||
		row["comment"] != nil || len(row) != len(score.ExportColumns) {
		t.Fatalf("jsonl %s", b)
	}
}
