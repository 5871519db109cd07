package storage_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/learning"
	"github.com/honehq/hone/internal/score"
	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/storage/storagetest"
	"github.com/honehq/hone/internal/tuning"
)

// searchSeed records four sessions, one a minute from 10:00:01 on
// 2025-10-24: ana's v1 (2 turns, a note, 👍 and 👎, overall 0.9 and 0.5),
// bo's v2 (1 turn "100% sure_thing", 👍, overall 0.2), cy's v1 (1 turn, no
// scores), dee's v2 (3 turns, two notes, 👎 twice). It returns the
// session ids by tester.
func searchSeed(t *testing.T, db *storage.DB) map[string]string {
	t.Helper()
	ctx := context.Background()
	start := time.Date(2025, 10, 24, 10, 0, 0, 0, time.UTC)
	n := 0
	db.Now = func() time.Time { n++; return start.Add(time.Duration(n) * time.Minute) }
	scores := score.NewService(db.Scores(), score.Options{Turns: db.Capture()})
	ln := learning.NewService(db.Learning(), learning.Options{Scores: scores})
	scores.Follow(ln)
	ids := map[string]string{}
	turn := func(tester, version, msg string, objective, overall any) *capture.Turn {
		tr := mustTurn(t, db, capture.TurnInput{ConversationID: "c-" + tester, TesterID: tester, PromptVersion: version,
			UserMessage: msg, Response: "Answer about " + msg})
		if err := db.Exec(ctx, `UPDATE turns SET objective_score = ?, overall_score = ? WHERE id = ?`, objective, overall, tr.ID); err != nil {
			t.Fatal(err)
		}
		ids[tester] = tr.SessionID
		return tr
	}
	rate := func(tr *capture.Turn, by, rating string) {
		if _, err := ln.RateTurn(ctx, tr.ID, learning.RatingInput{TesterID: by, Rating: rating}); err != nil {
			t.Fatal(err)
		}
	}
	note := func(tr *capture.Turn) {
		if _, err := db.Tuning().AddTurnImprovement(ctx, tr.ID, "tone", "warmer"); err != nil {
			t.Fatal(err)
		}
	}
	a1 := turn("ana", "v1", "Vacation days?", 0.5, 0.9)
	a2 := turn("ana", "v1", "Sick LEAVE rules", 0.3, 0.5)
	rate(a1, "ana", "up")
	rate(a2, "ana", "down")
	note(a2)
	b := turn("bo", "v2", "100% sure_thing", 0.1, 0.2)
	rate(b, "bo", "up")
	turn("cy", "v1", "Parking", nil, nil)
	d := turn("dee", "v2", "Payroll", 0.7, nil)
	turn("dee", "v2", "Payroll again", 0.8, nil)
	d3 := turn("dee", "v2", "Bonus", 0.9, nil)
	rate(d, "dee", "down")
	rate(d3, "lee", "down")
	note(d)
	note(d3)
	return ids
}

