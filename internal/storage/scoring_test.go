package storage_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"sync"
	"testing"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/quality"
	"github.com/honehq/hone/internal/score"
	"github.com/honehq/hone/internal/scoring"
	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/storage/storagetest"
)

func near(p *float64, want float64) bool { return p != nil && math.Abs(*p-want) < 1e-9 }

// objective measures every turn with the objective score it is given (nil = N/A).
type objective struct{ obj *float64 }

func (o objective) Measure(*capture.TurnInput) (capture.Measurement, *capture.Measurement) {
	b, _ := json.Marshal(map[string]any{"m1": 1, "m2": nil, "objective_quality_score": o.obj})
	return capture.Measurement{Metrics: b, Objective: o.obj}, nil
}

// measured records in with objective score obj.
func measured(t *testing.T, db *storage.DB, in capture.TurnInput, obj *float64) *capture.Turn {
	t.Helper()
	turn, _, err := capture.NewRecorder(db.Capture(), objective{obj}).Record(context.Background(), in, "")
	if err != nil {
		t.Fatal(err)
	}
	return turn
}

// scoringService is scoring over db, recording human scores through the
// score capability and following them, as hone wires it.
func scoringService(db *storage.DB) *scoring.Service {
	svc := scoring.New(db.Scoring(), db.Capture(), quality.Default())
	svc.Scores = score.NewService(db.Scores(), score.Options{Turns: db.Capture()})
	svc.Scores.Follow(svc)
	return svc
}

// scoreTurn records human scores of a turn, as POST /turns/{id}/scores does.
func scoreTurn(db *storage.DB, ref scoring.TurnRef, scores map[string]int) (*scoring.TurnScores, error) {
	return scoringService(db).ScoreTurn(context.Background(), ref, scores, scoring.Judge{Source: score.SourceAPI})
}

func f(v float64) *float64 { return &v }

func TestTurnMetricsAndScores(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		ctx := context.Background()
		if _, err := scoreTurn(db, scoring.TurnRef{ConversationID: "c1"}, map[string]int{"clarity": 4}); !errors.Is(err, capture.ErrNoTurn) {
			t.Fatalf("no turn: %v", err)
		}
		t1 := measured(t, db, turnInput("c1", "q1"), f(0.85))
		t2 := measured(t, db, turnInput("c1", "q2"), nil)
		if !near(t1.ObjectiveScore, 0.85) || t2.ObjectiveScore != nil || len(t1.Scores) != 0 {
			t.Fatalf("recorded %+v %+v", t1, t2)
		}
		// The latest turn of the conversation, with an N/A objective score:
		// subjective only, overall N/A.
		got, err := scoreTurn(db, scoring.TurnRef{ConversationID: "c1"}, map[string]int{"clarity": 4})
		if err != nil {
			t.Fatal(err)
		}
		if got.TurnID != t2.ID || !near(got.Subjective, 0.8) || got.Overall != nil || got.Objective != nil {
			t.Fatalf("scored latest: %+v", got)
		}
		// By id; scores merge, replacing the names given again.
		if _, err := scoreTurn(db, scoring.TurnRef{TurnID: t1.ID}, map[string]int{"professionalism": 4, "empathy": 5}); err != nil {
			t.Fatal(err)
		}
		got, err = scoreTurn(db, scoring.TurnRef{TurnID: t1.ID}, map[string]int{"empathy": 5, "clarity": 5, "actionability": 4, "compliance": 5})
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Scores) != 5 || got.Scores["professionalism"] != 4 || !near(got.Subjective, 0.92) ||
			!near(got.Overall, 0.4*0.85+0.6*0.92) || got.Revision != 2 {
			t.Fatalf("merged: %+v", got)
		}
		if _, err := scoreTurn(db, scoring.TurnRef{TurnID: "nosuch"}, map[string]int{"clarity": 4}); hone.ErrorCode(err) != hone.ENOTFOUND {
			t.Fatalf("unknown turn: %v", err)
		}
		stale := *got
		stale.Revision = 1
		if err := db.Scoring().SaveScores(ctx, &stale); hone.ErrorCode(err) != hone.ECONFLICT {
			t.Fatalf("saving scores read before a change: %v", err)
		}
		turns, err := db.Tuning().ListTurns(ctx, t1.SessionID, 1, 10)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(turns[0].Metrics, &m); err != nil || m["m1"] != 1.0 || m["m2"] != nil || len(m) != 3 {
			t.Errorf("stored metrics %s: %v", turns[0].Metrics, err)
		}
		if !near(turns[0].OverallScore, 0.4*0.85+0.6*0.92) || turns[0].Scores["compliance"] != 5 || turns[1].Scores["clarity"] != 4 ||
			turns[1].ObjectiveScore != nil || !near(turns[1].SubjectiveScore, 0.8) {
			t.Errorf("listed turns %+v %+v", turns[0], turns[1])
		}
	})
}

