package telegram

import (
	"context"
	"strconv"
	"strings"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/honehq/hone/internal/bots"
)

// poll reads updates with getUpdates until ctx ends, from the next update
// kept, surviving failures with backoff.
func (a *Adapter) poll(ctx context.Context) {
	for ctx.Err() == nil {
		var updates []tgbotapi.Update
		err := a.retry(ctx, "read updates (getUpdates)", 0, func(ctx context.Context) error {
			var err error
			updates, err = a.with(ctx).GetUpdates(tgbotapi.UpdateConfig{Offset: int(a.nextUpdate()),
				Timeout: int(a.opts.PollTimeout / time.Second), AllowedUpdates: allowedUpdates})
			return err
		})
		if err != nil {
			return
		}
		for _, u := range updates {
			a.process(ctx, u)
		}
	}
}

func (a *Adapter) nextUpdate() int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.next
}

// process handles one update once: an update before the next one kept was
// handled already. What it means is recorded first, then the next update
// kept, and only then is the answer sent, so that a restart neither loses
// a judgment nor handles an update twice.
func (a *Adapter) process(ctx context.Context, u tgbotapi.Update) {
	a.mu.Lock()
	if int64(u.UpdateID) < a.next {
		a.mu.Unlock()
		return
	}
	a.mu.Unlock()
	var send func(context.Context)
	var chat int64
	switch {
	case u.Message != nil:
		send = a.message(ctx, u.Message)
		if u.Message.Chat != nil {
			chat = u.Message.Chat.ID
		}
	case u.CallbackQuery != nil:
		send = a.callback(ctx, u.CallbackQuery)
		if m := u.CallbackQuery.Message; m != nil && m.Chat != nil {
			chat = m.Chat.ID
		}
	}
	next := int64(u.UpdateID) + 1
	if err := a.retry(ctx, "keep the next update", a.opts.Attempts, func(ctx context.Context) error {
		return a.opts.Offsets.SaveNextUpdate(ctx, a.key, next)
	}); err != nil {
		return
	}
	a.mu.Lock()
	a.next = max(a.next, next)
	a.mu.Unlock()
	if send != nil {
		a.enqueue(chat, send)
	}
}

// SendTimeout bounds the sending of one answer, retries included.
const SendTimeout = 2 * time.Minute

// enqueue sends an answer after those of its chat still under way, beside
// other chats' answers, while the next updates are read: one slow chat or a
// rate limit holds up only its own chat. Sending goes on after Stop began,
// for at most SendTimeout.
func (a *Adapter) enqueue(chat int64, send func(context.Context)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	q, running := a.outbox[chat]
	a.outbox[chat] = append(q, send)
	if running {
		return
	}
	a.sends.Add(1)
	go func() {
		defer a.sends.Done()
		for {
			a.mu.Lock()
			q := a.outbox[chat]
			if len(q) == 0 {
				delete(a.outbox, chat)
				a.mu.Unlock()
				return
			}
			send := q[0]
			a.outbox[chat] = q[1:]
			a.mu.Unlock()
			ctx, cancel := context.WithTimeout(context.Background(), SendTimeout)
			send(ctx)
			cancel()
		}
	}()
}

// incoming is who sent a message in which chat.
func incoming(chat *tgbotapi.Chat, from *tgbotapi.User) bots.Incoming {
	in := bots.Incoming{Platform: bots.Telegram}
	if chat != nil {
		in.ConversationID = strconv.FormatInt(chat.ID, 10)
	}
	if from != nil {
		in.UserID = strconv.FormatInt(from.ID, 10)
		in.UserName = strings.TrimSpace(from.FirstName + " " + from.LastName)
		in.Handle = from.UserName
	}
	return in
}

