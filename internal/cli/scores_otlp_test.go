package cli

import (
	"bufio"
	"context"
	"strings"
	"testing"

	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/score"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
)

// TestScoresExportOTLPJSON: hone scores export --format otlp-json writes
// OTLP JSON export requests of gen_ai.evaluation.result records, linked
// to the span of a turn that has one.
func TestScoresExportOTLPJSON(t *testing.T) {
	dir := t.TempDir()
	plain := seed(t, dir)
	ctx := context.Background()
	db := openDataDir(t, dir)
	traced, _, err := capture.NewRecorder(db.Capture(), nil).Record(ctx, capture.TurnInput{ConversationID: "t", UserMessage: "hi",
		Response: "hello", TraceID: "4bf92f3577b34da6a3ce929d0e0e4736", SpanID: "00f067aa0ba902b7"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := score.NewService(db.Scores(), score.Options{Turns: db.Capture()}).RecordBatch(ctx, []score.Input{
		{TurnID: traced.ID, Config: "empathy", Value: score.Number(4), Author: "meg", Comment: "warm"},
		{TurnID: plain.ID, Config: "thumbs", Value: score.Bool(false), Source: score.SourceChat},
	}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	code, out, errOut := run(t, "--data-dir", dir, "--log-level", "error", "scores", "export", "--format", "otlp-json")
	if code != 0 {
		t.Fatalf("export: %d %q", code, errOut)
	}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	var records []map[string]any
	var spans []string
	for sc.Scan() {
		req := plogotlp.NewExportRequest()
		if err := req.UnmarshalJSON(sc.Bytes()); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		for _, rl := range req.Logs().ResourceLogs().All() {
			for _, sl := range rl.ScopeLogs().All() {
				for _, lr := range sl.LogRecords().All() {
					if lr.EventName() != "gen_ai.evaluation.result" {
						t.Errorf("event %q", lr.EventName())
					}
					records = append(records, lr.Attributes().AsRaw())
					spans = append(spans, lr.TraceID().String()+"/"+lr.SpanID().String())
				}
			}
		}
	}
	if len(records) != 2 || records[0]["gen_ai.evaluation.name"] != "empathy" || records[0]["gen_ai.evaluation.score.value"] != 4.0 ||
		records[0]["gen_ai.evaluation.explanation"] != "warm" || spans[0] != "4bf92f3577b34da6a3ce929d0e0e4736/00f067aa0ba902b7" ||
		records[1]["gen_ai.evaluation.score.label"] != "false" || records[1]["hone.turn.id"] != plain.ID || spans[1] != "/" {
		t.Fatalf("records %v spans %v", records, spans)
	}
}
