package app_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/honehq/hone/internal/config"
	"github.com/honehq/hone/internal/llm/llmtest"
)

// benchConnector is an instant Bot Connector: it answers every activity
// with an id and hands each message (not the typing indicators) to sent.
func benchConnector(b *testing.B, sent chan<- string) *httptest.Server {
	conn := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var a struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &a)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"bot-act"}`)
		if a.Type == "message" {
			sent <- a.Text
		}
	}))
	b.Cleanup(conn.Close)
	return conn
}

// teamsBenchConfig is hone as a Teams bot (the emulator mode) answering
// with an instant fake model.
func teamsBenchConfig(b *testing.B) config.Config {
	fake := llmtest.New(b)
	fake.SetHandler(llmtest.Echo)
	prompt := filepath.Join(b.TempDir(), "PROMPT.md")
	if err := os.WriteFile(prompt, []byte("You are ERA, an HR assistant."), 0o644); err != nil {
		b.Fatal(err)
	}
	b.Setenv("HONE_TEAMS_NO_AUTH", "1")
	b.Setenv("HONE_CHAT_ALLOW", "")
	return config.Config{LLM: fake.Config(), Prompts: []string{prompt}, DataDir: b.TempDir()}
}

// teamsPoster posts a tester's message to hone's /api/messages as Teams
// does, in conversation conv.
func teamsPoster(b *testing.B, base, serviceURL string) func(conv int, text string) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}}
	return func(conv int, text string) {
		user := fmt.Sprint("u", conv)
		body := teamsActivity(serviceURL, fmt.Sprint("m-", conv), user, text)
		resp, err := client.Post(base+"/api/messages", "application/json", bytes.NewReader([]byte(body)))
		if err != nil {
			b.Error(err)
			return
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Errorf("POST /api/messages = %d", resp.StatusCode)
		}
	}
}

// BenchmarkTeamsMessage measures hone's own time per message through the
// Teams adapter, from a tester's activity reaching POST /api/messages to
// the answer posted to an instant fake Bot Connector (the typing
// indicator, the chat router, the instant fake model, the turn recorded,
// the answer's turn kept), beside the same message through the web chat's
// POST /chat/messages in the same run: p50 of each, what the adapter adds
// at p50, and the ratio.
func BenchmarkTeamsMessage(b *testing.B) {
	sent := make(chan string, 1024)
	conn := benchConnector(b, sent)
	a := startWithTB(b, teamsBenchConfig(b))
	post := teamsPoster(b, a.URL(), conn.URL)
	web := webChat(b, a.URL())
	post(1, "hello")
	<-sent
	web("hello")

	var teamsTimes, webTimes []time.Duration
	b.ResetTimer()
	for i := range b.N {
		text := fmt.Sprint("My employee did not show up for 3 days, case ", i)
		start := time.Now()
		post(1, text)
		got := <-sent
		teamsTimes = append(teamsTimes, time.Since(start))
		if got != text {
			b.Fatalf("teams answered %q", got)
		}
		start = time.Now()
		web(text)
		webTimes = append(webTimes, time.Since(start))
	}
	b.StopTimer()
	reportP50As(b, "teams", teamsTimes, webTimes)
}

// BenchmarkTeams200Conversations sends one message in each of 200 Teams
// conversations at once, and the same 200 through the web chat from 200
// clients at once: hone's time per message for each (the whole batch over
// 200) and the ratio.
func BenchmarkTeams200Conversations(b *testing.B) {
	const n = 200
	sent := make(chan string, 4*n)
	conn := benchConnector(b, sent)
	a := startWithTB(b, teamsBenchConfig(b))
	post := teamsPoster(b, a.URL(), conn.URL)
	webs := make([]func(string), n)
	for i := range webs {
		webs[i] = webChat(b, a.URL())
	}
	var teamsTotal, webTotal time.Duration
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		var wg sync.WaitGroup
		for c := range n {
			wg.Go(func() { post(1000+c, "How do I process a resignation?") })
		}
		for range n {
			<-sent
		}
		teamsTotal += time.Since(start)
		wg.Wait()
		start = time.Now()
		for _, web := range webs {
			wg.Go(func() { web("How do I process a resignation?") })
		}
		wg.Wait()
		webTotal += time.Since(start)
	}
	b.StopTimer()
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N*n) }
	b.ReportMetric(per(teamsTotal), "teams-ms/msg")
	b.ReportMetric(per(webTotal), "web-ms/msg")
	b.ReportMetric(per(teamsTotal)/per(webTotal), "ratio")
}
