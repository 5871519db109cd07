package teams

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/honehq/hone/internal/bots"
)

const (
	// MaxBody is the largest activity the endpoint reads.
	MaxBody = 1 << 20
	// maxMessageBytes is about what Teams shows in one message; a longer
	// !print is sent as its download link.
	maxMessageBytes = 28 << 10
	// Bounds of what the adapter remembers: conversations it can post
	// alerts to, and the turns of the answers it sent.
	maxConversations = 10_000
	maxAnswers       = 100_000
	// turnTimeout bounds one message's handling (the model's answer).
	turnTimeout = 5 * time.Minute
)

// Adapter is the Teams bot: the handler of the Bot Framework messaging
// endpoint, and the bots.Deliverer of alerts into Teams conversations.
type Adapter struct {
	cfg    Config
	bot    bots.Bot
	log    *slog.Logger
	verify *verifier
	conn   *connector

	refs  *recent[reference]
	turns *recent[string]
	// lastTurn is each conversation's latest answer with a turn.
	lastTurn *recent[string]

	ctx    context.Context
	cancel context.CancelFunc
	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup
}

// reference is what posting into a conversation proactively takes.
type reference struct {
	ServiceURL     string
	ConversationID string
	Bot            account
	TenantID       string
}

var _ bots.Deliverer = (*Adapter)(nil)

// New returns the adapter for cfg, handing what testers do to bot. It
// refuses a Config that Validate refuses. Close stops its background work.
func New(cfg Config, bot bots.Bot, logger *slog.Logger) (*Adapter, error) {
	return newAdapter(cfg, bot, logger, &http.Client{Timeout: 30 * time.Second})
}

func newAdapter(cfg Config, bot bots.Bot, logger *slog.Logger, client *http.Client) (*Adapter, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if bot == nil {
		return nil, errors.New("teams: no bot")
	}
	if logger == nil {
		logger = slog.Default()
	}
	ctx, cancel := context.WithCancel(context.Background())
	a := &Adapter{
		cfg:      cfg,
		bot:      bot,
		log:      logger,
		conn:     newConnector(ctx, cfg, client),
		refs:     newRecent[reference](maxConversations),
		turns:    newRecent[string](maxAnswers),
		lastTurn: newRecent[string](maxConversations),
		ctx:      ctx,
		cancel:   cancel,
	}
	if !cfg.NoAuth {
		a.verify = &verifier{
			ctx: ctx, appID: cfg.AppID, metadata: cfg.openIDMetadataURL(), skew: cfg.clockSkew(),
			client: client, log: logger, now: time.Now,
		}
	}
	return a, nil
}

// Platform is bots.Teams.
func (a *Adapter) Platform() string { return bots.Teams }

// Close stops the adapter's background work: replies still being sent
// are given until ctx ends.
func (a *Adapter) Close(ctx context.Context) error {
	a.mu.Lock()
	a.closed = true
	a.mu.Unlock()
	done := make(chan struct{})
	go func() { a.wg.Wait(); close(done) }()
	select {
	case <-done:
		a.cancel()
		return nil
	case <-ctx.Done():
		a.cancel()
		<-done
		return ctx.Err()
	}
}

// Handler is the Bot Framework messaging endpoint, POST /api/messages.
func (a *Adapter) Handler() http.Handler { return http.HandlerFunc(a.serveHTTP) }

