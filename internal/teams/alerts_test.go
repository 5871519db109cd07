package teams

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	hone "github.com/honehq/hone"
	"github.com/honehq/hone/internal/bots"
)

func TestDeliverAlertAndPresses(t *testing.T) {
	conn := newFakeConnector(t)
	bot := newFakeBot()
	a := newTestAdapter(t, bot)
	h := a.Handler()

	err := a.Deliver(t.Context(), bots.Delivery{ConversationID: "a:conv-1", AlertID: "al-1", Text: "Refund answers dropped to 2.1"})
	if hone.ErrorCode(err) != hone.ENOTFOUND {
		t.Fatalf("Deliver to a conversation never heard from: %v, want not_found", err)
	}
	send(t, h, messageActivity(conn.URL, "hi"), "")
	conn.next(t)

	if err := a.Deliver(t.Context(), bots.Delivery{ConversationID: "a:conv-1", AlertID: "al-1", Text: "Refund answers dropped to 2.1"}); err != nil {
		t.Fatal(err)
	}
	p := conn.next(t)
	if p.Path != "/v3/conversations/a:conv-1/activities" {
		t.Errorf("alert posted to %s, want the conversation (proactive)", p.Path)
	}
	card := toJSON(p.Activity["attachments"])
	for _, want := range []string{`"contentType":"application/vnd.microsoft.card.adaptive"`, `Refund answers dropped to 2.1`,
		`"title":"Acknowledge"`, `"data":{"alert_id":"al-1","reaction":"ack"}`, `"title":"👍"`, `"reaction":"up"`, `"title":"👎"`, `"reaction":"down"`} {
		if !strings.Contains(card, want) {
			t.Errorf("card %s lacks %s", card, want)
		}
	}
	if from := p.Activity["from"].(map[string]any); from["id"] != "28:"+testAppID {
		t.Errorf("alert from %v", from)
	}
	if cd := toJSON(p.Activity["channelData"]); !strings.Contains(cd, `"tenant":{"id":"tenant-1"}`) {
		t.Errorf("channelData %s lacks the tenant", cd)
	}

	press := messageActivity(conn.URL, "")
	delete(press, "text")
	press["id"] = "user-act-press"
	press["value"] = map[string]any{"alert_id": "al-1", "reaction": "ack"}
	if rec := send(t, h, press, ""); rec.Code != http.StatusOK {
		t.Fatalf("press: status %d %s", rec.Code, rec.Body)
	}
	if p := conn.next(t); p.Activity["text"] != "Alert al-1: ack" {
		t.Errorf("after the press posted %v", p.Activity["text"])
	}

	inv := messageActivity(conn.URL, "")
	inv["type"] = "invoke"
	inv["name"] = "adaptiveCard/action"
	inv["value"] = map[string]any{"action": map[string]any{"type": "Action.Execute", "verb": "react", "data": map[string]any{"alert_id": "al-1", "reaction": "down"}}}
	rec := send(t, h, inv, "")
	if rec.Code != http.StatusOK {
		t.Fatalf("card action: status %d %s", rec.Code, rec.Body)
	}
	var resp map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil || resp["statusCode"] != float64(200) ||
		resp["type"] != "application/vnd.microsoft.activity.message" || resp["value"] != "Alert al-1: down" {
		t.Errorf("card action answered %s", rec.Body)
	}

	_, _, presses := bot.snapshot()
	want := []bots.AlertPress{
		{Incoming: bots.Incoming{Platform: bots.Teams, ConversationID: "a:conv-1", UserID: "aad-user-1", UserName: "Alex Wilber"}, AlertID: "al-1", Reaction: "ack"},
		{Incoming: bots.Incoming{Platform: bots.Teams, ConversationID: "a:conv-1", UserID: "aad-user-1", UserName: "Alex Wilber"}, AlertID: "al-1", Reaction: "down"},
	}
	if len(presses) != 2 || presses[0] != want[0] || presses[1] != want[1] {
		t.Errorf("presses = %+v, want %+v", presses, want)
	}
	msgs, _, _ := bot.snapshot()
	if len(msgs) != 1 {
		t.Errorf("a press reached the bot as a message: %+v", msgs)
	}
	if a.Platform() != bots.Teams {
		t.Errorf("Platform = %q", a.Platform())
	}
}

func TestDeliverConnectorDown(t *testing.T) {
	conn := newFakeConnector(t)
	a := newTestAdapter(t, newFakeBot())
	send(t, a.Handler(), messageActivity(conn.URL, "hi"), "")
	conn.next(t)
	conn.mu.Lock()
	conn.fail = []int{403}
	conn.mu.Unlock()
	err := a.Deliver(t.Context(), bots.Delivery{ConversationID: "a:conv-1", AlertID: "al-2", Text: "x"})
	if hone.ErrorCode(err) != hone.EUNAVAILABLE {
		t.Errorf("Deliver through a refusing connector: %v, want unavailable", err)
	}
}
