package app

import (
	"github.com/honehq/hone/internal/alerts"
	"github.com/honehq/hone/internal/api"
	"github.com/honehq/hone/internal/web"
)

// alertsModule is the reach-out budget of proactive alerts.
var alertsModule = Module{
	Name: "alerts",
	Open: func(c *Core) (*Parts, error) {
		svc := alerts.NewService(c.DB.Alerts(), c.DB.Capture(), alerts.Options{Logger: c.Log, Budget: c.Config.Learn.BudgetRules(),
			Deliver: c.deliverAlert})
		svc.Register(c.Chat)
		c.Alerts = svc
		return &Parts{
			API: api.Alerts{Alerts: svc}.Routes(),
			Web: web.AlertPages{UI: c.UI, Alerts: svc}.Routes(),
			Nav: []web.NavItem{{Label: "Alerts", Path: "/alerts"}},
		}, nil
	},
}
