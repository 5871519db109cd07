package teams

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	hone "github.com/honehq/hone"
	"github.com/honehq/hone/internal/bots"
)

// acknowledged is the short acknowledgement of an Outgoing.Ack without text.
const acknowledged = "✓ Noted."

// answer posts out in the conversation of act. An answer with a turn
// carries Teams' feedback buttons and AI label, and its activity id is
// remembered so that a press of the buttons rates that turn.
func (a *Adapter) answer(ctx context.Context, act *activity, out bots.Outgoing) {
	text := outgoingText(out)
	if text == "" {
		return
	}
	reply := &activity{Type: "message", Text: text, TextFormat: "markdown"}
	if out.TurnID != "" {
		reply.ChannelData = mustJSON(channelData{FeedbackLoop: &feedbackLoop{Type: "default"}})
		reply.Entities = []entity{aiGenerated()}
	}
	target := act.ID
	if act.Type == "invoke" {
		target = act.ReplyToID
	}
	id := a.post(ctx, act, target, reply)
	if out.TurnID != "" && id != "" {
		a.keepAnswer(ctx, act.Conversation.ID, id, out.TurnID)
	}
}

// outgoingText is what Teams shows for out: its text, a file as a code
// block when small and as its download link when not, or a short
// acknowledgement.
func outgoingText(out bots.Outgoing) string {
	if f := out.File; f != nil {
		size := len(out.Text)
		if out.Text == "" {
			size = len(f.Data)
		}
		if size > maxMessageBytes {
			if f.Link == "" {
				return fmt.Sprintf("**%s** is too large for a Teams message; download it from hone's web UI.", f.Name)
			}
			return fmt.Sprintf("**%s** is too large for a Teams message: [download %s](%s)", f.Name, f.Name, f.Link)
		}
		if out.Text == "" {
			return "```\n" + strings.TrimRight(string(f.Data), "\n") + "\n```"
		}
	}
	if out.Text == "" && out.Ack {
		return acknowledged
	}
	return out.Text
}

// typing shows Teams' typing indicator in act's conversation while the
// answer is being made: one try, since a late indicator is worth nothing.
func (a *Adapter) typing(ctx context.Context, act *activity) {
	t := &activity{Type: "typing", From: act.Recipient, Recipient: act.From, Conversation: act.Conversation,
		ChannelID: act.ChannelID, ServiceURL: act.ServiceURL}
	body, err := json.Marshal(t)
	if err != nil {
		return
	}
	if _, _, err := a.conn.postOnce(ctx, endpoint(act.ServiceURL, "v3/conversations", act.Conversation.ID, "activities"), body); err != nil {
		a.log.DebugContext(ctx, "teams: typing indicator not sent", "conversation_id", act.Conversation.ID, "error", err)
	}
}

// post sends reply into act's conversation, as an answer to the activity
// replyTo when there is one, and returns the id the connector gave it
// ("" when it failed, which is logged).
func (a *Adapter) post(ctx context.Context, act *activity, replyTo string, reply *activity) string {
	reply.From = act.Recipient
	reply.Recipient = act.From
	reply.Conversation = act.Conversation
	reply.ChannelID = act.ChannelID
	reply.ServiceURL = act.ServiceURL
	reply.ReplyToID = replyTo
	var id string
	var err error
	if replyTo != "" {
		id, err = a.conn.reply(ctx, act.ServiceURL, act.Conversation.ID, replyTo, reply)
	} else {
		id, err = a.conn.send(ctx, act.ServiceURL, act.Conversation.ID, reply)
	}
	if err != nil {
		a.log.ErrorContext(ctx, "teams: reply not sent", "conversation_id", act.Conversation.ID, "error", err)
		return ""
	}
	return id
}

// Deliver posts an alert into a Teams conversation hone has heard from,
// as an Adaptive Card with Acknowledge, 👍 and 👎 buttons.
func (a *Adapter) Deliver(ctx context.Context, d bots.Delivery) error {
	ref, ok, err := a.reference(ctx, d.ConversationID)
	if err != nil {
		return hone.Errorf(hone.EUNAVAILABLE, "the reference of Teams conversation %q could not be read: %v", d.ConversationID, err)
	}
	if !ok {
		return hone.Errorf(hone.ENOTFOUND, "Teams conversation %q is not known: the bot has never heard from it", d.ConversationID)
	}
	bot := ref.Bot
	card := &activity{
		Type:         "message",
		From:         &bot,
		Conversation: &conversation{ID: ref.ConversationID, TenantID: ref.TenantID},
		ServiceURL:   ref.ServiceURL,
		Attachments:  []attachment{{ContentType: "application/vnd.microsoft.card.adaptive", Content: alertCard(d)}},
	}
	if ref.TenantID != "" {
		card.ChannelData = mustJSON(channelData{Tenant: &tenant{ID: ref.TenantID}})
	}
	if _, err := a.conn.send(ctx, ref.ServiceURL, ref.ConversationID, card); err != nil {
		return hone.Errorf(hone.EUNAVAILABLE, "the alert could not be posted to Teams: %v", err)
	}
	return nil
}

// alertCard is the Adaptive Card of an alert: its text and the buttons
// whose press comes back as a message with value {alert_id, reaction}.
func alertCard(d bots.Delivery) map[string]any {
	button := func(title, reaction string) map[string]any {
		return map[string]any{"type": "Action.Submit", "title": title, "data": alertValue{AlertID: d.AlertID, Reaction: reaction}}
	}
	return map[string]any{
		"type":    "AdaptiveCard",
		"$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
		"version": "1.4",
		"body": []any{
			map[string]any{"type": "TextBlock", "text": "hone alert", "weight": "Bolder"},
			map[string]any{"type": "TextBlock", "text": d.Text, "wrap": true},
		},
		"actions": []any{button("Acknowledge", "ack"), button("👍", "up"), button("👎", "down")},
	}
}
