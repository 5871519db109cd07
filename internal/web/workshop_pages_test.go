package web_test

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/honehq/hone/internal/llm/llmtest"
	"github.com/honehq/hone/internal/workshop"
)

// wsFlashOf is the flash a page shows, as text.
type wsFlashOf struct {
	notice, err string
	lines       []string
	link        string
}

var (
	wsFlashBlock  = regexp.MustCompile(`(?s)<div class="flash[^"]*" id="flash"[^>]*>(.*?)</div>`)
	wsFlashNotice = regexp.MustCompile(`(?s)<p class="notice">(.*?)</p>`)
	wsFlashError  = regexp.MustCompile(`(?s)<p class="error"[^>]*>(.*?)</p>`)
	wsFlashLine   = regexp.MustCompile(`(?s)<li>(.*?)</li>`)
)

// wsFlash returns the flash of a dashboard page, nil when it shows none.
func wsFlash(page string) *wsFlashOf {
	m := wsFlashBlock.FindStringSubmatch(page)
	if m == nil {
		return nil
	}
	f := &wsFlashOf{}
	if n := wsFlashNotice.FindStringSubmatch(m[1]); n != nil {
		f.notice = strings.TrimSpace(html.UnescapeString(n[1]))
	}
	if e := wsFlashError.FindStringSubmatch(m[1]); e != nil {
		f.err = strings.TrimSpace(html.UnescapeString(e[1]))
	}
	for _, l := range wsFlashLine.FindAllStringSubmatch(m[1], -1) {
		f.lines = append(f.lines, strings.TrimSpace(html.UnescapeString(l[1])))
	}
	if l := wsFlashLink.FindStringSubmatch(m[1]); l != nil {
		f.link = html.UnescapeString(l[1])
	}
	return f
}

// wsForm is a form of a page with the values it would submit.
type wsForm struct {
	action, class string
	values        url.Values
}

var (
	wsFormRE     = regexp.MustCompile(`(?s)<form([^>]*)>(.*?)</form>`)
	wsAttrRE     = regexp.MustCompile(`([a-z-]+)="([^"]*)"`)
	wsInputRE    = regexp.MustCompile(`<input([^>]*)>`)
	wsSelectRE   = regexp.MustCompile(`(?s)<select([^>]*)>(.*?)</select>`)
	wsOptionRE   = regexp.MustCompile(`<option([^>]*)>`)
	wsTextareaRE = regexp.MustCompile(`(?s)<textarea([^>]*)>(.*?)</textarea>`)
)

func wsAttrs(s string) map[string]string {
	m := map[string]string{}
	for _, a := range wsAttrRE.FindAllStringSubmatch(s, -1) {
		m[a[1]] = html.UnescapeString(a[2])
	}
	return m
}

// wsForms parses the forms of a page as a browser would submit them
// unchanged: hidden and text inputs, checked boxes, selected options and
// textareas.
func wsForms(page string) []wsForm {
	var out []wsForm
	for _, m := range wsFormRE.FindAllStringSubmatch(page, -1) {
		at := wsAttrs(m[1])
		f := wsForm{action: at["action"], class: at["class"], values: url.Values{}}
		for _, in := range wsInputRE.FindAllStringSubmatch(m[2], -1) {
			a := wsAttrs(in[1])
			if a["name"] == "" || a["type"] == "file" ||
				(a["type"] == "checkbox" || a["type"] == "radio") && !strings.Contains(in[1], " checked") {
				continue
			}
			f.values.Add(a["name"], a["value"])
		}
		for _, s := range wsSelectRE.FindAllStringSubmatch(m[2], -1) {
			name := wsAttrs(s[1])["name"]
			for _, o := range wsOptionRE.FindAllStringSubmatch(s[2], -1) {
				if strings.Contains(o[1], " selected") {
					f.values.Set(name, wsAttrs(o[1])["value"])
				}
			}
		}
		for _, ta := range wsTextareaRE.FindAllStringSubmatch(m[2], -1) {
			f.values.Set(wsAttrs(ta[1])["name"], html.UnescapeString(strings.TrimPrefix(ta[2], "\n")))
		}
		out = append(out, f)
	}
	return out
}

// wsFindForm returns the form of class whose field has value, and fails
// when the page has none.
func wsFindForm(t *testing.T, page, class, field, value string) wsForm {
	t.Helper()
	for _, f := range wsForms(page) {
		if f.class == class && f.values.Get(field) == value {
			return f
		}
	}
	t.Fatalf("the page has no form %q with %s = %q:\n%s", class, field, value, page)
	return wsForm{}
}

// wsFindFormBy returns the form of class whose values match, and fails
// when the page has none.
func wsFindFormBy(t *testing.T, page, class string, match func(url.Values) bool) wsForm {
	t.Helper()
	for _, f := range wsForms(page) {
		if f.class == class && match(f.values) {
			return f
		}
	}
	t.Fatalf("the page has no such form %q:\n%s", class, page)
	return wsForm{}
}

// submit posts the form as it is, but for changes, with the browser's
// CSRF token (which the form already holds).
func (c *wsClient) submit(f wsForm, changes url.Values) reply {
	c.t.Helper()
	v := url.Values{}
	for k, vs := range f.values {
		v[k] = vs
	}
	for k, vs := range changes {
		v[k] = vs
	}
	if v.Get("csrf") != c.csrf() {
		c.t.Fatalf("form %s %s does not carry the browser's CSRF token", f.class, f.action)
	}
	return c.postAs(f.action, v, c.sameSite())
}

// wsItem is a draft item as the rubric panel shows it.
type wsItem struct {
	text, source, group string
	evidence            []string
}

var (
	wsItemRE     = regexp.MustCompile(`(?s)<li class="rubric-item" data-item-id="([^"]*)">(.*?)</li>`)
	wsItemText   = regexp.MustCompile(`(?s)<p class="item-text">(.*?)</p>`)
	wsItemSource = regexp.MustCompile(`<span class="source">([^<]*)</span>`)
	wsItemGroup  = regexp.MustCompile(`<span class="badge group-badge">([^<]*)</span>`)
	wsLinkRE     = regexp.MustCompile(`<a href="([^"]*)">([^<]*)</a>`)
)

// wsPanel returns the draft items of the rubric panel of a page by id.
func wsPanel(page string) map[string]wsItem {
	out := map[string]wsItem{}
	for _, m := range wsItemRE.FindAllStringSubmatch(page, -1) {
		var it wsItem
		if t := wsItemText.FindStringSubmatch(m[2]); t != nil {
			it.text = strings.TrimSpace(html.UnescapeString(t[1]))
		}
		if s := wsItemSource.FindStringSubmatch(m[2]); s != nil {
			it.source = s[1]
		}
		if g := wsItemGroup.FindStringSubmatch(m[2]); g != nil {
			it.group = strings.TrimSpace(html.UnescapeString(g[1]))
		}
		meta := m[2]
		if i := strings.Index(meta, "<details"); i >= 0 {
			meta = meta[:i]
		}
		for _, l := range wsLinkRE.FindAllStringSubmatch(meta, -1) {
			it.evidence = append(it.evidence, l[1])
		}
		out[m[1]] = it
	}
	return out
}

// items are the workshop's draft items by id, as stored.
func (e *wsEnv) items(workshopID string) map[string]*workshop.DraftItem {
	e.t.Helper()
	list, err := e.Workshops.DraftItems(wsAdmin, workshopID, "")
	if err != nil {
		e.t.Fatal(err)
	}
	out := map[string]*workshop.DraftItem{}
	for _, it := range list {
		out[it.ID] = it
	}
	return out
}

func (e *wsEnv) workshop(id string) *workshop.Workshop {
	e.t.Helper()
	w, err := e.Workshops.Get(wsAdmin, id)
	if err != nil {
		e.t.Fatal(err)
	}
	return w
}

// promote adds a manual draft item through the service.
func (e *wsEnv) promote(workshopID, text, group string) string {
	e.t.Helper()
	it, err := e.Workshops.Promote(wsAdmin, workshopID, "", workshop.DraftItemInput{Text: text, SourceType: workshop.SourceManual, GroupName: group})
	if err != nil {
		e.t.Fatal(err)
	}
	return it.ID
}

