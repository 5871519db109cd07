package app

import (
	"cmp"
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/alerts"
	"github.com/honehq/hone/internal/bots"
	"github.com/honehq/hone/internal/bots/relay"
	"github.com/honehq/hone/internal/playground"
	"github.com/honehq/hone/internal/telegram"
)

// botsModule is hone on chat platforms: the bot every platform's adapter
// talks to, what answers it (the model under test or the application's
// relay), and the Telegram adapter when a token is set.
var botsModule = Module{
	Name: "bots",
	Env: [][2]string{
		{"HONE_TELEGRAM_TOKEN", "run hone as this Telegram bot (the token from @BotFather); long polling, or a webhook when HONE_PUBLIC_URL is https"},
		{"HONE_TELEGRAM_API_URL", "the Telegram Bot API server (default " + telegram.DefaultAPIURL + "), for a local Bot API server"},
		{"HONE_CHAT_ALLOW", "who may talk to hone's bots: user ids (with or without their teams:/telegram: prefix) or Telegram usernames, comma-separated (default everyone)"},
		{"HONE_CHAT_RELAY_URL", "the application's endpoint that answers the bots' testers instead of the model: hone posts {conversation_id, tester_id, platform, message} and expects {response, context?, prompt_version?}"},
		{"HONE_CHAT_RELAY_TIMEOUT", "how long hone waits for the relay's answer (default 60s)"},
	},
	Open: openBots,
}

func openBots(c *Core) (*Parts, error) {
	answer, unavailable, err := c.botAnswerer()
	if err != nil {
		return nil, err
	}
	svc := bots.NewService(bots.Options{Answer: answer, Unavailable: unavailable, Router: c.Chat, Ratings: c.Learning,
		Alerts: c.Alerts, Allow: bots.ParseAllow(c.Getenv("HONE_CHAT_ALLOW")), Names: c.Names, Log: c.Log})
	c.Bots = svc
	parts := &Parts{Jobs: []Job{{Name: "alert deliveries", Start: func() {}, Stop: svc.Deliverers.Wait}}}
	token := strings.TrimSpace(c.Getenv("HONE_TELEGRAM_TOKEN"))
	if token == "" {
		return parts, nil
	}
	var webhook string
	if c.Config.PublicHTTPS() {
		webhook = strings.TrimRight(c.Config.PublicURL, "/") + telegram.WebhookPath
	}
	var commands []telegram.Command
	for _, cmd := range c.Chat.Commands() {
		commands = append(commands, telegram.Command{Name: cmd.Name, Summary: cmd.Summary})
	}
	tg, err := telegram.New(telegram.Options{Token: token, APIURL: c.Getenv("HONE_TELEGRAM_API_URL"), Bot: svc,
		Offsets: c.DB.Bots(), Commands: commands, WebhookURL: webhook, Log: c.Log})
	if err != nil {
		return nil, err
	}
	svc.Deliverers.Add(tg)
	parts.Jobs = append(parts.Jobs, Job{Name: "telegram bot", Start: tg.Start, Stop: tg.Stop})
	if webhook != "" {
		parts.Faces = append(parts.Faces, Face{Name: "telegram", Pattern: telegram.WebhookPath, Handler: tg.Webhook()})
	}
	return parts, nil
}

// botAnswerer is what answers the bots' testers: the application's relay
// when HONE_CHAT_RELAY_URL names one, else the model under test under the
// first prompt file with the learnings applied, as hone chat does; nil,
// and why, when neither is set up.
func (c *Core) botAnswerer() (bots.Answerer, error, error) {
	if raw := strings.TrimSpace(c.Getenv("HONE_CHAT_RELAY_URL")); raw != "" {
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, nil, hone.FieldError("HONE_CHAT_RELAY_URL", "HONE_CHAT_RELAY_URL %q is not an http(s) URL", raw)
		}
		var timeout time.Duration
		if s := strings.TrimSpace(c.Getenv("HONE_CHAT_RELAY_TIMEOUT")); s != "" {
			if timeout, err = time.ParseDuration(s); err != nil || timeout <= 0 {
				return nil, nil, hone.FieldError("HONE_CHAT_RELAY_TIMEOUT", "HONE_CHAT_RELAY_TIMEOUT %q is not a duration such as 30s", s)
			}
		}
		return relay.New(raw, timeout, c.Chat, c.Turns, c.Log), nil, nil
	}
	if c.LLM == nil {
		return nil, cmp.Or(c.LLMError, error(hone.Errorf(hone.EINVALID, "no LLM is set up (HONE_LLM_*)"))), nil
	}
	if len(c.Prompts) == 0 {
		return nil, hone.Errorf(hone.EINVALID, "no prompt file is set (HONE_PROMPT_FILE)"), nil
	}
	g := playground.New(c.Turns, c.Chat, c.LLM, c.Prompts[0], c.Log)
	g.Augment(c.Learning)
	return g, nil, nil
}

// deliverAlert shows an alert the budget allowed in its conversation when
// that lives on a chat platform hone runs on.
func (c *Core) deliverAlert(ctx context.Context, a *alerts.Alert) {
	if c.Bots == nil {
		return
	}
	c.Bots.Deliverers.Deliver(ctx, a.ConversationID, a.ID, cmp.Or(a.Text, fmt.Sprintf("🔔 %s", a.Type)))
}
