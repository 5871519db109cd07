package storage_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/storage/storagetest"
)

// benchRecord is a turn record as the store receives it: of today's shape,
// or with the richer record.
func benchRecord(conversation string, i int, rich bool) capture.TurnRecord {
	ms, sim := 812.5, 0.82
	in := capture.TurnInput{ConversationID: conversation, TesterID: "tester-" + conversation, TesterEmail: "meg@example.com",
		UserMessage:   fmt.Sprint("My employee didn't show up for 3 days, case ", i),
		Response:      "Got it — that's definitely something we need to address right away. Per our attendance policy, call first.",
		PromptVersion: "fc26922", ProcessingTimeMS: &ms, AvgSimilarity: &sim, Source: capture.SourceAPI}
	obj := 0.5
	rec := capture.TurnRecord{Measured: capture.Measurement{Metrics: json.RawMessage(`{"m":1}`), Objective: &obj}}
	if rich {
		latency := 640.5
		in.Messages = capture.Messages{
			{Role: capture.RoleSystem, Content: "You are ERA, the HR assistant of Acme. Answer from the attendance policy, briefly and kindly."},
			{Role: capture.RoleUser, Content: in.UserMessage}, {Role: capture.RoleAssistant, Content: in.Response}}
		in.Model, in.LatencyMS, in.Source = "gpt-4o-mini", &latency, capture.SourceProxy
		in.Usage = &capture.Usage{PromptTokens: 412, CompletionTokens: 38, TotalTokens: 450}
		in.TraceID, in.SpanID, in.ParentID = fmt.Sprintf("%032x", i+1), fmt.Sprintf("%016x", i+1), fmt.Sprintf("%016x", i+1<<32)
		rec.Messages, _ = json.Marshal(in.Messages)
	}
	rec.Input = in
	return rec
}

// BenchmarkRecordTurns writes batches of 100 turn records, spread over 10
// conversations, straight to the store on SQLite: today's shape and the
// richer record in 10 paired rounds on one database. It reports both rates
// and the median ratio of the rounds (rich/today). Use -benchtime 500x.
func BenchmarkRecordTurns(b *testing.B) {
	const batch, rounds = 100, 10
	db := storagetest.SQLite(b)
	ctx := context.Background()
	per := max(b.N/rounds, 1)
	var elapsed [2]time.Duration
	var ratios []float64
	b.ResetTimer()
	for r := range rounds {
		var took [2]time.Duration
		for k := range 2 {
			s := (k + r) % 2
			recs := make([][]capture.TurnRecord, per)
			for i := range recs {
				for j := range batch {
					recs[i] = append(recs[i], benchRecord(fmt.Sprintf("bench-%d-%d", s, j%10), (r*per+i)*batch+j, s == 1))
				}
			}
			start := time.Now()
			for _, recs := range recs {
				if _, err := db.Capture().RecordTurns(ctx, recs); err != nil {
					b.Fatal(err)
				}
			}
			took[s] = time.Since(start)
			elapsed[s] += took[s]
		}
		ratios = append(ratios, took[0].Seconds()/took[1].Seconds())
	}
	b.StopTimer()
	slices.Sort(ratios)
	n := float64(rounds * per * batch)
	b.ReportMetric(n/elapsed[0].Seconds(), "today-turns/s")
	b.ReportMetric(n/elapsed[1].Seconds(), "rich-turns/s")
	b.ReportMetric((ratios[(rounds-1)/2]+ratios[rounds/2])/2, "rich/today")
}