// analyze runs an analysis of the template here and now and returns its
// id; the background workers are stopped for good, so that the run stays
// queued until then.
func (e *wsEnv) analyze(workshopID string) string {
	e.t.Helper()
	e.Workshops.Stop()
	st, err := e.Workshops.Analyze(wsAdmin, workshopID, workshop.AnalyzeInput{})
	if err != nil {
		e.t.Fatal(err)
	}
	if a, err := e.Workshops.RunAnalysis(wsAdmin, workshopID, st.ID); err != nil || a.Status != workshop.StatusDone {
		e.t.Fatalf("analysis: %+v %v", a, err)
	}
	return st.ID
}

func TestWorkshopImportForm(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		e := wsOpen(t, databaseURL, false, nil)
		ws := e.create("Imports")
		fc := e.join(ws.Facilitator)
		w := "/w/" + ws.ID
		setup := w + "/setup"
		count := func() int { return e.workshop(ws.ID).TraceCount }
		upload := func(name, content string, skip bool) *wsFlashOf {
			t.Helper()
			fields := url.Values{"csrf": {fc.csrf()}, "back": {setup}}
			if skip {
				fields.Set("skip_invalid", "on")
			}
			r := fc.upload(w+"/traces", fields, name, content, fc.sameSite())
			if r.StatusCode != http.StatusSeeOther || r.location() != setup {
				t.Fatalf("import %s = %d to %q, want 303 back to the setup page:\n%s", name, r.StatusCode, r.location(), r.body)
			}
			f := wsFlash(fc.page(setup))
			if f == nil {
				t.Fatalf("import %s: the page shows no flash", name)
			}
			if again := fc.page(setup); wsFlash(again) != nil {
				t.Errorf("import %s: the flash is shown again on reload", name)
			}
			return f
		}

		// The start page offers the form too.
		if page := fc.page(w); !strings.Contains(page, `enctype="multipart/form-data" class="import-file"`) ||
			!strings.Contains(page, `id="start-discovery-button" disabled`) {
			t.Errorf("the start page without traces lacks the import form or enables the start button:\n%s", page)
		}

		for _, tc := range []struct{ name, content string }{
			{"traces.json", `[{"id":"j1","input":"q1","output":"a1"},{"id":"j2","input":{"q":2},"output":"a2"}]`},
			{"traces.jsonl", "{\"id\":\"l1\",\"input\":\"q\",\"output\":\"a\"}\n{\"input\":\"q\",\"output\":\"a\"}\n"},
			{"traces.csv", "id,input,output\nc1,q1,a1\nc2,\"q, 2\",a2\n"},
		} {
			before := count()
			f := upload(tc.name, tc.content, false)
			if f.notice != "Imported 2 traces." || f.err != "" || count() != before+2 {
				t.Errorf("import %s: flash %+v, %d traces after %d", tc.name, f, count(), before)
			}
		}
		if page := fc.page(setup); !strings.Contains(page, "6 imported") {
			t.Errorf("the setup page does not count 6 traces:\n%s", page)
		}

		bad := "{\"id\":\"x1\",\"input\":\"q\",\"output\":\"a\"}\n{\"id\":\"x2\",\"input\":\"q\"}\nnot json\n{\"id\":\"j1\",\"input\":\"q\",\"output\":\"a\"}\n"
		f := upload("bad.jsonl", bad, false)
		if !strings.HasPrefix(f.err, "Nothing was imported: 3 traces of the file are invalid.") || count() != 6 {
			t.Errorf("a file with invalid lines: flash %+v, %d traces", f, count())
		}
		if len(f.lines) != 3 || !strings.HasPrefix(f.lines[0], "Line 2: ") || !strings.HasPrefix(f.lines[1], "Line 3: ") ||
			!strings.HasPrefix(f.lines[2], "Line 4: ") || !strings.Contains(f.lines[2], `"j1"`) {
			t.Errorf("the flash lists %q, want lines 2, 3 and 4 (j1 imported already)", f.lines)
		}
		f = upload("bad.jsonl", bad, true)
		if f.notice != "Imported 1 trace." || f.err != "Skipped 3 traces:" || len(f.lines) != 3 || count() != 7 {
			t.Errorf("skip_invalid: flash %+v, %d traces", f, count())
		}

		f = upload("traces.txt", "input,output\nq,a\n", false)
		if !strings.Contains(f.err, "traces.txt") || !strings.Contains(f.err, ".json, .jsonl or .csv") || count() != 7 {
			t.Errorf("an unknown extension: flash %+v, %d traces", f, count())
		}
		f = upload("", "", false)
		if !strings.Contains(f.err, "choose a JSON, JSONL or CSV file") {
			t.Errorf("no file: flash %+v", f)
		}

		// The turns of a tuning session: the admin's (see
		// TestWorkshopSessionImportIsTheAdmins), so the admin imports them.
		session := e.postTurn("conv-import", "How many days of leave?")
		admin := e.admin()
		r := admin.post(w+"/traces", url.Values{"session_id": {session}, "back": {setup}})
		f = wsFlash(admin.follow(r))
		if f == nil || f.notice != "Imported 1 trace." || count() != 8 {
			t.Errorf("importing session %s: flash %+v, %d traces", session, f, count())
		}
		traces, _ := e.Workshops.Traces(wsAdmin, ws.ID, "")
		if last := traces[len(traces)-1]; last.InputText != "How many days of leave?" {
			t.Errorf("the session's turn was imported as %+v", last.Trace)
		}
		r = admin.post(w+"/traces", url.Values{"session_id": {"nosuchsession"}, "back": {setup}})
		if r.StatusCode != http.StatusNotFound {
			t.Errorf("importing an unknown session = %d, want 404", r.StatusCode)
		}
	})
}

