package app

import "github.com/honehq/hone/internal/api"

// scoreModule is the one place for judgments: typed score configs and the
// scores of turns and traces. Its service is the Core's, which scoring, the
// learning loop and the workshops record their judgments through.
var scoreModule = Module{
	Name: "scores",
	Open: func(c *Core) (*Parts, error) {
		return &Parts{API: api.Scores{Scores: c.Scores}.Routes()}, nil
	},
}
