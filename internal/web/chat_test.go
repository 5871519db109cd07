package web_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/honehq/hone/internal/app"
	"github.com/honehq/hone/internal/browsertest"
	"github.com/honehq/hone/internal/config"
	"github.com/honehq/hone/internal/llm"
	"github.com/honehq/hone/internal/llm/llmtest"
	"github.com/honehq/hone/internal/playground"
	"github.com/honehq/hone/internal/tuning"
)

// markdownAnswer is the fake model's first answer: Markdown to render, and
// markup that must neither run nor become elements.
const markdownAnswer = "Here is **bold advice** and `<b>code</b>`.\n\n" +
	"<script>document.title = \"pwned\"; window.__xss = true</script>\n\n" +
	"Also <img src=x onerror=\"window.__xss = true\"> and [a link](javascript:window.__xss=true)."

// openChatApp starts hone listening on 127.0.0.1:0 with the chat over the
// given LLM and prompt files.
func openChatApp(t *testing.T, databaseURL string, llmCfg llm.Config, prompts ...string) *app.App {
	t.Helper()
	cfg := config.Config{Addr: "127.0.0.1:0", DataDir: t.TempDir(), DatabaseURL: databaseURL,
		MaxBodyBytes: 1 << 20, MessageLimit: 25600, AppName: "Bot", Prompts: prompts, LLM: llmCfg}
	a, err := app.Open(context.Background(), cfg, slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelError})))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	if err := a.Listen(); err != nil {
		t.Fatal(err)
	}
	return a
}

