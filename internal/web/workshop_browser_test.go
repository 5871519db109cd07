package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/honehq/hone/internal/app"
	"github.com/honehq/hone/internal/browsertest"
	"github.com/honehq/hone/internal/llm"
	"github.com/honehq/hone/internal/llm/llmtest"
	"github.com/honehq/hone/internal/workshop"
)

// The workshop's browser tests walk facilitators and participants, each in
// a browser context of their own, through discovery against a fake LLM.

// bwTimeout bounds the browser of one workshop test: a whole workshop on a
// busy machine takes longer than browsertest.TestTimeout.
const bwTimeout = 3 * time.Minute

// bwPageWait bounds a wait for a page that follows an action, through its
// redirects and the follow-up question it asks by itself.
const bwPageWait = 15 * time.Second

// Markup in a trace and a comment that must be shown as text, never run.
const (
	bwXSSInput   = `Can I get a refund after 45 days? <img src=x onerror="window.__xss=true"><script>window.__xss=true</script>`
	bwXSSComment = `Polite, but <img src=x onerror="window.__xss=true"> <script>window.__xss=true</script> it gets the refund window wrong`
)

// bwTraces are the traces the workshop tests import, as JSONL; the first
// carries markup that must not run.
func bwTraces(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for _, tr := range []map[string]string{
		{"id": "t-refund", "input": bwXSSInput, "output": "Refunds are possible within **60 days** of purchase."},
		{"id": "t-hours", "input": "When are you open?", "output": "We are open from 9 to 5, Monday to Friday."},
		{"id": "t-extra", "input": "Do you ship abroad?", "output": "Yes, to 40 countries."},
	} {
		line, err := json.Marshal(tr)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.String()
}

// Texts the fake LLM distils: two findings, and its analysis of the HIGH
// and MEDIUM disagreements of the traces the participants split on.
const (
	bwFinding       = "Name the refund policy and its exact window"
	bwFinding2      = "Give opening hours with the time zone"
	bwHighSummary   = "Pat found the tone fine; Quinn says the refund window is wrong"
	bwHighTheme     = "Factual accuracy of policy details outweighs politeness"
	bwMediumSummary = "Both want the time zone, for different reasons"
	bwQuinnComment  = "It states a 60 day window; ours is 30 days."
)

// bwLLM is the fake model of the workshop tests. It asks follow-up
// questions that say their number, the label they ask about and a serial
// number; distils bwFinding and bwFinding2 with an analysis of each
// disagreement; and groups the draft items: the finding in "Policy
// accuracy", the others in "Tone". Hone reaches it through a gate that
// can hold its calls.
type bwLLM struct {
	*llmtest.Server
	// fail makes follow-up questions fail with HTTP 500.
	fail  atomic.Bool
	asked atomic.Int64

	mu   sync.Mutex
	held map[string]chan struct{}
}

// System prompts by which the fake tells the calls apart.
const (
	bwFollowupSystem = "You are a senior UX researcher"
	bwDistillSystem  = "Analyze participant feedback"
	bwSuggestSystem  = "Cluster related draft rubric items"
)

var (
	bwAnsweredRE = regexp.MustCompile(`(?m)^A\d+: `)
	bwLabelRE    = regexp.MustCompile(`(?m)^Label: (\w+)$`)
	bwItemRE     = regexp.MustCompile(`(?m)^- id (\S+): (.*)$`)
)

func bwNewLLM(t *testing.T) *bwLLM {
	f := &bwLLM{Server: llmtest.New(t), held: map[string]chan struct{}{}}
	f.SetHandler(f.reply)
	return f
}

// bwQuestion is the start of the follow-up question number n about a label.
func bwQuestion(n int, label string) string {
	return fmt.Sprintf("Follow-up %d on your %s rating:", n, strings.ToUpper(label))
}

func (f *bwLLM) reply(req llmtest.ChatRequest) llmtest.Reply {
	if len(req.Messages) == 0 {
		return llmtest.Error(http.StatusBadRequest, "no messages")
	}
	system, user := req.Messages[0].Content, req.LastUserMessage()
	switch {
	case strings.HasPrefix(system, bwFollowupSystem):
		if f.fail.Load() {
			return llmtest.Error(http.StatusInternalServerError, "upstream exploded")
		}
		label := "?"
		if m := bwLabelRE.FindStringSubmatch(user); m != nil {
			label = m[1]
		}
		n := 1 + len(bwAnsweredRE.FindAllString(user, -1))
		return llmtest.Text(fmt.Sprintf("%s which sentence of the answer decided it? (#%d)", bwQuestion(n, label), f.asked.Add(1)))
	case strings.HasPrefix(system, bwDistillSystem):
		return llmtest.JSON(workshop.DistillationOutput{
			Findings: []workshop.Finding{
				{Text: bwFinding, EvidenceTraceIDs: []string{"t-refund"}, Priority: "high"},
				{Text: bwFinding2, EvidenceTraceIDs: []string{"t-hours"}, Priority: "medium"},
			},
			HighPriorityDisagreements: []workshop.DisagreementAnalysis{{TraceID: "t-refund", Summary: bwHighSummary,
				UnderlyingTheme: bwHighTheme, FollowupQuestions: []string{"Which matters more here, tone or the facts?"},
				FacilitatorSuggestions: []string{"Agree that a wrong policy detail makes an answer BAD."}}},
			MediumPriorityDisagreements: []workshop.DisagreementAnalysis{{TraceID: "t-hours", Summary: bwMediumSummary,
				UnderlyingTheme: "Precision of opening hours", FollowupQuestions: []string{}, FacilitatorSuggestions: []string{}}},
			LowerPriorityDisagreements: []workshop.DisagreementAnalysis{},
			Summary:                    "Reviewers care most about **accurate** policy details.",
		})
	case strings.HasPrefix(system, bwSuggestSystem):
		accuracy := workshop.ProposedGroup{Name: "Policy accuracy", ItemIDs: []string{}, Rationale: "About getting the facts right"}
		tone := workshop.ProposedGroup{Name: "Tone", ItemIDs: []string{}, Rationale: "About how the answer sounds"}
		for _, m := range bwItemRE.FindAllStringSubmatch(user, -1) {
			if m[2] == bwFinding {
				accuracy.ItemIDs = append(accuracy.ItemIDs, m[1])
			} else {
				tone.ItemIDs = append(tone.ItemIDs, m[1])
			}
		}
		return llmtest.JSON(workshop.Grouping{Groups: []workshop.ProposedGroup{accuracy, tone}})
	}
	return llmtest.Error(http.StatusBadRequest, "the fake LLM does not know this request")
}

// followups counts the follow-up question requests the fake received.
func (f *bwLLM) followups() int {
	n := 0
	for _, r := range f.Requests() {
		if len(r.Messages) > 0 && strings.HasPrefix(r.Messages[0].Content, bwFollowupSystem) {
			n++
		}
	}
	return n
}

// hold makes the calls whose system prompt starts with system wait until
// release is called (or the test ends), so that a test sees what the pages
// show meanwhile, however slow the machine. One hold per system prompt at
// a time.
func (f *bwLLM) hold(system string) (release func()) {
	ch := make(chan struct{})
	f.mu.Lock()
	f.held[system] = ch
	f.mu.Unlock()
	return func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.held[system] == ch {
			delete(f.held, system)
			close(ch)
		}
	}
}

