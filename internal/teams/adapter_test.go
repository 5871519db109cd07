package teams

import (
	"net/http"
	"strings"
	"testing"

	"github.com/honehq/hone/internal/bots"
)

func TestMessageAnsweredWithFeedbackLoop(t *testing.T) {
	conn := newFakeConnector(t)
	bot := newFakeBot()
	h := newTestAdapter(t, bot).Handler()

	rec := send(t, h, messageActivity(conn.URL, "  what is our refund policy?\n"), "")
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	p := conn.next(t)
	if p.Path != "/v3/conversations/a:conv-1/activities/user-act-1" {
		t.Errorf("reply posted to %s, want the reply to the tester's activity", p.Path)
	}
	if p.Auth != "" {
		t.Errorf("NoAuth reply sent with Authorization %q", p.Auth)
	}
	a := p.Activity
	if a["type"] != "message" || a["text"] != "echo: what is our refund policy?" || a["textFormat"] != "markdown" || a["replyToId"] != "user-act-1" {
		t.Errorf("reply = %v", a)
	}
	if from := a["from"].(map[string]any); from["id"] != "28:"+testAppID {
		t.Errorf("reply from %v, want the bot", from)
	}
	cd, _ := a["channelData"].(map[string]any)
	if fl, _ := cd["feedbackLoop"].(map[string]any); fl["type"] != "default" {
		t.Errorf("channelData = %v, want feedbackLoop.type default", cd)
	}
	if _, both := cd["feedbackLoopEnabled"]; both {
		t.Errorf("channelData sets feedbackLoopEnabled beside feedbackLoop, which Teams refuses")
	}
	ents, _ := a["entities"].([]any)
	if len(ents) != 1 || !strings.Contains(toJSON(ents[0]), `"additionalType":["AIGeneratedContent"]`) {
		t.Errorf("entities = %v, want the AI-generated label", ents)
	}
	conn.mu.Lock()
	typing := conn.typing
	conn.mu.Unlock()
	if typing != 1 {
		t.Errorf("%d typing indicators, want 1 before the answer", typing)
	}
	msgs, _, _ := bot.snapshot()
	want := bots.Incoming{Platform: bots.Teams, ConversationID: "a:conv-1", UserID: "aad-user-1", UserName: "Alex Wilber", Text: "what is our refund policy?"}
	if len(msgs) != 1 || msgs[0] != want {
		t.Errorf("bot got %+v, want %+v", msgs, want)
	}
}

func TestMessageIdentityAndMention(t *testing.T) {
	tests := []struct {
		name     string
		edit     func(a map[string]any)
		wantUser string
		wantText string
	}{
		{"personal chat", func(a map[string]any) {}, "aad-user-1", "hello"},
		{"no aad object id", func(a map[string]any) {
			a["from"] = map[string]any{"id": "29:user-1", "name": "Alex"}
		}, "29:user-1", "hello"},
		{"channel mention stripped", func(a map[string]any) {
			a["text"] = "<at>hone</at> !improve be brief"
			a["conversation"] = map[string]any{"id": "19:channel@thread.tacv2;messageid=1", "conversationType": "channel", "isGroup": true}
			a["entities"] = []any{map[string]any{"type": "mention", "text": "<at>hone</at>",
				"mentioned": map[string]any{"id": "28:" + testAppID, "name": "hone"}}}
		}, "aad-user-1", "!improve be brief"},
		{"another user's mention kept", func(a map[string]any) {
			a["text"] = "<at>hone</at> ask <at>Megan</at>"
			a["entities"] = []any{
				map[string]any{"type": "mention", "text": "<at>hone</at>", "mentioned": map[string]any{"id": "28:" + testAppID}},
				map[string]any{"type": "mention", "text": "<at>Megan</at>", "mentioned": map[string]any{"id": "29:megan"}},
			}
		}, "aad-user-1", "ask <at>Megan</at>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conn := newFakeConnector(t)
			bot := newFakeBot()
			h := newTestAdapter(t, bot).Handler()
			act := messageActivity(conn.URL, "hello")
			tt.edit(act)
			if rec := send(t, h, act, ""); rec.Code != http.StatusOK {
				t.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
			conn.next(t)
			msgs, _, _ := bot.snapshot()
			if len(msgs) != 1 || msgs[0].UserID != tt.wantUser || msgs[0].Text != tt.wantText {
				t.Errorf("bot got %+v, want user %q text %q", msgs, tt.wantUser, tt.wantText)
			}
		})
	}
}

