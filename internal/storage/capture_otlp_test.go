package storage_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/storage/storagetest"
)

// TestTurnLookupsOfOpenTelemetry: a turn is found by its trace and span
// ids, by its trace alone, and by the response id its metadata keeps, and its spans are read
// back; what names no turn is ENOTFOUND.
func TestTurnLookupsOfOpenTelemetry(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		ctx := context.Background()
		rec := capture.NewRecorder(db.Capture(), nil)
		in := turnInput("c1", "hi")
		in.TraceID, in.SpanID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
		in.Metadata = json.RawMessage(`{"gen_ai.response.id":"chatcmpl-1"}`)
		traced, _, err := rec.Record(ctx, in, "")
		if err != nil {
			t.Fatal(err)
		}
		plain := mustTurn(t, db, turnInput("c1", "plain"))
		cs := db.Capture()
		if id, err := cs.TurnBySpan(ctx, in.TraceID, in.SpanID); err != nil || id != traced.ID {
			t.Errorf("by span: %q %v", id, err)
		}
		if id, err := cs.TurnByResponseID(ctx, "gen_ai.response.id", "chatcmpl-1"); err != nil || id != traced.ID {
			t.Errorf("by response id: %q %v", id, err)
		}
		if id, err := cs.TurnByTrace(ctx, in.TraceID); err != nil || id != traced.ID {
			t.Errorf("by trace: %q %v", id, err)
		}
		if _, err := cs.TurnByTrace(ctx, "4bf92f3577b34da6a3ce929d0e0e4737"); hone.ErrorCode(err) != hone.ENOTFOUND {
			t.Errorf("another trace: %v", err)
		}
		if _, err := cs.TurnBySpan(ctx, in.TraceID, "00f067aa0ba902b8"); hone.ErrorCode(err) != hone.ENOTFOUND {
			t.Errorf("another span: %v", err)
		}
		if _, err := cs.TurnByResponseID(ctx, "gen_ai.response.id", "chatcmpl-2"); hone.ErrorCode(err) != hone.ENOTFOUND {
			t.Errorf("another response id: %v", err)
		}
		spans, err := cs.TurnSpans(ctx, []string{traced.ID, plain.ID, "nosuch"})
		if err != nil || len(spans) != 1 || spans[traced.ID] != [2]string{in.TraceID, in.SpanID} {
			t.Errorf("spans: %v %v", spans, err)
		}
	})
}