// message hands a text message to the bot and returns how to send its
// answer.
func (a *Adapter) message(ctx context.Context, m *tgbotapi.Message) func(context.Context) {
	if m.From == nil || m.From.IsBot || m.Chat == nil || strings.TrimSpace(m.Text) == "" {
		return nil
	}
	in := incoming(m.Chat, m.From)
	in.Text = a.commandText(m.Text)
	out, err := a.opts.Bot.Message(ctx, in)
	if err != nil {
		a.log.Error("telegram: a message could not be handled", "conversation_id", in.ConversationID, "err", err)
		out = bots.Outgoing{Text: "⚠️ " + "hone could not handle this message. Please try again."}
	}
	return func(ctx context.Context) { a.reply(ctx, m.Chat.ID, m.MessageID, out) }
}

// commandText reads "/improve@hone_bot note" as "!improve note", and
// /start as !help; any other text is kept.
func (a *Adapter) commandText(text string) string {
	if !strings.HasPrefix(text, "/") || len(text) < 2 {
		return text
	}
	head, rest, _ := strings.Cut(text[1:], " ")
	if i := strings.IndexAny(head, "\n\t"); i >= 0 {
		head, rest = head[:i], head[i+1:]+" "+rest
	}
	name, bot, addressed := strings.Cut(head, "@")
	if addressed && !strings.EqualFold(bot, a.name()) {
		return text
	}
	if name == "start" {
		name = "help"
	}
	if hone, ok := a.commands[strings.ToLower(name)]; ok {
		name = hone
	}
	return strings.TrimSpace("!" + name + " " + strings.TrimSpace(rest))
}

// Callback data: "r:u:<turn>" and "r:d:<turn>" rate an answer,
// "a:<reaction>:<alert>" reacts to an alert.
const (
	rateUp   = "r:u:"
	rateDown = "r:d:"
	alertTag = "a:"
)

// callback handles a press of an inline button: the judgment is recorded
// first; the returned function answers the query, shows the choice on the
// keyboard and sends any reply.
func (a *Adapter) callback(ctx context.Context, q *tgbotapi.CallbackQuery) func(context.Context) {
	if q.From == nil || q.Message == nil || q.Message.Chat == nil {
		return func(ctx context.Context) { a.answer(ctx, q.ID, "") }
	}
	in := incoming(q.Message.Chat, q.From)
	var out bots.Outgoing
	var err error
	var keyboard *tgbotapi.InlineKeyboardMarkup
	switch {
	case strings.HasPrefix(q.Data, rateUp), strings.HasPrefix(q.Data, rateDown):
		up := strings.HasPrefix(q.Data, rateUp)
		turn := q.Data[len(rateUp):]
		out, err = a.opts.Bot.Rate(ctx, bots.Rating{Incoming: in, TurnID: turn, Up: up})
		k := rateKeyboard(turn, map[bool]string{true: "up", false: "down"}[up])
		keyboard = &k
	case strings.HasPrefix(q.Data, alertTag):
		reaction, alert, _ := strings.Cut(q.Data[len(alertTag):], ":")
		out, err = a.opts.Bot.React(ctx, bots.AlertPress{Incoming: in, AlertID: alert, Reaction: reaction})
		k := alertKeyboard(alert, reaction)
		keyboard = &k
	default:
		return func(ctx context.Context) { a.answer(ctx, q.ID, "") }
	}
	if err != nil {
		a.log.Error("telegram: a button press could not be recorded", "conversation_id", in.ConversationID, "err", err)
		keyboard = nil
	}
	if out.Refused {
		keyboard = nil
	}
	chatID, msgID := q.Message.Chat.ID, q.Message.MessageID
	return func(ctx context.Context) {
		note := ""
		if out.Ack {
			note = "Noted, thank you."
		}
		a.answer(ctx, q.ID, note)
		if keyboard != nil {
			_ = a.request(ctx, "show the choice (editMessageReplyMarkup)", tgbotapi.NewEditMessageReplyMarkup(chatID, msgID, *keyboard))
		}
		if out.Text != "" {
			a.send(ctx, chatID, 0, out.Text, nil)
		}
	}
}

// answer answers a callback query so that its button stops spinning.
func (a *Adapter) answer(ctx context.Context, id, text string) {
	_ = a.request(ctx, "answer a button press (answerCallbackQuery)", tgbotapi.NewCallback(id, text))
}
