package storage_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/score"
	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/storage/storagetest"
)

// judgedTurn records a turn of conversation conv with the prompt version.
func judgedTurn(t *testing.T, db *storage.DB, conv, version string) *capture.Turn {
	t.Helper()
	turn, _, err := capture.NewRecorder(db.Capture(), nil).Record(context.Background(), capture.TurnInput{ConversationID: conv,
		TesterID: "meg", UserMessage: "My employee didn't show up", Response: "Got it.", PromptVersion: version}, "")
	if err != nil {
		t.Fatal(err)
	}
	return turn
}

func scoreService(db *storage.DB) *score.Service {
	return score.NewService(db.Scores(), score.Options{Turns: db.Capture()})
}

// The built-in configs exist from the first start, as the score package
// defines them.
func TestBuiltInScoreConfigs(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		list, err := db.Scores().Configs(context.Background(), true)
		if err != nil {
			t.Fatal(err)
		}
		want := score.BuiltIns()
		if len(list) != len(want) {
			t.Fatalf("%d configs, want %d", len(list), len(want))
		}
		for _, w := range want {
			i := slices.IndexFunc(list, func(c *score.Config) bool { return c.ID == w.ID })
			if i < 0 {
				t.Fatalf("no built-in %s", w.Name)
			}
			got := *list[i]
			if got.CreatedAt.IsZero() || got.UpdatedAt.IsZero() {
				t.Errorf("%s has no times: %+v", w.Name, got)
			}
			got.CreatedAt, got.UpdatedAt = time.Time{}, time.Time{}
			if fmt.Sprint(configFields(&got)) != fmt.Sprint(configFields(&w)) {
				t.Errorf("%s:\n got %v\nwant %v", w.Name, configFields(&got), configFields(&w))
			}
		}
	})
}

func configFields(c *score.Config) []any {
	deref := func(p *float64) any {
		if p == nil {
			return nil
		}
		return *p
	}
	var cats []string
	for _, cat := range c.Categories {
		cats = append(cats, fmt.Sprint(cat.Label, "=", deref(cat.Value)))
	}
	return []any{c.ID, c.Name, c.DataType, deref(c.Min), deref(c.Max), deref(c.Step), cats, c.Description, c.Archived, c.Version, c.BuiltIn}
}

// Names are unique among the configs that are not archived; an update
// made from a stale version is refused.
func TestScoreConfigNamesAndVersions(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		ctx := context.Background()
		svc := scoreService(db)
		one, ten := 1.0, 10.0
		c, err := svc.AddConfig(ctx, score.ConfigInput{Name: "Helpfulness", DataType: score.Numeric, Min: &one, Max: &ten})
		if err != nil || c.Name != "helpfulness" || c.Version != 1 {
			t.Fatalf("add: %+v %v", c, err)
		}
		_, err = svc.AddConfig(ctx, score.ConfigInput{Name: "HELPFULNESS", DataType: score.Boolean})
		if hone.ErrorCode(err) != hone.ECONFLICT || hone.ErrorField(err) != "name" {
			t.Fatalf("same name: %v", err)
		}
		archived := true
		if c, err = svc.UpdateConfig(ctx, "helpfulness", score.ConfigUpdate{Archived: &archived}); err != nil || !c.Archived || c.Version != 2 {
			t.Fatalf("archive: %+v %v", c, err)
		}
		again, err := svc.AddConfig(ctx, score.ConfigInput{Name: "helpfulness", DataType: score.Boolean})
		if err != nil {
			t.Fatalf("the name of an archived config is free: %v", err)
		}
		back := false
		if _, err := svc.UpdateConfig(ctx, c.ID, score.ConfigUpdate{Archived: &back}); hone.ErrorCode(err) != hone.ECONFLICT || hone.ErrorField(err) != "name" {
			t.Fatalf("taking back an archived config whose name is taken: %v", err)
		}
		if got, err := svc.Config(ctx, "Helpfulness"); err != nil || got.ID != again.ID {
			t.Fatalf("by name, the config that is not archived: %+v %v", got, err)
		}
		if got, err := svc.Config(ctx, c.ID); err != nil || got.ID != c.ID || !got.Archived {
			t.Fatalf("by id, the archived one: %+v %v", got, err)
		}
		stale := *again
		stale.Description = "stale"
		if err := db.Scores().UpdateConfig(ctx, &stale, again.Version+1); hone.ErrorCode(err) != hone.ECONFLICT {
			t.Fatalf("update from a stale version: %v", err)
		}
		desc := "Did it help?"
		same, err := svc.UpdateConfig(ctx, again.ID, score.ConfigUpdate{Description: &desc})
		if err != nil || same.Version != 2 || same.Description != desc {
			t.Fatalf("describe: %+v %v", same, err)
		}
		if unchanged, err := svc.UpdateConfig(ctx, again.ID, score.ConfigUpdate{Description: &desc}); err != nil || unchanged.Version != 2 {
			t.Fatalf("a change that changes nothing keeps the version: %+v %v", unchanged, err)
		}
		if _, err := svc.Config(ctx, "nosuch"); hone.ErrorCode(err) != hone.ENOTFOUND {
			t.Fatalf("unknown config: %v", err)
		}
	})
}

