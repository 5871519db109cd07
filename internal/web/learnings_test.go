package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/config"
	"github.com/honehq/hone/internal/learning"
	"github.com/honehq/hone/internal/llm/llmtest"
	"github.com/honehq/hone/internal/score"
	"github.com/honehq/hone/internal/web"
)

// The learning loop's web face: 👍/👎 on /chat's answers, the correction
// that follows a 👎, and the /learnings page with its forms.

// lnPrompt is the prompt file of the learning tests, with a protected rule
// the safety check must get.
const (
	lnPromptName  = "MASTER_PROMPT.md"
	lnProtected   = "Never share an employee's medical records."
	lnPromptText  = "You are ERA, an HR assistant.\n<!-- hone:protected -->\n" + lnProtected + "\n<!-- /hone:protected -->\nBe helpful."
	lnAnswerStart = "Answer to: "
)

// System prompts by which the fake LLM tells the learning loop's calls
// apart from the chat's.
const (
	lnRelatedSystem   = "A user rated an assistant's answer"
	lnSynthesisSystem = "You analyse corrections"
	lnReviewSystem    = "You check new learning statements"
)

// lnLLM is the fake LLM of the learning tests: the chat's answers repeat
// the question, a correction is related unless it says UNRELATED, and the
// synthesis and its safety check answer as the test says.
type lnLLM struct {
	*llmtest.Server

	mu sync.Mutex
	// synthesis answers the synthesis call from the ids of the corrections
	// it shows; review the safety check from its candidates by number.
	synthesis func(ids []string) llmtest.Reply
	review    func(candidates map[int]string) llmtest.Reply
	// hold, when not nil, keeps the synthesis call waiting until closed.
	hold chan struct{}
}

var (
	lnCorrectionID = regexp.MustCompile(`### Correction (\w+)`)
	lnCandidate    = regexp.MustCompile(`(?m)^(\d+)\. (.*) \(pattern: .*\)$`)
)

func lnNewLLM(t *testing.T) *lnLLM {
	f := &lnLLM{Server: llmtest.New(t)}
	f.SetHandler(f.answer)
	return f
}

func (f *lnLLM) answer(req llmtest.ChatRequest) llmtest.Reply {
	system, user := "", req.LastUserMessage()
	if len(req.Messages) > 0 {
		system = req.Messages[0].Content
	}
	f.mu.Lock()
	synthesis, review, hold := f.synthesis, f.review, f.hold
	f.mu.Unlock()
	switch {
	case strings.HasPrefix(system, lnRelatedSystem):
		return llmtest.JSON(map[string]any{"related": !strings.Contains(user, "UNRELATED"), "reason": "the fake says so"})
	case strings.HasPrefix(system, lnSynthesisSystem):
		if hold != nil {
			<-hold
		}
		if synthesis == nil {
			return llmtest.Error(http.StatusBadRequest, "no synthesis expected")
		}
		var ids []string
		for _, m := range lnCorrectionID.FindAllStringSubmatch(user, -1) {
			ids = append(ids, m[1])
		}
		return synthesis(ids)
	case strings.HasPrefix(system, lnReviewSystem):
		if review == nil {
			return llmtest.Error(http.StatusBadRequest, "no safety check expected")
		}
		candidates := map[int]string{}
		for _, m := range lnCandidate.FindAllStringSubmatch(user, -1) {
			var n int
			fmt.Sscan(m[1], &n)
			candidates[n] = m[2]
		}
		return review(candidates)
	}
	return llmtest.Text(lnAnswerStart + user)
}

func (f *lnLLM) set(synthesis func(ids []string) llmtest.Reply, review func(map[int]string) llmtest.Reply) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.synthesis, f.review = synthesis, review
}

// calls returns the requests whose system prompt starts with system; ""
// returns the chat's, those of none of the learning loop's calls.
func (f *lnLLM) calls(system string) []llmtest.ChatRequest {
	var out []llmtest.ChatRequest
	for _, r := range f.Requests() {
		s := ""
		if len(r.Messages) > 0 {
			s = r.Messages[0].Content
		}
		learn := strings.HasPrefix(s, lnRelatedSystem) || strings.HasPrefix(s, lnSynthesisSystem) || strings.HasPrefix(s, lnReviewSystem)
		if system == "" && !learn || system != "" && strings.HasPrefix(s, system) {
			out = append(out, r)
		}
	}
	return out
}

// lnEnv is hone serving the chat and /learnings without an API token, over
// the fake LLM unless it has none.
type lnEnv struct {
	*wsEnv
	llm *lnLLM
}

func lnOpen(t *testing.T, databaseURL string, withLLM bool) *lnEnv {
	t.Helper()
	prompt := filepath.Join(t.TempDir(), lnPromptName)
	if err := os.WriteFile(prompt, []byte(lnPromptText), 0o644); err != nil {
		t.Fatal(err)
	}
	var f *lnLLM
	if withLLM {
		f = lnNewLLM(t)
	}
	a := openAuthApp(t, databaseURL, func(c *config.Config) {
		c.APIToken, c.Prompts = "", []string{prompt}
		if f != nil {
			c.LLM = f.Config()
		}
	})
	a.listen()
	e := &lnEnv{wsEnv: &wsEnv{authApp: a}, llm: f}
	if f != nil {
		e.fake = f.Server
	}
	return e
}

// lnChatOut is the answer of POST /chat/messages.
type lnChatOut struct {
	Command   bool   `json:"command"`
	ReplyHTML string `json:"reply_html"`
	SessionID string `json:"session_id"`
	Failed    bool   `json:"failed"`
	TurnID    string `json:"turn_id"`
}

// lnJSONHeader is what chat.js sends with its POSTs.
func lnJSONHeader(c *wsClient) http.Header {
	h := c.sameSite()
	h.Set(web.CSRFHeader, c.csrf())
	return h
}

// lnSay sends a message of the chat page, as chat.js does; the client must
// have loaded /chat.
func lnSay(t *testing.T, c *wsClient, text string) lnChatOut {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"prompt": lnPromptName, "text": text})
	r := c.send(http.MethodPost, "/chat/messages", strings.NewReader(string(body)), "application/json", lnJSONHeader(c))
	var out lnChatOut
	if r.StatusCode != http.StatusOK || json.Unmarshal([]byte(r.body), &out) != nil || out.Failed {
		t.Fatalf("POST /chat/messages %q = %d: %s", text, r.StatusCode, r.body)
	}
	return out
}