// releaseAll lets every held call through.
func (f *bwLLM) releaseAll() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for k, ch := range f.held {
		close(ch)
		delete(f.held, k)
	}
}

// gate serves the fake to hone, holding the calls hold asks for.
func (f *bwLLM) gate(t *testing.T) llm.Config {
	target, err := url.Parse(strings.TrimSuffix(f.URL, "/v1"))
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.ErrorLog = log.New(io.Discard, "", 0) // hone cancels calls as it stops
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var req llmtest.ChatRequest
		if json.Unmarshal(body, &req) == nil && len(req.Messages) > 0 {
			f.mu.Lock()
			var wait chan struct{}
			for system, ch := range f.held {
				if strings.HasPrefix(req.Messages[0].Content, system) {
					wait = ch
				}
			}
			f.mu.Unlock()
			if wait != nil {
				select {
				case <-wait:
				case <-r.Context().Done():
				case <-time.After(time.Minute):
				}
			}
		}
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	cfg := f.Config()
	cfg.BaseURL, cfg.Timeout = srv.URL+"/v1", time.Minute
	return cfg
}

// bwOpen starts hone over the fake LLM, listening.
func bwOpen(t *testing.T, databaseURL string) (*app.App, *bwLLM) {
	t.Helper()
	fake := bwNewLLM(t)
	a := openChatApp(t, databaseURL, fake.gate(t))
	t.Cleanup(fake.releaseAll)
	return a, fake
}

// bwSeeded is a workshop made through the service, in discovery.
type bwSeeded struct {
	ID              string
	FacilitatorLink string
	ParticipantLink string
	ParticipantID   string
}

// bwSeed makes a workshop with a facilitator and the participant Pat,
// imports bwTraces and starts discovery on the first limit traces.
func bwSeed(t *testing.T, a *app.App, limit int) bwSeeded {
	t.Helper()
	ctx := context.Background()
	c, err := a.Workshops.Create(ctx, workshop.Create{Name: "Seeded workshop", Facilitator: workshop.Person{Name: "Fran"}})
	if err != nil {
		t.Fatal(err)
	}
	p, err := a.Workshops.AddMember(ctx, c.ID, "", workshop.Person{Name: "Pat", Role: workshop.RoleParticipant})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Workshops.ImportTraces(ctx, c.ID, "", strings.NewReader(bwTraces(t)), workshop.FormatJSONL, false); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Workshops.Begin(ctx, c.ID, "", limit, false); err != nil {
		t.Fatal(err)
	}
	return bwSeeded{ID: c.ID, FacilitatorLink: c.Facilitator.JoinURL, ParticipantLink: p.JoinURL, ParticipantID: p.ID}
}