// Built-in configs keep their definition; a config with scores keeps its
// bounds and categories, and may still be renamed, described and archived.
func TestScoreConfigChangesAllowed(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		ctx := context.Background()
		svc := scoreService(db)
		yes, two, name := true, 2.0, "kindness"
		for _, tt := range []struct {
			ref   string
			u     score.ConfigUpdate
			field string
		}{
			{"empathy", score.ConfigUpdate{Name: &name}, "name"},
			{"empathy", score.ConfigUpdate{Max: &two}, "max"},
			{"thumbs", score.ConfigUpdate{Archived: &yes}, "archived"},
			{"workshop_label", score.ConfigUpdate{Archived: &yes}, "archived"},
			{"workshop_label", score.ConfigUpdate{Categories: []score.Category{{Label: "OK"}}}, "categories"},
		} {
			if _, err := svc.UpdateConfig(ctx, tt.ref, tt.u); hone.ErrorField(err) != tt.field {
				t.Errorf("%s %+v: %v, want an error naming %s", tt.ref, tt.u, err, tt.field)
			}
		}
		if c, err := svc.UpdateConfig(ctx, "clarity", score.ConfigUpdate{Archived: &yes}); err != nil || !c.Archived {
			t.Fatalf("a !score dimension may be archived: %+v %v", c, err)
		}
		c, err := svc.AddConfig(ctx, score.ConfigInput{Name: "tone", DataType: score.Categorical,
			Categories: []score.Category{{Label: "formal"}, {Label: "casual"}}})
		if err != nil {
			t.Fatal(err)
		}
		if c, err = svc.UpdateConfig(ctx, "tone", score.ConfigUpdate{Categories: []score.Category{{Label: "formal"}, {Label: "warm"}}}); err != nil || c.Version != 2 {
			t.Fatalf("an unused config changes its categories: %+v %v", c, err)
		}
		turn := judgedTurn(t, db, "c1", "v1")
		if _, _, err := svc.Record(ctx, score.Input{TurnID: turn.ID, Config: "tone", Value: score.Label("warm")}); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.UpdateConfig(ctx, "tone", score.ConfigUpdate{Categories: []score.Category{{Label: "formal"}}}); hone.ErrorField(err) != "categories" {
			t.Fatalf("a used config keeps its categories: %v", err)
		}
		if c, err = svc.UpdateConfig(ctx, "tone", score.ConfigUpdate{Name: &name, Archived: &yes}); err != nil || c.Name != name || !c.Archived || c.Version != 3 {
			t.Fatalf("a used config is renamed and archived: %+v %v", c, err)
		}
		if _, _, err := svc.Record(ctx, score.Input{TurnID: turn.ID, Config: c.ID, Value: score.Label("warm")}); hone.ErrorField(err) != "config" {
			t.Fatalf("an archived config takes no scores: %v", err)
		}
	})
}