func TestFeedbackRatesTheAnswer(t *testing.T) {
	for _, tt := range []struct {
		reaction, text string
		up             bool
	}{
		{"like", "", true},
		{"dislike", "It should cite the policy page.", false},
	} {
		t.Run(tt.reaction, func(t *testing.T) {
			conn := newFakeConnector(t)
			bot := newFakeBot()
			bot.rateOut = bots.Outgoing{Text: "Thanks: noted."}
			a := newTestAdapter(t, bot)
			h := a.Handler()
			send(t, h, messageActivity(conn.URL, "first"), "")
			answered(t, a, conn)
			second := messageActivity(conn.URL, "second")
			second["id"] = "user-act-2"
			send(t, h, second, "")
			answered(t, a, conn) // bot-act-2 carries turn-2

			rec := send(t, h, feedbackInvoke(conn.URL, "bot-act-1", tt.reaction, tt.text), "")
			if rec.Code != http.StatusOK {
				t.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
			if got := readAll(t, rec.Body); got != "{}" {
				t.Errorf("invoke answered %q, want {}", got)
			}
			_, ratings, _ := bot.snapshot()
			if len(ratings) != 1 {
				t.Fatalf("ratings = %+v", ratings)
			}
			r := ratings[0]
			if r.TurnID != "turn-1" || r.Up != tt.up || r.Comment != tt.text || r.UserID != "aad-user-1" || r.ConversationID != "a:conv-1" || r.Platform != bots.Teams {
				t.Errorf("rating = %+v, want turn-1 up=%v comment %q", r, tt.up, tt.text)
			}
			p := conn.next(t)
			if p.Activity["text"] != "Thanks: noted." || p.Activity["replyToId"] != "bot-act-1" {
				t.Errorf("after the rating posted %v", p.Activity)
			}
			if _, ok := p.Activity["channelData"]; ok {
				t.Errorf("a reply without a turn carries the feedback loop: %v", p.Activity)
			}
		})
	}
}

func TestFeedbackShapes(t *testing.T) {
	tests := []struct {
		name     string
		feedback any
		want     string
	}{
		{"JSON string", `{"feedbackText":"too long"}`, "too long"},
		{"object", map[string]any{"feedbackText": "too short"}, "too short"},
		{"plain text", "wrong answer", "wrong answer"},
		{"empty JSON string", `{"feedbackText":""}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conn := newFakeConnector(t)
			bot := newFakeBot()
			a := newTestAdapter(t, bot)
			h := a.Handler()
			send(t, h, messageActivity(conn.URL, "q"), "")
			answered(t, a, conn)
			inv := feedbackInvoke(conn.URL, "bot-act-1", "dislike", "")
			inv["value"].(map[string]any)["actionValue"].(map[string]any)["feedback"] = tt.feedback
			if rec := send(t, h, inv, ""); rec.Code != http.StatusOK {
				t.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
			_, ratings, _ := bot.snapshot()
			if len(ratings) != 1 || ratings[0].Comment != tt.want || ratings[0].Up {
				t.Errorf("ratings = %+v, want a 👎 with comment %q", ratings, tt.want)
			}
		})
	}
}

func TestFeedbackWithoutReplyToIDRatesTheLatestAnswer(t *testing.T) {
	conn := newFakeConnector(t)
	bot := newFakeBot()
	a := newTestAdapter(t, bot)
	h := a.Handler()
	inv := feedbackInvoke(conn.URL, "", "like", "")
	send(t, h, inv, "")
	if p := conn.next(t); !strings.Contains(p.Activity["text"].(string), "!good") {
		t.Errorf("feedback before any answer told %v", p.Activity["text"])
	}
	send(t, h, messageActivity(conn.URL, "one"), "")
	answered(t, a, conn)
	second := messageActivity(conn.URL, "two")
	second["id"] = "user-act-2"
	send(t, h, second, "")
	answered(t, a, conn)
	if rec := send(t, h, inv, ""); rec.Code != http.StatusOK {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	_, ratings, _ := bot.snapshot()
	if len(ratings) != 1 || ratings[0].TurnID != "turn-2" || !ratings[0].Up {
		t.Errorf("ratings = %+v, want 👍 on the latest answer, turn-2", ratings)
	}
}

func TestFeedbackRefused(t *testing.T) {
	conn := newFakeConnector(t)
	bot := newFakeBot()
	a := newTestAdapter(t, bot)
	h := a.Handler()
	send(t, h, messageActivity(conn.URL, "q"), "")
	answered(t, a, conn)

	bad := feedbackInvoke(conn.URL, "bot-act-1", "love", "")
	if rec := send(t, h, bad, ""); rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), `"love"`) {
		t.Errorf("unknown reaction: status %d %s, want 400 naming it", rec.Code, rec.Body)
	}
	unknown := feedbackInvoke(conn.URL, "bot-act-99", "like", "")
	if rec := send(t, h, unknown, ""); rec.Code != http.StatusOK {
		t.Errorf("feedback on an unknown answer: status %d", rec.Code)
	}
	if p := conn.next(t); !strings.Contains(p.Activity["text"].(string), "!good") {
		t.Errorf("feedback on an unknown answer told %v", p.Activity["text"])
	}
	bot.mu.Lock()
	bot.fail = true
	bot.mu.Unlock()
	if rec := send(t, h, feedbackInvoke(conn.URL, "bot-act-1", "like", ""), ""); rec.Code != http.StatusInternalServerError {
		t.Errorf("rating not recorded: status %d, want 500 so Teams shows the failure", rec.Code)
	}
	_, ratings, _ := bot.snapshot()
	if len(ratings) != 0 {
		t.Errorf("ratings = %+v, want none", ratings)
	}
	conn.none(t)
}

func TestOutgoingShapes(t *testing.T) {
	big := strings.Repeat("turn_id,score\n", 3000)
	tests := []struct {
		name     string
		out      bots.Outgoing
		want     string
		feedback bool
	}{
		{"answer", bots.Outgoing{Text: "**yes**", TurnID: "t1"}, "**yes**", true},
		{"command reply", bots.Outgoing{Text: "Score: 4.2"}, "Score: 4.2", false},
		{"ack alone", bots.Outgoing{Ack: true}, acknowledged, false},
		{"ack with text", bots.Outgoing{Ack: true, Text: "Noted as 👍"}, "Noted as 👍", false},
		{"small file with text", bots.Outgoing{Text: "```\na,b\n```", File: &bots.File{Name: "s.csv", Data: []byte("a,b\n"), Link: "https://hone.example.com/f"}}, "```\na,b\n```", false},
		{"small file without text", bots.Outgoing{File: &bots.File{Name: "s.csv", Data: []byte("a,b\n")}}, "```\na,b\n```", false},
		{"large file", bots.Outgoing{Text: big, File: &bots.File{Name: "session.csv", Data: []byte(big), Link: "https://hone.example.com/dl/x?sig=1"}},
			"**session.csv** is too large for a Teams message: [download session.csv](https://hone.example.com/dl/x?sig=1)", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conn := newFakeConnector(t)
			bot := newFakeBot()
			bot.reply = func(bots.Incoming) bots.Outgoing { return tt.out }
			h := newTestAdapter(t, bot).Handler()
			send(t, h, messageActivity(conn.URL, "!print"), "")
			p := conn.next(t)
			if p.Activity["text"] != tt.want {
				t.Errorf("text = %.200q, want %.200q", p.Activity["text"], tt.want)
			}
			_, has := p.Activity["channelData"]
			if has != tt.feedback {
				t.Errorf("feedback loop on = %v, want %v", has, tt.feedback)
			}
		})
	}
	t.Run("refused in silence", func(t *testing.T) {
		conn := newFakeConnector(t)
		bot := newFakeBot()
		bot.reply = func(bots.Incoming) bots.Outgoing { return bots.Outgoing{Refused: true} }
		h := newTestAdapter(t, bot).Handler()
		send(t, h, messageActivity(conn.URL, "hi"), "")
		<-bot.seen
		conn.none(t)
	})
	t.Run("bot failure", func(t *testing.T) {
		conn := newFakeConnector(t)
		bot := newFakeBot()
		bot.fail = true
		h := newTestAdapter(t, bot).Handler()
		send(t, h, messageActivity(conn.URL, "hi"), "")
		if p := conn.next(t); p.Activity["text"] != failed {
			t.Errorf("text = %v", p.Activity["text"])
		}
	})
}

func TestBadRequestsChangeNothing(t *testing.T) {
	conn := newFakeConnector(t)
	bot := newFakeBot()
	a := newTestAdapter(t, bot)
	h := a.Handler()
	noConv := messageActivity(conn.URL, "hi")
	delete(noConv, "conversation")
	badURL := messageActivity("ftp://files.example.com", "hi")
	noType := messageActivity(conn.URL, "hi")
	delete(noType, "type")
	badAlert := messageActivity(conn.URL, "")
	badAlert["value"] = map[string]any{"alert_id": "al-1", "reaction": "meh"}
	badFeedback := feedbackInvoke(conn.URL, "bot-act-1", "love", "")
	badFeedbackValue := feedbackInvoke(conn.URL, "bot-act-1", "like", "")
	badFeedbackValue["value"] = "like"
	badCard := messageActivity(conn.URL, "")
	badCard["type"], badCard["name"] = "invoke", "adaptiveCard/action"
	badCard["value"] = map[string]any{"action": map[string]any{"data": map[string]any{"alert_id": "al-1"}}}
	tests := []struct {
		name string
		body any
		want int
	}{
		{"not JSON", "{not json", http.StatusBadRequest},
		{"too large", append(append([]byte(`{"type":"message","text":"`), make([]byte, MaxBody)...), `"}`...), http.StatusRequestEntityTooLarge},
		{"no type", noType, http.StatusBadRequest},
		{"no conversation", noConv, http.StatusBadRequest},
		{"service URL not http", badURL, http.StatusBadRequest},
		{"alert reaction unknown", badAlert, http.StatusBadRequest},
		{"feedback reaction unknown", badFeedback, http.StatusBadRequest},
		{"feedback value not an object", badFeedbackValue, http.StatusBadRequest},
		{"card action without reaction", badCard, http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if rec := send(t, h, tt.body, ""); rec.Code != tt.want {
				t.Errorf("status %d, want %d: %s", rec.Code, tt.want, rec.Body)
			}
		})
	}
	if n := a.refs.len(); n != 0 {
		t.Errorf("%d conversations remembered from bad requests", n)
	}
	msgs, ratings, presses := bot.snapshot()
	if len(msgs)+len(ratings)+len(presses) != 0 {
		t.Errorf("the bot was handed %v %v %v", msgs, ratings, presses)
	}
	conn.none(t)

	get := httptestGet(t, h)
	if get != http.StatusMethodNotAllowed {
		t.Errorf("GET: status %d, want 405", get)
	}
}

func TestOtherActivitiesIgnored(t *testing.T) {
	conn := newFakeConnector(t)
	bot := newFakeBot()
	a := newTestAdapter(t, bot)
	up := messageActivity(conn.URL, "")
	up["type"] = "conversationUpdate"
	up["membersAdded"] = []any{map[string]any{"id": "28:" + testAppID}}
	if rec := send(t, a.Handler(), up, ""); rec.Code != http.StatusOK || rec.Body.Len() != 0 {
		t.Errorf("conversationUpdate: status %d body %q, want 200 and nothing", rec.Code, rec.Body)
	}
	inv := messageActivity(conn.URL, "")
	inv["type"] = "invoke"
	inv["name"] = "composeExtension/query"
	if rec := send(t, a.Handler(), inv, ""); rec.Code != http.StatusNotImplemented {
		t.Errorf("unknown invoke: status %d, want 501", rec.Code)
	}
	msgs, _, _ := bot.snapshot()
	if len(msgs) != 0 {
		t.Errorf("the bot got %v", msgs)
	}
	if a.refs.len() != 1 {
		t.Errorf("the conversation was not remembered for alerts")
	}
	conn.none(t)
}

func TestClosedAdapterSendsNothing(t *testing.T) {
	conn := newFakeConnector(t)
	bot := newFakeBot()
	a := newTestAdapter(t, bot)
	if err := a.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	if rec := send(t, a.Handler(), messageActivity(conn.URL, "hi"), ""); rec.Code != http.StatusServiceUnavailable {
		t.Fatalf("status %d, want 503 so that the Bot Connector sends it again", rec.Code)
	}
	conn.none(t)
	if msgs, _, _ := bot.snapshot(); len(msgs) != 0 {
		t.Errorf("a closed adapter handed on %v", msgs)
	}
}
