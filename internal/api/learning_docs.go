package api

import (
	"net/http"

	"github.com/honehq/hone/internal/jsonschema"
	"github.com/honehq/hone/internal/learning"
	"github.com/honehq/hone/internal/server"
)

// rateTurnDoc documents POST /turns/{id}/feedback.
var rateTurnDoc = &server.Doc{ID: "rateTurn", Tag: "learning",
	Params: []server.Param{shared("TurnID")},
	Body:   body(learning.RatingInput{}),
	Responses: map[int]server.Response{
		http.StatusOK:       answer(RatingAnswer{}),
		http.StatusNotFound: failure,
	}}

// badQuery is the answer to a query parameter that is wrong.
var badQuery = sharedAnswer("BadRequest")

// getFeedbackStatsDoc documents GET /feedback/stats.
var getFeedbackStatsDoc = &server.Doc{ID: "getFeedbackStats", Tag: "learning",
	Params: []server.Param{statsDays.param()},
	Responses: map[int]server.Response{
		http.StatusOK:         answer(learning.Stats{}),
		http.StatusBadRequest: badQuery,
	}}

// listNegativeFeedbackDoc documents GET /feedback/negative.
var listNegativeFeedbackDoc = &server.Doc{ID: "listNegativeFeedback", Tag: "learning",
	Params: []server.Param{shared("LearningLimit")},
	Responses: map[int]server.Response{
		http.StatusOK:         answer(RatingList{}),
		http.StatusBadRequest: badQuery,
	}}

// listPendingCorrectionsDoc documents GET /feedback/corrections.
var listPendingCorrectionsDoc = &server.Doc{ID: "listPendingCorrections", Tag: "learning",
	Params: []server.Param{shared("LearningLimit")},
	Responses: map[int]server.Response{
		http.StatusOK:         answer(CorrectionList{}),
		http.StatusBadRequest: badQuery,
	}}

// listLearningsDoc documents GET /learnings.
var listLearningsDoc = &server.Doc{ID: "listLearnings", Tag: "learning",
	Params: []server.Param{queryParam("tester_id"),
		queryParam("status", jsonschema.Pattern(jsonschema.Trimmed(jsonschema.Words(learning.LearningStatuses...)+"?")))},
	Responses: map[int]server.Response{
		http.StatusOK:         answer(LearningList{}),
		http.StatusBadRequest: badQuery,
	}}

// addLearningDoc documents POST /learnings.
var addLearningDoc = &server.Doc{ID: "addLearning", Tag: "learning",
	Body: body(learning.LearningInput{}),
	Responses: map[int]server.Response{
		http.StatusCreated:  answer(learning.Learning{}),
		http.StatusConflict: failure,
	}}

// getLearningDoc documents GET /learnings/{id}.
var getLearningDoc = &server.Doc{ID: "getLearning", Tag: "learning",
	Params: []server.Param{shared("LearningID")},
	Responses: map[int]server.Response{
		http.StatusOK:       answer(LearningDetail{}),
		http.StatusNotFound: failure,
	}}

// updateLearningDoc documents PATCH /learnings/{id}.
var updateLearningDoc = &server.Doc{ID: "updateLearning", Tag: "learning",
	Params: []server.Param{shared("LearningID")},
	Body:   body(learning.LearningUpdate{}),
	Responses: map[int]server.Response{
		http.StatusOK:       answer(learning.Learning{}),
		http.StatusNotFound: failure,
	}}

// deleteLearningDoc documents DELETE /learnings/{id}.
var deleteLearningDoc = &server.Doc{ID: "deleteLearning", Tag: "learning",
	Params: []server.Param{shared("LearningID")},
	Responses: map[int]server.Response{
		http.StatusNoContent: {},
		http.StatusNotFound:  failure,
	}}

// keepLearningDoc documents POST /learnings/{id}/keep.
var keepLearningDoc = &server.Doc{ID: "keepLearning", Tag: "learning",
	Params: []server.Param{shared("LearningID")},
	Responses: map[int]server.Response{
		http.StatusOK:       answer(learning.Learning{}),
		http.StatusNotFound: failure,
		http.StatusConflict: failure,
	}}

// synthesizeLearningsDoc documents POST /learnings/synthesize.
var synthesizeLearningsDoc = &server.Doc{ID: "synthesizeLearnings", Tag: "learning",
	Responses: map[int]server.Response{
		http.StatusAccepted:           {JSON: learning.Run{}, Headers: map[string]server.Header{"Location": {Required: true, Schema: str()}}},
		http.StatusServiceUnavailable: errorAnswer(retryAfter),
	}}

// listLearningRunsDoc documents GET /learnings/runs.
var listLearningRunsDoc = &server.Doc{ID: "listLearningRuns", Tag: "learning",
	Params: []server.Param{shared("LearningLimit")},
	Responses: map[int]server.Response{
		http.StatusOK:         answer(RunList{}),
		http.StatusBadRequest: badQuery,
	}}

// getLearningRunDoc documents GET /learnings/runs/{id}.
var getLearningRunDoc = &server.Doc{ID: "getLearningRun", Tag: "learning",
	Params: []server.Param{shared("LearningRunID")},
	Responses: map[int]server.Response{
		http.StatusOK:       answer(learning.Run{}),
		http.StatusNotFound: failure,
	}}

// enableLearningsDoc documents POST /learnings/enable.
var enableLearningsDoc = &server.Doc{ID: "enableLearnings", Tag: "learning",
	Responses: map[int]server.Response{http.StatusOK: answer(Switch{})}}

// disableLearningsDoc documents POST /learnings/disable.
var disableLearningsDoc = &server.Doc{ID: "disableLearnings", Tag: "learning",
	Responses: map[int]server.Response{http.StatusOK: answer(Switch{})}}

// getPromptDoc documents GET /prompt.
var getPromptDoc = &server.Doc{ID: "getPrompt", Tag: "learning",
	Params: []server.Param{queryParam("tester_id"), queryParam("prompt")},
	Responses: map[int]server.Response{
		http.StatusOK:         answer(learning.PromptView{}),
		http.StatusBadRequest: failure,
	}}