func TestWorkshopMembersBeginSettingsAndPhase(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		e := wsOpen(t, databaseURL, false, nil)
		ws := e.create("Setup")
		e.traces(ws.ID, 5)
		fc := e.join(ws.Facilitator)
		w := "/w/" + ws.ID

		// Add a member: the flash shows their join link, once, and it works.
		r := fc.post(w+"/members", url.Values{"name": {"Pat"}, "email": {"pat@example.com"}, "role": {"participant"}, "back": {w}})
		if r.StatusCode != http.StatusSeeOther || r.location() != w {
			t.Fatalf("add member = %d to %q", r.StatusCode, r.location())
		}
		page := fc.follow(r)
		f := wsFlash(page)
		if f == nil || !strings.Contains(f.notice, "Pat was added as a participant") || !strings.HasPrefix(f.link, e.base+"/w/"+ws.ID+"/join/hw_") {
			t.Fatalf("the flash after adding a member: %+v", f)
		}
		if page := fc.page(w); wsFlash(page) != nil || strings.Contains(page, f.link) {
			t.Error("the join link is shown again on reload")
		} else if !strings.Contains(page, `<td class="member-name">Pat</td>`) || !strings.Contains(page, `id="participant-count">1<`) {
			t.Errorf("the start page does not list Pat:\n%s", page)
		}
		pat := e.client()
		r = pat.get(wsPathOf(t, f.link))
		if r.StatusCode != http.StatusSeeOther || r.location() != w {
			t.Fatalf("Pat's join link = %d to %q", r.StatusCode, r.location())
		}
		if page := pat.page(w); !strings.Contains(page, "Pat · participant") || !strings.Contains(page, `id="pending"`) {
			t.Errorf("Pat's page after joining:\n%s", page)
		}
		r = fc.post(w+"/members", url.Values{"name": {"  "}, "back": {w}})
		if f := wsFlash(fc.follow(r)); f == nil || f.err == "" {
			t.Errorf("adding a member without a name: flash %+v", f)
		}

		// Settings: the model.
		r = fc.post(w+"/settings", url.Values{"model": {"my-model"}, "back": {w}})
		page = fc.follow(r)
		if f := wsFlash(page); f == nil || f.notice != "Follow-up questions and analyses use the model my-model." {
			t.Errorf("the flash after saving the model: %+v", f)
		}
		if e.workshop(ws.ID).Model != "my-model" || !strings.Contains(page, `id="model-shown">my-model<`) {
			t.Errorf("the model is %q; the page shows:\n%s", e.workshop(ws.ID).Model, page)
		}

		// Begin: a wrong trace limit is refused, a good one starts.
		r = fc.post(w+"/begin", url.Values{"trace_limit": {"three"}})
		if f := wsFlash(fc.follow(r)); f == nil || !strings.Contains(f.err, "trace limit must be a whole number") {
			t.Errorf("begin with a wrong limit: flash %+v", f)
		}
		r = fc.post(w+"/begin", url.Values{"trace_limit": {"-1"}})
		if f := wsFlash(fc.follow(r)); f == nil || !strings.Contains(f.err, "trace_limit must be from 1") {
			t.Errorf("begin with a negative limit: flash %+v", f)
		}
		if e.workshop(ws.ID).DiscoveryStarted {
			t.Fatal("a refused begin started discovery")
		}
		ws2 := e.create("Setup two")
		e.traces(ws2.ID, 5)
		fc2 := e.join(ws2.Facilitator)
		w2 := "/w/" + ws2.ID
		r = fc2.post(w2+"/begin", url.Values{"trace_limit": {"3"}, "randomize": {"on"}, "model": {"begin-model"}})
		page = fc2.follow(r)
		if f := wsFlash(page); f == nil || f.notice != "Discovery has started: 3 traces are assigned to every participant." {
			t.Errorf("the flash after begin: %+v", f)
		}
		got := e.workshop(ws2.ID)
		if !got.DiscoveryStarted || got.AssignedCount != 3 || !got.DiscoveryRandomize || got.Model != "begin-model" || got.Phase != workshop.PhaseDiscovery {
			t.Errorf("after begin: %+v", got)
		}
		if !strings.Contains(page, `id="completion"`) {
			t.Errorf("begin does not lead to the dashboard:\n%s", page)
		}

		// The phase gate: closed without feedback or draft item, with its reason.
		if !strings.Contains(page, `<button type="submit" id="advance-phase" disabled>Advance to Rubric creation</button>`) ||
			!regexp.MustCompile(`id="advance-reason">\s*the workshop can leave discovery once it has discovery feedback or a draft rubric item`).MatchString(page) {
			t.Errorf("the phase control before any feedback or item:\n%s", page)
		}
		r = fc2.post(w2+"/phase", url.Values{"phase": {workshop.PhaseRubricCreation}})
		if f := wsFlash(fc2.follow(r)); f == nil || !strings.Contains(f.err, "discovery feedback or a draft rubric item") {
			t.Errorf("advancing through the closed gate: flash %+v", f)
		}
		if p := e.workshop(ws2.ID).Phase; p != workshop.PhaseDiscovery {
			t.Errorf("the closed gate let the workshop into %s", p)
		}
		r = fc2.post(w2+"/rubric", url.Values{"text": {"Asks before acting"}, "source_type": {"manual"}, "back": {w2}})
		page = fc2.follow(r)
		if !strings.Contains(page, `<button type="submit" id="advance-phase">Advance to Rubric creation</button>`) || strings.Contains(page, `id="advance-reason"`) {
			t.Errorf("the phase control with a draft item:\n%s", page)
		}
		for i := range 2 {
			r = fc2.post(w2+"/phase", url.Values{"phase": {workshop.PhaseRubricCreation}})
			page = fc2.follow(r)
			if f := wsFlash(page); f == nil || f.err != "" || f.notice != "The workshop is now in Rubric creation." {
				t.Errorf("advance %d: flash %+v", i+1, f)
			}
			if p := e.workshop(ws2.ID).Phase; p != workshop.PhaseRubricCreation {
				t.Errorf("advance %d: phase %s", i+1, p)
			}
		}
		if !strings.Contains(page, `id="phase">Rubric creation<`) || !strings.Contains(page, "Advance to Annotation") {
			t.Errorf("the dashboard after advancing:\n%s", page)
		}
		// Backwards is refused.
		r = fc2.post(w2+"/phase", url.Values{"phase": {workshop.PhaseDiscovery}})
		if f := wsFlash(fc2.follow(r)); f == nil || f.err == "" || e.workshop(ws2.ID).Phase != workshop.PhaseRubricCreation {
			t.Errorf("moving back: flash %+v", f)
		}
	})
}

// wsDistilled is the fake LLM's analysis of the wsReviewed workshop.
var wsDistilled = workshop.DistillationOutput{
	Findings: []workshop.Finding{
		{Text: "Cites the policy by name", EvidenceTraceIDs: []string{"t1", "t3"}, Priority: "high"},
		{Text: "Offers one action at a time", EvidenceTraceIDs: []string{"t2"}, Priority: "medium"},
		{Text: "Keeps it short", EvidenceTraceIDs: []string{"t4"}, Priority: "low"},
	},
	HighPriorityDisagreements: []workshop.DisagreementAnalysis{{TraceID: "t1", Summary: "tone vs content", UnderlyingTheme: "empathy",
		FollowupQuestions: []string{"Which matters more?"}, FacilitatorSuggestions: []string{"Calibrate on tone"}}},
	MediumPriorityDisagreements: []workshop.DisagreementAnalysis{{TraceID: "t2", Summary: "different gaps", UnderlyingTheme: "completeness",
		FollowupQuestions: []string{}, FacilitatorSuggestions: []string{}}},
	LowerPriorityDisagreements: []workshop.DisagreementAnalysis{},
	Summary:                    "Reviewers value **citations**.",
}

// wsReviewed seeds a workshop of five traces where Alice and Bob disagree
// on t1 (GOOD and BAD: high), t2 (both BAD: medium) and t3 (both GOOD:
// lower); Alice alone reviewed t4. The fake LLM asks "Why?" and answers
// analyses with wsDistilled.
func (e *wsEnv) reviewed() (*workshop.Created, workshop.Access, workshop.Access) {
	e.t.Helper()
	e.fake.SetHandler(func(r llmtest.ChatRequest) llmtest.Reply {
		if r.ResponseFormat == nil {
			return llmtest.Text("Why?")
		}
		return llmtest.JSON(wsDistilled)
	})
	ws := e.create("Review")
	alice := e.member(ws.ID, "Alice", workshop.RoleParticipant)
	bob := e.member(ws.ID, "Bob", workshop.RoleParticipant)
	e.traces(ws.ID, 5)
	e.begin(ws.ID, 5)
	for _, f := range []struct {
		who   workshop.Access
		trace string
		label string
	}{{alice, "t1", "good"}, {bob, "t1", "bad"}, {alice, "t2", "bad"}, {bob, "t2", "bad"}, {alice, "t3", "good"}, {bob, "t3", "good"}, {alice, "t4", "good"}} {
		e.feedback(f.who, f.trace, f.label)
	}
	return ws, alice, bob
}

// wsSection is the part of page from the element with id to the next
// element with one of the ids after, or to the end.
func wsSection(page, id string, after ...string) string {
	i := strings.Index(page, `id="`+id+`"`)
	if i < 0 {
		return ""
	}
	s := page[i:]
	for _, a := range after {
		if j := strings.Index(s, `id="`+a+`"`); j >= 0 {
			s = s[:j]
		}
	}
	return s
}

