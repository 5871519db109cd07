package teams

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// playground is a running Microsoft 365 Agents Playground, Microsoft's
// local Teams emulator, talking to an adapter.
type playground struct {
	URL     string
	Adapter *Adapter
	Bot     *fakeBot
	Config  playgroundConfig
}

type playgroundConfig struct {
	TenantID    string `json:"tenantId"`
	Bot         struct{ ID, Name string }
	CurrentUser struct {
		ID          string `json:"id"`
		Name        string `json:"name"`
		AADObjectID string `json:"aadObjectId"`
	} `json:"currentUser"`
	PersonalChat struct{ ID string } `json:"personalChat"`
}

// playgroundCLI is the Playground's cli.js: HONE_TEST_TEAMS_PLAYGROUND
// (set by .ci/run), else the copy testdata/playground's npm install made.
func playgroundCLI(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv("HONE_TEST_TEAMS_PLAYGROUND") != "" {
			t.Fatal("HONE_TEST_TEAMS_PLAYGROUND is set but Node is not installed")
		}
		t.Skip("Node is not installed: the Microsoft 365 Agents Playground tests are skipped")
	}
	cli := os.Getenv("HONE_TEST_TEAMS_PLAYGROUND")
	required := cli != ""
	if cli == "" {
		cli = filepath.Join("testdata", "playground", "node_modules", "@microsoft", "m365agentsplayground", "cli.js")
	}
	if _, err := os.Stat(cli); err != nil {
		if required {
			t.Fatalf("HONE_TEST_TEAMS_PLAYGROUND names no Playground: %v", err)
		}
		t.Skipf("the Microsoft 365 Agents Playground is not installed (%v): set HONE_TEST_TEAMS_PLAYGROUND to its cli.js, or npm ci in testdata/playground", err)
	}
	abs, err := filepath.Abs(cli)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// startPlayground serves a NoAuth adapter on loopback and starts the
// Playground offline against it.
func startPlayground(t *testing.T) *playground {
	t.Helper()
	cli := playgroundCLI(t)
	bot := newFakeBot()
	a := newTestAdapter(t, bot)
	mux := http.NewServeMux()
	mux.Handle("POST /api/messages", a.Handler())
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	port := freePort(t)
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, "node", cli, "-p", fmt.Sprint(port), "-e", srv.URL+"/api/messages", "-c", "msteams", "--dt")
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "TEAMSAPPTESTER_BROWSER=none", "HOME="+cmd.Dir)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("playground output:\n%s", out.String())
		}
	})
	p := &playground{URL: fmt.Sprintf("http://127.0.0.1:%d", port), Adapter: a, Bot: bot}
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(p.URL + "/_internal/v1/config")
		if err == nil {
			var body struct {
				Config playgroundConfig `json:"config"`
			}
			err = json.NewDecoder(resp.Body).Decode(&body)
			resp.Body.Close()
			if err == nil && body.Config.PersonalChat.ID != "" {
				p.Config = body.Config
				return p
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the playground did not start: %v\n%s", err, out.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func (p *playground) post(t *testing.T, path string, body any) []byte {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(p.URL+path, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %s %s", path, resp.Status, data)
	}
	return data
}

// streamMessage is a message the Playground shows, as its conversation
// WebSocket sends it.
type streamMessage struct {
	Action               string `json:"action"`
	ActionConversationID string `json:"actionConversationId"`
	Message              struct {
		MessageID           string              `json:"messageId"`
		From                struct{ ID string } `json:"from"`
		Text                string              `json:"text"`
		TextFormat          string              `json:"textFormat"`
		FeedbackLoopEnabled bool                `json:"feedbackLoopEnabled"`
		AIEntity            json.RawMessage     `json:"aiEntity"`
	} `json:"message"`
}

// botMessage waits on the stream for the next message from the bot.
func (p *playground) botMessage(t *testing.T, ctx context.Context, ws *websocket.Conn) streamMessage {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	for {
		_, data, err := ws.Read(ctx)
		if err != nil {
			t.Fatalf("no answer from the bot on the playground's stream: %v", err)
		}
		var m streamMessage
		if json.Unmarshal(data, &m) == nil && m.Action == "createMessage" && m.Message.From.ID == p.Config.Bot.ID {
			return m
		}
	}
}

func TestPlaygroundFeedbackLoop(t *testing.T) {
	p := startPlayground(t)
	ctx := t.Context()
	ws, _, err := websocket.Dial(ctx, strings.Replace(p.URL, "http", "ws", 1)+"/_ws_conversation/v1/conversations/stream", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()

	conv := p.Config.PersonalChat.ID
	p.post(t, "/_conversation/v1/conversations/"+conv+"/messages",
		map[string]any{"from": map[string]any{"id": p.Config.CurrentUser.ID}, "text": "What is our refund policy?", "textFormat": "plain"})
	m := p.botMessage(t, ctx, ws)
	if m.Message.Text != "echo: What is our refund policy?" {
		t.Errorf("the playground shows %q", m.Message.Text)
	}
	if !m.Message.FeedbackLoopEnabled {
		t.Error("the playground shows the answer without the feedback buttons")
	}
	if !strings.Contains(string(m.Message.AIEntity), "AIGeneratedContent") {
		t.Errorf("the playground shows no AI label: aiEntity %s", m.Message.AIEntity)
	}
	msgs, _, _ := p.Bot.snapshot()
	if len(msgs) != 1 || msgs[0].UserID != p.Config.CurrentUser.AADObjectID || msgs[0].ConversationID != conv || msgs[0].UserName == "" {
		t.Errorf("the bot got %+v", msgs)
	}
	waitRemembered(t, p.Adapter, m.Message.MessageID)

	// The real Teams feedback invoke, with the replyToId the playground's
	// own feedback form leaves out, built on the playground's template.
	resp, err := http.Get(p.URL + "/_internal/v1/customActivities/template?conversationId=" + conv + "&type=install")
	if err != nil {
		t.Fatal(err)
	}
	var inv map[string]any
	err = json.NewDecoder(resp.Body).Decode(&inv)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	delete(inv, "action")
	inv["type"] = "invoke"
	inv["name"] = "message/submitAction"
	inv["replyToId"] = m.Message.MessageID
	inv["from"] = map[string]any{"id": p.Config.CurrentUser.ID, "name": p.Config.CurrentUser.Name, "aadObjectId": p.Config.CurrentUser.AADObjectID}
	inv["value"] = map[string]any{"actionName": "feedback", "actionValue": map[string]any{
		"reaction": "dislike", "feedback": `{"feedbackText":"It should cite the policy page."}`}}
	p.post(t, "/_internal/v1/customActivities", inv)

	deadline := time.Now().Add(20 * time.Second)
	for {
		_, ratings, _ := p.Bot.snapshot()
		if len(ratings) == 1 {
			r := ratings[0]
			if r.TurnID != "turn-1" || r.Up || r.Comment != "It should cite the policy page." || r.ConversationID != conv {
				t.Errorf("rating = %+v, want 👎 on turn-1 with the feedback text", r)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the feedback never reached the bot as a rating")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func waitRemembered(t *testing.T, a *Adapter, id string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if _, ok := a.turns.get(id); ok {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("the answer the playground shows as %q is not the one the adapter remembered", id)
}