func writeMasterPrompt(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "MASTER_PROMPT.md")
	if err := os.WriteFile(path, []byte("You are ERA, an HR assistant."), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// waitFor waits until the JavaScript condition holds in the page.
func waitFor(t *testing.T, b *browsertest.Browser, cond string) {
	t.Helper()
	if !browsertest.Eval[bool](b, `new Promise(resolve => {
		const deadline = Date.now() + 8000;
		const check = () => (`+cond+`) ? resolve(true) : Date.now() > deadline ? resolve(false) : setTimeout(check, 25);
		check();
	})`) {
		t.Fatalf("timed out waiting for %s", cond)
	}
}

// say types text into the chat, sends it and waits for the page to settle.
func say(t *testing.T, b *browsertest.Browser, text string) {
	t.Helper()
	done := browsertest.Eval[int](b, `Number(document.getElementById("chat-form").dataset.done || 0)`)
	b.Type("#chat-input", text)
	b.Click("#send")
	waitFor(t, b, `Number(document.getElementById("chat-form").dataset.done || 0) > `+strconv.Itoa(done)+
		` && document.getElementById("thinking").hidden`)
}

func TestBrowserChat(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		fake := llmtest.New(t)
		a := openChatApp(t, databaseURL, fake.Config(), writeMasterPrompt(t))
		b := browsertest.New(t)
		b.OnNewDocument(recordAlerts)

		if status := b.NavigateStatus(a.URL() + "/"); status != http.StatusOK {
			t.Fatalf("GET / = %d", status)
		}
		if status := b.ClickNavigate(`nav a[href="/chat"]`); status != http.StatusOK {
			t.Fatalf("the Chat link led to status %d", status)
		}
		if got := b.Title(); got != "Chat · hone" {
			t.Errorf("title = %q", got)
		}
		if got := browsertest.Eval[[]string](b, `Array.from(document.querySelectorAll("#prompt option"), o => o.value)`); len(got) != 1 || got[0] != "MASTER_PROMPT.md" {
			t.Errorf("prompt choices = %q, want [MASTER_PROMPT.md]", got)
		}
		opened := b.Text("#session-id")
		if s, err := a.DB.Capture().FindSession(context.Background(), opened); err != nil || !strings.HasPrefix(s.TesterID, "web:") || s.TotalTurns != 0 {
			t.Fatalf("the page shows session %q: %+v, %v", opened, s, err)
		}

		fake.Push(llmtest.Text(markdownAnswer))
		say(t, b, "My employee didn't show up for 3 days")
		if got := b.Texts("#messages .chat-msg.user .body"); len(got) != 1 || got[0] != "My employee didn't show up for 3 days" {
			t.Errorf("user messages shown = %q", got)
		}
		if got := b.Text("#messages .chat-msg.bot .body strong"); got != "bold advice" {
			t.Errorf("bold text = %q, want %q", got, "bold advice")
		}
		if got := b.Text("#messages .chat-msg.bot .body code"); got != "<b>code</b>" {
			t.Errorf("inline code = %q, want the markup shown as text", got)
		}
		if n := browsertest.Eval[int](b, `document.querySelectorAll("#messages script, #messages img, #messages b, #messages a[href^='javascript']").length`); n != 0 {
			t.Errorf("the answer's markup became %d elements", n)
		}
		if browsertest.Eval[bool](b, `window.__xss === true`) || b.Title() != "Chat · hone" {
			t.Error("markup in the answer ran as script")
		}
		if got := b.Text("#session-id"); got != opened {
			t.Errorf("session after the answer = %q, want %q", got, opened)
		}
		last := fake.Requests()[len(fake.Requests())-1]
		if last.Messages[0].Content != "You are ERA, an HR assistant." || last.LastUserMessage() != "My employee didn't show up for 3 days" {
			t.Errorf("the model got %+v", last.Messages)
		}

		say(t, b, "!improve tone: too formal")
		if got, want := b.Text("#messages .chat-msg.bot .acks .ack-text"), "Note saved on this answer (tone): too formal"; got != want {
			t.Errorf("acknowledgement of !improve = %q, want %q", got, want)
		}
		if got := b.Text("#messages .chat-msg.bot .acks .ack-mark"); got == "👍" || got == "" {
			t.Errorf("the acknowledgement's mark is %q, want a mark of its own, not a rating's 👍", got)
		}
		if n := b.Count("#messages .reaction"); n != 0 {
			t.Errorf("!improve shows %d 👍 reactions, the glyph of a rating", n)
		}
		turns, err := a.DB.Tuning().ListTurns(context.Background(), opened, 1, 10)
		if err != nil || len(turns) != 1 || len(turns[0].Improvements) != 1 ||
			turns[0].Improvements[0].Note != "too formal" || turns[0].Improvements[0].Category != "tone" {
			t.Fatalf("stored turns %+v, %v", turns, err)
		}

		browsertest.Eval[bool](b, `(window.__blobs = [], URL.createObjectURL = (made => blob => (window.__blobs.push(blob), made(blob)))(URL.createObjectURL), true)`)
		say(t, b, "!print")
		csv := b.Text("#messages .chat-msg.hone pre code.language-csv")
		header := strings.Join(append(tuning.CSVHeader("Bot"), tuning.JudgmentColumns...), ",")
		if !strings.HasPrefix(csv, header+"\n") || !strings.Contains(csv, "too formal") || !strings.Contains(csv, "My employee didn't show up for 3 days") {
			t.Errorf("the CSV shown is %q, want it to start with %q", csv, header)
		}
		if got := b.Text("#session-id"); got != opened {
			t.Errorf("session after !print = %q, want %q", got, opened)
		}
		if got := b.Texts("#messages .chat-msg.hone .file-actions > *"); len(got) != 2 || got[0] != "Copy" || got[1] != "Download" {
			t.Errorf("the CSV block's buttons = %q, want [Copy Download]", got)
		}
		if got, want := b.Attr("#messages .chat-msg.hone .download-file", "download"), "hone-session-"+opened+".csv"; got != want {
			t.Errorf("Download saves as %q, want %q", got, want)
		}
		if got := b.Attr("#messages .chat-msg.hone .download-file", "href"); !strings.HasPrefix(got, "blob:") {
			t.Errorf("Download links to %q, want the CSV itself (a blob: URL)", got)
		}
		if got := browsertest.Eval[string](b, `window.__blobs[window.__blobs.length - 1].text()`); strings.TrimRight(got, "\n") != csv {
			t.Errorf("Download gives %q, want the CSV shown %q", got, csv)
		}
		browsertest.Eval[bool](b, `(navigator.clipboard.writeText = text => { window.__copied = text; return Promise.resolve(); }, true)`)
		b.Click("#messages .chat-msg.hone .copy-file")
		waitFor(t, b, `document.querySelector("#messages .chat-msg.hone .copy-file").textContent === "Copied"`)
		if got := browsertest.Eval[string](b, `window.__copied`); strings.TrimRight(got, "\n") != csv {
			t.Errorf("Copy put %q on the clipboard, want the CSV %q", got, csv)
		}
		if got := browsertest.Eval[[]string](b, `window.__alerts`); len(got) != 0 {
			t.Errorf("alert was called with %q", got)
		}
		if logs := b.Logs(); len(logs) != 0 {
			t.Errorf("the page wrote to the console: %q", logs)
		}

		b.Navigate(a.URL() + "/chat")
		if got := b.Text("#session-id"); got != opened {
			t.Errorf("after a reload the session is %q, want %q", got, opened)
		}
		if got := b.Text("#messages .chat-msg.bot .body strong"); got != "bold advice" {
			t.Errorf("after a reload the answer shows %q", got)
		}
	})
}

