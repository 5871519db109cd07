package app

import (
	"github.com/honehq/hone/internal/api"
	"github.com/honehq/hone/internal/suggestions"
	"github.com/honehq/hone/internal/web"
)

// suggestionsModule is suggestion tracking.
var suggestionsModule = Module{
	Name: "suggestions",
	Open: func(c *Core) (*Parts, error) {
		svc := suggestions.NewService(c.DB.Suggestions(), suggestions.Options{Logger: c.Log, HistoryRoot: c.Config.SuggestionRoot})
		return &Parts{
			API: api.Suggestions{Suggestions: svc}.Routes(),
			Web: web.SuggestionPages{UI: c.UI, Suggestions: svc}.Routes(),
			Nav: []web.NavItem{{Label: "Suggestions", Path: "/suggestions"}},
		}, nil
	},
}
