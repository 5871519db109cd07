package api

import (
	"net/http"

	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/server"
	"github.com/honehq/hone/internal/tuning"
)

// listSessionsDoc documents GET /sessions.
var listSessionsDoc = &server.Doc{ID: "listSessions", Tag: "sessions",
	Params: []server.Param{queryParam("tester_id"), sessionLimit.param(), sessionOffset.param()},
	Responses: map[int]server.Response{
		http.StatusOK:         answer(SessionList{}),
		http.StatusBadRequest: sharedAnswer("BadRequest"),
	}}

// getSessionDoc documents GET /sessions/{id}.
var getSessionDoc = &server.Doc{ID: "getSession", Tag: "sessions",
	Params: []server.Param{shared("SessionID")},
	Responses: map[int]server.Response{
		http.StatusOK:       answer(capture.Session{}),
		http.StatusNotFound: sharedAnswer("NotFound"),
	}}

// download is the header of an answer to save as a file.
var download = map[string]server.Header{"Content-Disposition": {Ref: "ContentDisposition"}}

// exportSessionCSVDoc documents GET /sessions/{id}/export.csv.
var exportSessionCSVDoc = &server.Doc{ID: "exportSessionCSV", Tag: "sessions",
	Params: []server.Param{shared("SessionID")},
	Responses: map[int]server.Response{
		http.StatusOK:       {Media: []string{"text/csv"}, Headers: download},
		http.StatusNotFound: sharedAnswer("NotFound"),
	}}

// exportSessionJSONDoc documents GET /sessions/{id}/export.json.
var exportSessionJSONDoc = &server.Doc{ID: "exportSessionJSON", Tag: "sessions",
	Params: []server.Param{shared("SessionID")},
	Responses: map[int]server.Response{
		http.StatusOK:       {JSON: tuning.SessionExport{}, Headers: download},
		http.StatusNotFound: sharedAnswer("NotFound"),
	}}

// listLLMCallsDoc documents GET /llm-calls.
var listLLMCallsDoc = &server.Doc{ID: "listLLMCalls", Tag: "llm",
	Params: []server.Param{queryParam("purpose"), queryParam("cause_id"), llmCallLimit.param()},
	Responses: map[int]server.Response{
		http.StatusOK:         answer(LLMCallList{}),
		http.StatusBadRequest: sharedAnswer("BadRequest"),
	}}
