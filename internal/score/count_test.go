package score

import (
	"context"
	"errors"
	"maps"
	"testing"
)

// memStore keeps scores in memory: the parts of a Store that recording
// uses.
type memStore struct {
	Store
	configs []*Config
	scores  map[string]*Score
}

func (m *memStore) Atomically(ctx context.Context, fn func(ctx context.Context) error) error {
	saved := maps.Clone(m.scores)
	if err := fn(ctx); err != nil {
		m.scores = saved
		return err
	}
	return nil
}

func (m *memStore) Configs(context.Context, bool) ([]*Config, error) { return m.configs, nil }

func (m *memStore) AddScores(_ context.Context, scores []*Score) ([]Added, error) {
	out := make([]Added, len(scores))
	for i, sc := range scores {
		if old, ok := m.scores[sc.ID]; ok {
			out[i] = Added{Score: old, Existed: true}
			continue
		}
		m.scores[sc.ID] = sc
		out[i] = Added{Score: sc}
	}
	return out, nil
}

// someTurns says every turn exists.
type someTurns struct{}

func (someTurns) TurnVersions(_ context.Context, ids []string) (map[string]string, error) {
	out := map[string]string{}
	for _, id := range ids {
		out[id] = ""
	}
	return out, nil
}

// counts is a Counter that keeps what it is told.
type counts map[[2]string]int

func (c counts) ScoresRecorded(source, dataType string, n int) { c[[2]string{source, dataType}] += n }

func TestCounter(t *testing.T) {
	builtIns := BuiltIns()
	var configs []*Config
	for i := range builtIns {
		configs = append(configs, &builtIns[i])
	}
	empathy := func(id string, v float64) Input {
		return Input{ID: id, TurnID: "t1", Config: "empathy", Value: Number(v)}
	}
	thumbs := Input{TurnID: "t1", Config: Thumbs, Value: Bool(true), Source: SourceChat}
	refused := errors.New("refused")
	for _, tt := range []struct {
		name string
		// record records through s, with ctx.
		record func(ctx context.Context, s *Service) error
		want   counts
	}{
		{"one score", func(ctx context.Context, s *Service) error {
			_, _, err := s.Record(ctx, empathy("", 4))
			return err
		}, counts{{SourceAPI, Numeric}: 1}},
		{"a batch: a refused score and a replay are not counted", func(ctx context.Context, s *Service) error {
			if _, _, err := s.Record(ctx, empathy("e1", 4)); err != nil {
				return err
			}
			_, err := s.RecordBatch(ctx, []Input{empathy("e1", 4), empathy("", 9), thumbs, thumbs,
				{TurnID: "t1", Config: WorkshopLabel, Value: Label(Good), Source: SourceImport}})
			return err
		}, counts{{SourceAPI, Numeric}: 1, {SourceChat, Boolean}: 2, {SourceImport, Categorical}: 1}},
		{"all or none", func(ctx context.Context, s *Service) error {
			if _, err := s.RecordAll(ctx, []Input{thumbs, empathy("", 0)}); err == nil {
				return errors.New("a score out of range was recorded")
			}
			return nil
		}, counts{}},
		{"a transaction, counted once committed", func(ctx context.Context, s *Service) error {
			return s.Atomically(ctx, func(ctx context.Context) error {
				if _, _, err := s.Record(ctx, thumbs); err != nil {
					return err
				}
				return s.Atomically(ctx, func(ctx context.Context) error {
					_, err := s.RecordBatch(ctx, []Input{empathy("", 3), thumbs})
					return err
				})
			})
		}, counts{{SourceChat, Boolean}: 2, {SourceAPI, Numeric}: 1}},
		{"a transaction rolled back", func(ctx context.Context, s *Service) error {
			err := s.Atomically(ctx, func(ctx context.Context) error {
				if _, _, err := s.Record(ctx, thumbs); err != nil {
					return err
				}
				return refused
			})
			if !errors.Is(err, refused) {
				return err
			}
			_, _, err = s.Record(ctx, empathy("", 5))
			return err
		}, counts{{SourceAPI, Numeric}: 1}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := counts{}
			s := NewService(&memStore{configs: configs, scores: map[string]*Score{}}, Options{Turns: someTurns{}, Counter: got})
			if err := tt.record(t.Context(), s); err != nil {
				t.Fatal(err)
			}
			if !maps.Equal(got, tt.want) {
				t.Errorf("counted %v, want %v", got, tt.want)
			}
		})
	}
}