func TestRecordAndReadScores(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		ctx := context.Background()
		svc := scoreService(db)
		t1, t2 := judgedTurn(t, db, "c1", "v1"), judgedTurn(t, db, "c2", "v2")
		res, err := svc.RecordBatch(ctx, []score.Input{
			{ID: "app-1", TurnID: t1.ID, Config: "empathy", Value: score.Number(4), Author: " meg ", Comment: "warm"},
			{TurnID: t1.ID, Config: "thumbs", Value: score.Bool(false), Source: score.SourceChat, Author: "meg"},
			{TurnID: t2.ID, Config: "empathy", Value: score.Number(2), Source: score.SourceLLM, Author: "gpt-4o"},
			{TurnID: "nosuch", Config: "empathy", Value: score.Number(2)},
			{TurnID: t2.ID, Config: "empathy", Value: score.Number(9)},
			{TurnID: t2.ID, Config: "nosuch", Value: score.Number(2)},
			{ID: "app-1", TurnID: t1.ID, Config: "empathy", Value: score.Number(4), Author: "meg", Comment: "warm"},
			{ID: "app-1", TurnID: t1.ID, Config: "empathy", Value: score.Number(5), Author: "meg", Comment: "warm"},
			{TurnID: t1.ID + "\x00", Config: "empathy", Value: score.Number(2)},
		})
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range []struct {
			ok       bool
			replayed bool
			code     string
			field    string
		}{{ok: true}, {ok: true}, {ok: true}, {code: hone.ENOTFOUND, field: "turn_id"}, {code: hone.EINVALID, field: "value"},
			{code: hone.EINVALID, field: "config"}, {ok: true, replayed: true}, {code: hone.ECONFLICT, field: "id"},
			{code: hone.ENOTFOUND, field: "turn_id"}} {
			r := res[i]
			if want.ok != (r.Err == nil) || r.Replayed != want.replayed || !want.ok && (hone.ErrorCode(r.Err) != want.code || hone.ErrorField(r.Err) != want.field) {
				t.Errorf("score %d: %+v %v, want %+v", i, r.Score, r.Err, want)
			}
		}
		first := res[0].Score
		if first.ID != "app-1" || first.PromptVersion != "v1" || first.Author != "meg" || first.Value != 4.0 || first.DataType != score.Numeric ||
			first.Source != score.SourceAPI || first.CreatedAt.IsZero() {
			t.Fatalf("recorded %+v", first)
		}
		if got := res[6].Score; got.ID != first.ID || !got.CreatedAt.Equal(first.CreatedAt) {
			t.Fatalf("the replay is the first recording: %+v", got)
		}
		if !res[1].Score.CreatedAt.After(first.CreatedAt) || !res[2].Score.CreatedAt.After(res[1].Score.CreatedAt) {
			t.Fatalf("the scores of one call keep their order: %v %v %v", first.CreatedAt, res[1].Score.CreatedAt, res[2].Score.CreatedAt)
		}
		page := func(q score.Query) []string {
			t.Helper()
			p, err := svc.List(ctx, q, time.Now())
			if err != nil {
				t.Fatalf("%+v: %v", q, err)
			}
			var ids []string
			for _, s := range p.Scores {
				ids = append(ids, s.ID)
			}
			return ids
		}
		thumb, llm := res[1].Score.ID, res[2].Score.ID
		for _, tt := range []struct {
			q    score.Query
			want []string
		}{
			{score.Query{}, []string{llm, thumb, "app-1"}},
			{score.Query{TurnID: t1.ID}, []string{thumb, "app-1"}},
			{score.Query{Config: "EMPATHY"}, []string{llm, "app-1"}},
			{score.Query{Config: "builtin-thumbs"}, []string{thumb}},
			{score.Query{Source: score.SourceLLM}, []string{llm}},
			{score.Query{Author: "meg"}, []string{thumb, "app-1"}},
			{score.Query{PromptVersion: "v2"}, []string{llm}},
			{score.Query{Since: "1h"}, []string{llm, thumb, "app-1"}},
			{score.Query{Until: "2000-01-01"}, nil},
			{score.Query{Limit: 2}, []string{llm, thumb}},
			{score.Query{Limit: 2, Offset: 2}, []string{"app-1"}},
			{score.Query{TurnID: "a\x00b"}, nil},
		} {
			if got := page(tt.q); !slices.Equal(got, tt.want) {
				t.Errorf("%+v: %v, want %v", tt.q, got, tt.want)
			}
		}
		p, err := svc.List(ctx, score.Query{Limit: 2}, time.Now())
		if err != nil || p.NextOffset == nil || *p.NextOffset != 2 {
			t.Fatalf("next offset: %+v %v", p, err)
		}
		for _, q := range []score.Query{{Config: "nosuch"}, {Source: "slack"}, {Since: "x"}, {Since: "1h", Until: "2h"}, {Limit: 1001}} {
			if _, err := svc.List(ctx, q, time.Now()); hone.ErrorCode(err) != hone.EINVALID {
				t.Errorf("%+v: %v", q, err)
			}
		}
		var order []string
		if err := db.Scores().EachScore(ctx, score.Filter{}, func(s *score.Score) error {
			order = append(order, s.ID)
			return nil
		}); err != nil || !slices.Equal(order, []string{"app-1", thumb, llm}) {
			t.Fatalf("each, oldest first: %v %v", order, err)
		}
		if used, err := db.Scores().ConfigUsed(ctx, score.BuiltInID("thumbs")); err != nil || !used {
			t.Fatalf("thumbs used: %v %v", used, err)
		}
		if used, err := db.Scores().ConfigUsed(ctx, score.BuiltInID("clarity")); err != nil || used {
			t.Fatalf("clarity unused: %v %v", used, err)
		}
		gone, err := svc.Delete(ctx, thumb)
		if err != nil || gone.ID != thumb || gone.Value != false {
			t.Fatalf("delete: %+v %v", gone, err)
		}
		if _, err := svc.Delete(ctx, thumb); hone.ErrorCode(err) != hone.ENOTFOUND {
			t.Fatalf("delete again: %v", err)
		}
		if _, err := svc.Score(ctx, thumb); hone.ErrorCode(err) != hone.ENOTFOUND {
			t.Fatalf("deleted: %v", err)
		}
	})
}

// A trace's scores need the trace: a nil Traces refuses them as not found.
func TestTraceScoresNeedTheTrace(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		_, _, err := scoreService(db).Record(context.Background(), score.Input{WorkshopID: "w", TraceID: "t", Config: "workshop_label",
			Value: score.Label("GOOD")})
		if hone.ErrorCode(err) != hone.ENOTFOUND || hone.ErrorField(err) != "trace_id" {
			t.Fatalf("%v", err)
		}
	})
}

func TestTurnVersions(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		var ids []string
		want := map[string]string{}
		for i := range 3 {
			turn := judgedTurn(t, db, fmt.Sprint("c", i), fmt.Sprint("v", i))
			ids, want[turn.ID] = append(ids, turn.ID), fmt.Sprint("v", i)
		}
		for i := range 1200 {
			ids = append(ids, fmt.Sprint("missing-", i))
		}
		got, err := db.Capture().TurnVersions(context.Background(), ids)
		if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%v %v, want %v", got, err, want)
		}
	})
}
