package teams

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/honehq/hone/internal/bots"
)

// failed is what a tester sees when hone could not handle a message.
const failed = "Sorry, hone could not handle that message. Please try again."

// message handles a message activity: a tester's text, or the press of an
// alert card's button (its value). The answer is posted to the
// conversation after the request is answered.
func (a *Adapter) message(w http.ResponseWriter, r *http.Request, act *activity) {
	if press, ok := alertPress(act.Value); ok {
		p := bots.AlertPress{Incoming: incoming(act), AlertID: press.AlertID, Reaction: press.Reaction}
		out, err := a.bot.React(r.Context(), p)
		if err != nil {
			a.log.ErrorContext(r.Context(), "teams: alert press not recorded", "alert_id", p.AlertID, "error", err)
			writeStatus(w, http.StatusInternalServerError, "the press was not recorded")
			return
		}
		w.WriteHeader(http.StatusOK)
		a.later(func(ctx context.Context) { a.answer(ctx, act, out) })
		return
	}
	in := incoming(act)
	w.WriteHeader(http.StatusOK)
	if in.Text == "" {
		return
	}
	a.later(func(ctx context.Context) {
		a.typing(ctx, act)
		out, err := a.bot.Message(ctx, in)
		if err != nil {
			a.log.ErrorContext(ctx, "teams: message not handled", "conversation_id", in.ConversationID, "error", err)
			out = bots.Outgoing{Text: failed}
		}
		a.answer(ctx, act, out)
	})
}

// invoke handles an invoke activity: a press of the feedback buttons
// (message/submitAction) or of an alert card's Action.Execute button
// (adaptiveCard/action). Both are recorded before the request is
// answered.
func (a *Adapter) invoke(w http.ResponseWriter, r *http.Request, act *activity) {
	switch act.Name {
	case "message/submitAction":
		a.feedback(w, r, act)
	case "adaptiveCard/action":
		var v cardActionValue
		if err := json.Unmarshal(act.Value, &v); err != nil || v.Action.Data.AlertID == "" || !validReaction(v.Action.Data.Reaction) {
			writeStatus(w, http.StatusBadRequest, "the card action is not an alert's button (alert_id and reaction ack, up or down)")
			return
		}
		p := bots.AlertPress{Incoming: incoming(act), AlertID: v.Action.Data.AlertID, Reaction: v.Action.Data.Reaction}
		out, err := a.bot.React(r.Context(), p)
		if err != nil {
			a.log.ErrorContext(r.Context(), "teams: alert press not recorded", "alert_id", p.AlertID, "error", err)
			writeStatus(w, http.StatusInternalServerError, "the press was not recorded")
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{
			"statusCode": http.StatusOK,
			"type":       "application/vnd.microsoft.activity.message",
			"value":      outgoingText(out),
		})
	default:
		writeStatus(w, http.StatusNotImplemented, fmt.Sprintf("invoke %q is not handled", act.Name))
	}
}

// feedback records a press of Teams' 👍/👎 as the rating of the answer it
// was under (replyToId; the conversation's latest answer for a client
// that leaves replyToId out, as the Agents Playground does), then answers the invoke and posts what the bot
// says (the correction question after a 👎 without text).
func (a *Adapter) feedback(w http.ResponseWriter, r *http.Request, act *activity) {
	var v feedbackValue
	if err := json.Unmarshal(act.Value, &v); err != nil {
		writeStatus(w, http.StatusBadRequest, "the submit action's value is not valid JSON")
		return
	}
	if v.ActionName != "feedback" {
		writeJSON(w, http.StatusOK, map[string]any{})
		return
	}
	var up bool
	switch v.ActionValue.Reaction {
	case "like":
		up = true
	case "dislike":
	default:
		writeStatus(w, http.StatusBadRequest, fmt.Sprintf("feedback reaction %q is not like or dislike", v.ActionValue.Reaction))
		return
	}
	turnID, ok, err := a.answerTurn(r.Context(), act.Conversation.ID, act.ReplyToID)
	if err != nil {
		a.log.ErrorContext(r.Context(), "teams: the rated answer could not be looked up", "reply_to_id", act.ReplyToID, "error", err)
		writeStatus(w, http.StatusServiceUnavailable, "the rated answer could not be looked up; try again")
		return
	}
	if !ok {
		a.log.WarnContext(r.Context(), "teams: feedback on an answer hone does not know", "reply_to_id", act.ReplyToID)
		writeJSON(w, http.StatusOK, map[string]any{})
		a.later(func(ctx context.Context) {
			a.post(ctx, act, act.ReplyToID, &activity{Type: "message", TextFormat: "markdown",
				Text: "hone does not know which answer that rating was for (it may be too old). Reply `!good` or `!bad` to rate the last answer."})
		})
		return
	}
	rating := bots.Rating{Incoming: incoming(act), TurnID: turnID, Up: up, Comment: feedbackText(v.ActionValue.Feedback)}
	rating.Text = rating.Comment
	out, err := a.bot.Rate(r.Context(), rating)
	if err != nil {
		a.log.ErrorContext(r.Context(), "teams: rating not recorded", "turn_id", turnID, "error", err)
		writeStatus(w, http.StatusInternalServerError, "the rating was not recorded")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{})
	a.later(func(ctx context.Context) { a.answer(ctx, act, out) })
}

func alertPress(raw json.RawMessage) (alertValue, bool) {
	var v alertValue
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil || v.AlertID == "" {
		return v, false
	}
	return v, true
}

func validReaction(r string) bool { return r == "ack" || r == "up" || r == "down" }
