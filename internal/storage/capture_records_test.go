package storage_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/storage/storagetest"
	"github.com/honehq/hone/internal/tuning"
)

// richInput is a turn with every field of the richer record and neither a
// tester nor user_message and response.
func richInput(t *testing.T, conv string, n int) capture.TurnInput {
	t.Helper()
	var in capture.TurnInput
	body := fmt.Sprintf(`{"conversation_id":%q,"model":"gpt-4o-mini","latency_ms":640.5,
		"usage":{"prompt_tokens":120,"completion_tokens":30},
		"trace_id":"4bf92f3577b34da6a3ce929d0e0e4736","span_id":"00f067aa0ba902b%d","parent_id":"53995c3f42cd8ad8",
		"metadata":{"env":"staging"},
		"messages":[{"role":"system","content":"Be brief."},
			{"role":"user","name":"meg","content":[{"type":"text","text":"weather in Paris? %d"},{"type":"image_url","image_url":{"url":"https://x/y.png"}}]},
			{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Paris\"}"}}]},
			{"role":"tool","tool_call_id":"c1","content":"sunny"},
			{"role":"assistant","content":"Sunny in Paris."}]}`, conv, n%10, n)
	if err := json.Unmarshal([]byte(body), &in); err != nil {
		t.Fatal(err)
	}
	return in
}

// sameJSON reports whether two JSON texts hold the same value.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%v: %s", err, a)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return reflect.DeepEqual(x, y)
}

func checkRich(t *testing.T, got *capture.Turn, in capture.TurnInput, n int) {
	t.Helper()
	want, _ := json.Marshal(in.Messages)
	if !sameJSON(t, got.Messages, want) {
		t.Errorf("turn %d: messages\n %s\nwant\n %s", n, got.Messages, want)
	}
	if got.UserMessage != fmt.Sprint("weather in Paris? ", n) || got.Response != "Sunny in Paris." {
		t.Errorf("turn %d: derived %q / %q", n, got.UserMessage, got.Response)
	}
	if got.Model != "gpt-4o-mini" || got.Usage == nil || *got.Usage != (capture.Usage{PromptTokens: 120, CompletionTokens: 30, TotalTokens: 150}) ||
		got.LatencyMS == nil || *got.LatencyMS != 640.5 || got.ProcessingTimeMS == nil || *got.ProcessingTimeMS != 640.5 ||
		got.Source != capture.SourceProxy || got.TraceID != "4bf92f3577b34da6a3ce929d0e0e4736" ||
		got.SpanID != fmt.Sprint("00f067aa0ba902b", n%10) || got.ParentID != "53995c3f42cd8ad8" || !sameJSON(t, got.Metadata, []byte(`{"env":"staging"}`)) {
		t.Errorf("turn %d: %+v usage %+v", n, got, got.Usage)
	}
}

func checkPlain(t *testing.T, got *capture.Turn) {
	t.Helper()
	if got.Messages != nil || got.Model != "" || got.Usage != nil || got.LatencyMS != nil || got.TraceID != "" ||
		got.SpanID != "" || got.ParentID != "" || got.Source != capture.SourceAPI {
		t.Errorf("a plain turn: %+v", got)
	}
}

func TestRecordTurnKeepsTheRicherRecord(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		ctx := context.Background()
		proxy := capture.NewRecorder(db.Capture(), nil).From(capture.SourceAPI)
		in := richInput(t, "c1", 0)
		in.Source = capture.SourceProxy
		recorded, _, err := proxy.Record(ctx, in, "")
		if err != nil {
			t.Fatal(err)
		}
		checkRich(t, recorded, in, 0)
		sess, err := db.Capture().FindSession(ctx, recorded.SessionID)
		if err != nil || sess.TesterID != capture.AnonymousTester {
			t.Fatalf("session %+v, %v", sess, err)
		}
		plain, _, err := proxy.Record(ctx, turnInput("c1", "plain"), "")
		if err != nil || plain.SessionID != sess.ID {
			t.Fatalf("a plain turn in the same conversation: %+v %v", plain, err)
		}
		var read []*capture.Turn
		if err := db.Capture().EachTurn(ctx, sess.ID, func(t *capture.Turn) error { read = append(read, t); return nil }); err != nil {
			t.Fatal(err)
		}
		if len(read) != 2 {
			t.Fatalf("%d turns", len(read))
		}
		checkRich(t, read[0], in, 0)
		checkPlain(t, read[1])
		recent, err := db.Capture().RecentTurns(ctx, sess.ID, 5)
		if err != nil || len(recent) != 2 {
			t.Fatal(recent, err)
		}
		checkRich(t, recent[0], in, 0)
		var exported []*tuning.Turn
		if err := db.Tuning().EachTurn(ctx, sess.ID, func(t *tuning.Turn) error { exported = append(exported, t); return nil }); err != nil {
			t.Fatal(err)
		}
		checkRich(t, &exported[0].Turn, in, 0)
		checkPlain(t, &exported[1].Turn)
	})
}