// lnRate posts body to a turn's feedback route with header.
func lnRate(c *wsClient, turnID, body string, header http.Header) reply {
	c.t.Helper()
	return c.send(http.MethodPost, "/chat/turns/"+url.PathEscape(turnID)+"/feedback", strings.NewReader(body), "application/json", header)
}

// lnTester is the tester id of the client's chat.
func lnTester(t *testing.T, c *wsClient) string {
	t.Helper()
	ck := c.cookie("/chat", web.TesterCookie)
	if ck == nil {
		t.Fatal("the browser has no tester cookie: load /chat first")
	}
	return "web:" + ck.Value
}

// lnCorrect rates the answer turnID 👎 and gives the correction.
func lnCorrect(t *testing.T, c *wsClient, turnID, correction string) {
	t.Helper()
	r := lnRate(c, turnID, `{"rating":"down"}`, lnJSONHeader(c))
	if r.StatusCode != http.StatusOK || !strings.Contains(r.body, learning.AskCorrectionText) {
		t.Fatalf("👎 on turn %s = %d: %s", turnID, r.StatusCode, r.body)
	}
	if out := lnSay(t, c, correction); !out.Command || !strings.Contains(html.UnescapeString(out.ReplyHTML), "Got it! I noted:") {
		t.Fatalf("the correction %q was answered %+v", correction, out)
	}
}

// lnRow is a learning as a row of the /learnings table shows it.
type lnRow struct {
	id, rowStatus, confidence, pattern, adjustment, label, reason string
	// evidence are the links to turns, as "href | title | text".
	evidence []string
	// keep says whether the row has the "Keep this one" form.
	keep bool
}

var (
	lnRowRE        = regexp.MustCompile(`(?s)<tr data-learning="([^"]*)" class="status-([a-z_]*)">(.*?)</tr>`)
	lnConfidenceRE = regexp.MustCompile(`(?s)<td class="num confidence">(.*?)</td>`)
	lnPatternRE    = regexp.MustCompile(`(?s)<p class="pattern"><strong>(.*?)</strong>`)
	lnAdjustmentRE = regexp.MustCompile(`(?s)<p class="adjustment">(.*?)</p>`)
	lnBadgeRE      = regexp.MustCompile(`(?s)<span class="badge status-[a-z_]*">(.*?)</span>`)
	lnReasonRE     = regexp.MustCompile(`(?s)<p class="muted reason">(.*?)</p>`)
	lnEvidenceRE   = regexp.MustCompile(`(?s)<td class="evidence">(.*?)</td>`)
	lnLinkRE       = regexp.MustCompile(`<a href="([^"]*)" title="([^"]*)">([^<]*)</a>`)
)

func lnFirst(re *regexp.Regexp, s string) string {
	if m := re.FindStringSubmatch(s); m != nil {
		return strings.TrimSpace(html.UnescapeString(m[1]))
	}
	return ""
}

// lnRows parses the learnings table of a /learnings page, by id.
func lnRows(page string) (map[string]lnRow, []string) {
	rows := map[string]lnRow{}
	var order []string
	for _, m := range lnRowRE.FindAllStringSubmatch(page, -1) {
		r := lnRow{id: html.UnescapeString(m[1]), rowStatus: m[2], confidence: lnFirst(lnConfidenceRE, m[3]),
			pattern: lnFirst(lnPatternRE, m[3]), adjustment: lnFirst(lnAdjustmentRE, m[3]), label: lnFirst(lnBadgeRE, m[3]),
			reason: lnFirst(lnReasonRE, m[3]), keep: strings.Contains(m[3], `action="/learnings/`+m[1]+`/keep"`)}
		if ev := lnEvidenceRE.FindStringSubmatch(m[3]); ev != nil {
			for _, l := range lnLinkRE.FindAllStringSubmatch(ev[1], -1) {
				r.evidence = append(r.evidence, html.UnescapeString(l[1])+" | "+html.UnescapeString(l[2])+" | "+l[3])
			}
		}
		rows[r.id] = r
		order = append(order, r.id)
	}
	return rows, order
}

// lnForm returns the form of the page that posts to action, failing when
// there is none.
func lnForm(t *testing.T, page, action string) wsForm {
	t.Helper()
	for _, f := range wsForms(page) {
		if f.action == action {
			return f
		}
	}
	t.Fatalf("the page has no form posting to %s:\n%s", action, page)
	return wsForm{}
}

// lnSubmit submits the page's form to action with changes and returns the
// page it leads to and its flash, failing unless it is a 303 to /learnings.
func lnSubmit(t *testing.T, c *wsClient, page, action string, changes url.Values) (string, *wsFlashOf) {
	t.Helper()
	return submitTo(t, c, page, action, "/learnings", changes)
}

// submitTo submits the page's form to action with changes, requires a 303
// back to back and returns that page and its message.
func submitTo(t *testing.T, c *wsClient, page, action, back string, changes url.Values) (string, *wsFlashOf) {
	t.Helper()
	r := c.submit(lnForm(t, page, action), changes)
	if r.StatusCode != http.StatusSeeOther || r.location() != back {
		t.Fatalf("POST %s = %d to %q, want 303 to %s:\n%s", action, r.StatusCode, r.location(), back, r.body)
	}
	next := c.page(back)
	f := wsFlash(next)
	if f == nil {
		t.Fatalf("POST %s: the page after it shows no message", action)
	}
	return next, f
}

// lnState is everything of the learning loop a form could change, to tell
// that a refused form changed nothing.
func (e *lnEnv) lnState(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	list, err := e.Learning.Learnings(ctx, learning.LearningFilter{})
	if err != nil {
		t.Fatal(err)
	}
	on, err := e.Learning.Enabled(ctx)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := e.Learning.Runs(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	pending, err := e.Learning.PendingCorrections(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]any{"learnings": list, "enabled": on, "runs": len(runs), "pending": len(pending)})
	return string(b)
}

// lnLearning returns a learning through the service.
func (e *lnEnv) lnLearning(t *testing.T, id string) *learning.Learning {
	t.Helper()
	l, err := e.Learning.Learning(context.Background(), id)
	if err != nil {
		t.Fatalf("learning %s: %v", id, err)
	}
	return l
}