func TestBrowserChatModelErrorKeepsTheSession(t *testing.T) {
	fake := llmtest.New(t)
	a := openChatApp(t, "", fake.Config(), writeMasterPrompt(t))
	b := browsertest.New(t)
	b.Navigate(a.URL() + "/chat")
	opened := b.Text("#session-id")

	say(t, b, "first")
	for range llm.DefaultMaxRetries + 1 {
		fake.Push(llmtest.Error(500, "upstream exploded"))
	}
	say(t, b, "second")
	failed := b.Text("#messages .chat-msg.failed .body")
	if !strings.HasPrefix(failed, playground.ModelFailedText) || strings.Contains(failed, "goroutine") || len(failed) > 500 {
		t.Errorf("model failure shown as %q", failed)
	}
	if got := browsertest.Eval[string](b, `document.getElementById("chat-input").value`); got != "second" {
		t.Errorf("after the model failed the box holds %q, want the message typed, to send again", got)
	}
	browsertest.Eval[bool](b, `(document.getElementById("chat-input").value = "", true)`)
	fake.Push(llmtest.Text("Recovered."))
	say(t, b, "third")
	if got := browsertest.Eval[string](b, `document.getElementById("chat-input").value`); got != "" {
		t.Errorf("after an answer the box holds %q, want it empty", got)
	}
	answers := b.Texts("#messages .chat-msg.bot .body")
	if len(answers) != 2 || answers[1] != "Recovered." {
		t.Errorf("answers = %q", answers)
	}
	if got := b.Text("#session-id"); got != opened {
		t.Errorf("session = %q, want %q", got, opened)
	}
	s, err := a.DB.Capture().FindSession(context.Background(), opened)
	if err != nil || s.TotalTurns != 2 {
		t.Fatalf("session %+v, %v", s, err)
	}
	reqs := fake.Requests()
	if got := reqs[len(reqs)-1].Messages; len(got) != 4 || got[1].Content != "first" || got[3].Content != "third" {
		t.Errorf("history after the failure: %+v", got)
	}
}

