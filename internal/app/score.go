package app

import (
	"context"

	"github.com/honehq/hone/internal/api"
	"github.com/honehq/hone/internal/score"
	"github.com/honehq/hone/internal/storage"
)

// scoreModule is the one place for judgments: typed score configs and the
// scores of turns and traces.
var scoreModule = Module{
	Name: "scores",
	Open: func(c *Core) (*Parts, error) {
		svc := score.NewService(c.DB.Scores(), score.Options{Turns: c.DB.Capture(), Traces: traces{c.DB}})
		return &Parts{API: api.Scores{Scores: svc}.Routes()}, nil
	},
}

// traces says whether a workshop has a trace, for the scores that judge
// one.
type traces struct{ db *storage.DB }

func (t traces) TraceExists(ctx context.Context, workshopID, traceID string) error {
	_, err := t.db.Workshops().Trace(ctx, workshopID, traceID)
	return err
}