func TestChatTurnFeedback(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		e := lnOpen(t, databaseURL, true)
		ctx := context.Background()
		c := e.client()
		chatPage := c.page("/chat")
		if !strings.Contains(chatPage, ` data-rating aria-live`) {
			t.Error("the chat's message list does not offer ratings (data-rating)")
		}
		tester := lnTester(t, c)
		out := lnSay(t, c, "When is the team meeting?")
		if out.TurnID == "" || out.Command || !strings.Contains(out.ReplyHTML, lnAnswerStart+"When is the team meeting?") {
			t.Fatalf("the answer gives no turn to rate: %+v", out)
		}
		turn := out.TurnID
		ratings := func() map[string]string {
			t.Helper()
			m, err := e.Learning.TesterRatings(ctx, tester, 10)
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
		type rated struct {
			Rating string `json:"rating"`
			Ask    string `json:"ask"`
		}
		rate := func(body string) (int, rated, reply) {
			t.Helper()
			r := lnRate(c, turn, body, lnJSONHeader(c))
			var got rated
			if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") || json.Unmarshal([]byte(r.body), &got) != nil {
				t.Fatalf("POST feedback %s = %d %s, not JSON: %s", body, r.StatusCode, r.Header.Get("Content-Type"), r.body)
			}
			return r.StatusCode, got, r
		}

		// 👍: stored, no question, and the page shows it pressed.
		status, got, r := rate(`{"rating":"up"}`)
		if status != http.StatusOK || got.Rating != learning.RatingUp || got.Ask != "" || strings.Contains(r.body, `"ask"`) {
			t.Errorf("👍 = %d %s, want 200 {\"rating\":\"up\"} without a question", status, r.body)
		}
		if cc := r.Header.Get("Cache-Control"); cc != "no-store" {
			t.Errorf("feedback Cache-Control = %q, want no-store", cc)
		}
		if m := ratings(); m[turn] != learning.RatingUp || len(m) != 1 {
			t.Errorf("stored ratings after 👍: %v, want %s: up", m, turn)
		}
		if page := c.page("/chat"); !strings.Contains(page, `data-turn-id="`+turn+`" data-rating="up"`) {
			t.Errorf("the chat page does not show the 👍 of turn %s:\n%s", turn, page)
		}

		// 👎 replaces it and asks what should have been different.
		status, got, r = rate(`{"rating":"down"}`)
		if status != http.StatusOK || got.Rating != learning.RatingDown || got.Ask != learning.AskCorrectionText {
			t.Errorf("👎 = %d %s, want 200 with the ask %q", status, r.body, learning.AskCorrectionText)
		}
		if m := ratings(); m[turn] != learning.RatingDown || len(m) != 1 {
			t.Errorf("stored ratings after 👎: %v, want %s: down", m, turn)
		}
		st, err := e.Learning.Stats(ctx, 30)
		if err != nil || st.Total != 1 || st.Down != 1 || st.Up != 0 {
			t.Errorf("stats after 👍 then 👎 of one answer: %+v, %v; want one 👎", st, err)
		}
		// Each is a score of config thumbs, given in the web UI by the tester;
		// the rating is the latest.
		thumbs, err := e.DB.Scores().Scores(ctx, score.Filter{TurnID: turn})
		if err != nil || len(thumbs) != 2 || thumbs[0].Config != score.Thumbs || thumbs[0].Value != false || thumbs[1].Value != true ||
			thumbs[0].Source != score.SourceWeb || thumbs[0].Author != tester {
			t.Errorf("the turn's scores %+v, %v; want 👎 then 👍 of config thumbs from the web by %s", thumbs, err, tester)
		}

		// The next message is the correction: noted, thanked, not sent to
		// the model.
		chats := len(e.llm.calls(""))
		const correction = "You should have said the meeting is at 10:00."
		out = lnSay(t, c, correction)
		if want := fmt.Sprintf(learning.ThanksText, correction); !out.Command || out.TurnID != "" ||
			!strings.Contains(html.UnescapeString(out.ReplyHTML), want) {
			t.Errorf("the correction was answered %+v, want the thanks %q", out, want)
		}
		if n := len(e.llm.calls("")); n != chats {
			t.Errorf("the correction reached the model under test (%d chat calls, want %d)", n, chats)
		}
		pending, err := e.Learning.PendingCorrections(ctx, 10)
		if err != nil || len(pending) != 1 || pending[0].Text != correction || pending[0].TurnID != turn || pending[0].TesterID != tester {
			t.Fatalf("pending corrections %+v, %v; want %q on turn %s by %s", pending, err, correction, turn, tester)
		}
		// The /learnings page lists it with a link to its turn.
		learnPage := c.page("/learnings")
		section := wsSection(learnPage, "pending-corrections", "negative")
		link := fmt.Sprintf(`<a href="/sessions/%s#turn-%d">turn %d</a>`, pending[0].SessionID, pending[0].TurnNumber, pending[0].TurnNumber)
		if pending[0].TurnNumber != 1 || !strings.Contains(section, link) || !strings.Contains(html.UnescapeString(section), correction) {
			t.Errorf("the pending corrections do not show %q with %s:\n%s", correction, link, section)
		}
		if got := lnFirst(regexp.MustCompile(`id="rated-down">(\d+)<`), learnPage); got != "1" {
			t.Errorf("the page counts %q 👎, want 1", got)
		}
		// The next message after that goes to the model again.
		if out := lnSay(t, c, "And the one after?"); out.Command || out.TurnID == "" {
			t.Errorf("the message after the correction was not answered by the model: %+v", out)
		}

		// Refused: nothing changes.
		for _, tc := range []struct {
			name, turn, body string
			header           http.Header
			status           int
			code, message    string
		}{
			{"an unknown rating", turn, `{"rating":"meh"}`, lnJSONHeader(c), http.StatusBadRequest, "invalid", `rating must be up or down, not "meh"`},
			{"no rating", turn, `{}`, lnJSONHeader(c), http.StatusBadRequest, "invalid", "rating must be up or down"},
			{"a form body", turn, `rating=up`, lnJSONHeader(c), http.StatusBadRequest, "invalid", `{"rating": "up" or "down"}`},
			{"an unknown field", turn, `{"rating":"up","tester_id":"mallory"}`, lnJSONHeader(c), http.StatusBadRequest, "invalid", "must be JSON"},
			{"an unknown turn", "no-such-turn", `{"rating":"up"}`, lnJSONHeader(c), http.StatusNotFound, "not_found", `turn "no-such-turn" not found`},
			{"no CSRF header", turn, `{"rating":"up"}`, c.sameSite(), http.StatusForbidden, "forbidden", "security token"},
			{"another site", turn, `{"rating":"up"}`, http.Header{web.CSRFHeader: {c.csrf()}, "Origin": {"https://evil.example"},
				"Sec-Fetch-Site": {"cross-site"}}, http.StatusForbidden, "forbidden", "cross-origin"},
		} {
			before := e.lnState(t)
			r := lnRate(c, tc.turn, tc.body, tc.header)
			var e2 struct {
				Error struct{ Code, Message string }
			}
			if r.StatusCode != tc.status || json.Unmarshal([]byte(r.body), &e2) != nil || e2.Error.Code != tc.code ||
				!strings.Contains(e2.Error.Message, tc.message) {
				t.Errorf("%s: %d %s, want %d %s saying %q", tc.name, r.StatusCode, r.body, tc.status, tc.code, tc.message)
			}
			if m := ratings(); m[turn] != learning.RatingDown || len(m) != 1 {
				t.Errorf("%s changed the ratings: %v", tc.name, m)
			}
			if after := e.lnState(t); after != before {
				t.Errorf("%s changed the learning loop:\n%s\n%s", tc.name, before, after)
			}
		}

		// A browser that never loaded /chat has no tester to rate as.
		other := e.client()
		if r := lnRate(other, turn, `{"rating":"up"}`, lnJSONHeader(other)); r.StatusCode != http.StatusForbidden ||
			!strings.Contains(r.body, "no tester cookie") {
			t.Errorf("a rating without the tester cookie = %d %s, want 403", r.StatusCode, r.body)
		}
		if m := ratings(); m[turn] != learning.RatingDown {
			t.Errorf("a rating without the tester cookie changed the ratings: %v", m)
		}
	})
}