func TestWorkshopAnalysisTab(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		e := wsOpen(t, databaseURL, false, llmtest.New(t))
		ws, _, _ := e.reviewed()
		fc := e.join(ws.Facilitator)
		w := "/w/" + ws.ID

		page := fc.page(w + "/analysis")
		if !strings.Contains(page, `id="no-analysis"`) || !strings.Contains(page, `<option value="evaluation_criteria">Evaluation Criteria</option>`) ||
			!strings.Contains(page, `<option value="themes_patterns">Themes &amp; Patterns</option>`) {
			t.Errorf("the analysis tab before any run:\n%s", page)
		}

		// A custom template joins the selector.
		r := fc.post(w+"/templates", url.Values{"name": {"tone"}, "title": {"Tone check"}, "instruction": {"Look at the tone."}})
		if r.location() != w+"/analysis" {
			t.Fatalf("add template = %d to %q", r.StatusCode, r.location())
		}
		page = fc.follow(r)
		if f := wsFlash(page); f == nil || !strings.Contains(f.notice, "Tone check") {
			t.Errorf("the flash after adding a template: %+v", f)
		}
		if !strings.Contains(page, `<option value="tone">Tone check</option>`) {
			t.Errorf("the custom template is not in the selector:\n%s", page)
		}
		r = fc.post(w+"/templates", url.Values{"name": {"Bad Name"}, "title": {"x"}, "instruction": {"y"}})
		if f := wsFlash(fc.follow(r)); f == nil || !strings.Contains(f.err, "name must be") {
			t.Errorf("a template with a bad name: flash %+v", f)
		}

		// A run: the page refreshes itself until it is done.
		e.Workshops.Stop() // the run stays queued until the test runs it
		r = fc.post(w+"/analyses", url.Values{"template": {workshop.TemplateEvaluationCriteria}})
		m := regexp.MustCompile(`^/w/` + ws.ID + `/analysis\?run=([a-z0-9]+)$`).FindStringSubmatch(r.location())
		if r.StatusCode != http.StatusSeeOther || m == nil {
			t.Fatalf("run analysis = %d to %q, want 303 to the analysis tab with ?run=", r.StatusCode, r.location())
		}
		run := r.location()
		page = fc.page(run)
		if !strings.Contains(page, `<meta http-equiv="refresh" content="2">`) || !strings.Contains(page, `id="analysis-running"`) ||
			strings.Contains(page, `id="findings"`) {
			t.Errorf("the tab of a queued run does not refresh itself:\n%s", page)
		}
		if _, err := e.Workshops.RunAnalysis(wsAdmin, ws.ID, m[1]); err != nil {
			t.Fatal(err)
		}
		page = fc.page(run)
		if strings.Contains(page, "http-equiv") || strings.Contains(page, `id="analysis-running"`) {
			t.Errorf("the tab of a done run still refreshes itself:\n%s", page)
		}
		fresh := regexp.MustCompile(`id="freshness">\s*Analysis based on 2 participants \(last run: [0-9-]+ [0-9:]+ UTC, template: Evaluation Criteria\)\s*</p>`)
		if !fresh.MatchString(page) {
			t.Errorf("no freshness banner:\n%s", wsSection(page, "analysis-controls", "summary"))
		}
		for _, want := range []string{`id="finding-count">3<`, `id="count-high">1 HIGH<`, `id="count-medium">1 MEDIUM<`, `id="count-lower">1 LOWER<`,
			`Reviewers value <strong>citations</strong>.`} {
			if !strings.Contains(wsSection(page, "summary", "findings"), want) {
				t.Errorf("the summary lacks %s:\n%s", want, wsSection(page, "summary", "findings"))
			}
		}
		findings := wsSection(page, "findings", "disagreements")
		for _, want := range []string{
			`<span class="badge priority-high">high</span>\s*<span class="finding-text">Cites the policy by name</span>`,
			`<span class="badge priority-medium">medium</span>\s*<span class="finding-text">Offers one action at a time</span>`,
			`<span class="badge priority-low">low</span>\s*<span class="finding-text">Keeps it short</span>`,
			`Evidence:\s*<a href="` + w + `/traces/t1">t1</a>,\s*<a href="` + w + `/traces/t3">t3</a>`,
		} {
			if !regexp.MustCompile(want).MatchString(findings) {
				t.Errorf("the findings lack %s:\n%s", want, findings)
			}
		}
		high, medium, lower := wsSection(page, "tier-high", "tier-medium"), wsSection(page, "tier-medium", "tier-lower"), wsSection(page, "tier-lower", "rubric-panel")
		if high == "" || medium == "" || lower == "" || strings.Index(page, `id="tier-high"`) > strings.Index(page, `id="tier-medium"`) ||
			strings.Index(page, `id="tier-medium"`) > strings.Index(page, `id="tier-lower"`) {
			t.Fatalf("the disagreements are not under HIGH, MEDIUM, LOWER in that order:\n%s", wsSection(page, "disagreements", "rubric-panel"))
		}
		for _, tc := range []struct {
			tier string
			in   string
			want []string
		}{
			{"HIGH", high, []string{`<span class="badge tier-high">HIGH</span>`, `<a href="` + w + `/traces/t1">Trace t1</a>`, "tone vs content", "empathy",
				"Which matters more?", "Calibrate on tone", "Alice finds t1 good", "Bob finds t1 bad"}},
			{"MEDIUM", medium, []string{`<span class="badge tier-medium">MEDIUM</span>`, `<a href="` + w + `/traces/t2">Trace t2</a>`, "completeness"}},
			{"LOWER", lower, []string{`<span class="badge tier-lower">LOWER</span>`, `<a href="` + w + `/traces/t3">Trace t3</a>`, "Alice finds t3 good"}},
		} {
			for _, want := range tc.want {
				if !strings.Contains(tc.in, want) {
					t.Errorf("the %s tier lacks %s:\n%s", tc.tier, want, tc.in)
				}
			}
		}
		if strings.Contains(high, "Trace t2") || strings.Contains(lower, "Trace t1") || strings.Contains(page, "Trace t4<") {
			t.Error("a disagreement is in the wrong tier, or t4 (one reviewer) is shown as one")
		}
		// An evidence link opens the trace with everyone's feedback.
		if page := fc.page(w + "/traces/t1"); !strings.Contains(page, "Alice finds t1 good") || !strings.Contains(page, "Bob finds t1 bad") {
			t.Errorf("the evidence trace's page:\n%s", page)
		}
		// The history lists the run; another run with the custom template.
		if !strings.Contains(page, `<option value="`+m[1]+`" selected>`) {
			t.Errorf("the history does not pick the run shown")
		}
		r = fc.post(w+"/analyses", url.Values{"template": {"tone"}})
		m2 := regexp.MustCompile(`\?run=([a-z0-9]+)$`).FindStringSubmatch(r.location())
		if m2 == nil {
			t.Fatalf("second run = %d to %q", r.StatusCode, r.location())
		}
		if _, err := e.Workshops.RunAnalysis(wsAdmin, ws.ID, m2[1]); err != nil {
			t.Fatal(err)
		}
		page = fc.page(w + "/analysis")
		if !strings.Contains(page, "template: Tone check)") || !strings.Contains(page, `<option value="`+m[1]+`">`) {
			t.Errorf("the tab does not show the newest run, or the history lost the first:\n%s", wsSection(page, "analysis-controls", "summary"))
		}
		if page := fc.page(run); !strings.Contains(page, "template: Evaluation Criteria)") {
			t.Error("?run= does not show the run it names")
		}
		if r := fc.get(w + "/analysis?run=nosuchrun"); r.StatusCode != http.StatusNotFound {
			t.Errorf("an unknown run = %d, want 404", r.StatusCode)
		}
	})
}