func TestScoreTurnConcurrentMerges(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		ctx := context.Background()
		turn := measured(t, db, turnInput("c1", "q1"), f(0.5))
		names := quality.Default().SubjectiveNames()
		var wg sync.WaitGroup
		for i, n := range names {
			wg.Go(func() {
				if _, err := scoreTurn(db, scoring.TurnRef{TurnID: turn.ID}, map[string]int{n: i + 1}); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		turns, _ := db.Tuning().ListTurns(ctx, turn.SessionID, 1, 1)
		if len(turns[0].Scores) != len(names) || !near(turns[0].SubjectiveScore, 3.0/5) {
			t.Errorf("after concurrent scores: %v %v", turns[0].Scores, turns[0].SubjectiveScore)
		}
	})
}

func TestSamplesAndVersionSummaries(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		tick(db)
		ctx := context.Background()
		v1 := turnInput("c1", "q")
		v1.PromptVersion = "v1"
		a := measured(t, db, v1, f(0.5))
		measured(t, db, v1, nil)
		v2 := turnInput("c2", "q")
		v2.PromptVersion = "v2"
		measured(t, db, v2, f(1))
		if _, err := scoreTurn(db, scoring.TurnRef{TurnID: a.ID}, map[string]int{"clarity": 5}); err != nil {
			t.Fatal(err)
		}
		sum, err := db.Scoring().VersionSummaries(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(sum) != 2 || sum[0].Version != "v1" || sum[1].Version != "v2" {
			t.Fatalf("summaries %+v", sum)
		}
		s1 := sum[0]
		if s1.Turns != 2 || s1.Sessions != 1 || s1.NObjective != 1 || s1.NSubjective != 1 || s1.NOverall != 1 ||
			!near(s1.Objective, 0.5) || !near(s1.Subjective, 1) || !near(s1.Overall, 0.8) || s1.FirstStart.IsZero() {
			t.Errorf("v1 summary %+v", s1)
		}
		if s2 := sum[1]; s2.Turns != 1 || !near(s2.Objective, 1) || s2.Subjective != nil || s2.Overall != nil || !s2.FirstStart.After(s1.FirstStart) {
			t.Errorf("v2 summary %+v", s2)
		}
		all, err := db.Scoring().Samples(ctx, scoring.SampleFilter{Versions: []string{"v1"}})
		if err != nil {
			t.Fatal(err)
		}
		if len(all) != 2 || all[0].Version != "v1" || all[0].TurnNumber != 1 || !near(all[0].Overall, 0.8) || all[1].Objective != nil || len(all[0].Metrics) == 0 {
			t.Errorf("v1 samples %+v", all)
		}
		one, err := db.Scoring().Samples(ctx, scoring.SampleFilter{SessionID: all[0].SessionID})
		if err != nil || len(one) != 2 {
			t.Errorf("session samples %+v %v", one, err)
		}
		every, err := db.Scoring().Samples(ctx, scoring.SampleFilter{})
		if err != nil || len(every) != 3 || every[2].Version != "v2" {
			t.Errorf("all samples %+v %v", every, err)
		}
	})
}

// A metric set's own !score dimensions get numeric 1–5 configs when no
// config has their names, and count in its composites; a config of such a
// name that the composites cannot read stops hone.
func TestMetricSetDimensionsGetConfigs(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		ctx := context.Background()
		set, err := quality.Load("../quality/testdata/retail-support.yaml")
		if err != nil {
			t.Fatal(err)
		}
		svc := scoring.New(db.Scoring(), db.Capture(), set)
		svc.Scores = score.NewService(db.Scores(), score.Options{Turns: db.Capture()})
		svc.Scores.Follow(svc)
		for range 2 {
			if err := svc.EnsureConfigs(ctx); err != nil {
				t.Fatal(err)
			}
		}
		configs, err := svc.Scores.Configs(ctx, true)
		if err != nil {
			t.Fatal(err)
		}
		var added []string
		for _, c := range configs {
			if !c.BuiltIn {
				added = append(added, c.Name)
				if !svc.Follows(c) {
					t.Errorf("%s is not a dimension the composites read: %+v", c.Name, c)
				}
			}
		}
		if len(added) != 2 || added[0] != "accuracy" || added[1] != "politeness" {
			t.Fatalf("configs added %v, want accuracy and politeness once", added)
		}
		turn := measured(t, db, turnInput("c1", "q1"), f(0.5))
		got, err := svc.ScoreTurn(ctx, scoring.TurnRef{TurnID: turn.ID}, map[string]int{"politeness": 4}, scoring.Judge{Source: score.SourceAPI})
		if err != nil || !near(got.Subjective, 0.8) || !near(got.Overall, 0.65) {
			t.Fatalf("scored %+v %v", got, err)
		}

		other := scoring.New(db.Scoring(), db.Capture(), set)
		other.Scores = svc.Scores
		yes := true
		if _, err := svc.Scores.UpdateConfig(ctx, "politeness", score.ConfigUpdate{Archived: &yes}); err != nil {
			t.Fatal(err)
		}
		if err := other.EnsureConfigs(ctx); err != nil {
			t.Fatalf("an archived dimension's config stays archived: %v", err)
		}
		if _, err := svc.Scores.AddConfig(ctx, score.ConfigInput{Name: "politeness", DataType: score.Boolean}); err != nil {
			t.Fatal(err)
		}
		if err := other.EnsureConfigs(ctx); hone.ErrorCode(err) != hone.EINVALID {
			t.Fatalf("a boolean config of a dimension's name: %v", err)
		}
	})
}
