package app_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/honehq/hone/internal/config"
	"github.com/honehq/hone/internal/llm/llmtest"
)

// fakeConnector is the Bot Connector of a Teams conversation: it keeps
// every activity hone posts and answers each with an id.
type fakeConnector struct {
	*httptest.Server
	mu    sync.Mutex
	posts []map[string]any
	paths []string
	got   chan struct{}
	// read counts the posts message has returned or skipped.
	read int
}

func newFakeConnector(t *testing.T) *fakeConnector {
	f := &fakeConnector{got: make(chan struct{}, 1000)}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var a map[string]any
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &a); err != nil {
			http.Error(w, "bad JSON", http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		f.posts = append(f.posts, a)
		f.paths = append(f.paths, r.URL.Path)
		n := len(f.posts)
		f.mu.Unlock()
		f.got <- struct{}{}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"reply-%d"}`, n)
	}))
	t.Cleanup(f.Close)
	return f
}

// message waits for the next posted message activity, in the order they
// were posted (typing indicators skipped), and returns it with its id as
// the connector gave it.
func (f *fakeConnector) message(t *testing.T) (map[string]any, string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		f.mu.Lock()
		for f.read < len(f.posts) {
			a := f.posts[f.read]
			f.read++
			if a["type"] == "message" {
				n := f.read
				f.mu.Unlock()
				return a, fmt.Sprintf("reply-%d", n)
			}
		}
		f.mu.Unlock()
		select {
		case <-f.got:
		case <-deadline:
			t.Fatal("no message posted to the connector within 10s")
		}
	}
}

// teamsActivity is a message activity as Teams sends it to the bot.
func teamsActivity(serviceURL, id, user, text string) string {
	b, _ := json.Marshal(map[string]any{"type": "message", "id": id, "channelId": "msteams", "serviceUrl": serviceURL,
		"from":         map[string]any{"id": "29:" + user, "aadObjectId": user, "name": "Meg " + user},
		"recipient":    map[string]any{"id": "28:hone", "name": "hone"},
		"conversation": map[string]any{"id": "a:conv-" + user, "conversationType": "personal"}, "text": text,
		"entities": []any{map[string]any{"type": "mention", "text": "<at>hone</at>",
			"mentioned": map[string]any{"id": "28:hone", "name": "hone"}}}})
	return string(b)
}

// A tuning session in Teams through the real app: an answer with Teams'
// feedback loop recorded as a turn, a command, a 👎 with its text from the
// feedback form kept as the rating and the correction, an alert delivered
// as a card and acknowledged, and a stranger refused with nothing
// recorded.
func TestTuningSessionOnTeams(t *testing.T) {
	conn := newFakeConnector(t)
	fake := llmtest.New(t)
	fake.SetHandler(llmtest.Echo)
	prompt := filepath.Join(t.TempDir(), "PROMPT.md")
	if err := os.WriteFile(prompt, []byte("You are ERA, an HR assistant."), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HONE_TEAMS_NO_AUTH", "1")
	t.Setenv("HONE_CHAT_ALLOW", "meg")
	a := startWith(t, config.Config{LLM: fake.Config(), Prompts: []string{prompt}, DataDir: t.TempDir(), Addr: "127.0.0.1:0"})
	api := a.URL() + "/api/v1"
	post := func(body string) {
		t.Helper()
		resp, err := http.Post(a.URL()+"/api/messages", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusAccepted {
			t.Fatalf("POST /api/messages = %d", resp.StatusCode)
		}
	}

	post(teamsActivity(conn.URL, "m1", "meg", "<at>hone</at> What is the notice period?"))
	reply, replyID := conn.message(t)
	if !strings.Contains(fmt.Sprint(reply["text"]), "What is the notice period?") {
		t.Fatalf("the answer: %v", reply["text"])
	}
	if cd, _ := reply["channelData"].(map[string]any); cd["feedbackLoop"] == nil {
		t.Fatalf("the answer has no feedback loop: %v", reply["channelData"])
	}
	var turns struct {
		Sessions []struct {
			ID         string `json:"id"`
			TesterID   string `json:"tester_id"`
			TesterName string `json:"tester_name"`
		} `json:"sessions"`
	}
	got := send(t, nil, "GET", api+"/sessions", "", nil)
	if err := json.Unmarshal([]byte(got.body), &turns); err != nil || len(turns.Sessions) != 1 || turns.Sessions[0].TesterID != "teams:meg" ||
		turns.Sessions[0].TesterName != "Meg meg" {
		t.Fatalf("sessions after one answer: %s", got.body)
	}

	post(teamsActivity(conn.URL, "m2", "meg", "!improve tone: warmer"))
	if ack, _ := conn.message(t); ack["text"] == nil {
		t.Fatalf("!improve got no acknowledgement: %v", ack)
	}

	feedback, _ := json.Marshal(map[string]any{"type": "invoke", "name": "message/submitAction", "id": "f1",
		"channelId": "msteams", "serviceUrl": conn.URL, "replyToId": replyID,
		"from":         map[string]any{"id": "29:meg", "aadObjectId": "meg", "name": "Meg"},
		"recipient":    map[string]any{"id": "28:hone"},
		"conversation": map[string]any{"id": "a:conv-meg", "conversationType": "personal"},
		"value": map[string]any{"actionName": "feedback",
			"actionValue": map[string]any{"reaction": "dislike", "feedback": `{"feedbackText":"Cite the HR portal."}`}}})
	// The adapter learns which turn an answer is once the connector has
	// answered its post, a moment after the connector saw it: a 👎 sent
	// in that moment is answered with a note and recorded nowhere, so it
	// is sent again.
	for try := 0; ; try++ {
		post(string(feedback))
		thanks, _ := conn.message(t)
		text := fmt.Sprint(thanks["text"])
		if strings.Contains(text, "Cite the HR portal.") {
			break
		}
		if !strings.Contains(text, "no longer knows which answer") || try == 50 {
			t.Fatalf("the 👎 with its text was answered %v", text)
		}
		time.Sleep(20 * time.Millisecond)
	}
	var corrections struct {
		Corrections []struct {
			Text        string `json:"correction_text"`
			TesterID    string `json:"tester_id"`
			UserMessage string `json:"user_message"`
		} `json:"corrections"`
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		got = send(t, nil, "GET", api+"/feedback/corrections", "", nil)
		_ = json.Unmarshal([]byte(got.body), &corrections)
		if len(corrections.Corrections) > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(corrections.Corrections) != 1 || corrections.Corrections[0].Text != "Cite the HR portal." ||
		corrections.Corrections[0].TesterID != "teams:meg" || corrections.Corrections[0].UserMessage != "What is the notice period?" {
		t.Fatalf("the 👎's text is not the correction: %s", got.body)
	}
	got = send(t, nil, "GET", api+"/scores?config=thumbs", "", nil)
	if !strings.Contains(got.body, `"value":false`) || !strings.Contains(got.body, `"author":"teams:meg"`) {
		t.Fatalf("the 👎 is not a thumbs score of the tester: %s", got.body)
	}

	if got = send(t, nil, "POST", api+"/alerts", `{"conversation_id":"teams:a:conv-meg","type":"reminder","text":"Review the open cases"}`, nil); got.status != http.StatusCreated && got.status != http.StatusOK {
		t.Fatalf("POST /alerts = %d %s", got.status, got.body)
	}
	// The correction's reply may be posted after the correction is saved.
	card, _ := conn.message(t)
	if card["attachments"] == nil {
		card, _ = conn.message(t)
	}
	raw, _ := json.Marshal(card)
	if !strings.Contains(string(raw), "Review the open cases") || !strings.Contains(string(raw), "Acknowledge") {
		t.Fatalf("the alert card: %s", raw)
	}
	var alert struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal([]byte(got.body), &alert)
	press, _ := json.Marshal(map[string]any{"type": "message", "id": "m3", "channelId": "msteams", "serviceUrl": conn.URL,
		"from": map[string]any{"id": "29:meg", "aadObjectId": "meg"}, "recipient": map[string]any{"id": "28:hone"},
		"conversation": map[string]any{"id": "a:conv-meg", "conversationType": "personal"},
		"value":        map[string]any{"alert_id": alert.ID, "reaction": "ack"}})
	post(string(press))
	deadline = time.Now().Add(10 * time.Second)
	for {
		got = send(t, nil, "GET", api+"/alerts/"+alert.ID, "", nil)
		if strings.Contains(got.body, `"reaction":"ack"`) || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(got.body, `"reaction":"ack"`) || !strings.Contains(got.body, `"teams:meg"`) {
		t.Fatalf("the Acknowledge press is not the tester's ack: %s", got.body)
	}

	post(teamsActivity(conn.URL, "m4", "stranger", "Hello?"))
	refusal, _ := conn.message(t)
	if s := fmt.Sprint(refusal["text"]); s == "" || strings.Contains(s, "Hello?") {
		t.Fatalf("the stranger's refusal: %v", refusal["text"])
	}
	got = send(t, nil, "GET", api+"/sessions", "", nil)
	if strings.Contains(got.body, "stranger") {
		t.Fatalf("the stranger was recorded: %s", got.body)
	}
}

// Teams after a restart: hone stopped and started again on the same data
// directory records a 👍 pressed under an answer it gave before the
// restart as the rating of that answer, and delivers an alert to the
// conversation it heard from before.
func TestTeamsAfterRestart(t *testing.T) {
	conn := newFakeConnector(t)
	fake := llmtest.New(t)
	fake.SetHandler(llmtest.Echo)
	prompt := filepath.Join(t.TempDir(), "PROMPT.md")
	if err := os.WriteFile(prompt, []byte("You are ERA, an HR assistant."), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HONE_TEAMS_NO_AUTH", "1")
	cfg := config.Config{LLM: fake.Config(), Prompts: []string{prompt}, DataDir: t.TempDir()}
	post := func(base, body string) {
		t.Helper()
		resp, err := http.Post(base+"/api/messages", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("POST /api/messages = %d", resp.StatusCode)
		}
	}

	before := startWith(t, cfg)
	post(before.URL(), teamsActivity(conn.URL, "m1", "meg", "What is the notice period?"))
	_, firstID := conn.message(t)
	post(before.URL(), teamsActivity(conn.URL, "m2", "meg", "And for managers?"))
	conn.message(t)
	var sessions struct {
		Sessions []struct {
			ID string `json:"id"`
		} `json:"sessions"`
	}
	got := send(t, nil, "GET", before.URL()+"/api/v1/sessions", "", nil)
	if err := json.Unmarshal([]byte(got.body), &sessions); err != nil || len(sessions.Sessions) != 1 {
		t.Fatalf("sessions before the restart: %s", got.body)
	}
	if err := before.Close(); err != nil {
		t.Fatal(err)
	}

	after := startWith(t, cfg)
	api := after.URL() + "/api/v1"
	like, _ := json.Marshal(map[string]any{"type": "invoke", "name": "message/submitAction", "id": "f1",
		"channelId": "msteams", "serviceUrl": conn.URL, "replyToId": firstID,
		"from":         map[string]any{"id": "29:meg", "aadObjectId": "meg"},
		"recipient":    map[string]any{"id": "28:hone"},
		"conversation": map[string]any{"id": "a:conv-meg", "conversationType": "personal"},
		"value":        map[string]any{"actionName": "feedback", "actionValue": map[string]any{"reaction": "like"}}})
	post(after.URL(), string(like))
	var export struct {
		Turns []struct {
			ID          string `json:"id"`
			UserMessage string `json:"user_message"`
		} `json:"turns"`
	}
	got = send(t, nil, "GET", api+"/sessions/"+sessions.Sessions[0].ID+"/export.json", "", nil)
	if err := json.Unmarshal([]byte(got.body), &export); err != nil || len(export.Turns) != 2 || export.Turns[0].UserMessage != "What is the notice period?" {
		t.Fatalf("the session's turns: %s", got.body)
	}
	var scores struct {
		Scores []struct {
			TurnID string `json:"turn_id"`
			Value  any    `json:"value"`
			Author string `json:"author"`
		} `json:"scores"`
	}
	got = send(t, nil, "GET", api+"/scores?config=thumbs", "", nil)
	if err := json.Unmarshal([]byte(got.body), &scores); err != nil || len(scores.Scores) != 1 ||
		scores.Scores[0].TurnID != export.Turns[0].ID || scores.Scores[0].Value != true || scores.Scores[0].Author != "teams:meg" {
		t.Fatalf("the 👍 after the restart is not the rating of the first answer %s: %s", export.Turns[0].ID, got.body)
	}

	if got = send(t, nil, "POST", api+"/alerts", `{"conversation_id":"teams:a:conv-meg","type":"reminder","text":"Review the open cases"}`, nil); got.status != http.StatusCreated && got.status != http.StatusOK {
		t.Fatalf("POST /alerts = %d %s", got.status, got.body)
	}
	for {
		card, _ := conn.message(t)
		raw, _ := json.Marshal(card)
		if strings.Contains(string(raw), "Review the open cases") {
			conn.mu.Lock()
			path := conn.paths[len(conn.paths)-1]
			conn.mu.Unlock()
			if path != "/v3/conversations/a:conv-meg/activities" {
				t.Fatalf("the alert after the restart went to %s", path)
			}
			break
		}
	}
}