func TestWorkshopPromotion(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		e := wsOpen(t, databaseURL, false, llmtest.New(t))
		ws, alice, _ := e.reviewed()
		run := e.analyze(ws.ID)
		fc := e.join(ws.Facilitator)
		w := "/w/" + ws.ID
		tab := w + "/analysis?run=" + run
		page := fc.page(tab)
		if !strings.Contains(page, `id="rubric-count">0 items staged for rubric`) || strings.Contains(page, `id="suggest-groups"`) {
			t.Errorf("the empty draft rubric panel:\n%s", wsSection(page, "rubric-panel"))
		}

		promote := func(what string, f wsForm, changes url.Values, back string) string {
			t.Helper()
			r := fc.submit(f, changes)
			if r.StatusCode != http.StatusSeeOther || r.location() != back {
				t.Fatalf("promote %s = %d to %q, want 303 back to %s:\n%s", what, r.StatusCode, r.location(), back, r.body)
			}
			page := fc.page(back)
			if fl := wsFlash(page); fl == nil || !strings.HasPrefix(fl.notice, "Promoted to the draft rubric: “") {
				t.Errorf("promote %s: flash %+v", what, fl)
			}
			return page
		}
		promote("a finding", wsFindForm(t, page, "promote", "text", "Cites the policy by name"), nil, tab)
		promote("an analysed disagreement", wsFindForm(t, page, "promote", "text", "empathy"), nil, tab)
		lower := wsFindFormBy(t, page, "promote", func(v url.Values) bool { return strings.HasPrefix(v.Get("text"), "Reviewers disagree on trace t3: ") })
		lowerText := lower.values.Get("text")
		if !strings.Contains(lowerText, "Alice (good): Alice finds t3 good") || !strings.Contains(lowerText, "Bob (good): Bob finds t3 good") {
			t.Errorf("the promote text of a disagreement without analysis: %q", lowerText)
		}
		promote("a disagreement without analysis", lower, nil, tab)
		monitor := w + "?member=" + alice.ID
		mpage := fc.page(monitor)
		promote("a feedback comment", wsFindForm(t, mpage, "promote", "text", "Alice finds t1 good"), nil, monitor)
		// The facilitator's own text, with "+ Add Item"; an empty one is refused.
		addItem := wsFindForm(t, page, "add-item", "source_type", "manual")
		r := fc.submit(addItem, nil)
		if fl := wsFlash(fc.follow(r)); fl == nil || !strings.Contains(fl.err, "text is required") {
			t.Errorf("an empty manual item: flash %+v", fl)
		}
		page = promote("a manual item", addItem, url.Values{"text": {"Asks before acting"}}, tab)

		stored := e.items(ws.ID)
		want := map[string]struct {
			source, analysis string
			traces           []string
		}{
			"Cites the policy by name": {workshop.SourceFinding, run, []string{"t1", "t3"}},
			"empathy":                  {workshop.SourceDisagreement, run, []string{"t1"}},
			lowerText:                  {workshop.SourceDisagreement, run, []string{"t3"}},
			"Alice finds t1 good":      {workshop.SourceFeedback, "", []string{"t1"}},
			"Asks before acting":       {workshop.SourceManual, "", []string{}},
		}
		if len(stored) != len(want) {
			t.Errorf("%d draft items stored, want %d (the empty manual form is refused): %v", len(stored), len(want), stored)
		}
		labels := map[string]string{workshop.SourceFinding: "Analysis finding", workshop.SourceDisagreement: "Disagreement",
			workshop.SourceFeedback: "Feedback", workshop.SourceManual: "Manual"}
		panel := wsPanel(page)
		for id, it := range stored {
			wt, ok := want[it.Text]
			if !ok {
				t.Errorf("unexpected item %+v", it)
				continue
			}
			if it.SourceType != wt.source || it.SourceAnalysisID != wt.analysis || !slices.Equal(it.SourceTraceIDs, wt.traces) ||
				it.PromotedBy != ws.Facilitator.ID {
				t.Errorf("item %q stored as %+v, want source %s, analysis %q, traces %v, by the facilitator", it.Text, it, wt.source, wt.analysis, wt.traces)
			}
			shown, ok := panel[id]
			var links []string
			for _, tr := range wt.traces {
				links = append(links, w+"/traces/"+tr)
			}
			if !ok || shown.text != it.Text || shown.source != labels[wt.source] || !slices.Equal(shown.evidence, links) {
				t.Errorf("the panel shows item %q as %+v, want source %q and evidence %v", it.Text, shown, labels[wt.source], links)
			}
		}
		if !strings.Contains(page, `id="rubric-count">5 items staged for rubric`) || !strings.Contains(page, `id="suggest-groups"`) {
			t.Errorf("the panel's count or Suggest Groups:\n%s", wsSection(page, "rubric-panel"))
		}
		// The panel is on every tab of the dashboard and the trace view.
		for _, path := range []string{w, w + "/setup", w + "/traces/t2"} {
			if got := wsPanel(fc.page(path)); len(got) != 5 {
				t.Errorf("%s shows %d draft items, want 5", path, len(got))
			}
		}
		// A trace that is not the workshop's is refused.
		r = fc.submit(addItem, url.Values{"text": {"x"}, "source_trace_id": {"t99"}})
		if fl := wsFlash(fc.follow(r)); fl == nil || !strings.Contains(fl.err, "t99") || len(e.items(ws.ID)) != 5 {
			t.Errorf("promoting with a trace of elsewhere: flash %+v", fl)
		}
	})
}

func TestWorkshopDraftRubricEditing(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		e := wsOpen(t, databaseURL, false, nil)
		ws := e.create("Editing")
		e.traces(ws.ID, 2)
		e.begin(ws.ID, 2)
		a := e.promote(ws.ID, "Cites sources", "")
		b := e.promote(ws.ID, "Gives the number", "")
		c := e.promote(ws.ID, "Too long", "")
		fc := e.join(ws.Facilitator)
		w := "/w/" + ws.ID
		back := w + "/setup"
		page := fc.page(back)
		action := func(id string) string { return w + "/rubric/" + id }
		edit := func(what string, f wsForm, changes url.Values) string {
			t.Helper()
			r := fc.submit(f, changes)
			if r.StatusCode != http.StatusSeeOther || r.location() != back {
				t.Fatalf("%s = %d to %q, want 303 back to %s:\n%s", what, r.StatusCode, r.location(), back, r.body)
			}
			return fc.page(back)
		}

		page = edit("edit text", wsFindForm(t, page, "item-edit", "text", "Cites sources"), url.Values{"text": {"Cites its sources by name"}})
		if got := e.items(ws.ID)[a].Text; got != "Cites its sources by name" || wsPanel(page)[a].text != got {
			t.Errorf("edited text: stored %q, shown %q", got, wsPanel(page)[a].text)
		}
		var moveA wsForm
		for _, f := range wsForms(page) {
			if f.class == "item-move" && f.action == action(a) {
				moveA = f
			}
		}
		if moveA.action == "" || moveA.values.Get("group_id") != "" || moveA.values.Get("move") != "1" {
			t.Fatalf("no move form of item %s: %+v", a, moveA)
		}
		page = edit("move to a new group", moveA, url.Values{"group_id": {"+new"}, "new_group": {"Accuracy"}})
		ia := e.items(ws.ID)[a]
		if ia.GroupID == "" || ia.GroupName != "Accuracy" || wsPanel(page)[a].group != "Accuracy" {
			t.Fatalf("after moving to a new group: stored %+v, shown %+v", ia, wsPanel(page)[a])
		}
		group := ia.GroupID
		if !strings.Contains(page, `<section class="rubric-group" data-group-id="`+group+`">`) {
			t.Errorf("the panel has no section for the group:\n%s", wsSection(page, "rubric-panel"))
		}
		var moveB wsForm
		for _, f := range wsForms(page) {
			if f.class == "item-move" && f.action == action(b) {
				moveB = f
			}
		}
		if !strings.Contains(page, `<option value="`+group+`">Accuracy</option>`) {
			t.Errorf("the move control does not offer the group")
		}
		page = edit("move to the group", moveB, url.Values{"group_id": {group}})
		if ib := e.items(ws.ID)[b]; ib.GroupID != group || ib.GroupName != "Accuracy" {
			t.Errorf("after moving to the group: %+v", ib)
		}
		page = edit("rename the group", wsFindForm(t, page, "group-rename", "name", "Accuracy"), url.Values{"name": {"Response accuracy"}})
		for _, id := range []string{a, b} {
			if it := e.items(ws.ID)[id]; it.GroupID != group || it.GroupName != "Response accuracy" || wsPanel(page)[id].group != "Response accuracy" {
				t.Errorf("after renaming, item %s: %+v", id, it)
			}
		}
		r := fc.submit(wsFindForm(t, page, "group-rename", "name", "Response accuracy"), url.Values{"name": {" "}})
		if f := wsFlash(fc.follow(r)); f == nil || f.err == "" || e.items(ws.ID)[a].GroupName != "Response accuracy" {
			t.Errorf("renaming to nothing: flash %+v", f)
		}
		for _, f := range wsForms(page) {
			if f.class == "item-move" && f.action == action(a) {
				moveA = f
			}
		}
		page = edit("move to no group", moveA, url.Values{"group_id": {""}})
		if ia := e.items(ws.ID)[a]; ia.GroupID != "" || ia.GroupName != "" || wsPanel(page)[a].group != "" {
			t.Errorf("after moving to no group: %+v", ia)
		}
		var del wsForm
		for _, f := range wsForms(page) {
			if f.class == "item-delete" && f.action == action(c)+"/delete" {
				del = f
			}
		}
		r = fc.submit(del, nil)
		page = fc.follow(r)
		if f := wsFlash(page); f == nil || f.notice != "The item was removed from the draft rubric." {
			t.Errorf("the flash after removing: %+v", f)
		}
		if _, ok := e.items(ws.ID)[c]; ok || len(wsPanel(page)) != 2 || !strings.Contains(page, `id="rubric-count">2 items staged`) {
			t.Errorf("item %s is still there", c)
		}
		if r := fc.post(action(c)+"/delete", url.Values{"back": {back}}); r.StatusCode != http.StatusNotFound {
			t.Errorf("removing it again = %d, want 404", r.StatusCode)
		}

		// Past rubric creation the panel is read-only.
		if _, err := e.Workshops.SetPhase(wsAdmin, ws.ID, "", workshop.PhaseAnnotation); err != nil {
			t.Fatal(err)
		}
		page = fc.page(back)
		if strings.Contains(page, `class="item-edit"`) || strings.Contains(page, `class="add-item"`) || len(wsPanel(page)) != 2 {
			t.Errorf("the panel in annotation is still editable:\n%s", wsSection(page, "rubric-panel"))
		}
		r = fc.post(action(a), url.Values{"text": {"Late"}, "back": {back}})
		if f := wsFlash(fc.follow(r)); f == nil || !strings.Contains(f.err, "rubric creation") || e.items(ws.ID)[a].Text != "Cites its sources by name" {
			t.Errorf("editing in annotation: flash %+v", f)
		}
	})
}

