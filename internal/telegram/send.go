package telegram

import (
	"context"
	"strconv"
	"strings"
	"unicode/utf8"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/honehq/hone/internal/bots"
)

// AckReaction is the reaction an acknowledged command (!improve, !good)
// gets on the tester's message; AckText is the reply sent instead when the
// reaction cannot be set (an older Bot API server, a chat without
// reactions).
const (
	AckReaction = "👌"
	AckText     = "✅ Noted."
)

// reply sends the bot's answer to a message: a document when it carries a
// file that its text does not hold whole in one message (!print's CSV
// larger than a message), else the text (in parts when longer), with 👍/👎
// under a recorded answer.
func (a *Adapter) reply(ctx context.Context, chatID int64, replyTo int, out bots.Outgoing) {
	switch {
	case out.File != nil && (utf8.RuneCountInString(out.Text) > MaxMessage || !strings.Contains(out.Text, string(out.File.Data))):
		doc := tgbotapi.NewDocument(chatID, tgbotapi.FileBytes{Name: out.File.Name, Bytes: out.File.Data})
		doc.Caption = out.File.Name
		if out.File.Link != "" {
			doc.Caption += "\n" + out.File.Link
		}
		doc.Caption = clip(doc.Caption, 1024)
		doc.ReplyToMessageID = replyTo
		_ = a.request(ctx, "send a file (sendDocument)", doc)
	case out.Text == "" && out.Ack:
		if replyTo == 0 || a.react(ctx, chatID, replyTo) != nil {
			a.send(ctx, chatID, replyTo, AckText, nil)
		}
	case out.Text != "":
		var markup any
		if out.TurnID != "" && len(rateDown)+len(out.TurnID) <= 64 {
			markup = rateKeyboard(out.TurnID, "")
		}
		a.send(ctx, chatID, replyTo, out.Text, markup)
	}
}

// react sets AckReaction on a message (setMessageReaction), retried as
// request is.
func (a *Adapter) react(ctx context.Context, chatID int64, messageID int) error {
	params := tgbotapi.Params{}
	params.AddNonZero64("chat_id", chatID)
	params.AddNonZero("message_id", messageID)
	if err := params.AddInterface("reaction", []map[string]string{{"type": "emoji", "emoji": AckReaction}}); err != nil {
		return err
	}
	return a.retry(ctx, "react to a message (setMessageReaction)", a.opts.Attempts, func(ctx context.Context) error {
		_, err := a.with(ctx).MakeRequest("setMessageReaction", params)
		return err
	})
}

// send sends text, cut into messages Telegram takes, the markup under the
// last.
func (a *Adapter) send(ctx context.Context, chatID int64, replyTo int, text string, markup any) {
	parts := split(text, MaxMessage)
	for i, p := range parts {
		m := tgbotapi.NewMessage(chatID, p)
		m.DisableWebPagePreview = true
		if i == 0 {
			m.ReplyToMessageID = replyTo
			m.AllowSendingWithoutReply = true
		}
		if i == len(parts)-1 && markup != nil {
			m.ReplyMarkup = markup
		}
		if a.request(ctx, "send a reply (sendMessage)", m) != nil {
			return
		}
	}
}

// split cuts s into parts of at most n characters, at a line end when one
// is near.
func split(s string, n int) []string {
	var out []string
	for utf8.RuneCountInString(s) > n {
		r := []rune(s)
		cut := n
		for i := n - 1; i > n/2; i-- {
			if r[i] == '\n' {
				cut = i + 1
				break
			}
		}
		out = append(out, string(r[:cut]))
		s = string(r[cut:])
	}
	return append(out, s)
}

// rateKeyboard is 👍/👎 under an answer, the chosen one ("up", "down")
// marked.
func rateKeyboard(turnID, chosen string) tgbotapi.InlineKeyboardMarkup {
	up, down := "👍", "👎"
	switch chosen {
	case "up":
		up = "✅ 👍"
	case "down":
		down = "✅ 👎"
	}
	return tgbotapi.NewInlineKeyboardMarkup(tgbotapi.NewInlineKeyboardRow(
		tgbotapi.NewInlineKeyboardButtonData(up, rateUp+turnID),
		tgbotapi.NewInlineKeyboardButtonData(down, rateDown+turnID)))
}

// alertKeyboard is Acknowledge, 👍 and 👎 under an alert, the chosen
// reaction marked.
func alertKeyboard(alertID, chosen string) tgbotapi.InlineKeyboardMarkup {
	label := func(reaction, text string) tgbotapi.InlineKeyboardButton {
		if reaction == chosen {
			text = "✅ " + text
		}
		return tgbotapi.NewInlineKeyboardButtonData(text, alertTag+reaction+":"+alertID)
	}
	return tgbotapi.NewInlineKeyboardMarkup(tgbotapi.NewInlineKeyboardRow(
		label("ack", "Acknowledge"), label("up", "👍"), label("down", "👎")))
}

// Deliver sends an alert into its chat with Acknowledge, 👍 and 👎,
// retried while Telegram is down or rate-limits.
func (a *Adapter) Deliver(ctx context.Context, d bots.Delivery) error {
	chatID, err := strconv.ParseInt(d.ConversationID, 10, 64)
	if err != nil {
		return err
	}
	m := tgbotapi.NewMessage(chatID, clip(d.Text, MaxMessage))
	m.ReplyMarkup = alertKeyboard(d.AlertID, "")
	return a.request(ctx, "deliver an alert (sendMessage)", m)
}
