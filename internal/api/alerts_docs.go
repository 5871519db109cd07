package api

import (
	"net/http"

	"github.com/honehq/hone/internal/alerts"
	"github.com/honehq/hone/internal/server"
)

// permitAlertDoc documents POST /alerts/permit.
var permitAlertDoc = &server.Doc{ID: "permitAlert", Tag: "alerts",
	Body:      body(alerts.PermitInput{}),
	Responses: map[int]server.Response{http.StatusOK: answer(alerts.Permit{})}}

// recordAlertDoc documents POST /alerts.
var recordAlertDoc = &server.Doc{ID: "recordAlert", Tag: "alerts",
	Body:      body(alerts.AlertInput{}),
	Responses: map[int]server.Response{http.StatusCreated: answer(alerts.Alert{})}}

// listAlertTypesDoc documents GET /alerts/types.
var listAlertTypesDoc = &server.Doc{ID: "listAlertTypes", Tag: "alerts",
	Responses: map[int]server.Response{http.StatusOK: answer(AlertTypeList{})}}

// enableAlertTypeDoc documents POST /alerts/types/{type}/enable.
var enableAlertTypeDoc = &server.Doc{ID: "enableAlertType", Tag: "alerts",
	Params: []server.Param{{Name: "type", In: "path", Required: true, Schema: str(alerts.TypeRule)}},
	Responses: map[int]server.Response{
		http.StatusOK:         answer(alerts.AlertType{}),
		http.StatusBadRequest: failure,
		http.StatusConflict:   failure,
	}}

// getAlertDoc documents GET /alerts/{id}.
var getAlertDoc = &server.Doc{ID: "getAlert", Tag: "alerts",
	Params: []server.Param{pathParam("id")},
	Responses: map[int]server.Response{
		http.StatusOK:       answer(alerts.Alert{}),
		http.StatusNotFound: failure,
	}}

// reactToAlertDoc documents POST /alerts/{id}/feedback.
var reactToAlertDoc = &server.Doc{ID: "reactToAlert", Tag: "alerts",
	Params: []server.Param{pathParam("id")},
	Body:   body(alerts.ReactionInput{}),
	Responses: map[int]server.Response{
		http.StatusOK:       answer(alerts.Reacted{}),
		http.StatusNotFound: failure,
	}}