func TestWorkshopSuggestAndApplyGroups(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		fake := llmtest.New(t)
		e := wsOpen(t, databaseURL, false, fake)
		ws := e.create("Grouping")
		e.traces(ws.ID, 2)
		e.begin(ws.ID, 2)
		i1 := e.promote(ws.ID, "Cites sources", "")
		i2 := e.promote(ws.ID, "Gives the number", "")
		i3 := e.promote(ws.ID, "Warm greeting", "")
		i4 := e.promote(ws.ID, "Too long", "Old")
		fake.SetHandler(func(r llmtest.ChatRequest) llmtest.Reply {
			return llmtest.JSON(workshop.Grouping{Groups: []workshop.ProposedGroup{
				{Name: "Accuracy", ItemIDs: []string{i1, "ghostitem001", i2}, Rationale: "Both about facts"},
				{Name: "Tone", ItemIDs: []string{i3}, Rationale: "About the tone"},
				{Name: "Phantom", ItemIDs: []string{"ghostitem002"}, Rationale: "Nothing real"},
			}})
		})
		fc := e.join(ws.Facilitator)
		w := "/w/" + ws.ID
		page := fc.page(w)
		before := e.snapshot(ws.ID)

		r := fc.submit(wsFindForm(t, page, "suggest", "back", w), nil)
		if r.StatusCode != http.StatusOK {
			t.Fatalf("Suggest Groups = %d:\n%s", r.StatusCode, r.body)
		}
		proposal := r.body
		for _, want := range []string{"<h1>Suggested groups</h1>", `name="group_0" value="Accuracy"`, `name="group_1" value="Tone"`,
			`name="group_2" value=""`, `<input type="hidden" name="groups" value="3">`, "Both about facts", "About the tone",
			`<a class="button secondary" href="` + w + `" id="discard-groups">Discard</a>`} {
			if !strings.Contains(proposal, want) {
				t.Errorf("the proposal lacks %s:\n%s", want, proposal)
			}
		}
		if strings.Contains(proposal, "ghostitem") || strings.Contains(proposal, "Phantom") {
			t.Errorf("the proposal shows invented items or a group of them:\n%s", proposal)
		}
		form := wsFindForm(t, proposal, "proposal", "groups", "3")
		for id, want := range map[string]string{i1: "0", i2: "0", i3: "1", i4: ""} {
			if got := form.values.Get("item_" + id); got != want {
				t.Errorf("the proposal puts item %s in %q, want %q", id, got, want)
			}
		}
		if after := e.snapshot(ws.ID); after != before {
			t.Fatalf("Suggest Groups saved something: %s", wsDiff(before, after))
		}
		if it := e.items(ws.ID)[i4]; it.GroupName != "Old" {
			t.Errorf("item %s left its group before Apply: %+v", i4, it)
		}

		// A group with items needs a name.
		r = fc.submit(form, url.Values{"group_0": {" "}})
		if r.location() != w {
			t.Fatalf("apply = %d to %q, want back to %s", r.StatusCode, r.location(), w)
		}
		if f := wsFlash(fc.follow(r)); f == nil || !strings.Contains(f.err, "every group with items needs a name") {
			t.Errorf("a named-less group with items: flash %+v", f)
		}
		if after := e.snapshot(ws.ID); after != before {
			t.Fatalf("a refused apply changed the items: %s", wsDiff(before, after))
		}
		// An item put in a group the form does not have.
		r = fc.submit(form, url.Values{"item_" + i4: {"7"}})
		if f := wsFlash(fc.follow(r)); f == nil || f.err == "" || e.snapshot(ws.ID) != before {
			t.Errorf("an item in group 7 of 3: flash %+v", f)
		}

		// Applied as reviewed: Tone gets item 4 too, the empty new group is dropped.
		r = fc.submit(form, url.Values{"item_" + i4: {"1"}, "group_2": {"Unused"}, "group_1": {"Tone of voice"}})
		page = fc.follow(r)
		if f := wsFlash(page); f == nil || f.notice != "The groups were applied: 2 groups." {
			t.Errorf("the flash after applying: %+v", f)
		}
		items := e.items(ws.ID)
		g1, g2 := items[i1].GroupID, items[i3].GroupID
		switch {
		case g1 == "" || g2 == "" || g1 == g2:
			t.Errorf("groups after apply: %+v", items)
		case items[i2].GroupID != g1 || items[i1].GroupName != "Accuracy" || items[i2].GroupName != "Accuracy":
			t.Errorf("Accuracy after apply: %+v %+v", items[i1], items[i2])
		case items[i4].GroupID != g2 || items[i3].GroupName != "Tone of voice" || items[i4].GroupName != "Tone of voice":
			t.Errorf("Tone after apply: %+v %+v", items[i3], items[i4])
		}
		for _, it := range items {
			if it.GroupName == "Unused" || it.GroupName == "Old" {
				t.Errorf("item %s is in %q after apply", it.ID, it.GroupName)
			}
		}
		if strings.Count(page, `<section class="rubric-group" data-group-id=`) != 2 {
			t.Errorf("the panel does not show the two groups:\n%s", wsSection(page, "rubric-panel"))
		}
		// An empty proposal applied ungroups everything.
		r = fc.post(w+"/rubric/apply", url.Values{"groups": {"0"}, "back": {w}})
		if f := wsFlash(fc.follow(r)); f == nil || f.notice != "The groups were applied: 0 groups." {
			t.Errorf("applying no group: flash %+v", f)
		}
		for _, it := range e.items(ws.ID) {
			if it.GroupID != "" {
				t.Errorf("item %s is still grouped: %+v", it.ID, it)
			}
		}
	})
}

