package api

import (
	"slices"

	"github.com/honehq/hone/internal/server"
)

// Routes is the API's own route table, paths relative to Prefix; the
// capabilities' modules add theirs (Extra). Each route carries its Doc,
// from which openapi.json is generated (see Generate).
func (a *API) Routes() []server.Route {
	return append([]server.Route{
		{Method: "GET", Path: "/openapi.json", Handler: a.openAPI, Open: true, Doc: getOpenAPIDoc},
		{Method: "POST", Path: "/turns", Handler: a.createTurn, Doc: createTurnDoc},
		{Method: "POST", Path: "/turns/batch", Handler: a.createTurns, Accepts: batchTypes, Doc: createTurnsDoc},
		{Method: "POST", Path: "/messages", Handler: a.createMessage, Doc: createMessageDoc},
		{Method: "GET", Path: "/sessions", Handler: a.listSessions, Doc: listSessionsDoc},
		{Method: "GET", Path: "/sessions/{id}", Handler: a.getSession, Doc: getSessionDoc},
		{Method: "GET", Path: "/sessions/{id}/export.csv", Handler: a.exportCSV, Doc: exportSessionCSVDoc},
		{Method: "GET", Path: "/sessions/{id}/export.json", Handler: a.exportJSON, Doc: exportSessionJSONDoc},
		{Method: "GET", Path: "/llm-calls", Handler: a.listLLMCalls, Doc: listLLMCallsDoc},
		{Method: "POST", Path: "/score", Handler: a.score, Doc: scoreResponseDoc},
		{Method: "POST", Path: "/turns/{id}/scores", Handler: a.scoreTurn, Doc: scoreTurnDoc},
		{Method: "GET", Path: "/metrics/sessions/{id}", Handler: a.sessionMetrics, Doc: getSessionMetricsDoc},
		{Method: "GET", Path: "/metrics/compare", Handler: a.compareVersions, Doc: compareVersionsDoc},
		{Method: "GET", Path: "/metrics/regressions", Handler: a.regressions, Doc: listRegressionsDoc},
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
		{Method: "GET", Path: "/workshops", Handler: a.listWorkshops, Doc: listWorkshopsDoc},
		{Method: "POST", Path: "/workshops", Handler: a.createWorkshop, Doc: createWorkshopDoc},
		{Method: "GET", Path: "/workshops/{id}", Handler: a.getWorkshop, Doc: getWorkshopDoc},
		{Method: "PATCH", Path: "/workshops/{id}", Handler: a.updateWorkshop, Doc: updateWorkshopDoc},
		{Method: "GET", Path: "/workshops/{id}/members", Handler: a.listMembers, Doc: listMembersDoc},
		{Method: "POST", Path: "/workshops/{id}/members", Handler: a.addMember, Doc: addMemberDoc},
		{Method: "POST", Path: "/workshops/{id}/members/{member_id}/token", Handler: a.newMemberToken, Doc: newMemberTokenDoc},
		{Method: "GET", Path: "/workshops/{id}/traces", Handler: a.listTraces, Doc: listTracesDoc},
		{Method: "POST", Path: "/workshops/{id}/traces", Handler: a.importTraces, Accepts: traceTypes, Doc: importTracesDoc},
		{Method: "POST", Path: "/workshops/{id}/traces/from-sessions", Handler: a.importSessions, Doc: importSessionTracesDoc},
		{Method: "POST", Path: "/workshops/{id}/phase", Handler: a.setPhase, Doc: setPhaseDoc},
		{Method: "POST", Path: "/workshops/{id}/begin-discovery", Handler: a.beginDiscovery, Doc: beginDiscoveryDoc},
		{Method: "POST", Path: "/workshops/{id}/discovery-feedback", Handler: a.submitFeedback, Doc: submitFeedbackDoc},
		{Method: "GET", Path: "/workshops/{id}/discovery-feedback", Handler: a.listFeedback, Doc: listFeedbackDoc},
		{Method: "POST", Path: "/workshops/{id}/generate-followup-question", Handler: a.generateQuestion, Doc: generateFollowupQuestionDoc},
		{Method: "POST", Path: "/workshops/{id}/submit-followup-answer", Handler: a.submitAnswer, Doc: submitFollowupAnswerDoc},
		{Method: "GET", Path: "/workshops/{id}/discovery-completion-status", Handler: a.completion, Doc: getCompletionStatusDoc},
		{Method: "POST", Path: "/workshops/{id}/analyze-discovery", Handler: a.analyze, Doc: analyzeDiscoveryDoc},
		{Method: "GET", Path: "/workshops/{id}/discovery-analysis", Handler: a.listAnalyses, Doc: listAnalysesDoc},
		{Method: "GET", Path: "/workshops/{id}/discovery-analysis/{analysis_id}", Handler: a.getAnalysis, Doc: getAnalysisDoc},
		{Method: "GET", Path: "/workshops/{id}/analysis-templates", Handler: a.listTemplates, Doc: listTemplatesDoc},
		{Method: "POST", Path: "/workshops/{id}/analysis-templates", Handler: a.addTemplate, Doc: addTemplateDoc},
		{Method: "GET", Path: "/workshops/{id}/draft-rubric-items", Handler: a.listDraftItems, Doc: listDraftItemsDoc},
		{Method: "POST", Path: "/workshops/{id}/draft-rubric-items", Handler: a.promote, Doc: promoteDraftItemDoc},
		{Method: "PUT", Path: "/workshops/{id}/draft-rubric-items/{item_id}", Handler: a.updateDraftItem, Doc: updateDraftItemDoc},
		{Method: "DELETE", Path: "/workshops/{id}/draft-rubric-items/{item_id}", Handler: a.deleteDraftItem, Doc: deleteDraftItemDoc},
		{Method: "POST", Path: "/workshops/{id}/draft-rubric-items/suggest-groups", Handler: a.suggestGroups, Doc: suggestGroupsDoc},
		{Method: "POST", Path: "/workshops/{id}/draft-rubric-items/apply-groups", Handler: a.applyGroups, Doc: applyGroupsDoc},
		{Method: "PUT", Path: "/workshops/{id}/draft-rubric-groups/{group_id}", Handler: a.renameGroup, Doc: renameGroupDoc},
		{Method: "GET", Path: "/workshops/{id}/agreement", Handler: a.agreement, Doc: getAgreementDoc},
		{Method: "GET", Path: "/workshops/{id}/export", Handler: a.exportWorkshop, Doc: exportWorkshopDoc},
	}
	for i := range routes {
		routes[i].Members = true
	}
	return routes
}
