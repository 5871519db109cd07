package api

import (
	"net/http"

	"github.com/honehq/hone/internal/alerts"
	"github.com/honehq/hone/internal/server"
)

// Alerts serves the reach-out budget's routes: applications that send
// proactive alerts ask before sending, record what they sent and pass on
// the testers' reactions.
type Alerts struct {
	Alerts *alerts.Service
}

// Routes are the alerts capability's routes, relative to Prefix.
func (a Alerts) Routes() []server.Route {
	return []server.Route{
		{Method: "POST", Path: "/alerts/permit", Handler: a.permitAlert, Doc: permitAlertDoc},
		{Method: "POST", Path: "/alerts", Handler: a.recordAlert, Doc: recordAlertDoc},
		{Method: "GET", Path: "/alerts/types", Handler: a.alertTypes, Doc: listAlertTypesDoc},
		{Method: "POST", Path: "/alerts/types/{type}/enable", Handler: a.enableAlertType, Doc: enableAlertTypeDoc},
		{Method: "GET", Path: "/alerts/{id}", Handler: a.getAlert, Doc: getAlertDoc},
		{Method: "POST", Path: "/alerts/{id}/feedback", Handler: a.reactToAlert, Doc: reactToAlertDoc},
	}
}

// AlertTypeList is the answer to GET /alerts/types.
type AlertTypeList struct {
	Types []*alerts.AlertType `json:"types"`
	// Formula is the budget rule with the numbers in force.
	Formula string `json:"formula"`
}

func (a Alerts) permitAlert(w http.ResponseWriter, r *http.Request) error {
	var in alerts.PermitInput
	if err := server.DecodeJSON(r, &in); err != nil {
		return err
	}
	p, err := a.Alerts.Permit(r.Context(), in)
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, p)
}

func (a Alerts) recordAlert(w http.ResponseWriter, r *http.Request) error {
	var in alerts.AlertInput
	if err := server.DecodeJSON(r, &in); err != nil {
		return err
	}
	al, err := a.Alerts.RecordAlert(r.Context(), in)
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusCreated, al)
}

func (a Alerts) getAlert(w http.ResponseWriter, r *http.Request) error {
	al, err := a.Alerts.Alert(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, al)
}

func (a Alerts) reactToAlert(w http.ResponseWriter, r *http.Request) error {
	var in alerts.ReactionInput
	if err := server.DecodeJSON(r, &in); err != nil {
		return err
	}
	out, err := a.Alerts.React(r.Context(), r.PathValue("id"), in)
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, out)
}

func (a Alerts) alertTypes(w http.ResponseWriter, r *http.Request) error {
	list, err := a.Alerts.AlertTypes(r.Context())
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, AlertTypeList{Types: list, Formula: a.Alerts.BudgetRules().Formula()})
}

func (a Alerts) enableAlertType(w http.ResponseWriter, r *http.Request) error {
	t, err := a.Alerts.EnableAlertType(r.Context(), r.PathValue("type"))
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, t)
}
