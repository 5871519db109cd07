package learning_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/learning"
	"github.com/honehq/hone/internal/score"
	"github.com/honehq/hone/internal/storage/storagetest"
)

// benchLearnings are n active learnings of about 100 characters each.
func benchLearnings(n int) []*learning.Learning {
	list := make([]*learning.Learning, n)
	for i := range list {
		list[i] = &learning.Learning{ID: fmt.Sprintf("l%04d", i), Confidence: 0.75 + float64(i%25)/100, State: learning.StateOK,
			PromptAdjustment: fmt.Sprintf("When the user asks about topic %d, answer in at most three sentences and cite the source.", i)}
	}
	return list
}

// BenchmarkBuildSection1000 builds the learned section of 1,000 learnings.
func BenchmarkBuildSection1000(b *testing.B) {
	list := benchLearnings(1000)
	for b.Loop() {
		if s, _ := learning.BuildSection(list, 0.7); s == "" {
			b.Fatal("empty section")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/op")
}

// seedLearnings stores n learnings on SQLite and returns the service.
func seedLearnings(b *testing.B, n int) *learning.Service {
	db := storagetest.SQLite(b)
	svc := learning.NewService(db.Learning(), learning.Options{})
	at := time.Date(2025, 12, 5, 9, 0, 0, 0, time.UTC)
	for i, l := range benchLearnings(n) {
		l.CreatedAt, l.UpdatedAt, l.SourceCorrections = at.Add(time.Duration(i)*time.Second), at, []string{}
		if err := db.Learning().AddLearning(ctx, l); err != nil {
			b.Fatal(err)
		}
	}
	return svc
}

// BenchmarkSectionCached1000 is the dynamic prompt of a tester between
// changes: served from the cache.
func BenchmarkSectionCached1000(b *testing.B) {
	svc := seedLearnings(b, 1000)
	if _, _, err := svc.Section(ctx, "meg"); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if s, _, err := svc.Section(ctx, "meg"); err != nil || s == "" {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1000, "µs/op")
}

// BenchmarkSectionFromSQLite1000 is the dynamic prompt of a tester after a
// change: the 1,000 learnings read from SQLite and the section built.
func BenchmarkSectionFromSQLite1000(b *testing.B) {
	svc := seedLearnings(b, 1000)
	for b.Loop() {
		b.StopTimer()
		if err := svc.SetEnabled(ctx, true); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if s, _, err := svc.Section(ctx, "meg"); err != nil || s == "" {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/op")
}

// BenchmarkRecordThumb records 👍/👎 on SQLite, one at a time, through the
// chat's path (the conversation's latest turn), over 1,000 conversations,
// and reports the 50th and 99th percentiles.
func BenchmarkRecordThumb(b *testing.B) {
	db := storagetest.SQLite(b)
	scores := score.NewService(db.Scores(), score.Options{Turns: db.Capture()})
	svc := learning.NewService(db.Learning(), learning.Options{Scores: scores})
	scores.Follow(svc)
	rec := capture.NewRecorder(db.Capture(), nil)
	const conversations = 1000
	for i := range conversations {
		if _, _, err := rec.Record(ctx, capture.TurnInput{ConversationID: fmt.Sprintf("c%d", i), TesterID: "meg",
			UserMessage: "How many vacation days do I get?", Response: "25 days a year."}, ""); err != nil {
			b.Fatal(err)
		}
	}
	var took []time.Duration
	i := 0
	for b.Loop() {
		rating := learning.RatingUp
		if i%2 == 1 {
			rating = learning.RatingDown
		}
		start := time.Now()
		if _, err := svc.RateLatest(ctx, capture.Tester{ConversationID: fmt.Sprintf("c%d", i%conversations), TesterID: "meg"}, rating); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(start))
		i++
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(took[len(took)*99/100].Microseconds()), "p99-µs")
}
