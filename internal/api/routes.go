package api

import (
	"slices"

	"github.com/honehq/hone/internal/server"
)

// Routes is the API's own route table, paths relative to Prefix; the
// capabilities' modules add theirs (Extra). Every route is documented in
// openapi.json, and TestOpenAPIDocumentsEveryRoute holds the two to each
// other.
func (a *API) Routes() []server.Route {
	return append([]server.Route{
		{Method: "GET", Path: "/openapi.json", Handler: a.openAPI, Open: true},
		{Method: "POST", Path: "/turns", Handler: a.createTurn},
		{Method: "POST", Path: "/turns/batch", Handler: a.createTurns, Accepts: batchTypes},
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
	}, slices.Concat(a.learningRoutes(), a.workshopRoutes())...)
}

// batchTypes are the media types of a batch: a JSON array, or NDJSON.
var batchTypes = append([]string{server.JSONType}, server.NDJSONTypes...)

// traceTypes are the media types of a workshop's trace import.
var traceTypes = []string{server.JSONType, "application/x-ndjson", "application/jsonl", "text/csv"}

// workshopRoutes are the discovery workshop's routes; a member's own token
// opens them (for their workshop).
func (a *API) workshopRoutes() []server.Route {
	routes := []server.Route{
		{Method: "GET", Path: "/workshops", Handler: a.listWorkshops},
		{Method: "POST", Path: "/workshops", Handler: a.createWorkshop},
		{Method: "GET", Path: "/workshops/{id}", Handler: a.getWorkshop},
		{Method: "PATCH", Path: "/workshops/{id}", Handler: a.updateWorkshop},
		{Method: "GET", Path: "/workshops/{id}/members", Handler: a.listMembers},
		{Method: "POST", Path: "/workshops/{id}/members", Handler: a.addMember},
		{Method: "POST", Path: "/workshops/{id}/members/{member_id}/token", Handler: a.newMemberToken},
		{Method: "GET", Path: "/workshops/{id}/traces", Handler: a.listTraces},
		{Method: "POST", Path: "/workshops/{id}/traces", Handler: a.importTraces, Accepts: traceTypes},
		{Method: "POST", Path: "/workshops/{id}/traces/from-sessions", Handler: a.importSessions},
		{Method: "POST", Path: "/workshops/{id}/phase", Handler: a.setPhase},
		{Method: "POST", Path: "/workshops/{id}/begin-discovery", Handler: a.beginDiscovery},
		{Method: "POST", Path: "/workshops/{id}/discovery-feedback", Handler: a.submitFeedback},
		{Method: "GET", Path: "/workshops/{id}/discovery-feedback", Handler: a.listFeedback},
		{Method: "POST", Path: "/workshops/{id}/generate-followup-question", Handler: a.generateQuestion},
		{Method: "POST", Path: "/workshops/{id}/submit-followup-answer", Handler: a.submitAnswer},
		{Method: "GET", Path: "/workshops/{id}/discovery-completion-status", Handler: a.completion},
		{Method: "POST", Path: "/workshops/{id}/analyze-discovery", Handler: a.analyze},
		{Method: "GET", Path: "/workshops/{id}/discovery-analysis", Handler: a.listAnalyses},
		{Method: "GET", Path: "/workshops/{id}/discovery-analysis/{analysis_id}", Handler: a.getAnalysis},
		{Method: "GET", Path: "/workshops/{id}/analysis-templates", Handler: a.listTemplates},
		{Method: "POST", Path: "/workshops/{id}/analysis-templates", Handler: a.addTemplate},
		{Method: "GET", Path: "/workshops/{id}/draft-rubric-items", Handler: a.listDraftItems},
		{Method: "POST", Path: "/workshops/{id}/draft-rubric-items", Handler: a.promote},
		{Method: "PUT", Path: "/workshops/{id}/draft-rubric-items/{item_id}", Handler: a.updateDraftItem},
		{Method: "DELETE", Path: "/workshops/{id}/draft-rubric-items/{item_id}", Handler: a.deleteDraftItem},
		{Method: "POST", Path: "/workshops/{id}/draft-rubric-items/suggest-groups", Handler: a.suggestGroups},
		{Method: "POST", Path: "/workshops/{id}/draft-rubric-items/apply-groups", Handler: a.applyGroups},
		{Method: "PUT", Path: "/workshops/{id}/draft-rubric-groups/{group_id}", Handler: a.renameGroup},
		{Method: "GET", Path: "/workshops/{id}/agreement", Handler: a.agreement},
		{Method: "GET", Path: "/workshops/{id}/export", Handler: a.exportWorkshop},
	}
	for i := range routes {
		routes[i].Members = true
	}
	return routes
}
