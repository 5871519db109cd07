package tuning_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/honehq/hone/internal/storage/storagetest"
	"github.com/honehq/hone/internal/tuning"
)

// fakeMeasurer scores a turn 2/3 and records the calls.
type fakeMeasurer struct {
	mu    sync.Mutex
	calls []string
}

func (f *fakeMeasurer) Measure(in tuning.TurnInput, first bool) tuning.Measurement {
	f.mu.Lock()
	f.calls = append(f.calls, fmt.Sprintf("%s/%v", in.UserMessage, first))
	f.mu.Unlock()
	v := 2.0 / 3
	if first {
		return tuning.Measurement{Metrics: json.RawMessage(`{"first":1,"na":null,"objective_quality_score":0.6666666666666666}`), Objective: &v}
	}
	return tuning.Measurement{Metrics: json.RawMessage(`{"first":0,"na":null,"objective_quality_score":0.6666666666666666}`), Objective: &v}
}

func TestRecordTurnMeasures(t *testing.T) {
	db := storagetest.SQLite(t)
	m := &fakeMeasurer{}
	e := tuning.NewEngine(db, tuning.Options{Measurer: m})
	ctx := context.Background()
	in := tuning.TurnInput{ConversationID: "c", TesterID: "meg", UserMessage: "q1", Response: "a1"}
	t1, err := e.RecordTurn(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	in.UserMessage = "q2"
	t2, err := e.RecordTurn(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	// Each turn is scored once as a later response; the first of a session
	// once more as a first response.
	if got := strings.Join(m.calls, " "); got != "q1/false q1/true q2/false" {
		t.Errorf("measure calls %q", got)
	}
	if string(t1.Metrics) != `{"first":1,"na":null,"objective_quality_score":0.6666666666666666}` || t1.ObjectiveScore == nil ||
		string(t2.Metrics) != `{"first":0,"na":null,"objective_quality_score":0.6666666666666666}` {
		t.Errorf("recorded metrics %s %s", t1.Metrics, t2.Metrics)
	}
	if _, err := e.RecordTurn(ctx, tuning.TurnInput{ConversationID: "c", TesterID: "meg", UserMessage: "q"}); err == nil || len(m.calls) != 3 {
		t.Errorf("an invalid turn: err %v, %d calls", err, len(m.calls))
	}
	s, _ := db.CurrentSession(ctx, "c")
	var buf bytes.Buffer
	if err := tuning.WriteCSV(ctx, &buf, db, s, "Bot"); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(buf.String(), "\n")
	if !strings.HasPrefix(lines[1], "1,q1,a1,,,0.67,,,") || !strings.HasPrefix(lines[2], "2,q2,a1,,,0.67,,,") {
		t.Errorf("CSV:\n%s", buf.String())
	}
	buf.Reset()
	if err := tuning.WriteJSON(ctx, &buf, db, s, e.Now()); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Turns []map[string]json.RawMessage `json:"turns"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	got := doc.Turns[0]
	for k, want := range map[string]string{
		"metrics": `{"first":1,"na":null,"objective_quality_score":0.6666666666666666}`, "scores": `{}`,
		"objective_quality_score": `0.6666666666666666`, "subjective_quality_score": `null`, "overall_quality_score": `null`,
	} {
		var a, b any
		_ = json.Unmarshal(got[k], &a)
		_ = json.Unmarshal([]byte(want), &b)
		if fmt.Sprint(a) != fmt.Sprint(b) {
			t.Errorf("JSON export %s = %s, want %s", k, got[k], want)
		}
	}
}
