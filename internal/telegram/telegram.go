// Package telegram is hone as a Telegram bot: it reads updates by long
// polling (or through a webhook when hone has a public https URL), hands
// messages, 👍/👎 presses and alert buttons to the platform-independent bot
// of internal/bots, and sends what it answers with the Bot API, through the
// go-telegram-bot-api client.
package telegram

import (
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/honehq/hone/internal/bots"
)

// DefaultAPIURL is the Bot API server hone talks to unless told another.
const DefaultAPIURL = "https://api.telegram.org"

// WebhookPath is where Telegram posts updates in webhook mode.
const WebhookPath = "/telegram/webhook"

// MaxMessage is the longest text Telegram takes in one message, in
// characters.
const MaxMessage = 4096

// Command is a chat command offered in Telegram's command menu.
type Command struct {
	Name    string
	Summary string
}

// Options configure an Adapter.
type Options struct {
	// Token is the bot's token from @BotFather; it is never logged.
	Token string
	// APIURL is the Bot API server, DefaultAPIURL when empty.
	APIURL string
	Bot    bots.Bot
	// Offsets keep the next update across restarts.
	Offsets bots.Offsets
	// Commands are offered with setMyCommands when the adapter starts.
	Commands []Command
	// WebhookURL, when set, is where Telegram posts updates (an https URL
	// ending in WebhookPath); empty reads them by long polling.
	WebhookURL string
	// PollTimeout is how long one getUpdates waits for updates (50s when 0).
	PollTimeout time.Duration
	// MinBackoff and MaxBackoff bound the waits between retries of a failed
	// call (0.5s and 30s when 0); Attempts is how many times a reply is
	// tried (8 when 0).
	MinBackoff, MaxBackoff time.Duration
	Attempts               int
	Log                    *slog.Logger
}

// Adapter is hone on Telegram; it is a bots.Deliverer.
type Adapter struct {
	opts     Options
	log      *slog.Logger
	api      *tgbotapi.BotAPI
	key      string
	secret   string
	commands map[string]string

	mu       sync.Mutex
	next     int64
	loaded   bool
	username string
	ready    chan struct{}
	// outbox are the answers waiting to be sent, by chat.
	outbox map[int64][]func(context.Context)

	// hooked handles the webhook's updates one at a time, as polling does.
	hooked sync.Mutex

	cancel context.CancelFunc
	done   chan struct{}
	sends  sync.WaitGroup
}

var _ bots.Deliverer = (*Adapter)(nil)

// New returns the adapter; it talks to Telegram only once started.
func New(opts Options) (*Adapter, error) {
	if opts.Token == "" {
		return nil, errors.New("telegram: no bot token")
	}
	id, _, ok := strings.Cut(opts.Token, ":")
	if !ok || id == "" {
		return nil, errors.New("HONE_TELEGRAM_TOKEN is not a bot token (it has the form 123456789:AA…, from @BotFather)")
	}
	opts.APIURL = strings.TrimRight(cmp.Or(opts.APIURL, DefaultAPIURL), "/")
	opts.PollTimeout = cmp.Or(opts.PollTimeout, 50*time.Second)
	opts.MinBackoff = cmp.Or(opts.MinBackoff, 500*time.Millisecond)
	opts.MaxBackoff = cmp.Or(opts.MaxBackoff, 30*time.Second)
	opts.Attempts = cmp.Or(opts.Attempts, 8)
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	a := &Adapter{opts: opts, log: opts.Log.With("platform", bots.Telegram), key: bots.Telegram + ":" + id,
		commands: map[string]string{}, ready: make(chan struct{}), outbox: map[int64][]func(context.Context){}}
	a.api = &tgbotapi.BotAPI{Token: opts.Token, Client: &http.Client{Timeout: opts.PollTimeout + 30*time.Second}, Buffer: 100}
	a.api.SetAPIEndpoint(opts.APIURL + "/bot%s/%s")
	mac := hmac.New(sha256.New, []byte(opts.Token))
	mac.Write([]byte("hone telegram webhook"))
	a.secret = hex.EncodeToString(mac.Sum(nil))
	for _, c := range opts.Commands {
		a.commands[commandName(c.Name)] = c.Name
	}
	return a, nil
}