// bwJS quotes s for JavaScript.
func bwJS(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// bwTextContent is the textContent of the element sel, "" when there is none.
func bwTextContent(b *browsertest.Browser, sel string) string {
	return strings.Join(strings.Fields(browsertest.Eval[string](b, `document.querySelector(`+bwJS(sel)+`)?.textContent ?? ""`)), " ")
}

// bwDisabled reports whether the button sel is disabled.
func bwDisabled(b *browsertest.Browser, sel string) bool {
	return browsertest.Eval[bool](b, `document.querySelector(`+bwJS(sel)+`).disabled`)
}

// bwSetValue sets a field's value as typing it would, with input and change events.
func bwSetValue(b *browsertest.Browser, sel, value string) {
	browsertest.Eval[bool](b, `(() => { const e = document.querySelector(`+bwJS(sel)+`); e.value = `+bwJS(value)+`;
		e.dispatchEvent(new Event("input", {bubbles: true})); e.dispatchEvent(new Event("change", {bubbles: true})); return true; })()`)
}

// bwFlashLink is the link the flash shows, such as a member's join link.
func bwFlashLink(t *testing.T, b *browsertest.Browser) string {
	t.Helper()
	link := browsertest.Eval[string](b, `document.getElementById("flash-link")?.value ?? ""`)
	if link == "" {
		t.Fatalf("the page shows no link in its flash: %q", bwTextContent(b, "main"))
	}
	return link
}

// bwMark marks the document b shows, so that bwFresh tells the next one.
func bwMark(b *browsertest.Browser) {
	browsertest.Eval[bool](b, `window.__bwOld = true`)
}

// bwFresh holds on a loaded document that bwMark did not mark.
const bwFresh = `window.__bwOld === undefined && document.readyState === "complete"`

// bwRecordGenerating records, in the tab's session storage, what each
// page of a follow-up question being generated shows as it loads: such a
// page sends its request by itself at once, and the browser runs no test
// script while that request is under way, so the test reads the record
// afterwards (bwGeneratingPages).
const bwRecordGenerating = `document.addEventListener("DOMContentLoaded", () => {
	const g = document.getElementById("generating"), f = document.getElementById("question-form");
	if (!g || !f) return;
	const s = g.querySelector(".spinner");
	const seen = JSON.parse(sessionStorage.getItem("bwGenerating") || "[]");
	seen.push({Question: Number(f.elements.question_number.value), Visible: !g.hidden && g.getClientRects().length > 0,
		Text: g.textContent.trim(), Spinning: s !== null && getComputedStyle(s).animationName !== "none",
		Auto: f.hasAttribute("data-autosubmit"), Error: document.getElementById("llm-error") !== null});
	sessionStorage.setItem("bwGenerating", JSON.stringify(seen));
});`

// bwGenerating is what a page of a question being generated showed.
type bwGenerating struct {
	Question              int
	Visible               bool
	Text                  string
	Spinning, Auto, Error bool
}

// bwGeneratingPages returns the records of bwRecordGenerating and clears them.
func bwGeneratingPages(b *browsertest.Browser) []bwGenerating {
	return browsertest.Eval[[]bwGenerating](b, `(() => { const seen = JSON.parse(sessionStorage.getItem("bwGenerating") || "[]");
		sessionStorage.removeItem("bwGenerating"); return seen; })()`)
}

// bwQuestionText is the text of the element sel without its labels
// (.who), such as the question of #current-question.
func bwQuestionText(b *browsertest.Browser, sel string) string {
	return browsertest.Eval[string](b, `(() => { const e = document.querySelector(`+bwJS(sel)+`)?.cloneNode(true);
		if (!e) return ""; e.querySelectorAll(".who").forEach(w => w.remove()); return e.textContent.replace(/\s+/g, " ").trim(); })()`)
}

// bwQuestionShown waits for the answer form of question n and returns the
// question as the page shows it.
func bwQuestionShown(t *testing.T, b *browsertest.Browser, n int) string {
	t.Helper()
	head := fmt.Sprintf("Question %d of 3", n)
	b.WaitUntil(bwFresh+` && document.querySelector("#current-question .who")?.textContent.trim() === `+bwJS(head), bwPageWait)
	return bwQuestionText(b, "#current-question")
}

// bwGiveFeedback picks label ("Good" or "Bad"), writes the comment and
// submits them, checking that Submit Feedback waits for both; it returns
// when question 1 is shown.
func bwGiveFeedback(t *testing.T, b *browsertest.Browser, label, comment string) string {
	t.Helper()
	b.WaitVisible("#feedback-form")
	if got := bwTextContent(b, "#submit-feedback"); got != "Submit Feedback" {
		t.Errorf("the feedback button says %q", got)
	}
	if !bwDisabled(b, "#submit-feedback") {
		t.Error("Submit Feedback is enabled before a label and a comment are given")
	}
	radio := browsertest.Eval[string](b, `Array.from(document.querySelectorAll("label.radio")).find(l => l.textContent.trim() === `+bwJS(label)+`)?.querySelector("input").id ?? ""`)
	if radio == "" {
		t.Fatalf("no radio labelled %q", label)
	}
	b.Click("#" + radio)
	if !bwDisabled(b, "#submit-feedback") {
		t.Error("Submit Feedback is enabled with a label but no comment")
	}
	b.Type("#comment", "   ")
	if !bwDisabled(b, "#submit-feedback") {
		t.Error("Submit Feedback is enabled with a blank comment")
	}
	bwSetValue(b, "#comment", "")
	b.Type("#comment", comment)
	if bwDisabled(b, "#submit-feedback") {
		t.Fatal("Submit Feedback stays disabled with a label and a comment")
	}
	bwMark(b)
	b.Click("#submit-feedback")
	return bwQuestionShown(t, b, 1)
}

// bwAnswer answers question n, shown now, checking that Submit Answer
// waits for the answer, and waits for the next step: question n+1, or the
// end of the trace.
func bwAnswer(t *testing.T, b *browsertest.Browser, n int, answer string) {
	t.Helper()
	if !bwDisabled(b, "#submit-answer") {
		t.Errorf("Submit Answer is enabled before question %d is answered", n)
	}
	b.Type("#answer", answer)
	if bwDisabled(b, "#submit-answer") {
		t.Fatalf("Submit Answer stays disabled with an answer to question %d", n)
	}
	bwMark(b)
	b.Click("#submit-answer")
	if n < 3 {
		bwQuestionShown(t, b, n+1)
		return
	}
	b.WaitUntil(bwFresh+` && document.getElementById("trace-done") !== null`, bwPageWait)
}

// bwReview gives feedback on the trace shown and answers its three
// questions, checking that each question is the model's about label.
func bwReview(t *testing.T, b *browsertest.Browser, label, comment, who string) {
	t.Helper()
	q := bwGiveFeedback(t, b, label, comment)
	for n := 1; n <= 3; n++ {
		if n > 1 {
			q = bwQuestionText(b, "#current-question")
		}
		if want := bwQuestion(n, label); !strings.HasPrefix(q, want) {
			t.Errorf("%s's question %d is %q, want the model's, starting %q", who, n, q, want)
		}
		bwAnswer(t, b, n, fmt.Sprintf("%s answers question %d", who, n))
	}
}

// bwNoXSS checks that none of the markup of bwXSSInput and bwXSSComment
// ran or became elements on the page b shows.
func bwNoXSS(t *testing.T, b *browsertest.Browser, page string) {
	t.Helper()
	b.WaitUntil(`document.readyState === "complete"`, bwPageWait)
	if browsertest.Eval[bool](b, `typeof window.__xss !== "undefined"`) {
		t.Errorf("%s: markup of a trace or a comment ran as script (window.__xss is set)", page)
	}
	if n := browsertest.Eval[int](b, `document.querySelectorAll("main img, main script, body script:not([src])").length`); n != 0 {
		t.Errorf("%s: markup of a trace or a comment became %d elements", page, n)
	}
}

// bwMonitor reloads the facilitator's feedback monitor and returns each
// participant's "X of Y" by name.
func bwMonitor(t *testing.T, b *browsertest.Browser, base, wid string) map[string]string {
	t.Helper()
	b.Navigate(base + "/w/" + wid)
	b.WaitVisible("#completion")
	return browsertest.Eval[map[string]string](b, `Object.fromEntries(Array.from(document.querySelectorAll("#completion tr[data-participant]"),
		tr => [tr.querySelector(".name").textContent.trim(), tr.querySelector(".count").textContent.trim()]))`)
}

func bwWantMonitor(t *testing.T, got map[string]string, pat, quinn string) {
	t.Helper()
	if got["Pat"] != pat || got["Quinn"] != quinn || len(got) != 2 {
		t.Errorf("the monitor shows %q, want Pat %q and Quinn %q", got, pat, quinn)
	}
}

// bwPanel is the draft rubric panel as the page shows it: the groups by
// name with the texts of their items, and the items in no group.
type bwPanel struct {
	Count     string
	Groups    map[string][]string
	Ungrouped []string
	Badges    map[string]string
}

func bwReadPanel(b *browsertest.Browser) bwPanel {
	return browsertest.Eval[bwPanel](b, `(() => {
		const panel = document.getElementById("rubric-panel");
		const texts = ul => Array.from(ul.querySelectorAll("li.rubric-item .item-text"), p => p.textContent.trim());
		const groups = {}, badges = {};
		panel.querySelectorAll("section.rubric-group[data-group-id]").forEach(s => {
			const name = s.querySelector("input[name=name]")?.value ?? s.querySelector("h3").textContent.trim();
			groups[name] = texts(s.querySelector("ul.rubric-items"));
		});
		panel.querySelectorAll("li.rubric-item").forEach(li => {
			badges[li.querySelector(".item-text").textContent.trim()] = li.querySelector(".group-badge")?.textContent.trim() ?? "";
		});
		return {Count: document.getElementById("rubric-count").textContent.trim(), Groups: groups,
			Ungrouped: texts(panel.querySelector("section.ungrouped ul.rubric-items")), Badges: badges};
	})()`)
}

// bwProposedItemID is the id of the draft item whose text is text, on
// the review page of suggested groups.
func bwProposedItemID(t *testing.T, b *browsertest.Browser, text string) string {
	t.Helper()
	id := browsertest.Eval[string](b, `Array.from(document.querySelectorAll("#proposal li.proposed-item"))
		.find(li => li.querySelector(".item-text").textContent.trim() === `+bwJS(text)+`)?.dataset.itemId ?? ""`)
	if id == "" {
		t.Fatalf("the proposal has no item %q", text)
	}
	return id
}

// bwColour is a computed style property of the element sel.
func bwColour(b *browsertest.Browser, sel, prop string) string {
	return browsertest.Eval[string](b, `getComputedStyle(document.querySelector(`+bwJS(sel)+`)).getPropertyValue(`+bwJS(prop)+`)`)
}

// bwShot takes a screenshot named name, checking that it was written.
func bwShot(t *testing.T, b *browsertest.Browser, name string) {
	t.Helper()
	path := b.Screenshot(name)
	if st, err := os.Stat(path); err != nil || st.Size() == 0 {
		t.Errorf("screenshot %s: %v", path, err)
	}
}

// TestBrowserWorkshop runs a whole workshop as its people see it: a
// facilitator and two participants, each in a browser context of their
// own, at the same time.
func TestBrowserWorkshop(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		a, fake := bwOpen(t, databaseURL)
		base := a.URL()
		fran := browsertest.NewWithTimeout(t, bwTimeout)
		fran.OnNewDocument(recordAlerts)

		// Fran creates the workshop and is its facilitator.
		fran.Navigate(base + "/workshops")
		fran.Type("#ws-name", "Refund bot review")
		fran.Type("#ws-facilitator", "Fran")
		if status := fran.ClickNavigate("#create-workshop-button"); status != http.StatusOK {
			t.Fatalf("creating the workshop led to status %d", status)
		}
		wid, ok := strings.CutPrefix(fran.Location(), base+"/w/")
		if !ok || strings.Contains(wid, "/") {
			t.Fatalf("after creating the workshop the browser is at %s", fran.Location())
		}
		if got := fran.Text("#phase"); got != "Intake" {
			t.Errorf("phase = %q, want Intake", got)
		}
		if got := fran.Text("#member"); got != "Fran · facilitator" {
			t.Errorf("signed in as %q, want Fran the facilitator", got)
		}

		// She adds the two participants and copies their join links.
		links := map[string]string{}
		for _, name := range []string{"Pat", "Quinn"} {
			fran.Type("#member-name", name)
			fran.Type("#member-email", strings.ToLower(name)+"@example.com")
			fran.ClickNavigate("#add-member")
			if got := fran.Text("#flash .notice"); !strings.HasPrefix(got, name+" was added as a participant") {
				t.Errorf("after adding %s the flash says %q", name, got)
			}
			links[name] = bwFlashLink(t, fran)
			if !strings.HasPrefix(links[name], base+"/w/"+wid+"/join/") {
				t.Errorf("%s's join link is %q", name, links[name])
			}
		}
		if got := fran.Text("#participant-count"); got != "2" {
			t.Errorf("participant count = %q, want 2", got)
		}
		if !bwDisabled(fran, "#start-discovery-button") {
			t.Error("Start Discovery Phase is enabled without traces")
		}

		// The participants open their links before discovery starts: they wait.
		pat, quinn := fran.NewPerson("pat"), fran.NewPerson("quinn")
		pat.OnNewDocument(bwRecordGenerating)
		for name, p := range map[string]*browsertest.Browser{"Pat": pat, "Quinn": quinn} {
			p.OnNewDocument(recordAlerts)
			if status := p.NavigateStatus(links[name]); status != http.StatusOK {
				t.Fatalf("%s's join link led to status %d", name, status)
			}
			p.WaitVisible("#pending")
			if got := p.Location(); got != base+"/w/"+wid {
				t.Errorf("%s's join link led to %s", name, got)
			}
			if got := browsertest.Eval[string](p, `document.querySelector('meta[http-equiv="refresh"]')?.content ?? ""`); got != "5" {
				t.Errorf("%s's pending page refreshes every %q seconds, want 5", name, got)
			}
			if got := p.Text("#member"); got != name+" · participant" {
				t.Errorf("%s is signed in as %q", name, got)
			}
		}

		// A participant may not open the facilitator's pages.
		for _, page := range []string{"/analysis", "/setup"} {
			if status := pat.NavigateStatus(base + "/w/" + wid + page); status != http.StatusForbidden {
				t.Errorf("a participant opening %s got status %d, want 403", page, status)
			}
			if got := pat.Text("main .error"); got != "This page is for the workshop's facilitators." {
				t.Errorf("a participant opening %s is told %q", page, got)
			}
		}
		pat.Navigate(base + "/w/" + wid)
		pat.WaitVisible("#pending")

		// Fran imports the traces from a file and starts discovery on two.
		file := filepath.Join(t.TempDir(), "traces.jsonl")
		if err := os.WriteFile(file, []byte(bwTraces(t)), 0o644); err != nil {
			t.Fatal(err)
		}
		fran.Upload("#trace-file", file)
		fran.ClickNavigate("#import-traces")
		if got := fran.Text("#flash .notice"); got != "Imported 3 traces." {
			t.Errorf("after the import the flash says %q", got)
		}
		if got := fran.Text("#trace-count"); got != "3" {
			t.Errorf("trace count = %q, want 3", got)
		}
		if browsertest.Eval[bool](fran, `document.getElementById("randomize").checked`) {
			t.Error("randomization is on by default")
		}
		bwSetValue(fran, "#trace-limit", "")
		fran.Type("#trace-limit", "2")
		if got := fran.Text("#start-discovery-button"); got != "Start Discovery Phase" || bwDisabled(fran, "#start-discovery-button") {
			t.Errorf("the start button says %q, disabled %v", got, bwDisabled(fran, "#start-discovery-button"))
		}
		fran.ClickNavigate("#start-discovery-button")
		if got := fran.Text("#flash .notice"); got != "Discovery has started: 2 traces are assigned to every participant." {
			t.Errorf("after the start the flash says %q", got)
		}
		if got := fran.Text("#phase"); got != "Discovery" {
			t.Errorf("phase = %q, want Discovery", got)
		}
		bwWantMonitor(t, bwMonitor(t, fran, base, wid), "0 of 2", "0 of 2")

		// The pending pages move on to the first trace by themselves.
		first := base + "/w/" + wid + "/traces/t-refund"
		for name, p := range map[string]*browsertest.Browser{"Pat": pat, "Quinn": quinn} {
			p.WaitUntil(`location.href === `+bwJS(first)+` && document.getElementById("feedback-form") !== null`, 20*time.Second)
			if got := bwTextContent(p, "#progress"); !strings.HasPrefix(got, "0 of 2 traces completed") {
				t.Errorf("%s's progress says %q", name, got)
			}
			if got := p.Text("#trace .trace-input"); !strings.Contains(got, "Can I get a refund after 45 days?") {
				t.Errorf("%s sees the input %q", name, got)
			}
			if got := p.Text("#trace .trace-output strong"); got != "60 days" {
				t.Errorf("%s sees the output's bold text as %q", name, got)
			}
			bwNoXSS(t, p, name+"'s first trace")
		}

		// Pat says GOOD; the question is asked with a spinner meanwhile.
		pat.WaitVisible("#feedback-form")
		pat.Click("#label-good")
		pat.Type("#comment", bwXSSComment)
		pat.Click("#submit-feedback")
		q1 := bwQuestionShown(t, pat, 1)
		if want := bwQuestion(1, "good"); !strings.HasPrefix(q1, want) {
			t.Errorf("Pat's first question is %q, want the model's, starting %q", q1, want)
		}
		if got := bwTextContent(pat, "#given"); got != "Good "+bwXSSComment {
			t.Errorf("Pat's feedback shows as %q", got)
		}
		// The page between showed the spinner and asked by itself.
		if got := bwGeneratingPages(pat); len(got) != 1 || got[0] != (bwGenerating{Question: 1, Visible: true,
			Text: "Generating follow-up question...", Spinning: true, Auto: true}) {
			t.Errorf("the pages generating the question were %+v, want one with the spinner that asks by itself", got)
		}
		bwNoXSS(t, pat, "Pat's question step")
		bwShot(t, pat, "participant-question")

		// Quinn says BAD on the same trace while Pat answers.
		quinnQuestions := []string{bwGiveFeedback(t, quinn, "Bad", bwQuinnComment)}
		bwAnswer(t, pat, 1, "The apology sounded sincere")
		bwAnswer(t, quinn, 1, "The number of days is wrong")
		bwAnswer(t, pat, 2, "Keep the first sentence")
		bwAnswer(t, pat, 3, "Tone first")
		if got := pat.Text("#next-trace"); got != "Next Trace" {
			t.Errorf("after the third answer Pat sees %q, want Next Trace", got)
		}
		if got := bwTextContent(pat, "#progress"); !strings.HasPrefix(got, "1 of 2 traces completed") {
			t.Errorf("Pat's progress after a trace says %q", got)
		}
		if got := browsertest.Eval[[]string](pat, `Array.from(document.querySelectorAll("ol.qna li.qa .a"), a => a.lastChild.textContent.trim())`); !slices.Equal(got,
			[]string{"The apology sounded sincere", "Keep the first sentence", "Tone first"}) {
			t.Errorf("Pat's answers shown: %q", got)
		}
		bwWantMonitor(t, bwMonitor(t, fran, base, wid), "1 of 2", "0 of 2")

		quinnQuestions = append(quinnQuestions, bwQuestionText(quinn, "#current-question"))
		bwAnswer(t, quinn, 2, "Say 30 days")
		bwAnswer(t, quinn, 3, "Facts first")
		for i, q := range quinnQuestions {
			if want := bwQuestion(i+1, "bad"); !strings.HasPrefix(q, want) {
				t.Errorf("Quinn's question %d is %q, want one about BAD, starting %q", i+1, q, want)
			}
		}
		bwWantMonitor(t, bwMonitor(t, fran, base, wid), "1 of 2", "1 of 2")

		// The second trace: both say BAD.
		second := base + "/w/" + wid + "/traces/t-hours"
		for name, p := range map[string]*browsertest.Browser{"Pat": pat, "Quinn": quinn} {
			p.ClickNavigate("#next-trace")
			if got := p.Location(); got != second {
				t.Errorf("%s's Next Trace led to %s, want %s", name, got, second)
			}
		}
		bwReview(t, pat, "Bad", "No time zone given", "Pat")
		bwReview(t, quinn, "Bad", "Which time zone?", "Quinn")
		for name, p := range map[string]*browsertest.Browser{"Pat": pat, "Quinn": quinn} {
			if got := p.Text("#complete-discovery"); got != "Complete Discovery" {
				t.Errorf("after the last trace %s sees %q, want Complete Discovery", name, got)
			}
			if got := bwTextContent(p, "#progress"); !strings.HasPrefix(got, "2 of 2 traces completed") {
				t.Errorf("%s's progress at the end says %q", name, got)
			}
			p.ClickNavigate("#complete-discovery")
			if got := p.Text("#complete h1"); got != "Discovery complete" {
				t.Errorf("%s's completion page says %q", name, got)
			}
		}
		bwWantMonitor(t, bwMonitor(t, fran, base, wid), "2 of 2", "2 of 2")
		if got := bwTextContent(fran, "#percent-finished"); !strings.HasPrefix(got, "100% of participants finished (2 of 2)") {
			t.Errorf("the monitor says %q", got)
		}
		participant := func(name string) string {
			return browsertest.Eval[string](fran, `Array.from(document.querySelectorAll("tr[data-participant]"))
				.find(tr => tr.querySelector(".name").textContent.trim() === `+bwJS(name)+`).dataset.participant`)
		}
		patID, quinnID := participant("Pat"), participant("Quinn")

		// Fran's views of the feedback show the markup as text.
		fran.Navigate(base + "/w/" + wid + "?member=" + patID)
		if got := bwTextContent(fran, `article.feedback[data-trace-id="t-refund"] .comment`); got != bwXSSComment {
			t.Errorf("Pat's comment in the monitor shows as %q", got)
		}
		bwNoXSS(t, fran, "the monitor's feedback of Pat")
		fran.Navigate(first)
		if got := fran.Count("#trace-feedback article.feedback"); got != 2 {
			t.Errorf("the facilitator's trace page shows %d reviews, want 2", got)
		}
		bwNoXSS(t, fran, "the facilitator's trace page")

		// Fran runs an analysis; its page refreshes itself until it is done.
		fran.Navigate(base + "/w/" + wid)
		fran.ClickNavigate("#tab-analysis")
		fran.WaitVisible("#no-analysis")
		if got := browsertest.Eval[string](fran, `document.getElementById("template").value`); got != workshop.TemplateEvaluationCriteria {
			t.Errorf("the template picked is %q, want %s", got, workshop.TemplateEvaluationCriteria)
		}
		bwSetValue(fran, "#template", workshop.TemplateEvaluationCriteria)
		if got := fran.Text("#run-analysis"); got != "Run Analysis" {
			t.Errorf("the analysis button says %q", got)
		}
		release := fake.hold(bwDistillSystem)
		fran.ClickNavigate("#run-analysis")
		if !strings.Contains(fran.Location(), "/analysis?run=") {
			t.Errorf("Run Analysis led to %s", fran.Location())
		}
		fran.WaitVisible("#analysis-running")
		if got := browsertest.Eval[string](fran, `document.querySelector('meta[http-equiv="refresh"]')?.content ?? ""`); got != "2" {
			t.Errorf("the running analysis's page refreshes every %q seconds, want 2", got)
		}
		bwMark(fran)
		release()
		fran.WaitUntil(bwFresh+` && document.getElementById("summary") !== null`, 30*time.Second)
		if got := fran.Text("#finding-count"); got != "2" {
			t.Errorf("findings identified: %q, want 2", got)
		}
		for sel, want := range map[string]string{"#count-high": "1 HIGH", "#count-medium": "1 MEDIUM", "#count-lower": "0 LOWER"} {
			if got := bwTextContent(fran, sel); got != want {
				t.Errorf("%s = %q, want %q", sel, got, want)
			}
		}
		if got := fran.Text("#freshness"); !strings.HasPrefix(got, "Analysis based on 2 participants") || !strings.Contains(got, "template: Evaluation Criteria") {
			t.Errorf("the freshness banner says %q", got)
		}
		if got := fran.Texts("#findings .finding-text"); !slices.Equal(got, []string{bwFinding, bwFinding2}) {
			t.Errorf("findings shown: %q", got)
		}
		if got := bwTextContent(fran, "#tier-high .disagreement .what"); !strings.Contains(got, bwHighSummary) {
			t.Errorf("the HIGH disagreement says %q", got)
		}
		if got := bwTextContent(fran, "#tier-high .disagreement .meta"); got != "Trace t-refund" {
			t.Errorf("the HIGH disagreement is about %q", got)
		}
		// HIGH is red: the tier's border and its badge.
		if got := bwColour(fran, "#tier-high", "border-left-color"); got != "rgb(217, 48, 37)" {
			t.Errorf("the HIGH tier's border is %s, want red rgb(217, 48, 37)", got)
		}
		if bg, fg := bwColour(fran, "#tier-high .badge.tier-high", "background-color"), bwColour(fran, "#tier-high .badge.tier-high", "color"); bg != "rgb(253, 226, 225)" || fg != "rgb(163, 25, 15)" {
			t.Errorf("the HIGH badge is %s on %s, want red rgb(163, 25, 15) on rgb(253, 226, 225)", fg, bg)
		}
		if got := bwColour(fran, "#tier-medium", "border-left-color"); got != "rgb(227, 176, 0)" {
			t.Errorf("the MEDIUM tier's border is %s, want yellow", got)
		}
		if got := bwColour(fran, "#tier-lower", "border-left-color"); got != "rgb(47, 111, 223)" {
			t.Errorf("the LOWER tier's border is %s, want blue", got)
		}
		bwNoXSS(t, fran, "the analysis tab")
		bwShot(t, fran, "facilitator-analysis")

		// Fran promotes a finding, the HIGH disagreement and a comment.
		analysisPage := fran.Location()
		if got := fran.Text("#rubric-count"); got != "0 items staged for rubric" {
			t.Errorf("the rubric panel says %q before any promotion", got)
		}
		scrolled := browsertest.Eval[float64](fran, `document.querySelector("#findings article.finding:first-of-type").scrollIntoView({block: "start"}), window.scrollY`)
		if scrolled <= 0 {
			t.Errorf("the findings are at the top of the page (scrollY %v): the test cannot tell whether the place is kept", scrolled)
		}
		fran.ClickNavigate("#findings article.finding:first-of-type form.promote button")
		if got := fran.Location(); got != analysisPage {
			t.Errorf("promoting a finding led to %s, want back to %s", got, analysisPage)
		}
		if got := browsertest.Eval[float64](fran, `window.scrollY`); got < scrolled-2 || got > scrolled+2 {
			t.Errorf("after promoting, the page is scrolled to %v, want the place it was sent from (%v)", got, scrolled)
		}
		if got := bwTextContent(fran, "#findings article.finding:first-of-type .promoted-badge"); got != "✓ Already promoted" {
			t.Errorf("the promoted finding says %q, want “✓ Already promoted”", got)
		}
		if n := fran.Count("#findings article.finding:first-of-type form.promote"); n != 0 {
			t.Errorf("the promoted finding still offers Promote to Rubric")
		}
		if n := fran.Count("#findings article.finding:nth-of-type(2) form.promote"); n != 1 {
			t.Errorf("the finding not promoted lost its Promote to Rubric button")
		}
		if got := fran.Text("#flash .notice"); got != "Promoted to the draft rubric: “"+bwFinding+"”" {
			t.Errorf("after promoting the finding the flash says %q", got)
		}
		if got := fran.Text("#rubric-count"); got != "1 item staged for rubric" {
			t.Errorf("the rubric panel says %q after one promotion", got)
		}
		fran.ClickNavigate("#tier-high article.disagreement form.promote button")
		fran.Navigate(base + "/w/" + wid + "?member=" + quinnID)
		if got := bwTextContent(fran, `article.feedback[data-trace-id="t-refund"] .comment`); got != bwQuinnComment {
			t.Errorf("Quinn's comment in the monitor shows as %q", got)
		}
		fran.ClickNavigate(`article.feedback[data-trace-id="t-refund"] .given form.promote button`)
		panel := bwReadPanel(fran)
		if panel.Count != "3 items staged for rubric" || len(panel.Groups) != 0 ||
			!slices.Equal(panel.Ungrouped, []string{bwFinding, bwHighTheme, bwQuinnComment}) {
			t.Errorf("the rubric panel after three promotions: %+v", panel)
		}
		if got := fran.Texts("#rubric-panel li.rubric-item .source"); !slices.Equal(got, []string{"Analysis finding", "Disagreement", "Feedback"}) {
			t.Errorf("the draft items' sources: %q", got)
		}

		// The LLM suggests groups; Fran moves one item by dragging it, one
		// with its select, names the new group and applies.
		monitorPage := fran.Location()
		if got := fran.Text("#suggest-groups"); got != "Suggest Groups" {
			t.Errorf("the suggest button says %q", got)
		}
		fran.ClickNavigate("#suggest-groups")
		fran.WaitVisible("#proposal")
		proposal := func() map[string][]string {
			return browsertest.Eval[map[string][]string](fran, `Object.fromEntries(Array.from(document.querySelectorAll("#proposal ul.proposed-items"),
				ul => [ul.dataset.index === "" ? "none" : ul.dataset.index, Array.from(ul.querySelectorAll("li .item-text"), s => s.textContent.trim())]))`)
		}
		want := map[string][]string{"0": {bwFinding}, "1": {bwHighTheme, bwQuinnComment}, "2": {}, "none": {}}
		if got := proposal(); !bwSameGroups(got, want) {
			t.Errorf("the proposal: %q, want %q", got, want)
		}
		if got := []string{browsertest.Eval[string](fran, `document.getElementById("group-name-0").value`),
			browsertest.Eval[string](fran, `document.getElementById("group-name-1").value`)}; !slices.Equal(got, []string{"Policy accuracy", "Tone"}) {
			t.Errorf("the proposed group names: %q", got)
		}
		if n := len(panel.Groups); n != 0 || fran.Count("#rubric-panel section.rubric-group[data-group-id]") != 0 {
			t.Error("the suggestion grouped the items before Apply Groups")
		}
		themeID := bwProposedItemID(t, fran, bwHighTheme)
		commentID := bwProposedItemID(t, fran, bwQuinnComment)
		inGroup0 := `document.querySelector('#proposal ul.proposed-items[data-index="0"] li[data-item-id="` + themeID + `"]') !== null`
		fran.DragUntil(`#proposal li[data-item-id="`+themeID+`"] .item-text`, `#proposal ul.proposed-items[data-index="0"]`, inGroup0)
		fran.WaitUntil(inGroup0+` && document.querySelector(".sortable-fallback, .sortable-chosen") === null`, 5*time.Second)
		if got := browsertest.Eval[string](fran, `document.getElementById("item-`+themeID+`").value`); got != "0" {
			t.Errorf("after dragging the item to group 0 its select says %q", got)
		}
		bwSetValue(fran, "#item-"+commentID, "2")
		if got := proposal(); !bwSameGroups(got, map[string][]string{"0": {bwFinding, bwHighTheme}, "1": {}, "2": {bwQuinnComment}, "none": {}}) {
			t.Errorf("the proposal after the moves: %q", got)
		}
		fran.Type("#group-name-2", "Getting facts right")
		if got := fran.Text("#apply-groups"); got != "Apply Groups" {
			t.Errorf("the apply button says %q", got)
		}
		fran.ClickNavigate("#apply-groups")
		if got := fran.Location(); got != monitorPage {
			t.Errorf("Apply Groups led to %s, want back to %s", got, monitorPage)
		}
		if got := fran.Text("#flash .notice"); got != "The groups were applied: 2 groups." {
			t.Errorf("after applying the flash says %q", got)
		}
		panel = bwReadPanel(fran)
		wantPanel := map[string][]string{"Policy accuracy": {bwFinding, bwHighTheme}, "Getting facts right": {bwQuinnComment}}
		if !bwSameGroups(panel.Groups, wantPanel) || len(panel.Ungrouped) != 0 || panel.Count != "3 items staged for rubric" {
			t.Errorf("the rubric panel after Apply Groups: %+v, want groups %q", panel, wantPanel)
		}
		if panel.Badges[bwHighTheme] != "Policy accuracy" || panel.Badges[bwQuinnComment] != "Getting facts right" {
			t.Errorf("the items' group badges: %q", panel.Badges)
		}

		// In the panel, dragging an item to another group moves it at once.
		browsertest.Eval[bool](fran, `window.__before = true`)
		factsList := `#rubric-panel section.rubric-group:has(input[value="Getting facts right"]) ul.rubric-items`
		fran.DragUntil(`#rubric-panel li[data-item-id="`+themeID+`"] .item-text`, factsList,
			`document.querySelector(`+bwJS(factsList+` li[data-item-id="`+themeID+`"]`)+`) !== null`)
		fran.WaitUntil(`window.__before === undefined && document.readyState === "complete" && document.getElementById("rubric-panel") !== null`, bwPageWait)
		panel = bwReadPanel(fran)
		wantPanel = map[string][]string{"Policy accuracy": {bwFinding}, "Getting facts right": {bwHighTheme, bwQuinnComment}}
		if !bwSameGroups(panel.Groups, wantPanel) {
			t.Errorf("the rubric panel after the drag: %+v, want groups %q", panel, wantPanel)
		}
		items, err := a.Workshops.DraftItems(context.Background(), wid, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range items {
			if it.ID == themeID && it.GroupName != "Getting facts right" {
				t.Errorf("the dragged item is stored in the group %q", it.GroupName)
			}
		}

		// Fran leaves discovery for rubric creation; the participants are told.
		if got := fran.Text("#advance-phase"); got != "Advance to Rubric creation" || bwDisabled(fran, "#advance-phase") {
			t.Errorf("the phase control says %q, disabled %v", got, bwDisabled(fran, "#advance-phase"))
		}
		fran.ClickNavigate("#advance-phase")
		if got := fran.Text("#phase"); got != "Rubric creation" {
			t.Errorf("phase after advancing = %q, want Rubric creation", got)
		}
		if got := fran.Text("#flash .notice"); got != "The workshop is now in Rubric creation." {
			t.Errorf("after advancing the flash says %q", got)
		}
		if got := bwReadPanel(fran); !bwSameGroups(got.Groups, wantPanel) {
			t.Errorf("the rubric panel in rubric creation: %+v", got)
		}
		pat.Navigate(base + "/w/" + wid)
		if got := pat.Text("#complete h1"); got != "Discovery has ended" {
			t.Errorf("after the phase moved on Pat sees %q", got)
		}
		for name, p := range map[string]*browsertest.Browser{"Fran": fran, "Pat": pat, "Quinn": quinn} {
			if got := browsertest.Eval[[]string](p, `window.__alerts`); len(got) != 0 {
				t.Errorf("%s's pages called alert: %q", name, got)
			}
			for _, l := range p.Logs() {
				// The 403 pages a participant was shown on purpose are logged as failed loads.
				if name == "Pat" && strings.Contains(l, "status of 403 (Forbidden)") {
					continue
				}
				t.Errorf("%s's pages wrote to the console: %s", name, l)
			}
		}
	})
}

