package api

import "github.com/honehq/hone/internal/server"

// Routes is the API's route table, paths relative to Prefix. Every route is
// documented in openapi.json, and TestOpenAPIDocumentsEveryRoute holds the
// two to each other.
func (a *API) Routes() []server.Route {
	return []server.Route{
		{Method: "GET", Path: "/openapi.json", Handler: a.openAPI, Open: true},
		{Method: "POST", Path: "/turns", Handler: a.createTurn},
		{Method: "POST", Path: "/turns/batch", Handler: a.createTurns},
		{Method: "POST", Path: "/messages", Handler: a.createMessage},
		{Method: "GET", Path: "/sessions", Handler: a.listSessions},
		{Method: "GET", Path: "/sessions/{id}", Handler: a.getSession},
		{Method: "GET", Path: "/sessions/{id}/export.csv", Handler: a.exportCSV},
		{Method: "GET", Path: "/sessions/{id}/export.json", Handler: a.exportJSON},
		{Method: "GET", Path: "/llm-calls", Handler: a.listLLMCalls},
		{Method: "POST", Path: "/score", Handler: a.score},
		{Method: "POST", Path: "/turns/{id}/scores", Handler: a.scoreTurn},
		{Method: "GET", Path: "/metrics/sessions/{id}", Handler: a.sessionMetrics},
		{Method: "GET", Path: "/metrics/compare", Handler: a.compareVersions},
		{Method: "GET", Path: "/metrics/regressions", Handler: a.regressions},
	}
}
