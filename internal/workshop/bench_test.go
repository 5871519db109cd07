package workshop_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/storage/storagetest"
	"github.com/honehq/hone/internal/workshop"
)

const benchTraces, benchParticipants = 10_000, 20

// benchFeedback is a workshop of 10,000 traces each reviewed by the same 20
// participants, in memory.
func benchFeedback() ([]*workshop.Trace, []*workshop.Feedback, map[string]string) {
	traces := make([]*workshop.Trace, benchTraces)
	for i := range traces {
		traces[i] = &workshop.Trace{ID: fmt.Sprintf("t%05d", i), Position: i, InputText: "question", OutputText: "answer"}
	}
	names := map[string]string{}
	var fb []*workshop.Feedback
	for p := range benchParticipants {
		user := fmt.Sprintf("u%02d", p)
		names[user] = "Participant " + user
		for i, t := range traces {
			label := workshop.LabelGood
			if (i+p)%3 == 0 || (i%7 == 0 && p%2 == 0) {
				label = workshop.LabelBad
			}
			fb = append(fb, &workshop.Feedback{TraceID: t.ID, UserID: user, Label: label, Comment: "because",
				FollowupQnA: []workshop.QA{{Question: "q", Answer: "a"}}})
		}
	}
	return traces, fb, names
}