func (a *Adapter) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeStatus(w, http.StatusMethodNotAllowed, "POST an activity")
		return
	}
	a.mu.Lock()
	closed := a.closed
	a.mu.Unlock()
	if closed {
		w.Header().Set("Retry-After", "5")
		writeStatus(w, http.StatusServiceUnavailable, "hone is shutting down")
		return
	}
	auth := r.Header.Get("Authorization")
	if a.verify != nil && auth == "" {
		writeStatus(w, http.StatusUnauthorized, "no bearer token")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			writeStatus(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("an activity is at most %d bytes", MaxBody))
			return
		}
		writeStatus(w, http.StatusBadRequest, "the activity could not be read")
		return
	}
	var act activity
	if err := json.Unmarshal(body, &act); err != nil {
		writeStatus(w, http.StatusBadRequest, "the activity is not valid JSON: "+err.Error())
		return
	}
	if msg := check(&act); msg != "" {
		writeStatus(w, http.StatusBadRequest, msg)
		return
	}
	if a.verify != nil {
		if err := a.verify.verify(r.Context(), auth, act.ServiceURL); err != nil {
			a.log.WarnContext(r.Context(), "teams: request refused", "error", err, "service_url", act.ServiceURL)
			writeStatus(w, http.StatusUnauthorized, "not authenticated")
			return
		}
	}
	a.remember(r.Context(), &act)
	switch act.Type {
	case "message":
		a.message(w, r, &act)
	case "invoke":
		a.invoke(w, r, &act)
	default:
		w.WriteHeader(http.StatusOK)
	}
}

// check says what is wrong with an activity the adapter cannot act on.
func check(act *activity) string {
	switch {
	case act.Type == "":
		return "the activity has no type"
	case act.ServiceURL == "":
		return "the activity has no serviceUrl"
	}
	if u, err := url.Parse(act.ServiceURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Sprintf("the activity's serviceUrl %q is not an http(s) URL", act.ServiceURL)
	}
	if act.Type == "message" || act.Type == "invoke" {
		switch {
		case act.Conversation == nil || act.Conversation.ID == "":
			return "the activity has no conversation.id"
		case act.From == nil || act.From.ID == "":
			return "the activity has no from.id"
		case act.Recipient == nil || act.Recipient.ID == "":
			return "the activity has no recipient.id"
		}
	}
	if press, ok := alertPress(act.Value); ok && act.Type == "message" && !validReaction(press.Reaction) {
		return fmt.Sprintf("alert reaction %q is not ack, up or down", press.Reaction)
	}
	if act.Type == "invoke" {
		return checkInvoke(act)
	}
	return ""
}

// checkInvoke says what is wrong with the value of an invoke the adapter
// handles.
func checkInvoke(act *activity) string {
	switch act.Name {
	case "message/submitAction":
		var v feedbackValue
		if err := json.Unmarshal(act.Value, &v); err != nil {
			return "the submit action's value is not valid JSON"
		}
		if r := v.ActionValue.Reaction; v.ActionName == "feedback" && r != "like" && r != "dislike" {
			return fmt.Sprintf("feedback reaction %q is not like or dislike", r)
		}
	case "adaptiveCard/action":
		var v cardActionValue
		if err := json.Unmarshal(act.Value, &v); err != nil || v.Action.Data.AlertID == "" || !validReaction(v.Action.Data.Reaction) {
			return "the card action is not an alert's button (alert_id and reaction ack, up or down)"
		}
	}
	return ""
}

func writeStatus(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, msg+"\n")
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// remember keeps the conversation's reference, for alerts: in memory, and
// in the store when it is new or changed.
func (a *Adapter) remember(ctx context.Context, act *activity) {
	if act.Conversation == nil || act.Conversation.ID == "" || act.Recipient == nil {
		return
	}
	ref := reference{ServiceURL: act.ServiceURL, ConversationID: act.Conversation.ID, Bot: *act.Recipient, TenantID: act.Conversation.TenantID}
	ref.Bot.AADObjectID = ""
	if ref.TenantID == "" && len(act.ChannelData) > 0 {
		var cd channelData
		if json.Unmarshal(act.ChannelData, &cd) == nil && cd.Tenant != nil {
			ref.TenantID = cd.Tenant.ID
		}
	}
	if known, ok := a.refs.get(ref.ConversationID); ok && known == ref {
		return
	}
	a.refs.put(ref.ConversationID, ref)
	if a.cfg.Conversations == nil {
		return
	}
	err := a.cfg.Conversations.SaveReference(ctx, bots.Reference{Platform: bots.Teams, ConversationID: ref.ConversationID,
		ServiceURL: ref.ServiceURL, BotID: ref.Bot.ID, BotName: ref.Bot.Name, TenantID: ref.TenantID})
	if err != nil {
		a.log.ErrorContext(ctx, "teams: the conversation's reference was not kept", "conversation_id", ref.ConversationID, "error", err)
	}
}