// A batch mixing rich and plain turns, and a retry of a rich one by its
// id, go through the bulk insert.
func TestRecordBatchKeepsTheRicherRecord(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		ctx := context.Background()
		r := capture.NewRecorder(db.Capture(), nil).From(capture.SourceAPI)
		var ins []capture.TurnInput
		for i := range 120 {
			if i%3 == 0 {
				ins = append(ins, turnInput(fmt.Sprint("c", i%4), fmt.Sprint("plain ", i)))
				continue
			}
			in := richInput(t, fmt.Sprint("c", i%4), i)
			in.ID, in.Source = fmt.Sprint("rich-", i), capture.SourceProxy
			ins = append(ins, in)
		}
		res, err := r.RecordBatch(ctx, ins, "")
		if err != nil {
			t.Fatal(err)
		}
		for i, res := range res {
			if res.Err != nil {
				t.Fatalf("turn %d: %v", i, res.Err)
			}
		}
		again, err := r.RecordBatch(ctx, ins[1:3], "")
		if err != nil || again[0].Err != nil || !again[0].Replayed || again[0].Turn.ID != "rich-1" {
			t.Fatalf("a retry: %+v %v", again, err)
		}
		checkRich(t, again[1].Turn, ins[2], 2)
		for c := range 4 {
			sess, err := db.Capture().CurrentSession(ctx, fmt.Sprint("c", c))
			if err != nil || sess.TotalTurns != 30 {
				t.Fatalf("c%d: %+v %v", c, sess, err)
			}
			err = db.Capture().EachTurn(ctx, sess.ID, func(turn *capture.Turn) error {
				var i int
				if _, err := fmt.Sscanf(turn.ID, "rich-%d", &i); err == nil {
					checkRich(t, turn, ins[i], i)
				} else {
					checkPlain(t, turn)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	})
}

// OpenTelemetry ingestion will look turns up by trace and span id: the
// index for it exists on both databases.
func TestTurnsHaveATraceIndex(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		if err := db.Exec(context.Background(), `DROP INDEX turns_trace`); err != nil {
			t.Fatalf("no index turns_trace: %v", err)
		}
	})
}

// The richer record's columns come back exactly at their bounds and with
// text that JSON escapes, on both databases.
func TestRichRecordRoundTripsAtItsBounds(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		ctx := context.Background()
		latency := 1.7976931348623157e308
		in := turnInput("c-bounds", "q")
		in.Model = `m "quoted" \ é` + "\u2028"
		in.Usage = &capture.Usage{PromptTokens: capture.MaxTokens, CompletionTokens: 0, TotalTokens: capture.MaxTokens}
		in.LatencyMS = &latency
		in.TraceID = "ffffffffffffffffffffffffffffffff"
		recorded, _, err := capture.NewRecorder(db.Capture(), nil).Record(ctx, in, "")
		if err != nil {
			t.Fatal(err)
		}
		got, err := db.Capture().RecentTurns(ctx, recorded.SessionID, 1)
		if err != nil || len(got) != 1 {
			t.Fatal(got, err)
		}
		g := got[0]
		if g.Model != in.Model || g.Usage == nil || *g.Usage != *in.Usage || g.LatencyMS == nil || *g.LatencyMS != latency ||
			g.TraceID != in.TraceID || g.SpanID != "" || g.Messages != nil {
			t.Errorf("read back %+v, usage %+v", g, g.Usage)
		}
	})
}
