package capture_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/storage/storagetest"
)

// fakeMeasurer scores a turn 2/3, with a different first-response scoring,
// and records the calls.
type fakeMeasurer struct {
	mu    sync.Mutex
	calls []string
}

func (f *fakeMeasurer) Measure(in *capture.TurnInput) (capture.Measurement, *capture.Measurement) {
	f.mu.Lock()
	f.calls = append(f.calls, in.UserMessage)
	f.mu.Unlock()
	v := 2.0 / 3
	later := capture.Measurement{Metrics: json.RawMessage(`{"first":0,"na":null,"objective_quality_score":0.6666666666666666}`), Objective: &v}
	first := capture.Measurement{Metrics: json.RawMessage(`{"first":1,"na":null,"objective_quality_score":0.6666666666666666}`), Objective: &v}
	return later, &first
}

func TestRecordMeasuresOnceAndKeepsTheFirstResponseScoring(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		m := &fakeMeasurer{}
		r := capture.NewRecorder(db.Capture(), m)
		ctx := context.Background()
		in := capture.TurnInput{ConversationID: "c", TesterID: "meg", UserMessage: "q1", Response: "a1"}
		t1, _, err := r.Record(ctx, in, "")
		if err != nil {
			t.Fatal(err)
		}
		in.UserMessage = "q2"
		t2, _, err := r.Record(ctx, in, "")
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(m.calls, " "); got != "q1 q2" {
			t.Errorf("measure calls %q", got)
		}
		if string(t1.Metrics) != `{"first":1,"na":null,"objective_quality_score":0.6666666666666666}` || t1.ObjectiveScore == nil ||
			string(t2.Metrics) != `{"first":0,"na":null,"objective_quality_score":0.6666666666666666}` {
			t.Errorf("recorded metrics %s %s", t1.Metrics, t2.Metrics)
		}
		if _, _, err := r.Record(ctx, capture.TurnInput{ConversationID: "c", TesterID: "meg", UserMessage: "q"}, ""); hone.ErrorField(err) != "response" || len(m.calls) != 2 {
			t.Errorf("an invalid turn: err %v, %d calls", err, len(m.calls))
		}
		turns, err := db.Capture().RecentTurns(ctx, t1.SessionID, 10)
		if err != nil || len(turns) != 2 {
			t.Fatal(turns, err)
		}
		var got map[string]any
		if err := json.Unmarshal(turns[0].Metrics, &got); err != nil || got["first"] != 1.0 {
			t.Errorf("stored metrics of the first turn: %s", turns[0].Metrics)
		}
	})
}

func TestRecordBatchKeepsGoodTurnsAndReportsBadOnes(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		r := capture.NewRecorder(db.Capture(), nil)
		ctx := context.Background()
		var ins []capture.TurnInput
		for i := range 6 {
			in := capture.TurnInput{ConversationID: fmt.Sprint("c", i%2), TesterID: "meg", UserMessage: fmt.Sprint("q", i), Response: "a"}
			if i == 3 {
				in.Response = ""
			}
			ins = append(ins, in)
		}
		res, err := r.RecordBatch(ctx, ins, "")
		if err != nil {
			t.Fatal(err)
		}
		want := []int{1, 1, 2, 0, 3, 2}
		for i, res := range res {
			if i == 3 {
				if hone.ErrorField(res.Err) != "response" || res.Turn != nil {
					t.Errorf("item 3: %+v", res)
				}
				continue
			}
			if res.Err != nil || res.Turn.Number != want[i] {
				t.Errorf("item %d: %+v, want turn %d", i, res, want[i])
			}
		}
		s, _ := db.Capture().CurrentSession(ctx, "c1")
		if s.TotalTurns != 2 {
			t.Errorf("c1 has %d turns, want 2", s.TotalTurns)
		}
	})
}