// bwSameGroups compares groups of item texts, ignoring the order of the
// items within a group.
func bwSameGroups(got, want map[string][]string) bool {
	if len(got) != len(want) {
		return false
	}
	for k, w := range want {
		g, ok := got[k]
		if !ok || len(g) != len(w) {
			return false
		}
		g, w = slices.Sorted(slices.Values(g)), slices.Sorted(slices.Values(w))
		if !slices.Equal(g, w) {
			return false
		}
	}
	return true
}

// TestBrowserWorkshopResumesAfterReload reloads the page between two
// follow-up questions: the same step comes back, with nothing lost and no
// question asked again.
func TestBrowserWorkshopResumesAfterReload(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		a, fake := bwOpen(t, databaseURL)
		s := bwSeed(t, a, 1)
		b := browsertest.NewWithTimeout(t, bwTimeout)
		b.Navigate(s.ParticipantLink)
		trace := a.URL() + "/w/" + s.ID + "/traces/t-refund"
		b.WaitUntil(`location.href === `+bwJS(trace)+` && document.getElementById("feedback-form") !== null`, bwPageWait)
		q1 := bwGiveFeedback(t, b, "Bad", "Wrong refund window")
		bwAnswer(t, b, 1, "The 60 days")
		q2 := bwQuestionText(b, "#current-question")
		asked := fake.followups()

		for _, url := range []string{trace, a.URL() + "/w/" + s.ID} {
			b.Navigate(url)
			if got := bwQuestionShown(t, b, 2); got != q2 {
				t.Errorf("after opening %s the question is %q, want %q", url, got, q2)
			}
			if got := b.Location(); got != trace {
				t.Errorf("opening %s led to %s, want the trace being reviewed", url, got)
			}
			if got := bwTextContent(b, "#given"); got != "Bad Wrong refund window" {
				t.Errorf("after a reload the feedback shows as %q", got)
			}
			qa := browsertest.Eval[[][]string](b, `Array.from(document.querySelectorAll("ol.qna li.qa"), li => Array.from(li.querySelectorAll(".q, .a"), p => {
				const c = p.cloneNode(true); c.querySelectorAll(".who").forEach(w => w.remove()); return c.textContent.trim(); }))`)
			if want := []string{q1, "The 60 days"}; len(qa) != 1 || !slices.Equal(qa[0], want) {
				t.Errorf("after a reload the answered questions are %q, want [%q]", qa, want)
			}
			if got := browsertest.Eval[string](b, `document.getElementById("answer").value`); got != "" || !bwDisabled(b, "#submit-answer") {
				t.Errorf("after a reload the answer box holds %q", got)
			}
		}
		if got := fake.followups(); got != asked {
			t.Errorf("the reloads asked the model %d more questions", got-asked)
		}
		fb, err := a.Workshops.ListFeedback(context.Background(), s.ID, s.ParticipantID)
		if err != nil {
			t.Fatal(err)
		}
		if len(fb) != 1 || fb[0].Label != "bad" || len(fb[0].FollowupQnA) != 1 || fb[0].FollowupQnA[0].Answer != "The 60 days" ||
			fb[0].Pending == nil || fb[0].Pending.Question != q2 {
			t.Errorf("stored feedback after the reloads: %+v", fb)
		}
		bwAnswer(t, b, 2, "Say 30 days")
		bwAnswer(t, b, 3, "High")
		if got := b.Text("#complete-discovery"); got != "Complete Discovery" {
			t.Errorf("after the last answer the page offers %q", got)
		}
	})
}