func TestBrowserChatNotConfigured(t *testing.T) {
	a := openChatApp(t, "", llm.Config{})
	b := browsertest.New(t)
	if status := b.NavigateStatus(a.URL() + "/chat"); status != http.StatusOK {
		t.Fatalf("GET /chat = %d", status)
	}
	help := b.Text("#llm-help")
	for _, want := range []string{"HONE_LLM_BASE_URL", "HONE_LLM_API_KEY", "HONE_LLM_MODEL",
		"export HONE_LLM_BASE_URL=https://api.openai.com/v1", "export HONE_LLM_BASE_URL=http://localhost:11434/v1", "Ollama"} {
		if !strings.Contains(help, want) {
			t.Errorf("the LLM help lacks %q:\n%s", want, help)
		}
	}
	if got := b.Text("#prompt-help"); !strings.Contains(got, "HONE_PROMPT_FILE") || !strings.Contains(got, "--prompt") {
		t.Errorf("the prompt help is %q", got)
	}
	if n := b.Count("#chat-form"); n != 0 {
		t.Error("the chat form is shown without an LLM")
	}
	if logs := b.Logs(); len(logs) != 0 {
		t.Errorf("the page wrote to the console: %q", logs)
	}
}

// chatClient is a plain HTTP client that has loaded /chat, with its cookies
// and the page's CSRF token.
type chatClient struct {
	*http.Client
	base, token string
}

var csrfMeta = regexp.MustCompile(`<meta name="csrf-token" content="([^"]+)">`)

func loadChat(t *testing.T, a *app.App) (*chatClient, string) {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &chatClient{Client: &http.Client{Jar: jar}, base: a.URL()}
	resp, err := c.Get(c.base + "/chat")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	m := csrfMeta.FindStringSubmatch(string(body))
	if resp.StatusCode != http.StatusOK || m == nil {
		t.Fatalf("GET /chat = %d without a CSRF token:\n%s", resp.StatusCode, body)
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") {
		t.Errorf("Content-Security-Policy = %q", csp)
	}
	c.token = m[1]
	return c, string(body)
}

func (c *chatClient) post(t *testing.T, body string, header map[string]string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, c.base+"/chat/messages", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("POST /chat/messages = %d, not JSON: %v", resp.StatusCode, err)
	}
	return resp.StatusCode, out
}

func TestChatMessagesRequireTheCSRFToken(t *testing.T) {
	fake := llmtest.New(t)
	a := openChatApp(t, "", fake.Config(), writeMasterPrompt(t))
	c, _ := loadChat(t, a)
	msg := `{"prompt":"MASTER_PROMPT.md","text":"hello"}`

	if status, _ := c.post(t, msg, nil); status != http.StatusForbidden {
		t.Errorf("without the token: %d, want 403", status)
	}
	if status, _ := c.post(t, msg, map[string]string{"X-CSRF-Token": c.token + "x"}); status != http.StatusForbidden {
		t.Errorf("with a wrong token: %d, want 403", status)
	}
	if status, _ := c.post(t, msg, map[string]string{"X-CSRF-Token": c.token, "Origin": "https://evil.example"}); status != http.StatusForbidden {
		t.Errorf("from another origin: %d, want 403", status)
	}
	if len(fake.Requests()) != 0 {
		t.Fatal("a rejected message reached the model")
	}
	status, out := c.post(t, msg, map[string]string{"X-CSRF-Token": c.token, "Origin": c.base})
	if status != http.StatusOK || out["reply_html"] != "<p>hello</p>\n" || out["session_id"] == "" || out["command"] != false {
		t.Errorf("with the token: %d %v", status, out)
	}
	big := httptest.NewRequest(http.MethodPost, "/chat/messages",
		strings.NewReader(`{"prompt":"MASTER_PROMPT.md","text":"`+strings.Repeat("a", 3<<20)+`"}`))
	big.Header.Set("X-CSRF-Token", c.token)
	big.Host = strings.TrimPrefix(c.base, "http://")
	base, _ := url.Parse(c.base + "/chat")
	for _, cookie := range c.Jar.Cookies(base) {
		big.AddCookie(cookie)
	}
	rec := httptest.NewRecorder()
	a.Handler().ServeHTTP(rec, big)
	if rec.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("a huge body: %d %s, want 413", rec.Code, rec.Body)
	}
	if status, _ := c.post(t, `{"prompt":"OTHER.md","text":"hi"}`, map[string]string{"X-CSRF-Token": c.token}); status != http.StatusNotFound {
		t.Errorf("an unknown prompt: %d, want 404", status)
	}
}

