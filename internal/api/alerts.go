package api

import (
	"net/http"

	"github.com/honehq/hone/internal/learning"
	"github.com/honehq/hone/internal/server"
)

// alertRoutes are the reach-out budget's routes: applications that send
// proactive alerts ask before sending, record what they sent and pass on
// the testers' reactions.
func (a *API) alertRoutes() []server.Route {
	return []server.Route{
		{Method: "POST", Path: "/alerts/permit", Handler: a.permitAlert},
		{Method: "POST", Path: "/alerts", Handler: a.recordAlert},
		{Method: "GET", Path: "/alerts/types", Handler: a.alertTypes},
		{Method: "POST", Path: "/alerts/types/{type}/enable", Handler: a.enableAlertType},
		{Method: "GET", Path: "/alerts/{id}", Handler: a.getAlert},
		{Method: "POST", Path: "/alerts/{id}/feedback", Handler: a.reactToAlert},
	}
}

// AlertTypeList is the answer to GET /alerts/types.
type AlertTypeList struct {
	Types []*learning.AlertType `json:"types"`
	// Formula is the budget rule with the numbers in force.
	Formula string `json:"formula"`
}

func (a *API) permitAlert(w http.ResponseWriter, r *http.Request) error {
	var in learning.PermitInput
	if err := server.DecodeJSON(r, &in); err != nil {
		return err
	}
	p, err := a.Learning.Permit(r.Context(), in)
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, p)
}

func (a *API) recordAlert(w http.ResponseWriter, r *http.Request) error {
	var in learning.AlertInput
	if err := server.DecodeJSON(r, &in); err != nil {
		return err
	}
	al, err := a.Learning.RecordAlert(r.Context(), in)
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusCreated, al)
}

func (a *API) getAlert(w http.ResponseWriter, r *http.Request) error {
	al, err := a.Learning.Alert(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, al)
}

func (a *API) reactToAlert(w http.ResponseWriter, r *http.Request) error {
	var in learning.ReactionInput
	if err := server.DecodeJSON(r, &in); err != nil {
		return err
	}
	out, err := a.Learning.React(r.Context(), r.PathValue("id"), in)
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, out)
}

func (a *API) alertTypes(w http.ResponseWriter, r *http.Request) error {
	list, err := a.Learning.AlertTypes(r.Context())
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, AlertTypeList{Types: list, Formula: a.Learning.BudgetRules().Formula()})
}

func (a *API) enableAlertType(w http.ResponseWriter, r *http.Request) error {
	t, err := a.Learning.EnableAlertType(r.Context(), r.PathValue("type"))
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, t)
}