// TestBrowserWorkshopLLMFailure makes the model fail while a participant
// answers: the page says so and offers a retry instead of asking again by
// itself; a retry after the model recovers gets the question; at the third
// failed attempt a fallback question is given, marked for the facilitator
// only. A participant cannot open the facilitator's pages.
func TestBrowserWorkshopLLMFailure(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		a, fake := bwOpen(t, databaseURL)
		s := bwSeed(t, a, 1)
		fran := browsertest.NewWithTimeout(t, bwTimeout)
		pat := fran.NewPerson("pat")
		pat.OnNewDocument(bwRecordGenerating)
		pat.Navigate(s.ParticipantLink)
		pat.WaitVisible("#feedback-form")

		for _, page := range []string{"/analysis", "/setup"} {
			if status := pat.NavigateStatus(a.URL() + "/w/" + s.ID + page); status != http.StatusForbidden {
				t.Errorf("a participant opening %s got status %d, want 403", page, status)
			}
			if got := pat.Text("main h1"); got != "403 · Forbidden" {
				t.Errorf("a participant opening %s sees %q", page, got)
			}
		}
		pat.Navigate(a.URL() + "/w/" + s.ID + "?member=" + s.ParticipantID)
		pat.WaitVisible("#feedback-form")
		if n := pat.Count("#completion, #rubric-panel, #tab-analysis"); n != 0 {
			t.Errorf("a participant opening the monitor's address sees %d parts of the dashboard", n)
		}

		bwGiveFeedback(t, pat, "Good", "Clear and friendly")
		asked := fake.followups()
		fake.fail.Store(true)
		bwAnswerOnly(t, pat, "Friendly")
		// Attempt 1 of 3 fails (after the client's own retries).
		errorShown := func(attempt int) {
			t.Helper()
			pat.WaitUntil(bwFresh+` && document.getElementById("llm-error") !== null`, bwPageWait)
			// A participant is told to retry; the provider's reason is for
			// the facilitators (and the log).
			want := fmt.Sprintf("The follow-up question could not be generated (attempt %d of 3). Try again.", attempt)
			if got := pat.Text("#llm-error"); got != want {
				t.Errorf("the error shown is %q, want %q", got, want)
			}
			if got := pat.Text("#retry"); got != "Retry" {
				t.Errorf("the retry button says %q", got)
			}
			if browsertest.Eval[bool](pat, `document.getElementById("question-form").hasAttribute("data-autosubmit")`) {
				t.Error("the page with the error asks again by itself")
			}
			if browsertest.Eval[bool](pat, `!document.getElementById("generating").hidden`) {
				t.Error("the page with the error shows the spinner")
			}
			if got := pat.Count("#answer-form"); got != 0 {
				t.Error("the page with the error offers an answer form")
			}
			pages := bwGeneratingPages(pat)
			if last := pages[len(pages)-1]; last.Auto || !last.Error || last.Visible {
				t.Errorf("as it loaded, the page with the error showed %+v, want the error, no spinner, no request of its own", last)
			}
		}
		errorShown(1)
		if got, want := fake.followups()-asked, llm.DefaultMaxRetries+1; got != want {
			t.Errorf("a failed attempt made %d requests, want %d", got, want)
		}
		bwMark(pat)
		pat.Click("#retry")
		errorShown(2)
		fake.fail.Store(false)
		bwMark(pat)
		pat.Click("#retry")
		q2 := bwQuestionShown(t, pat, 2)
		if !strings.HasPrefix(q2, bwQuestion(2, "good")) {
			t.Errorf("the retry after the model recovered got %q, want the model's question", q2)
		}

		// Three failed attempts give the fallback question, unmarked here.
		fake.fail.Store(true)
		bwAnswerOnly(t, pat, "The greeting")
		errorShown(1)
		bwMark(pat)
		pat.Click("#retry")
		errorShown(2)
		bwMark(pat)
		pat.Click("#retry")
		q3 := bwQuestionShown(t, pat, 3)
		if q3 != workshop.FallbackQuestions[2] {
			t.Errorf("after three failed attempts the question is %q, want the fallback %q", q3, workshop.FallbackQuestions[2])
		}
		noMark := func(page string) {
			t.Helper()
			if n := pat.Count(".badge.fallback, [title*='fallback']"); n != 0 {
				t.Errorf("%s: the participant sees %d fallback marks", page, n)
			}
			if strings.Contains(strings.ToLower(pat.Text("main")), "fallback") {
				t.Errorf("%s: the participant's page mentions the fallback", page)
			}
		}
		noMark("the fallback question")
		fake.fail.Store(false)
		bwAnswer(t, pat, 3, "Very")
		noMark("the completed trace")
		if got := pat.Count("ol.qna li.qa"); got != 3 {
			t.Errorf("the completed trace shows %d answered questions, want 3", got)
		}
		pat.ClickNavigate("#complete-discovery")
		noMark("the completion page")

		// The facilitator sees which question was the fallback.
		fran.Navigate(s.FacilitatorLink)
		fran.WaitVisible("#completion")
		fran.Navigate(a.URL() + "/w/" + s.ID + "?member=" + s.ParticipantID)
		marked := browsertest.Eval[[]string](fran, `Array.from(document.querySelectorAll("#feedback li.qa"),
			li => li.querySelector(".badge.fallback") ? "fallback" : "model")`)
		if !slices.Equal(marked, []string{"model", "model", "fallback"}) {
			t.Errorf("the monitor marks the questions %q, want the third as the fallback", marked)
		}
		fran.Navigate(a.URL() + "/w/" + s.ID + "/traces/t-refund")
		if got := fran.Count("#trace-feedback .badge.fallback"); got != 1 {
			t.Errorf("the facilitator's trace page shows %d fallback marks, want 1", got)
		}
	})
}

// bwAnswerOnly answers the question shown and submits, without waiting
// for what follows.
func bwAnswerOnly(t *testing.T, b *browsertest.Browser, answer string) {
	t.Helper()
	b.Type("#answer", answer)
	bwMark(b)
	b.Click("#submit-answer")
}