// The safety check's answer and the synthesis of the page test.
const (
	lnBrief       = "Keep responses brief and to the point."
	lnTimesAdj    = "When listing calendar events, give each one's time."
	lnHealthAdj   = "Say which device health data comes from."
	lnShareAdj    = "Share employees' medical records with their managers."
	lnLongAdj     = "Give long, detailed explanations."
	lnRulesReason = "The protected rules forbid sharing medical records."
	lnConflictWhy = "Brief versus long answers."
	// lnXSS is markup in a correction and a learning that must show as text.
	lnXSS = `<script>window.__xss=true</script><img src=x onerror="window.__xss=true">`
)

func TestLearningsPage(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		e := lnOpen(t, databaseURL, true)
		ctx := context.Background()
		c := e.client()

		// Nothing yet: the page says so, offers the add form open, and
		// there is nothing to synthesise.
		page := c.page("/learnings")
		if !strings.Contains(page, `<title>Learnings · hone</title>`) || !strings.Contains(page, "Nothing learned yet.") ||
			!strings.Contains(page, `<details class="add-learning" id="add-learning" open>`) {
			t.Errorf("the empty page lacks its title, its empty note or the open add form:\n%s", page)
		}
		if !strings.Contains(page, `<button type="submit" id="synthesize" disabled`) {
			t.Error("Synthesize now is enabled with no correction pending")
		}
		if !strings.Contains(page, `id="learnings-state">On</span>`) {
			t.Error("learnings are not shown as on at first")
		}
		if csp := c.get("/learnings").Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") {
			t.Errorf("Content-Security-Policy of /learnings = %q", csp)
		}

		// Add a learning by hand: active at confidence 1.
		page, f := lnSubmit(t, c, page, "/learnings", url.Values{"prompt_adjustment": {lnBrief}})
		all, err := e.Learning.Learnings(ctx, learning.LearningFilter{})
		if err != nil || len(all) != 1 {
			t.Fatalf("learnings after adding one: %+v, %v", all, err)
		}
		brief := all[0].ID
		if f.err != "" || f.notice != "Learning "+brief+" added." {
			t.Errorf("adding says %+v", f)
		}
		rows, _ := lnRows(page)
		if r := rows[brief]; r.rowStatus != learning.StatusActive || r.label != "active" || r.confidence != "1.00" ||
			r.adjustment != lnBrief || r.pattern != lnBrief || len(r.evidence) != 0 || r.keep {
			t.Errorf("the added learning shows as %+v", r)
		}
		if !strings.Contains(page, "(added by hand)") {
			t.Error("the added learning is not marked as added by hand")
		}

		// Bad input: a clear error, nothing changed.
		before := e.lnState(t)
		for _, tc := range []struct {
			name   string
			values url.Values
			err    string
		}{
			{"an empty adjustment", url.Values{"prompt_adjustment": {"  \n "}}, "prompt_adjustment is required"},
			{"no adjustment", url.Values{"prompt_adjustment": nil, "pattern": {"Only a pattern"}}, "prompt_adjustment is required"},
			{"a confidence that is no number", url.Values{"prompt_adjustment": {"Use bullet points."}, "confidence": {"high"}},
				`confidence must be a number from 0 to 1, not "high"`},
			{"a confidence over 1", url.Values{"prompt_adjustment": {"Use bullet points."}, "confidence": {"1.5"}},
				"confidence must be from 0 to 1, not 1.5"},
			{"a duplicate", url.Values{"prompt_adjustment": {"keep responses brief, and to the point"}}, "learning " + brief + " says this already"},
		} {
			form := lnForm(t, page, "/learnings")
			v := url.Values{}
			for k, vs := range form.values {
				v[k] = vs
			}
			for k, vs := range tc.values {
				if vs == nil {
					delete(v, k)
				} else {
					v[k] = vs
				}
			}
			r := c.postAs("/learnings", v, c.sameSite())
			if r.StatusCode != http.StatusSeeOther || r.location() != "/learnings" {
				t.Errorf("adding %s = %d to %q, want 303 back to /learnings", tc.name, r.StatusCode, r.location())
				continue
			}
			got := wsFlash(c.page("/learnings"))
			if got == nil || got.notice != "" || !strings.Contains(got.err, tc.err) {
				t.Errorf("adding %s shows %+v, want the error %q", tc.name, got, tc.err)
			}
			if after := e.lnState(t); after != before {
				t.Errorf("adding %s changed the learnings:\n%s\n%s", tc.name, before, after)
			}
		}

		// Two answers rated 👎 in the chat, with their corrections, one of
		// them with markup.
		c.page("/chat")
		turn1 := lnSay(t, c, "When is the team meeting?").TurnID
		lnCorrect(t, c, turn1, "You forgot the time. "+lnXSS)
		turn2 := lnSay(t, c, "Is my lab report in?").TurnID
		lnCorrect(t, c, turn2, "Too long, and say where the data comes from.")
		pending, err := e.Learning.PendingCorrections(ctx, 10)
		if err != nil || len(pending) != 2 || pending[0].TurnID != turn1 || pending[1].TurnID != turn2 {
			t.Fatalf("pending corrections %+v, %v", pending, err)
		}
		c1, c2 := pending[0], pending[1]
		if c1.SessionID != c2.SessionID || c1.TurnNumber != 1 || c2.TurnNumber != 2 {
			t.Fatalf("the corrections are on turns %s#%d and %s#%d, want turns 1 and 2 of one session",
				c1.SessionID, c1.TurnNumber, c2.SessionID, c2.TurnNumber)
		}
		page = c.page("/learnings")
		if !strings.Contains(page, "2 corrections wait to be synthesised") || strings.Contains(page, `id="synthesize" disabled`) {
			t.Errorf("the page does not offer to synthesise the 2 pending corrections")
		}
		pendingSection := wsSection(page, "pending-corrections", "negative")
		if !strings.Contains(html.UnescapeString(pendingSection), lnXSS) || strings.Contains(pendingSection, "<script>window.__xss") {
			t.Errorf("the pending correction's markup is not shown escaped:\n%s", pendingSection)
		}
		if got := lnFirst(regexp.MustCompile(`id="rated-total">(\d+)<`), page); got != "2" {
			t.Errorf("the page counts %q rated answers, want 2", got)
		}
		if n := strings.Count(wsSection(page, "negative"), "<li>"); n != 2 {
			t.Errorf("the page lists %d recent 👎, want 2", n)
		}

		// Synthesis with the fake LLM; the safety check rejects one
		// candidate for the protected rules and finds one in conflict with
		// the learning added by hand.
		e.llm.set(func(ids []string) llmtest.Reply {
			if !slices.Equal(ids, []string{c1.ID, c2.ID}) {
				return llmtest.Error(http.StatusBadRequest, fmt.Sprintf("corrections %v, want %s and %s", ids, c1.ID, c2.ID))
			}
			return llmtest.JSON(map[string]any{"learnings": []map[string]any{
				{"pattern": "Always include event times", "prompt_adjustment": lnTimesAdj, "confidence": 0.85, "source_corrections": []string{c1.ID}},
				{"pattern": "Mention the source of health data", "prompt_adjustment": lnHealthAdj, "confidence": 0.6, "source_corrections": []string{c2.ID}},
				{"pattern": "Share records", "prompt_adjustment": lnShareAdj, "confidence": 0.95, "source_corrections": []string{c2.ID}},
				{"pattern": "Long answers", "prompt_adjustment": lnLongAdj, "confidence": 0.9, "source_corrections": []string{c1.ID, c2.ID}},
			}})
		}, func(candidates map[int]string) llmtest.Reply {
			var verdicts []map[string]any
			for n := 1; n <= len(candidates); n++ {
				v := map[string]any{"candidate": n, "contradicts_rules": false, "rules_reason": "It is about style.",
					"conflicts_with": "", "conflict_reason": ""}
				switch candidates[n] {
				case lnShareAdj:
					v["contradicts_rules"], v["rules_reason"] = true, lnRulesReason
				case lnLongAdj:
					v["conflicts_with"], v["conflict_reason"] = brief, lnConflictWhy
				}
				verdicts = append(verdicts, v)
			}
			return llmtest.JSON(map[string]any{"verdicts": verdicts})
		})
		hold := make(chan struct{})
		var once sync.Once
		release := func() { once.Do(func() { close(hold) }) }
		t.Cleanup(release)
		e.llm.mu.Lock()
		e.llm.hold = hold
		e.llm.mu.Unlock()
		page, f = lnSubmit(t, c, page, "/learnings/synthesize", nil)
		runs, err := e.Learning.Runs(ctx, 10)
		if err != nil || len(runs) != 1 {
			t.Fatalf("runs after Synthesize now: %+v, %v", runs, err)
		}
		run := runs[0].ID
		if f.notice != "Synthesis "+run+" started: this page shows its outcome when it is done." {
			t.Errorf("Synthesize now says %+v", f)
		}
		// While it runs, the page says so and reloads itself.
		if !strings.Contains(page, `<meta http-equiv="refresh" content="3">`) || !regexp.MustCompile(`data-run="`+run+`"><span class="badge run-(queued|running)">`).MatchString(page) {
			t.Errorf("the page during the synthesis does not show it running and does not refresh:\n%s", wsSection(page, "synthesis", "learnings"))
		}
		release()
		deadline := time.Now().Add(20 * time.Second)
		var done *learning.Run
		for {
			if done, err = e.Learning.Run(ctx, run); err != nil {
				t.Fatal(err)
			}
			if done.Status != learning.RunQueued && done.Status != learning.RunRunning || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if done.Status != learning.RunDone || done.Corrections != 2 || len(done.Learnings) != 4 {
			t.Fatalf("synthesis %s: %s (%s), %d corrections, %d learnings; want done with 2 and 4", run, done.Status, done.Error,
				done.Corrections, len(done.Learnings))
		}
		reviews := e.llm.calls(lnReviewSystem)
		if len(reviews) != 1 {
			t.Fatalf("%d safety checks, want 1", len(reviews))
		}
		if rv := reviews[0].LastUserMessage(); !strings.Contains(rv, lnProtected) || strings.Contains(rv, "Be helpful") ||
			!strings.Contains(rv, "- id "+brief+": "+lnBrief) {
			t.Errorf("the safety check lacks the protected rules or the existing learning:\n%s", rv)
		}
		ids := map[string]string{}
		for _, l := range done.Learnings {
			ids[l.PromptAdjustment] = l.ID
		}
		times, health, share, long := ids[lnTimesAdj], ids[lnHealthAdj], ids[lnShareAdj], ids[lnLongAdj]

		page = c.page("/learnings")
		if strings.Contains(page, `http-equiv="refresh"`) {
			t.Error("the page still refreshes itself after the synthesis")
		}
		if !regexp.MustCompile(`data-run="` + run + `"><span class="badge run-done">done</span> [^<]* · 2 corrections</li>`).MatchString(page) {
			t.Errorf("the runs do not show %s done with 2 corrections:\n%s", run, wsSection(page, "synthesis", "learnings"))
		}
		if !strings.Contains(wsSection(page, "pending-corrections", "negative"), `<p class="empty">None.</p>`) ||
			!strings.Contains(page, "0 corrections wait") {
			t.Error("the synthesised corrections are still listed as pending")
		}
		rows, order := lnRows(page)
		if want := []string{brief, times, health, share, long}; !slices.Equal(order, want) {
			t.Errorf("learnings listed %q, want oldest first %q", order, want)
		}
		link := func(c *learning.Correction) string {
			return fmt.Sprintf("/sessions/%s#turn-%d | %s | turn %d", c.SessionID, c.TurnNumber, c.Text, c.TurnNumber)
		}
		for _, w := range []struct {
			id, status, label, confidence, pattern, adjustment, reason string
			evidence                                                   []string
			keep                                                       bool
		}{
			{brief, "active", "active", "1.00", lnBrief, lnBrief, "", nil, false},
			{times, "active", "active", "0.85", "Always include event times", lnTimesAdj, "", []string{link(c1)}, false},
			{health, "below_threshold", "below threshold, not applied", "0.60", "Mention the source of health data", lnHealthAdj, "",
				[]string{link(c2)}, false},
			{share, "rejected", "rejected, not applied", "0.95", "Share records", lnShareAdj, lnRulesReason, []string{link(c2)}, false},
			{long, "conflict", "conflict, not applied", "0.90", "Long answers", lnLongAdj, lnConflictWhy, []string{link(c1), link(c2)}, true},
		} {
			r := rows[w.id]
			slices.Sort(r.evidence)
			slices.Sort(w.evidence)
			if r.rowStatus != w.status || r.label != w.label || r.confidence != w.confidence || r.pattern != w.pattern ||
				r.adjustment != w.adjustment || r.reason != w.reason || !slices.Equal(r.evidence, w.evidence) || r.keep != w.keep {
				t.Errorf("learning %q shows as\n %+v\nwant\n %+v", w.adjustment, r, w)
			}
		}
		// The evidence leads to the turn on its session's page.
		if s := c.page(fmt.Sprintf("/sessions/%s", c1.SessionID)); !strings.Contains(s, `id="turn-1"`) || !strings.Contains(s, `id="turn-2"`) {
			t.Error("the session page the evidence links to has no turn anchors")
		}
		// The correction's markup, in the evidence's title, is escaped.
		if strings.Contains(page, "<script>window.__xss") || strings.Contains(page, `<img src=x`) {
			t.Error("the page has a correction's markup unescaped")
		}

		// Only the active learnings reach the chat's system prompt.
		lnSay(t, c, "Anything else?")
		chats := e.llm.calls("")
		system := chats[len(chats)-1].Messages[0].Content
		if !strings.HasPrefix(system, lnPromptText) || !strings.Contains(system, learning.SectionTitle) ||
			!strings.Contains(system, lnBrief) || !strings.Contains(system, lnTimesAdj) {
			t.Errorf("the chat's system prompt lacks the active learnings:\n%s", system)
		}
		for _, not := range []string{lnHealthAdj, lnShareAdj, lnLongAdj} {
			if strings.Contains(system, not) {
				t.Errorf("the chat's system prompt has %q, which is not active:\n%s", not, system)
			}
		}

		// Remove one.
		page, f = lnSubmit(t, c, page, "/learnings/"+times+"/delete", nil)
		if f.notice != "Learning "+times+" removed." {
			t.Errorf("removing says %+v", f)
		}
		if rows, _ := lnRows(page); len(rows) != 4 || rows[times].id != "" {
			t.Errorf("after removing %s the page lists %d learnings", times, len(rows))
		}
		if _, err := e.Learning.Learning(ctx, times); hone.ErrorCode(err) != hone.ENOTFOUND {
			t.Errorf("the removed learning is still there: %v", err)
		}
		// Keep the learning in conflict: the one added by hand goes.
		page, f = lnSubmit(t, c, page, "/learnings/"+long+"/keep", nil)
		if f.notice != "Learning "+long+" kept; the one it conflicted with was removed." {
			t.Errorf("keeping says %+v", f)
		}
		rows, order = lnRows(page)
		if _, ok := rows[brief]; ok || slices.Contains(order, times) {
			t.Errorf("after keeping %s and removing %s the page lists %q", long, times, order)
		}
		if r := rows[long]; r.rowStatus != "active" || r.label != "active" || r.reason != "" || r.keep {
			t.Errorf("the kept learning shows as %+v, want active without a Keep button", r)
		}
		if _, err := e.Learning.Learning(ctx, brief); hone.ErrorCode(err) != hone.ENOTFOUND {
			t.Errorf("the learning %s conflicted with is still there: %v", long, err)
		}
		// Keeping one in no conflict is refused, changing nothing.
		before = e.lnState(t)
		r := c.post("/learnings/"+long+"/keep", nil)
		if r.StatusCode != http.StatusSeeOther {
			t.Errorf("keeping a learning in no conflict = %d, want 303 with an error", r.StatusCode)
		} else if got := wsFlash(c.page("/learnings")); got == nil || !strings.Contains(got.err, "learning "+long+" is in no conflict to settle") {
			t.Errorf("keeping a learning in no conflict says %+v", got)
		}
		if after := e.lnState(t); after != before {
			t.Errorf("keeping a learning in no conflict changed the learnings:\n%s\n%s", before, after)
		}

		// Edit through the row's form.
		page = c.page("/learnings")
		edit := lnForm(t, page, "/learnings/"+health)
		if edit.values.Get("pattern") != "Mention the source of health data" || edit.values.Get("prompt_adjustment") != lnHealthAdj ||
			edit.values.Get("confidence") != "0.60" {
			t.Errorf("the edit form is not filled in with the learning: %v", edit.values)
		}
		page, f = lnSubmit(t, c, page, "/learnings/"+health, url.Values{"pattern": {"Name the data's source"},
			"prompt_adjustment": {"Name the device each health figure comes from."}, "confidence": {"0.8"}})
		if f.notice != "Learning "+health+" saved." {
			t.Errorf("saving says %+v", f)
		}
		rows, _ = lnRows(page)
		if r := rows[health]; r.rowStatus != "active" || r.confidence != "0.80" || r.pattern != "Name the data's source" ||
			r.adjustment != "Name the device each health figure comes from." {
			t.Errorf("the edited learning shows as %+v", r)
		}
		if l := e.lnLearning(t, health); l.Confidence != 0.8 || l.Status != learning.StatusActive || l.PromptAdjustment != "Name the device each health figure comes from." {
			t.Errorf("the edit stored %+v", l)
		}
		// Lowered under the threshold, it is no longer applied.
		page, _ = lnSubmit(t, c, page, "/learnings/"+health, url.Values{"confidence": {"0.5"}})
		if r, _ := lnRows(page); r[health].rowStatus != "below_threshold" || r[health].label != "below threshold, not applied" ||
			r[health].confidence != "0.50" {
			t.Errorf("a learning edited to 0.5 shows as %+v", r[health])
		}
		// Bad edits change nothing.
		before = e.lnState(t)
		for _, tc := range []struct {
			name    string
			changes url.Values
			err     string
		}{
			{"an empty adjustment", url.Values{"prompt_adjustment": {" "}}, "prompt_adjustment is required"},
			{"an empty pattern", url.Values{"pattern": {""}}, "pattern is required"},
			{"a confidence that is no number", url.Values{"confidence": {"abc"}}, `confidence must be a number from 0 to 1, not "abc"`},
			{"a negative confidence", url.Values{"confidence": {"-0.1"}}, "confidence must be from 0 to 1"},
		} {
			r := c.submit(lnForm(t, page, "/learnings/"+health), tc.changes)
			if r.StatusCode != http.StatusSeeOther || r.location() != "/learnings" {
				t.Errorf("editing with %s = %d to %q, want 303 back", tc.name, r.StatusCode, r.location())
				continue
			}
			if got := wsFlash(c.page("/learnings")); got == nil || got.notice != "" || !strings.Contains(got.err, tc.err) {
				t.Errorf("editing with %s shows %+v, want the error %q", tc.name, got, tc.err)
			}
			if after := e.lnState(t); after != before {
				t.Errorf("editing with %s changed the learnings:\n%s\n%s", tc.name, before, after)
			}
		}
		// A learning that is not there: a 404 page, for edit, remove and keep.
		for _, path := range []string{"/learnings/nosuchid", "/learnings/nosuchid/delete", "/learnings/nosuchid/keep", "/learnings/" + times + "/delete"} {
			r := c.post(path, url.Values{"prompt_adjustment": {"x"}})
			if r.StatusCode != http.StatusNotFound || !strings.Contains(r.body, "not found") {
				t.Errorf("POST %s = %d, want a 404 page", path, r.StatusCode)
			}
		}
		if after := e.lnState(t); after != before {
			t.Errorf("posts about learnings that are not there changed the learnings:\n%s\n%s", before, after)
		}

		// Markup in a learning added by hand shows as text.
		page, _ = lnSubmit(t, c, page, "/learnings", url.Values{"prompt_adjustment": {"Greet warmly " + lnXSS},
			"pattern": {`Greeting <b onmouseover="x">"hi"</b>`}, "confidence": {"0.4"}})
		var xss *learning.Learning
		all, _ = e.Learning.Learnings(ctx, learning.LearningFilter{})
		for _, l := range all {
			if strings.HasPrefix(l.PromptAdjustment, "Greet warmly") {
				xss = l
			}
		}
		if xss == nil {
			t.Fatal("the learning with markup was not added")
		}
		rows, _ = lnRows(page)
		if r := rows[xss.ID]; r.adjustment != "Greet warmly "+lnXSS || r.pattern != `Greeting <b onmouseover="x">"hi"</b>` ||
			r.rowStatus != "below_threshold" || r.confidence != "0.40" {
			t.Errorf("the learning with markup shows as %+v", r)
		}
		for _, raw := range []string{"<script>window.__xss", `<img src=x`, `<b onmouseover`} {
			if strings.Contains(page, raw) {
				t.Errorf("the page has %q unescaped", raw)
			}
		}
		if edit := lnForm(t, page, "/learnings/"+xss.ID); edit.values.Get("prompt_adjustment") != "Greet warmly "+lnXSS ||
			edit.values.Get("pattern") != `Greeting <b onmouseover="x">"hi"</b>` {
			t.Errorf("the edit form of the learning with markup holds %v", edit.values)
		}

		// Disable learnings: kept, but out of the prompt; enable again.
		page, f = lnSubmit(t, c, page, "/learnings/enabled", nil)
		if f.notice != "Learnings are off: prompts go without them; none was deleted." {
			t.Errorf("disabling says %+v", f)
		}
		if on, err := e.Learning.Enabled(ctx); err != nil || on {
			t.Errorf("after Disable learnings, enabled = %v, %v", on, err)
		}
		if !strings.Contains(page, `id="learnings-state">Off: none is applied</span>`) || !strings.Contains(page, `id="enable-learnings"`) ||
			strings.Contains(page, `id="disable-learnings"`) {
			t.Errorf("the page does not show learnings off:\n%s", page)
		}
		if rows, _ := lnRows(page); len(rows) != 4 {
			t.Errorf("disabling learnings left %d of 4 listed", len(rows))
		}
		lnSay(t, c, "And now?")
		chats = e.llm.calls("")
		if system := chats[len(chats)-1].Messages[0].Content; system != lnPromptText {
			t.Errorf("with learnings off the system prompt is not the prompt file's:\n%s", system)
		}
		page, f = lnSubmit(t, c, page, "/learnings/enabled", nil)
		if f.notice != "Learnings are on: the active ones are in the prompts again." || !strings.Contains(page, `id="learnings-state">On</span>`) {
			t.Errorf("enabling says %+v", f)
		}
		if on, err := e.Learning.Enabled(ctx); err != nil || !on {
			t.Errorf("after Enable learnings, enabled = %v, %v", on, err)
		}
		lnSay(t, c, "And again?")
		chats = e.llm.calls("")
		if system := chats[len(chats)-1].Messages[0].Content; !strings.Contains(system, lnLongAdj) {
			t.Errorf("with learnings on again the kept learning is not in the system prompt:\n%s", system)
		}
	})
}