// BenchmarkAnalysisDeterministic10kx20 times what an analysis computes
// without the LLM, and the agreement figures, for 10,000 traces × 20
// participants: aggregation by trace, the disagreement tiers, and Cohen's,
// Fleiss' and Krippendorff's statistics.
func BenchmarkAnalysisDeterministic10kx20(b *testing.B) {
	traces, fb, names := benchFeedback()
	ratings := make([]workshop.Rating, len(fb))
	for i, f := range fb {
		ratings[i] = workshop.Rating{TraceID: f.TraceID, UserID: f.UserID, Label: f.Label}
	}
	b.ResetTimer()
	for b.Loop() {
		agg := workshop.Aggregate(traces, fb, names)
		d := workshop.DetectDisagreements(agg)
		ag := workshop.ComputeAgreement(ratings)
		if len(agg) != benchTraces || len(d.High)+len(d.Medium)+len(d.Lower) != benchTraces || ag.FleissKappa == nil {
			b.Fatalf("%d traces, tiers %d/%d/%d", len(agg), len(d.High), len(d.Medium), len(d.Lower))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
}

// seedBench fills a SQLite workshop with 10,000 traces and 20 participants
// who each completed every one, in bulk.
func seedBench(b *testing.B, db *storage.DB) *fixture {
	f := &fixture{t: &testing.T{}, db: db, svc: workshop.NewService(db.Workshops(), nil, workshop.Options{})}
	ws, err := f.svc.Create(admin, workshop.Create{Name: "Big", Facilitator: workshop.Person{Name: "Fay"}})
	if err != nil {
		b.Fatal(err)
	}
	f.ws = ws
	for p := range benchParticipants {
		if _, err := f.svc.AddMember(admin, ws.ID, "", workshop.Person{Name: fmt.Sprintf("P%02d", p)}); err != nil {
			b.Fatal(err)
		}
	}
	ctx := admin
	at := time.Date(2025, 10, 24, 10, 0, 0, 0, time.UTC)
	if err := db.Exec(ctx, `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
		INSERT INTO workshop_traces (workshop_id, id, position, input, output, input_text, output_text, created_at)
		SELECT ?, 't' || i, i, '"question"', '"answer"', 'question', 'answer', ? FROM n`, benchTraces-1, ws.ID, at); err != nil {
		b.Fatal(err)
	}
	if err := db.Exec(ctx, `UPDATE workshops SET trace_count = ? WHERE id = ?`, benchTraces, ws.ID); err != nil {
		b.Fatal(err)
	}
	if _, err := f.svc.Begin(admin, ws.ID, "", benchTraces, true); err != nil {
		b.Fatal(err)
	}
	if err := db.Exec(ctx, `INSERT INTO discovery_feedback (id, workshop_id, trace_id, user_id, feedback_label, comment,
		followup_qna, answers, created_at, updated_at)
		SELECT m.id || '-' || t.id, t.workshop_id, t.id, m.id, CASE WHEN (t.position + length(m.id)) % 3 = 0 THEN 'bad' ELSE 'good' END,
		'because', '[{"question":"q1","answer":"a1"},{"question":"q2","answer":"a2"},{"question":"q3","answer":"a3"}]', 3, ?, ?
		FROM workshop_traces t JOIN workshop_members m ON m.workshop_id = t.workshop_id AND m.role = 'participant'
		WHERE t.workshop_id = ?`, at, at, ws.ID); err != nil {
		b.Fatal(err)
	}
	if err := db.Exec(ctx, `UPDATE workshop_members SET completed = ? WHERE workshop_id = ? AND role = 'participant'`, benchTraces, ws.ID); err != nil {
		b.Fatal(err)
	}
	return f
}

// BenchmarkCompletion10kx20 times the completion status of a workshop of
// 10,000 traces × 20 participants with every feedback record saved, on SQLite.
func BenchmarkCompletion10kx20(b *testing.B) {
	f := seedBench(b, storagetest.SQLite(b))
	b.ResetTimer()
	for b.Loop() {
		st, err := f.svc.Completion(admin, f.ws.ID, "")
		if err != nil || st.FinishedParticipants != benchParticipants {
			b.Fatalf("%+v %v", st, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/op")
}

// BenchmarkAgreementFromSQLite10kx20 times the agreement figures of that
// workshop as the API computes them: reading the 200,000 labels from SQLite
// and computing the statistics.
func BenchmarkAgreementFromSQLite10kx20(b *testing.B) {
	f := seedBench(b, storagetest.SQLite(b))
	b.ResetTimer()
	for b.Loop() {
		ag, err := f.svc.Agreement(admin, f.ws.ID, "")
		if err != nil || len(ag.Traces) != benchTraces {
			b.Fatalf("%v", err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
}

// BenchmarkExtractAmplifyingPaths times the JSONPath queries of the outside
// report that multiply a small trace, refused at their bound, against an
// ordinary query on the same trace in the same loop: the ratio says how
// much more a refused query costs than a useful one. The 1 MiB case is a
// chat of that size, the costliest size a trace's output has.
func BenchmarkExtractAmplifyingPaths(b *testing.B) {
	var big strings.Builder
	big.WriteString(`{"messages":[`)
	for i := 0; big.Len() < workshop.MaxTextLength-200; i++ {
		if i > 0 {
			big.WriteString(",")
		}
		fmt.Fprintf(&big, `{"role":"user","content":{"parts":[{"text":"message %d","meta":{"a":[1,[2,[3]]]}}]}}`, i)
	}
	big.WriteString(`]}`)
	for _, c := range []struct{ name, raw, ordinary, amplifying string }{
		{"19B", nested, "$[0][0][0][0][0][0][0][0]", levels(8)},
		{"1.2KB", chatTrace(), "$..text", "$..*..*..*"},
		{"1MiB", big.String(), "$..text", "$..*..*..*"},
	} {
		b.Run(c.name, func(b *testing.B) {
			raw := json.RawMessage(c.raw)
			var ordinary, refused time.Duration
			for b.Loop() {
				start := time.Now()
				if _, err := workshop.Extract(raw, "output_jsonpath", c.ordinary); err != nil {
					b.Fatal(err)
				}
				mid := time.Now()
				if _, err := workshop.Extract(raw, "output_jsonpath", c.amplifying); err == nil {
					b.Fatalf("%s was not refused", c.amplifying)
				}
				ordinary, refused = ordinary+mid.Sub(start), refused+time.Since(mid)
			}
			b.ReportMetric(float64(ordinary.Microseconds())/float64(b.N), "ordinary-µs")
			b.ReportMetric(float64(refused.Microseconds())/float64(b.N), "refused-µs")
			b.ReportMetric(float64(refused)/float64(ordinary), "ratio")
		})
	}
}
