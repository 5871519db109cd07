package api

import (
	"net/http"

	"github.com/honehq/hone/internal/jsonschema"
	"github.com/honehq/hone/internal/scoring"
	"github.com/honehq/hone/internal/server"
)

// scoreResponseDoc documents POST /score, which scores without storing.
var scoreResponseDoc = &server.Doc{ID: "scoreResponse", Tag: "metrics", NoDatabase: true,
	Body:      body(ScoreInput{}),
	Responses: map[int]server.Response{http.StatusOK: answer(ScoreResult{})}}

// scoreTurnDoc documents POST /turns/{id}/scores.
var scoreTurnDoc = &server.Doc{ID: "scoreTurn", Tag: "metrics",
	Params: []server.Param{pathParam("id")},
	Body:   body(ScoresInput{}),
	Responses: map[int]server.Response{
		http.StatusOK:       answer(scoring.TurnScores{}),
		http.StatusNotFound: failure,
		http.StatusConflict: failure,
	}}

// getSessionMetricsDoc documents GET /metrics/sessions/{id}.
var getSessionMetricsDoc = &server.Doc{ID: "getSessionMetrics", Tag: "metrics",
	Params: []server.Param{shared("SessionID")},
	Responses: map[int]server.Response{
		http.StatusOK:       answer(scoring.SessionReport{}),
		http.StatusNotFound: sharedAnswer("NotFound"),
	}}

// version is a prompt version to compare.
func version(name string) server.Param {
	return server.Param{Name: name, In: "query", Required: true, Schema: str(jsonschema.MinLength(1))}
}

// compareVersionsDoc documents GET /metrics/compare.
var compareVersionsDoc = &server.Doc{ID: "compareVersions", Tag: "metrics",
	Params: []server.Param{version("a"), version("b")},
	Responses: map[int]server.Response{
		http.StatusOK:         answer(scoring.Comparison{}),
		http.StatusBadRequest: sharedAnswer("BadRequest"),
		http.StatusNotFound:   failure,
	}}

// listRegressionsDoc documents GET /metrics/regressions.
var listRegressionsDoc = &server.Doc{ID: "listRegressions", Tag: "metrics",
	Responses: map[int]server.Response{http.StatusOK: answer(scoring.RegressionReport{})}}