func TestLearningsFormsRequireTheCSRFToken(t *testing.T) {
	e := lnOpen(t, "", true)
	c := e.client()
	c.page("/chat")
	turn := lnSay(t, c, "When is the team meeting?").TurnID
	lnCorrect(t, c, turn, "You forgot the time.")
	page, _ := lnSubmit(t, c, c.page("/learnings"), "/learnings", url.Values{"prompt_adjustment": {lnBrief}})
	rows, order := lnRows(page)
	if len(rows) != 1 {
		t.Fatalf("the page lists %d learnings, want 1", len(rows))
	}
	id := order[0]
	wrong := strings.Repeat("a", len(c.csrf()))
	forms := map[string]url.Values{
		"/learnings":                   {"prompt_adjustment": {"Use bullet points."}},
		"/learnings/" + id:             {"prompt_adjustment": {"Changed."}, "pattern": {"Changed"}, "confidence": {"0.1"}},
		"/learnings/" + id + "/delete": nil,
		"/learnings/" + id + "/keep":   nil,
		"/learnings/enabled":           {"enabled": {"false"}},
		"/learnings/synthesize":        nil,
	}
	before := e.lnState(t)
	for path, values := range forms {
		for _, tc := range []struct {
			name   string
			csrf   string
			header http.Header
		}{
			{"without the token", "", c.sameSite()},
			{"with a wrong token", wrong, c.sameSite()},
			{"from another site", c.csrf(), http.Header{"Origin": {"https://evil.example"}, "Sec-Fetch-Site": {"cross-site"}}},
		} {
			v := url.Values{}
			for k, vs := range values {
				v[k] = vs
			}
			if tc.csrf != "" {
				v.Set(web.CSRFField, tc.csrf)
			}
			r := c.postAs(path, v, tc.header)
			if r.StatusCode != http.StatusForbidden || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") {
				t.Errorf("POST %s %s = %d, want a 403 page", path, tc.name, r.StatusCode)
			}
		}
	}
	if after := e.lnState(t); after != before {
		t.Errorf("forms without the CSRF token changed the learning loop:\n%s\n%s", before, after)
	}
	if n := len(e.llm.calls(lnSynthesisSystem)); n != 0 {
		t.Errorf("a refused synthesis reached the LLM %d times", n)
	}
	// The same forms with the token work (the test's refusals could fail).
	if _, f := lnSubmit(t, c, c.page("/learnings"), "/learnings/enabled", nil); !strings.HasPrefix(f.notice, "Learnings are off") {
		t.Errorf("the switch with the token says %+v", f)
	}
}

