package app

import (
	"context"
	"strings"
	"time"

	"github.com/honehq/hone/internal/teams"
)

// teamsModule is hone as a Microsoft Teams bot: the Bot Framework
// messaging endpoint POST /api/messages, answered by the bot of the bots
// module (which opens before it), and alerts delivered to Teams
// conversations. It is off unless HONE_TEAMS_APP_ID or HONE_TEAMS_NO_AUTH
// is set.
var teamsModule = Module{
	Name: "teams",
	Env: [][2]string{
		{"HONE_TEAMS_APP_ID", "run hone as this Microsoft Teams bot: the Azure Bot's Microsoft App ID (messaging endpoint HONE_PUBLIC_URL/api/messages)"},
		{"HONE_TEAMS_APP_PASSWORD", "the app's client secret, for the tokens of hone's replies"},
		{"HONE_TEAMS_TENANT_ID", "the app's tenant, for a single-tenant app (default the multi-tenant botframework.com)"},
		{"HONE_TEAMS_NO_AUTH", "1 turns off the Bot Framework tokens both ways, for the local Microsoft 365 Agents Playground only; refused unless hone listens on loopback"},
	},
	Open: openTeams,
}

func openTeams(c *Core) (*Parts, error) {
	cfg := teams.Config{AppID: strings.TrimSpace(c.Getenv("HONE_TEAMS_APP_ID")),
		AppPassword: c.Getenv("HONE_TEAMS_APP_PASSWORD"), TenantID: strings.TrimSpace(c.Getenv("HONE_TEAMS_TENANT_ID")),
		NoAuth: strings.TrimSpace(c.Getenv("HONE_TEAMS_NO_AUTH")) == "1", Loopback: teams.IsLoopback(c.Config.Addr),
		Conversations: c.DB.Bots()}
	if cfg.AppID == "" && !cfg.NoAuth {
		return &Parts{}, nil
	}
	ad, err := teams.New(cfg, c.Bots, c.Log)
	if err != nil {
		return nil, err
	}
	if w := cfg.NoAuthWarning(); w != "" {
		c.Log.Warn(w)
	}
	c.Bots.Deliverers.Add(ad)
	stop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = ad.Close(ctx)
	}
	return &Parts{Faces: []Face{{Name: "teams", Pattern: "POST /api/messages", Handler: ad.Handler()}},
		Jobs: []Job{{Name: "teams bot", Start: func() {}, Stop: stop}}}, nil
}