// reference is the conversation's reference, from memory or the store.
func (a *Adapter) reference(ctx context.Context, conversationID string) (reference, bool, error) {
	if ref, ok := a.refs.get(conversationID); ok || a.cfg.Conversations == nil {
		return ref, ok, nil
	}
	kept, ok, err := a.cfg.Conversations.Reference(ctx, bots.Teams, conversationID)
	if err != nil || !ok {
		return reference{}, false, err
	}
	ref := reference{ServiceURL: kept.ServiceURL, ConversationID: kept.ConversationID,
		Bot: account{ID: kept.BotID, Name: kept.BotName}, TenantID: kept.TenantID}
	a.refs.put(conversationID, ref)
	return ref, true, nil
}

// keepAnswer remembers that the sent activity id holds turnID, the latest
// answer of its conversation: in memory and in the store.
func (a *Adapter) keepAnswer(ctx context.Context, conversationID, id, turnID string) {
	a.turns.put(id, turnID)
	a.lastTurn.put(conversationID, turnID)
	if a.cfg.Conversations == nil {
		return
	}
	if err := a.cfg.Conversations.SaveAnswer(ctx, bots.Teams, conversationID, id, turnID); err != nil {
		a.log.ErrorContext(ctx, "teams: the answer's turn was not kept", "conversation_id", conversationID, "turn_id", turnID, "error", err)
	}
}

// answerTurn is the turn of the answer a feedback press was under: the
// activity replyTo, or the conversation's latest answer when the client
// leaves replyTo out.
func (a *Adapter) answerTurn(ctx context.Context, conversationID, replyTo string) (string, bool, error) {
	cache, key := a.turns, replyTo
	if replyTo == "" {
		cache, key = a.lastTurn, conversationID
	}
	if id, ok := cache.get(key); ok || a.cfg.Conversations == nil {
		return id, ok, nil
	}
	var id string
	var ok bool
	var err error
	if replyTo == "" {
		id, ok, err = a.cfg.Conversations.LatestAnswer(ctx, bots.Teams, conversationID)
	} else {
		id, ok, err = a.cfg.Conversations.AnswerTurn(ctx, bots.Teams, replyTo)
	}
	if ok {
		cache.put(key, id)
	}
	return id, ok, err
}

// incoming is who sent act, where, and its text without the bot's
// @mention.
func incoming(act *activity) bots.Incoming {
	in := bots.Incoming{
		Platform:       bots.Teams,
		ConversationID: act.Conversation.ID,
		UserID:         act.From.ID,
		UserName:       act.From.Name,
		Text:           stripMention(act),
	}
	if act.From.AADObjectID != "" {
		in.UserID = act.From.AADObjectID
	}
	return in
}

// stripMention removes the bot's @mentions (<at>name</at>, as the mention
// entities for the recipient give them) from the text.
func stripMention(act *activity) string {
	text := act.Text
	for _, e := range act.Entities {
		if e.Type == "mention" && e.Mentioned != nil && e.Mentioned.ID == act.Recipient.ID && e.Text != "" {
			text = strings.ReplaceAll(text, e.Text, "")
		}
	}
	return strings.TrimSpace(text)
}

// later runs f in the background, bounded by turnTimeout and Close;
// after Close, not at all.
func (a *Adapter) later(f func(ctx context.Context)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		a.log.Warn("teams: a reply was dropped: the adapter is closed")
		return
	}
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		ctx, cancel := context.WithTimeout(a.ctx, turnTimeout)
		defer cancel()
		f(ctx)
	}()
}