// Platform is Telegram.
func (a *Adapter) Platform() string { return bots.Telegram }

// Start connects to Telegram in the background: it learns the bot's name,
// offers hone's commands, then polls for updates or sets the webhook,
// retrying with backoff while Telegram cannot be reached.
func (a *Adapter) Start() {
	ctx, cancel := context.WithCancel(context.Background())
	a.cancel, a.done = cancel, make(chan struct{})
	go func() {
		defer close(a.done)
		if !a.connect(ctx) {
			return
		}
		if a.opts.WebhookURL == "" {
			a.poll(ctx)
		}
	}()
}

// Stop ends polling and waits for the replies under way.
func (a *Adapter) Stop() {
	if a.cancel == nil {
		return
	}
	a.cancel()
	<-a.done
	a.sends.Wait()
}

// connect learns the bot, loads the next update, offers the commands and
// sets or removes the webhook; false when ctx ended first.
func (a *Adapter) connect(ctx context.Context) bool {
	steps := []struct {
		what string
		do   func(context.Context) error
	}{
		{"read the bot's name (getMe)", func(ctx context.Context) error {
			me, err := a.with(ctx).GetMe()
			if err == nil {
				a.mu.Lock()
				a.username = me.UserName
				a.mu.Unlock()
			}
			return err
		}},
		{"read the next update", func(ctx context.Context) error {
			next, err := a.opts.Offsets.NextUpdate(ctx, a.key)
			if err == nil {
				a.mu.Lock()
				a.next, a.loaded = max(a.next, next), true
				a.mu.Unlock()
			}
			return err
		}},
		{"offer the commands (setMyCommands)", a.setCommands},
		{"set the webhook", a.setWebhook},
	}
	for _, s := range steps {
		if err := a.retry(ctx, s.what, 0, s.do); err != nil {
			return false
		}
	}
	close(a.ready)
	a.log.Info("telegram bot connected", "bot", a.name(), "mode", map[bool]string{true: "webhook", false: "long polling"}[a.opts.WebhookURL != ""])
	return true
}

func (a *Adapter) name() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.username
}

func (a *Adapter) setCommands(ctx context.Context) error {
	var cmds []tgbotapi.BotCommand
	for _, c := range a.opts.Commands {
		name := commandName(c.Name)
		if name == "" || len(cmds) == 100 {
			continue
		}
		cmds = append(cmds, tgbotapi.BotCommand{Command: name, Description: clip(cmp.Or(c.Summary, c.Name), 256)})
	}
	if len(cmds) == 0 {
		return nil
	}
	_, err := a.with(ctx).Request(tgbotapi.NewSetMyCommands(cmds...))
	return err
}

// setWebhook points Telegram at the webhook with its secret token, or
// removes a webhook so that getUpdates works.
func (a *Adapter) setWebhook(ctx context.Context) error {
	if a.opts.WebhookURL == "" {
		_, err := a.with(ctx).Request(tgbotapi.DeleteWebhookConfig{})
		return err
	}
	params := tgbotapi.Params{"url": a.opts.WebhookURL, "secret_token": a.secret}
	if err := params.AddInterface("allowed_updates", allowedUpdates); err != nil {
		return err
	}
	_, err := a.with(ctx).MakeRequest("setWebhook", params)
	return err
}

// allowedUpdates are the updates hone reads.
var allowedUpdates = []string{"message", "callback_query"}

// commandName is a hone command as Telegram names commands: lower case,
// letters, digits and underscores, at most 32.
func commandName(name string) string {
	name = strings.ToLower(strings.ReplaceAll(name, "-", "_"))
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			return ""
		}
	}
	if len(name) > 32 {
		return ""
	}
	return name
}

// clip is s cut to n characters.
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}