func TestWorkshopExports(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		e := wsOpen(t, databaseURL, false, nil)
		ws := e.create("Exports")
		pia := e.member(ws.ID, "Pia", workshop.RoleParticipant)
		e.traces(ws.ID, 2)
		e.begin(ws.ID, 2)
		e.complete(pia, "t1", "bad")
		e.promote(ws.ID, "Names the policy", "Sources")
		fc := e.join(ws.Facilitator)
		w := "/w/" + ws.ID
		page := fc.page(w + "/setup")
		for _, f := range []string{"jsonl", "csv", "md"} {
			if !strings.Contains(page, `href="`+w+`/export?format=`+f+`" download`) {
				t.Errorf("the setup tab has no %s download link", f)
			}
		}
		for _, tc := range []struct{ format, contentType string }{
			{"jsonl", "application/x-ndjson"}, {"csv", "text/csv; charset=utf-8"}, {"md", "text/markdown; charset=utf-8"},
		} {
			r := fc.get(w + "/export?format=" + tc.format)
			cd := `attachment; filename="hone-workshop-` + ws.ID + `.` + tc.format + `"`
			if r.StatusCode != http.StatusOK || r.Header.Get("Content-Type") != tc.contentType || r.Header.Get("Content-Disposition") != cd {
				t.Errorf("export %s = %d %q %q, want 200 %q %q", tc.format, r.StatusCode, r.Header.Get("Content-Type"),
					r.Header.Get("Content-Disposition"), tc.contentType, cd)
				continue
			}
			switch tc.format {
			case "jsonl":
				lines := strings.Split(strings.TrimSpace(r.body), "\n")
				var rec workshop.FeedbackRecord
				if len(lines) != 1 || json.Unmarshal([]byte(lines[0]), &rec) != nil || rec.Trace.ID != "t1" || rec.UserName != "Pia" || len(rec.FollowupQnA) != 3 {
					t.Errorf("JSONL export:\n%s", r.body)
				}
			case "csv":
				rows, err := csv.NewReader(strings.NewReader(r.body)).ReadAll()
				if err != nil || len(rows) != 2 || !slices.Equal(rows[0], workshop.CSVHeader) || rows[1][0] != "t1" || rows[1][4] != "Pia" {
					t.Errorf("CSV export (%v):\n%s", err, r.body)
				}
			case "md":
				if !strings.Contains(r.body, "Names the policy") || !strings.Contains(r.body, "Sources") {
					t.Errorf("Markdown export:\n%s", r.body)
				}
			}
		}
		if r := fc.get(w + "/export?format=xml"); r.StatusCode != http.StatusBadRequest || r.Header.Get("Content-Disposition") != "" {
			t.Errorf("export xml = %d %q, want 400 without a download", r.StatusCode, r.Header.Get("Content-Disposition"))
		}
	})
}

// wsStep is a participant's trace page as the tests read it.
type wsStep struct {
	state, question string
	page            string
}

func (c *wsClient) step(path string) wsStep {
	c.t.Helper()
	page := c.page(path)
	m := wsStepState.FindStringSubmatch(page)
	if m == nil {
		c.t.Fatalf("%s is not a trace step:\n%s", path, page)
	}
	return wsStep{state: m[1], question: m[2], page: page}
}

func TestWorkshopParticipantFlow(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		fake := llmtest.New(t)
		e := wsOpen(t, databaseURL, false, fake)
		asked := 0
		fake.SetHandler(func(llmtest.ChatRequest) llmtest.Reply {
			asked++ // under the fake's lock
			return llmtest.Text(fmt.Sprintf("What about point %d?", asked))
		})
		ws := e.create("Flow")
		pia := e.member(ws.ID, "Pia", workshop.RoleParticipant)
		e.traces(ws.ID, 3)
		e.begin(ws.ID, 2)
		pc := e.join(pia)
		w := "/w/" + ws.ID
		t1, t2 := w+"/traces/t1", w+"/traces/t2"
		saved := func() []*workshop.Feedback {
			fb, err := e.Workshops.ListFeedback(wsAdmin, ws.ID, pia.ID)
			if err != nil {
				t.Fatal(err)
			}
			return fb
		}
		// same checks that a reload shows the same step.
		same := func(path string, st wsStep) {
			t.Helper()
			again := pc.step(path)
			if again.state != st.state || again.question != st.question {
				t.Errorf("a reload of %s shows step %s/%s, want %s/%s", path, again.state, again.question, st.state, st.question)
			}
		}

		if r := pc.get(w); r.StatusCode != http.StatusSeeOther || r.location() != t1 {
			t.Fatalf("Pia's home = %d to %q", r.StatusCode, r.location())
		}
		st := pc.step(t1)
		if st.state != workshop.StateFeedback || !strings.Contains(st.page, "<strong>0 of 2 traces</strong>") ||
			!strings.Contains(st.page, `id="feedback-form" data-require`) || !strings.Contains(st.page, "Question t1") {
			t.Errorf("the first step:\n%s", st.page)
		}
		same(t1, st)

		// Form validation: nothing is saved without a comment or a label.
		for _, tc := range []struct {
			what string
			form url.Values
			err  string
		}{
			{"an empty comment", url.Values{"feedback_label": {"good"}, "comment": {"   "}}, "comment is required"},
			{"no label", url.Values{"comment": {"Clear"}}, "feedback_label must be good or bad"},
		} {
			r := pc.post(t1+"/feedback", tc.form)
			if r.StatusCode != http.StatusSeeOther || r.location() != t1 {
				t.Fatalf("feedback with %s = %d to %q", tc.what, r.StatusCode, r.location())
			}
			st := pc.step(t1)
			if st.state != workshop.StateFeedback || !regexp.MustCompile(`role="alert">\s*`+regexp.QuoteMeta(tc.err)).MatchString(st.page) {
				t.Errorf("feedback with %s: the page does not say %q:\n%s", tc.what, tc.err, st.page)
			}
			if again := pc.page(t1); strings.Contains(again, `role="alert"`) {
				t.Errorf("feedback with %s: the error is shown again on reload", tc.what)
			}
			if n := len(saved()); n != 0 {
				t.Errorf("feedback with %s saved %d records", tc.what, n)
			}
		}

		answer := func(trace string, n int) {
			t.Helper()
			st := pc.step(trace)
			if st.state != workshop.StateQuestion || st.question != fmt.Sprint(n) || !strings.Contains(st.page, `id="question-form" data-autosubmit`) ||
				!strings.Contains(st.page, `name="question_number" value="`+fmt.Sprint(n)+`"`) {
				t.Fatalf("before question %d of %s:\n%s", n, trace, st.page)
			}
			same(trace, st)
			pc.follow(pc.post(trace+"/question", url.Values{"question_number": {fmt.Sprint(n)}}))
			st = pc.step(trace)
			q := regexp.MustCompile(`<p class="current-question" id="current-question"><span class="who">Question ` + fmt.Sprint(n) +
				` of 3</span>\s*(What about point [0-9]+\?)</p>`).FindStringSubmatch(st.page)
			if st.state != workshop.StateAnswer || q == nil || !strings.Contains(st.page, `id="answer-form" data-require`) {
				t.Fatalf("question %d of %s is not asked:\n%s", n, trace, st.page)
			}
			same(trace, st)
			if again := pc.page(trace); !strings.Contains(again, q[1]) {
				t.Errorf("a reload asks another question than %q", q[1])
			}
			r := pc.post(trace+"/answer", url.Values{"question": {q[1]}, "answer": {"  "}})
			if st := pc.step(r.location()); st.state != workshop.StateAnswer || !strings.Contains(st.page, "answer is required") {
				t.Errorf("an empty answer to question %d: step %s:\n%s", n, st.state, st.page)
			}
			pc.follow(pc.post(trace+"/answer", url.Values{"question": {q[1]}, "answer": {fmt.Sprintf("Answer %d", n)}}))
			if page := pc.page(trace); !strings.Contains(page, q[1]) || !strings.Contains(page, fmt.Sprintf("Answer %d", n)) {
				t.Errorf("the answered question %d is not shown with its answer", n)
			}
		}

		pc.follow(pc.post(t1+"/feedback", url.Values{"feedback_label": {"good"}, "comment": {"Clear and polite"}}))
		if page := pc.page(t1); !strings.Contains(page, `<div class="given" id="given">`) || !strings.Contains(page, "Clear and polite") {
			t.Errorf("the feedback given is not shown:\n%s", page)
		}
		answer(t1, 1)
		answer(t1, 2)

		// The LLM fails: the page says so and offers to retry, without
		// asking again by itself.
		fake.SetHandler(func(llmtest.ChatRequest) llmtest.Reply {
			return llmtest.Error(http.StatusInternalServerError, "model crashed")
		})
		r := pc.post(t1+"/question", url.Values{"question_number": {"3"}})
		if r.StatusCode != http.StatusSeeOther || r.location() != t1 {
			t.Fatalf("a failed question = %d to %q:\n%s", r.StatusCode, r.location(), r.body)
		}
		st = pc.step(t1)
		if st.state != workshop.StateQuestion || !strings.Contains(st.page, `id="llm-error"`) || !strings.Contains(st.page, `<button type="submit" id="retry"`) ||
			strings.Contains(st.page, "data-autosubmit") {
			t.Errorf("the page after the LLM failed:\n%s", st.page)
		}
		if n := strings.Count(st.page, "could not be generated"); n != 1 {
			t.Errorf("the error says %d times that the question could not be generated:\n%s", n, wsSection(st.page, "llm-error", "question-form"))
		}
		if fb := saved(); len(fb) != 1 || len(fb[0].FollowupQnA) != 2 || fb[0].Pending != nil {
			t.Errorf("after the failure the record is %+v", fb)
		}
		st = pc.step(t1)
		if st.state != workshop.StateQuestion || st.question != "3" || strings.Contains(st.page, `id="llm-error"`) {
			t.Errorf("a reload after the failure:\n%s", st.page)
		}
		fake.SetHandler(func(llmtest.ChatRequest) llmtest.Reply { return llmtest.Text("What about point 3?") })
		answer(t1, 3)

		st = pc.step(t1)
		if st.state != workshop.StateComplete || !strings.Contains(st.page, `<a class="button" id="next-trace" href="`+t2+`">Next Trace</a>`) ||
			!strings.Contains(st.page, "<strong>1 of 2 traces</strong>") {
			t.Errorf("t1 complete:\n%s", st.page)
		}
		same(t1, st)
		if r := pc.get(w); r.location() != t2 {
			t.Errorf("Pia's home after t1 leads to %q, want %s", r.location(), t2)
		}
		pc.follow(pc.post(t2+"/feedback", url.Values{"feedback_label": {"bad"}, "comment": {"Wrong number"}}))
		for n := 1; n <= 3; n++ {
			answer(t2, n)
		}
		st = pc.step(t2)
		if st.state != workshop.StateComplete || !strings.Contains(st.page, `<a class="button" id="complete-discovery" href="`+w+`">Complete Discovery</a>`) ||
			!strings.Contains(st.page, "<strong>2 of 2 traces</strong>") {
			t.Errorf("t2 complete:\n%s", st.page)
		}
		if page := pc.page(w); !strings.Contains(page, "Discovery complete") {
			t.Errorf("Complete Discovery leads to:\n%s", page)
		}
		fb := saved()
		if len(fb) != 2 || fb[0].TraceID != "t1" || fb[0].Label != "good" || fb[0].Comment != "Clear and polite" || len(fb[0].FollowupQnA) != 3 ||
			fb[0].FollowupQnA[0].Answer != "Answer 1" || fb[0].FollowupQnA[2].Question != "What about point 3?" {
			t.Errorf("saved feedback: %+v", fb)
		}
		// A finished trace takes no more answers or questions.
		if r := pc.post(t1+"/question", url.Values{"question_number": {"3"}}); r.StatusCode != http.StatusSeeOther {
			t.Errorf("asking again = %d", r.StatusCode)
		} else if st := pc.step(t1); st.state != workshop.StateComplete {
			t.Errorf("asking again moved t1 to %s", st.state)
		}
	})
}