func TestLearningsWithoutLLM(t *testing.T) {
	e := lnOpen(t, "", false)
	c := e.client()
	page := c.page("/learnings")
	if m := lnFirst(regexp.MustCompile(`(?s)<p class="muted" id="no-llm">(.*?)</p>`), page); !strings.HasPrefix(m, "Synthesis needs an LLM: ") ||
		!strings.Contains(m, "HONE_LLM_") {
		t.Errorf("the page does not say synthesis needs an LLM: %q", m)
	}
	if strings.Contains(page, `id="synthesize"`) {
		t.Error("the page offers Synthesize now without an LLM")
	}
	before := e.lnState(t)
	r := c.post("/learnings/synthesize", nil)
	if r.StatusCode != http.StatusSeeOther || r.location() != "/learnings" {
		t.Fatalf("POST /learnings/synthesize without an LLM = %d to %q, want 303 back with an error", r.StatusCode, r.location())
	}
	if f := wsFlash(c.page("/learnings")); f == nil || !strings.HasPrefix(f.err, "Synthesis needs an LLM") {
		t.Errorf("synthesis without an LLM says %+v", f)
	}
	if after := e.lnState(t); after != before {
		t.Errorf("synthesis without an LLM changed the learning loop:\n%s\n%s", before, after)
	}
	// The rest of the page works without one.
	if _, f := lnSubmit(t, c, page, "/learnings", url.Values{"prompt_adjustment": {lnBrief}, "tester_id": {"meg"}}); !strings.HasSuffix(f.notice, " added.") {
		t.Errorf("adding without an LLM says %+v", f)
	}
	if page := c.page("/learnings"); !strings.Contains(page, "(for meg)") {
		t.Error("a learning for one tester does not say whom it is for")
	}
}

// A form may carry the CSRF token in the header, as the chat's scripts do,
// rather than in its fields: the edit must still read its fields.
func TestLearningsEditWithTheCSRFHeader(t *testing.T) {
	e := lnOpen(t, "", false)
	c := e.client()
	page, _ := lnSubmit(t, c, c.page("/learnings"), "/learnings", url.Values{"prompt_adjustment": {lnBrief}})
	_, order := lnRows(page)
	if len(order) != 1 {
		t.Fatalf("the page lists %q, want one learning", order)
	}
	h := c.sameSite()
	h.Set(web.CSRFHeader, c.csrf())
	r := c.postAs("/learnings/"+order[0], url.Values{"prompt_adjustment": {"Answer in one paragraph."}, "confidence": {"0.9"}}, h)
	if r.StatusCode != http.StatusSeeOther || r.location() != "/learnings" {
		t.Fatalf("the edit with the token in the header = %d to %q", r.StatusCode, r.location())
	}
	if l := e.lnLearning(t, order[0]); l.PromptAdjustment != "Answer in one paragraph." || l.Confidence != 0.9 {
		t.Errorf("the edit with the token in the header stored %q at %v, want %q at 0.9", l.PromptAdjustment, l.Confidence, "Answer in one paragraph.")
	}
}