func TestSearchSessions(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		ids := searchSeed(t, db)
		ctx := context.Background()
		name := map[string]string{}
		for k, v := range ids {
			name[v] = k
		}
		svc := tuning.NewService(db.Capture(), db.Tuning(), tuning.Options{})
		f := func(v float64) *float64 { return &v }
		bo, err := db.Capture().FindSession(ctx, ids["bo"])
		if err != nil {
			t.Fatal(err)
		}
		afterBo := bo.Start.Add(time.Second)
		nullsLast := func(got []string) []string {
			if len(got) == 4 {
				slices.Sort(got[2:])
			}
			return got
		}
		day := time.Date(2025, 10, 24, 0, 0, 0, 0, time.UTC)
		for _, tc := range []struct {
			name string
			q    tuning.SessionSearch
			want []string
		}{
			{"newest first by default", tuning.SessionSearch{Desc: true}, []string{"dee", "cy", "bo", "ana"}},
			{"oldest first", tuning.SessionSearch{}, []string{"ana", "bo", "cy", "dee"}},
			{"text in a message, any case", tuning.SessionSearch{Text: "sick leave"}, []string{"ana"}},
			{"text in a response", tuning.SessionSearch{Text: "answer about pay"}, []string{"dee"}},
			{"wildcards are text", tuning.SessionSearch{Text: "0% s"}, []string{"bo"}},
			{"an underscore is text", tuning.SessionSearch{Text: "e_t"}, []string{"bo"}},
			{"a percent alone", tuning.SessionSearch{Text: "%"}, []string{"bo"}},
			{"tester", tuning.SessionSearch{TesterID: "cy"}, []string{"cy"}},
			{"prompt version", tuning.SessionSearch{PromptVersion: "v2"}, []string{"bo", "dee"}},
			{"has 👎", tuning.SessionSearch{HasThumbsDown: true}, []string{"ana", "dee"}},
			{"has notes", tuning.SessionSearch{HasNotes: true, Sort: tuning.SortNotes, Desc: true}, []string{"dee", "ana"}},
			{"from", tuning.SessionSearch{From: afterBo}, []string{"cy", "dee"}},
			{"until", tuning.SessionSearch{Until: afterBo}, []string{"ana", "bo"}},
			{"another day", tuning.SessionSearch{From: day.AddDate(0, 0, 1)}, []string{}},
			{"score range", tuning.SessionSearch{MinScore: f(0.6), MaxScore: f(0.7)}, []string{"ana"}},
			{"score at least", tuning.SessionSearch{MinScore: f(0.1)}, []string{"ana", "bo"}},
			{"sort by 👎, ties by id", tuning.SessionSearch{Sort: tuning.SortDown, Desc: true, HasThumbsDown: true}, []string{"dee", "ana"}},
			{"sort by 👍", tuning.SessionSearch{Sort: tuning.SortUp, Desc: true, TesterID: "bo"}, []string{"bo"}},
			{"sort by overall, none last", tuning.SessionSearch{Sort: tuning.SortOverall}, []string{"bo", "ana", "cy", "dee"}},
			{"sort by overall down, none last", tuning.SessionSearch{Sort: tuning.SortOverall, Desc: true}, []string{"ana", "bo", "cy", "dee"}},
			{"sort by objective", tuning.SessionSearch{Sort: tuning.SortObjective, Desc: true}, []string{"dee", "ana", "bo", "cy"}},
			{"sort by turns", tuning.SessionSearch{Sort: tuning.SortTurns, Desc: true, Limit: 2}, []string{"dee", "ana"}},
			{"sort by tester, paged", tuning.SessionSearch{Sort: tuning.SortTester, Offset: 1, Limit: 2}, []string{"bo", "cy"}},
			{"sort by version", tuning.SessionSearch{Sort: tuning.SortVersion, TesterID: "ana"}, []string{"ana"}},
			{"sort by end", tuning.SessionSearch{Sort: tuning.SortEnded, TesterID: "bo"}, []string{"bo"}},
			{"everything at once", tuning.SessionSearch{Text: "pay", PromptVersion: "v2", HasThumbsDown: true, HasNotes: true,
				From: day, Sort: tuning.SortDown}, []string{"dee"}},
		} {
			rows, err := svc.SearchSessions(ctx, tc.q)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			got := []string{}
			for _, r := range rows {
				got = append(got, name[r.ID])
			}
			if tc.q.Sort == tuning.SortOverall {
				got = nullsLast(got)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
			}
		}
		rows, err := svc.SearchSessions(ctx, tuning.SessionSearch{TesterID: "ana"})
		if err != nil || len(rows) != 1 {
			t.Fatalf("ana's sessions: %v %v", rows, err)
		}
		a := rows[0]
		if a.Up != 1 || a.Down != 1 || a.TotalTurns != 2 || a.TotalImprovements != 1 || a.MeanOverall == nil || *a.MeanOverall < 0.699 ||
			*a.MeanOverall > 0.701 || a.MeanObjective == nil || *a.MeanObjective < 0.399 || *a.MeanObjective > 0.401 || a.PromptVersion != "v1" {
			t.Errorf("ana's row is %+v", a)
		}
		for _, q := range []tuning.SessionSearch{{Sort: "nosuch"}, {MinScore: f(2)}, {MinScore: f(0.5), MaxScore: f(0.1)},
			{From: day.AddDate(0, 0, 1), Until: day}} {
			if _, err := svc.SearchSessions(ctx, q); err == nil {
				t.Errorf("%+v was taken", q)
			}
		}
	})
}