func TestWorkshopsListAndCreate(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		e := wsOpen(t, databaseURL, false, nil)
		old := e.create("Older")
		admin := e.admin()
		if page := admin.page("/"); !strings.Contains(page, `<a href="/workshops">Workshops</a>`) {
			t.Errorf("the home page does not link to /workshops:\n%s", page)
		}
		page := admin.page("/workshops")
		if !regexp.MustCompile(`<tr data-workshop="` + old.ID + `">\s*<td><a href="/w/` + old.ID + `">Older</a></td>\s*<td>Intake</td>`).MatchString(page) {
			t.Errorf("the list does not show the workshop:\n%s", page)
		}
		r := admin.post("/workshops", url.Values{"name": {""}, "facilitator_name": {"Fay"}})
		if r.location() != "/workshops" {
			t.Fatalf("create without a name = %d to %q", r.StatusCode, r.location())
		}
		if f := wsFlash(admin.page("/workshops")); f == nil || !strings.Contains(f.err, "name is required") {
			t.Errorf("create without a name: flash %+v", f)
		}

		r = admin.post("/workshops", url.Values{"name": {"Fresh"}, "description": {"New bot"}, "facilitator_name": {"Fern"},
			"facilitator_email": {"fern@example.com"}})
		m := regexp.MustCompile(`^/w/([a-z0-9]+)$`).FindStringSubmatch(r.location())
		if r.StatusCode != http.StatusSeeOther || m == nil {
			t.Fatalf("create = %d to %q", r.StatusCode, r.location())
		}
		id := m[1]
		if c := r.cookie("hone_w_" + id); c == nil || !c.HttpOnly || c.Path != "/w/"+id {
			t.Errorf("create did not sign the browser in to the workshop: %v", r.Header["Set-Cookie"])
		}
		page = admin.follow(r)
		if !strings.Contains(page, "Fern · facilitator") || !strings.Contains(page, `id="start-discovery"`) {
			t.Errorf("the new workshop's page is not Fern's start page:\n%s", page)
		}
		f := wsFlash(page)
		if f == nil || !strings.Contains(f.notice, "Workshop created") || !strings.HasPrefix(f.link, e.base+"/w/"+id+"/join/") {
			t.Fatalf("the flash after creating: %+v", f)
		}
		if page := admin.page("/w/" + id); wsFlash(page) != nil {
			t.Error("the creation flash is shown again on reload")
		}
		// The link signs Fern in elsewhere as the facilitator.
		other := e.client()
		if r := other.get(wsPathOf(t, f.link)); r.StatusCode != http.StatusSeeOther {
			t.Fatalf("Fern's link = %d", r.StatusCode)
		}
		if page := other.page("/w/" + id); !strings.Contains(page, "Fern · facilitator") {
			t.Errorf("Fern's link opens:\n%s", page)
		}
		members, _ := e.Workshops.Members(wsAdmin, id, "")
		if len(members) != 1 || members[0].Name != "Fern" || members[0].Role != workshop.RoleFacilitator || members[0].Email != "fern@example.com" {
			t.Errorf("members of the new workshop: %+v", members)
		}
		page = admin.page("/workshops")
		if !strings.Contains(page, `<a href="/w/`+id+`">Fresh</a>`) || strings.Index(page, "Fresh") > strings.Index(page, "Older") {
			t.Errorf("the list does not show the new workshop first:\n%s", page)
		}

		// Without HONE_API_TOKEN anyone on this machine may create one.
		local := wsOpen(t, databaseURL, true, nil)
		lc := local.client()
		lc.page("/workshops")
		r = lc.post("/workshops", url.Values{"name": {"Local"}, "facilitator_name": {"Lou"}})
		if page := lc.follow(r); !strings.Contains(page, "Lou · facilitator") {
			t.Errorf("creating without a token:\n%s", page)
		}
	})
}

func TestWorkshopSessionPageRendersMarkdown(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		a := openApp(t, databaseURL)
		s := a.seed()
		a.listen()
		status, _, page := a.get("/sessions/" + s.alice1)
		if status != http.StatusOK {
			t.Fatalf("GET /sessions/%s = %d", s.alice1, status)
		}
		if !strings.Contains(page, "Line one with <strong>bold</strong> advice") {
			t.Errorf("the response's Markdown is not rendered:\n%s", page)
		}
		for _, markup := range []string{"<script>document.title", "<img src=x", `onerror="window.__xss`, "<b>bold</b>"} {
			if strings.Contains(page, markup) {
				t.Errorf("the page has the markup %q:\n%s", markup, page)
			}
		}
		if !strings.Contains(page, "And &lt;b&gt;bold&lt;/b&gt;?") {
			t.Errorf("the user's message is not shown as text:\n%s", page)
		}
	})
}
