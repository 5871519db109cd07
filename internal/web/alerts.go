package web

import (
	"net/http"

	"github.com/honehq/hone/internal/alerts"
	"github.com/honehq/hone/internal/server"
)

// AlertPages are the alerts capability's pages: the budget rule and each
// alert type's reactions, with a button that ends a type's pause.
type AlertPages struct {
	UI     *UI
	Alerts *alerts.Service
}

// alertsBack is where the page's forms return to.
const alertsBack = "/alerts"

// Routes are the alert pages' routes.
func (p AlertPages) Routes() []server.Route {
	return []server.Route{
		{Method: "GET", Path: "/alerts", Handler: p.page},
		{Method: "POST", Path: "/alerts/types/{type}/enable", Handler: p.enableType},
	}
}

func (p AlertPages) page(w http.ResponseWriter, r *http.Request) error {
	types, err := p.Alerts.AlertTypes(r.Context())
	if err != nil {
		return err
	}
	p.UI.Render(w, r, http.StatusOK, "alerts", map[string]any{"Title": "Alerts", "AlertTypes": types,
		"AlertRules": p.Alerts.BudgetRules()})
	return nil
}

func (p AlertPages) enableType(w http.ResponseWriter, r *http.Request) error {
	t, err := p.Alerts.EnableAlertType(r.Context(), r.PathValue("type"))
	if err != nil {
		return p.UI.formError(w, r, alertsBack, err)
	}
	return redirectNotice(w, r, alertsBack, "Alerts of type "+t.Type+" are enabled again.")
}