func TestChatNotConfiguredAnswers503(t *testing.T) {
	prompt := writeMasterPrompt(t)
	for _, tc := range []struct {
		name       string
		llm        llm.Config
		prompts    []string
		want, lack []string
	}{
		{"nothing", llm.Config{}, nil, []string{"HONE_LLM_BASE_URL", "HONE_LLM_API_KEY", "HONE_LLM_MODEL", "localhost:11434", "HONE_PROMPT_FILE", "--prompt"}, nil},
		{"no LLM", llm.Config{}, []string{prompt}, []string{"HONE_LLM_MODEL", "localhost:11434"}, []string{"HONE_PROMPT_FILE"}},
		{"no model", llm.Config{BaseURL: "http://localhost:11434/v1"}, []string{prompt}, []string{"set HONE_LLM_MODEL", "localhost:11434"}, []string{"HONE_PROMPT_FILE"}},
		{"no prompt", llm.Config{BaseURL: "http://localhost:11434/v1", Model: "llama3.1"}, nil, []string{"HONE_PROMPT_FILE", "--prompt"}, []string{"HONE_LLM_API_KEY"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := openChatApp(t, "", tc.llm, tc.prompts...)
			c, page := loadChat(t, a)
			status, out := c.post(t, `{"prompt":"MASTER_PROMPT.md","text":"hello"}`, map[string]string{"X-CSRF-Token": c.token})
			msg, _ := out["error"].(map[string]any)["message"].(string)
			if status != http.StatusServiceUnavailable {
				t.Errorf("POST = %d, want 503", status)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) || !strings.Contains(page, w) {
					t.Errorf("%q missing from the page or the 503 message %q", w, msg)
				}
			}
			for _, l := range tc.lack {
				if strings.Contains(msg, l) || strings.Contains(page, l) {
					t.Errorf("%q shown although set: %q", l, msg)
				}
			}
			if strings.Contains(page, "goroutine") || strings.Contains(msg, "goroutine") {
				t.Error("a stack trace is shown")
			}
		})
	}
}

func TestMissingPromptFileStopsOpen(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "NOPE.md")
	cfg := config.Config{Addr: "127.0.0.1:0", DataDir: t.TempDir(), MaxBodyBytes: 1 << 20, MessageLimit: 25600, Prompts: []string{missing}}
	a, err := app.Open(context.Background(), cfg, slog.New(slog.DiscardHandler))
	if err == nil {
		a.Close()
		t.Fatal("app.Open accepted a missing prompt file")
	}
	if !strings.Contains(err.Error(), missing) {
		t.Errorf("error %q does not name %s", err, missing)
	}
}

// A person gives their name once: the browser keeps it, each message
// carries it, and the sessions pages show it beside the tester id.
func TestBrowserChatName(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		fake := llmtest.New(t)
		a := openChatApp(t, databaseURL, fake.Config(), writeMasterPrompt(t))
		b := browsertest.New(t)
		if status := b.NavigateStatus(a.URL() + "/chat"); status != http.StatusOK {
			t.Fatalf("GET /chat = %d", status)
		}
		b.Type("#chat-name", "Meg Ryan")
		browsertest.Eval[bool](b, `document.getElementById("chat-name").dispatchEvent(new Event("change")) || true`)
		fake.Push(llmtest.Text("Call the employee first."))
		say(t, b, "My employee didn't show up")
		b.Navigate(a.URL() + "/chat")
		if got := browsertest.Eval[string](b, `document.getElementById("chat-name").value`); got != "Meg Ryan" {
			t.Errorf("the name field after a reload = %q, want the name kept in the browser", got)
		}
		b.Navigate(a.URL() + "/")
		if got := b.Texts(".tester-name"); len(got) != 1 || got[0] != "Meg Ryan" {
			t.Errorf("the sessions list shows names %q, want [Meg Ryan]", got)
		}
	})
}
