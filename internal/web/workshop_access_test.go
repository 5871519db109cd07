package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/auth"
	"github.com/honehq/hone/internal/config"
	"github.com/honehq/hone/internal/llm/llmtest"
	"github.com/honehq/hone/internal/web"
	"github.com/honehq/hone/internal/workshop"
)

// The workshop pages' tests go through the real HTTP server with one
// cookie jar per person; they seed through the workshop service and check
// what changed through it. Shared helpers of workshop_pages_test.go too.

// wsAdmin is the context of the admin, for seeding and reading through the
// workshop service.
var wsAdmin = hone.WithIdentity(context.Background(), hone.Admin)

// wsEnv is hone serving over a real database.
type wsEnv struct {
	*authApp
	// fake is the LLM, nil when hone has none.
	fake *llmtest.Server
}

// wsOpen starts hone on databaseURL: with HONE_API_TOKEN unless local, and
// over the fake LLM when fake is not nil.
func wsOpen(t *testing.T, databaseURL string, local bool, fake *llmtest.Server) *wsEnv {
	t.Helper()
	a := openAuthApp(t, databaseURL, func(c *config.Config) {
		if local {
			c.APIToken = ""
		}
		if fake != nil {
			c.LLM = fake.Config()
		}
	})
	a.listen()
	return &wsEnv{authApp: a, fake: fake}
}

// wsClient is one person's browser: a cookie jar, redirects not followed.
type wsClient struct {
	t    *testing.T
	base string
	jar  http.CookieJar
	hc   *http.Client
}

func (e *wsEnv) client() *wsClient {
	e.t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		e.t.Fatal(err)
	}
	tr := &http.Transport{}
	e.t.Cleanup(tr.CloseIdleConnections)
	return &wsClient{t: e.t, base: e.base, jar: jar, hc: &http.Client{Jar: jar, Transport: tr, Timeout: time.Minute,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (c *wsClient) send(method, path string, body io.Reader, contentType string, header http.Header) reply {
	c.t.Helper()
	req, err := http.NewRequest(method, c.base+path, body)
	if err != nil {
		c.t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatalf("%s %s: read body: %v", method, path, err)
	}
	return reply{resp, string(b)}
}

func (c *wsClient) get(path string) reply {
	c.t.Helper()
	return c.send(http.MethodGet, path, nil, "", nil)
}

// page gets path and fails unless it answers 200.
func (c *wsClient) page(path string) string {
	c.t.Helper()
	r := c.get(path)
	if r.StatusCode != http.StatusOK {
		c.t.Fatalf("GET %s = %d (Location %q), want 200:\n%s", path, r.StatusCode, r.location(), r.body)
	}
	return r.body
}

// follow gets the page r redirects to, and fails unless r is a 303 to a
// page that answers 200.
func (c *wsClient) follow(r reply) string {
	c.t.Helper()
	if r.StatusCode != http.StatusSeeOther {
		c.t.Fatalf("%s %s = %d, want 303:\n%s", r.Request.Method, r.Request.URL.Path, r.StatusCode, r.body)
	}
	return c.page(r.location())
}

// sameSite is what a browser sends with a form of hone's own pages.
func (c *wsClient) sameSite() http.Header {
	return http.Header{"Origin": {c.base}, "Sec-Fetch-Site": {"same-origin"}}
}

// post submits form as hone's pages do: with the page's CSRF token.
func (c *wsClient) post(path string, form url.Values) reply {
	c.t.Helper()
	f := url.Values{}
	for k, v := range form {
		f[k] = v
	}
	f.Set(web.CSRFField, c.csrf())
	return c.postAs(path, f, c.sameSite())
}

// postAs sends form as it is, with header.
func (c *wsClient) postAs(path string, form url.Values, header http.Header) reply {
	c.t.Helper()
	return c.send(http.MethodPost, path, strings.NewReader(form.Encode()), "application/x-www-form-urlencoded", header)
}

// upload posts a multipart form of fields and, unless name is "", a file
// called name holding content, as the import form does.
func (c *wsClient) upload(path string, fields url.Values, name, content string, header http.Header) reply {
	c.t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for k, vs := range fields {
		for _, v := range vs {
			if err := mw.WriteField(k, v); err != nil {
				c.t.Fatal(err)
			}
		}
	}
	if name != "" {
		fw, err := mw.CreateFormFile("file", name)
		if err != nil {
			c.t.Fatal(err)
		}
		_, _ = io.WriteString(fw, content)
	}
	if err := mw.Close(); err != nil {
		c.t.Fatal(err)
	}
	return c.send(http.MethodPost, path, &b, mw.FormDataContentType(), header)
}

// csrf returns the browser's CSRF token, loading a page for one when it
// has none yet: every page hone renders gives one, a 401 page too.
func (c *wsClient) csrf() string {
	c.t.Helper()
	if ck := c.cookie("/", web.CSRFCookie); ck != nil {
		return ck.Value
	}
	c.get("/w/no-such-workshop")
	if ck := c.cookie("/", web.CSRFCookie); ck != nil {
		return ck.Value
	}
	c.t.Fatal("no page gave a CSRF cookie")
	return ""
}

// cookie returns the cookie called name the browser sends to path, or nil.
func (c *wsClient) cookie(path, name string) *http.Cookie {
	u, err := url.Parse(c.base + path)
	if err != nil {
		c.t.Fatal(err)
	}
	for _, ck := range c.jar.Cookies(u) {
		if ck.Name == name {
			return ck
		}
	}
	return nil
}

// admin is a browser signed in with the API token.
func (e *wsEnv) admin() *wsClient {
	e.t.Helper()
	c := e.client()
	c.get("/signin")
	r := c.post("/signin", url.Values{"token": {signinToken}, "next": {"/"}})
	if r.StatusCode != http.StatusSeeOther || c.cookie("/", auth.CookieName) == nil {
		e.t.Fatalf("sign-in = %d without a %s cookie:\n%s", r.StatusCode, auth.CookieName, r.body)
	}
	return c
}

// join opens a member's join link in a new browser, which it signs in to
// the workshop.
func (e *wsEnv) join(acc workshop.Access) *wsClient {
	e.t.Helper()
	c := e.client()
	c.joinAs(acc.WorkshopID, acc.Token)
	return c
}

// joinAs opens the join link of token in this browser.
func (c *wsClient) joinAs(workshopID, token string) {
	c.t.Helper()
	r := c.get(workshop.JoinPath(workshopID, token))
	if r.StatusCode != http.StatusSeeOther || r.location() != "/w/"+workshopID {
		c.t.Fatalf("join link of workshop %s = %d to %q, want 303 to /w/%s:\n%s", workshopID, r.StatusCode, r.location(), workshopID, r.body)
	}
}

// create makes a workshop through the service, as the admin.
func (e *wsEnv) create(name string) *workshop.Created {
	e.t.Helper()
	ws, err := e.Workshops.Create(wsAdmin, workshop.Create{Name: name, Description: "About " + name,
		Facilitator: workshop.Person{Name: "Fay " + name, Email: "fay@example.com"}})
	if err != nil {
		e.t.Fatal(err)
	}
	return ws
}

func (e *wsEnv) member(workshopID, name, role string) workshop.Access {
	e.t.Helper()
	a, err := e.Workshops.AddMember(wsAdmin, workshopID, "", workshop.Person{Name: name,
		Email: strings.ToLower(name) + "@example.com", Role: role})
	if err != nil {
		e.t.Fatal(err)
	}
	return *a
}

// traces imports n traces t1…tn: input "Question tN", output "Answer tN".
func (e *wsEnv) traces(workshopID string, n int) {
	e.t.Helper()
	var items []map[string]string
	for i := 1; i <= n; i++ {
		id := fmt.Sprintf("t%d", i)
		items = append(items, map[string]string{"id": id, "input": "Question " + id, "output": "Answer " + id})
	}
	b, _ := json.Marshal(items)
	if _, err := e.Workshops.ImportTraces(wsAdmin, workshopID, "", bytes.NewReader(b), workshop.FormatJSON, false); err != nil {
		e.t.Fatal(err)
	}
}

// begin starts discovery on the first limit traces, in order.
func (e *wsEnv) begin(workshopID string, limit int) {
	e.t.Helper()
	if _, err := e.Workshops.Begin(wsAdmin, workshopID, "", limit, false); err != nil {
		e.t.Fatal(err)
	}
}

// as is the context of a member acting with their own token.
func (e *wsEnv) as(acc workshop.Access) context.Context {
	e.t.Helper()
	id, ok, err := e.Workshops.Authenticate(context.Background(), acc.Token)
	if err != nil || !ok {
		e.t.Fatalf("token of %s: %v %v", acc.Name, ok, err)
	}
	return hone.WithIdentity(context.Background(), id)
}

// feedback gives a member's label and comment of a trace.
func (e *wsEnv) feedback(acc workshop.Access, traceID, label string) {
	e.t.Helper()
	if _, err := e.Workshops.SubmitFeedback(e.as(acc), acc.WorkshopID, workshop.FeedbackInput{TraceID: traceID, Label: label,
		Comment: acc.Name + " finds " + traceID + " " + label}); err != nil {
		e.t.Fatal(err)
	}
}

// complete gives a member's label, comment and three answers on a trace.
func (e *wsEnv) complete(acc workshop.Access, traceID, label string) {
	e.t.Helper()
	e.feedback(acc, traceID, label)
	ctx := e.as(acc)
	for n := 1; n <= workshop.Questions; n++ {
		q, err := e.Workshops.GenerateQuestion(ctx, acc.WorkshopID, traceID, "", n)
		if err != nil {
			e.t.Fatal(err)
		}
		if _, err := e.Workshops.SubmitAnswer(ctx, acc.WorkshopID, workshop.AnswerInput{TraceID: traceID, Question: q.Question,
			Answer: fmt.Sprintf("%s answers %d on %s", acc.Name, n, traceID)}); err != nil {
			e.t.Fatal(err)
		}
	}
}

// snapshot is everything a workshop holds, as the service gives it to the
// admin, and whether each token still signs its member in: what a refused
// request must leave as it was.
func (e *wsEnv) snapshot(workshopID string, tokens ...string) string {
	e.t.Helper()
	var s struct {
		Workshop  *workshop.Workshop
		Members   []*workshop.Member
		Feedback  []*workshop.Feedback
		Analyses  []*workshop.Analysis
		Templates []workshop.Template
		Items     []*workshop.DraftItem
		Tokens    []bool
	}
	var err error
	check := func(e2 error) {
		if e2 != nil && err == nil {
			err = e2
		}
	}
	s.Workshop, err = e.Workshops.Get(wsAdmin, workshopID)
	var e2 error
	s.Members, e2 = e.Workshops.Members(wsAdmin, workshopID, "")
	check(e2)
	s.Feedback, e2 = e.Workshops.ListFeedback(wsAdmin, workshopID, "")
	check(e2)
	s.Analyses, e2 = e.Workshops.Analyses(wsAdmin, workshopID, "", "")
	check(e2)
	s.Templates, e2 = e.Workshops.Templates(wsAdmin, workshopID, "")
	check(e2)
	s.Items, e2 = e.Workshops.DraftItems(wsAdmin, workshopID, "")
	check(e2)
	for _, tok := range tokens {
		_, ok, e2 := e.Workshops.Authenticate(context.Background(), tok)
		check(e2)
		s.Tokens = append(s.Tokens, ok)
	}
	if err != nil {
		e.t.Fatalf("snapshot of workshop %s: %v", workshopID, err)
	}
	b, _ := json.MarshalIndent(s, "", " ")
	return string(b)
}

// wsDiff is the first line where two snapshots differ, for a failure message.
func wsDiff(before, after string) string {
	a, b := strings.Split(before, "\n"), strings.Split(after, "\n")
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("line %d: %s → %s", i+1, strings.TrimSpace(a[i]), strings.TrimSpace(b[i]))
		}
	}
	return fmt.Sprintf("%d lines → %d lines", len(a), len(b))
}

// wsBusy is a workshop in discovery with something for every form to
// change: five traces, the first four assigned; the participant's t1
// awaits feedback, t2 its first question, t3 the answer to it, t4 is
// complete; a draft item in a group.
type wsBusy struct {
	ws          *workshop.Created
	part        workshop.Access
	item, group string
}

// busy seeds a wsBusy; hone must have no LLM (fallback questions).
func (e *wsEnv) busy() *wsBusy {
	e.t.Helper()
	ws := e.create("Busy")
	p := e.member(ws.ID, "Pia", workshop.RoleParticipant)
	e.traces(ws.ID, 5)
	e.begin(ws.ID, 4)
	e.feedback(p, "t2", "good")
	e.feedback(p, "t3", "bad")
	if _, err := e.Workshops.GenerateQuestion(e.as(p), ws.ID, "t3", "", 1); err != nil {
		e.t.Fatal(err)
	}
	e.complete(p, "t4", "bad")
	it, err := e.Workshops.Promote(wsAdmin, ws.ID, "", workshop.DraftItemInput{Text: "Cites its sources",
		SourceType: workshop.SourceManual, GroupName: "Sources"})
	if err != nil || it.GroupID == "" {
		e.t.Fatalf("promote: %+v %v", it, err)
	}
	return &wsBusy{ws: ws, part: p, item: it.ID, group: it.GroupID}
}

// tokens are the busy workshop's members' tokens.
func (b *wsBusy) tokens() []string { return []string{b.ws.Facilitator.Token, b.part.Token} }

// wsPost is a POST route of the workshop pages with a form that is valid
// for a wsBusy workshop.
type wsPost struct {
	route string // the route's path pattern
	path  string
	form  url.Values
	// file, when set, is uploaded with fileBody as the form's file.
	file, fileBody string
	// own is set for a participant's own action; the others are the
	// facilitator's.
	own bool
	// changes says whether the valid form changes the workshop.
	changes bool
}

// posts are the workshop pages' POST routes with valid forms, in an order
// that lets each valid form do what it does.
func (b *wsBusy) posts() []wsPost {
	w := "/w/" + b.ws.ID
	return []wsPost{
		{route: "/w/{id}/traces/{trace}/feedback", path: w + "/traces/t1/feedback", form: url.Values{"feedback_label": {"good"}, "comment": {"Clear"}}, own: true, changes: true},
		{route: "/w/{id}/traces/{trace}/question", path: w + "/traces/t2/question", form: url.Values{"question_number": {"1"}}, own: true, changes: true},
		{route: "/w/{id}/traces/{trace}/answer", path: w + "/traces/t3/answer", form: url.Values{"answer": {"Because"}}, own: true, changes: true},
		{route: "/w/{id}/members", path: w + "/members", form: url.Values{"name": {"Zed"}, "role": {"participant"}}, changes: true},
		{route: "/w/{id}/traces", path: w + "/traces", file: "more.json", fileBody: `[{"id":"t9","input":"q9","output":"a9"}]`, changes: true},
		{route: "/w/{id}/settings", path: w + "/settings", form: url.Values{"model": {"other-model"}}, changes: true},
		// Discovery has started: refused with a flash.
		{route: "/w/{id}/begin", path: w + "/begin", form: url.Values{"trace_limit": {"2"}}},
		// Without an LLM: a flash says so, and nothing is saved anyway.
		{route: "/w/{id}/rubric/suggest", path: w + "/rubric/suggest", form: url.Values{}},
		{route: "/w/{id}/templates", path: w + "/templates", form: url.Values{"name": {"tone"}, "title": {"Tone"}, "instruction": {"Look at the tone."}}, changes: true},
		{route: "/w/{id}/rubric", path: w + "/rubric", form: url.Values{"text": {"Polite"}, "source_type": {"manual"}}, changes: true},
		{route: "/w/{id}/rubric/{item}", path: w + "/rubric/" + b.item, form: url.Values{"text": {"Cites all its sources"}}, changes: true},
		{route: "/w/{id}/groups/{group}", path: w + "/groups/" + b.group, form: url.Values{"name": {"Sourcing"}}, changes: true},
		{route: "/w/{id}/rubric/apply", path: w + "/rubric/apply", form: url.Values{"groups": {"1"}, "group_0": {"Applied"}, "item_" + b.item: {"0"}}, changes: true},
		{route: "/w/{id}/rubric/{item}/delete", path: w + "/rubric/" + b.item + "/delete", form: url.Values{}, changes: true},
		// Changes the browser only: it clears the member's cookie.
		{route: "/w/{id}/leave", path: w + "/leave", form: url.Values{}, own: true},
		{route: "/w/{id}/members/{member}/link", path: w + "/members/" + b.part.ID + "/link", form: url.Values{}, changes: true},
		{route: "/w/{id}/analyses", path: w + "/analyses", form: url.Values{"template": {workshop.TemplateEvaluationCriteria}}, changes: true},
		{route: "/w/{id}/phase", path: w + "/phase", form: url.Values{"phase": {workshop.PhaseRubricCreation}}, changes: true},
	}
}

// send posts p's form from c with the CSRF field csrf ("" for none) and
// header.
func (p wsPost) send(c *wsClient, csrf string, header http.Header) reply {
	c.t.Helper()
	form := url.Values{}
	for k, v := range p.form {
		form[k] = v
	}
	if csrf != "" {
		form.Set(web.CSRFField, csrf)
	}
	if p.file != "" {
		return c.upload(p.path, form, p.file, p.fileBody, header)
	}
	return c.postAs(p.path, form, header)
}

// wsCheckPostsCovered fails unless posts has a form for every POST route
// under /w/{id}/ but the join link's.
func wsCheckPostsCovered(t *testing.T, a *authApp, posts []wsPost) {
	t.Helper()
	have := map[string]bool{}
	for _, p := range posts {
		have[p.route] = true
	}
	for _, rt := range a.UI.AllRoutes() {
		if rt.Method == http.MethodPost && strings.HasPrefix(rt.Path, "/w/") && !have[rt.Path] {
			t.Errorf("POST %s has no form in wsBusy.posts: add one", rt.Path)
		}
	}
}

var wsFlashLink = regexp.MustCompile(`<input id="flash-link" class="link" type="text" readonly value="([^"]*)">`)

// wsFlashLinkIn returns the link the flash of a page shows, unescaped.
func wsFlashLinkIn(t *testing.T, page string) string {
	t.Helper()
	m := wsFlashLink.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("the page shows no link in its flash:\n%s", page)
	}
	return html.UnescapeString(m[1])
}

// wsPathOf is the path of a link of hone.
func wsPathOf(t *testing.T, link string) string {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil || u.Path == "" {
		t.Fatalf("link %q: %v", link, err)
	}
	return u.Path
}

// wsRefusedJoin reports why r is not the 401 page of a join link that is
// not valid, or "".
func wsRefusedJoin(r reply, workshopID string) string {
	switch {
	case r.StatusCode != http.StatusUnauthorized:
		return fmt.Sprintf("answered %d (Location %q), want 401", r.StatusCode, r.location())
	case !strings.Contains(r.body, "This join link is not valid"):
		return "the page does not say the join link is not valid"
	case r.cookie("hone_w_"+workshopID) != nil && r.cookie("hone_w_"+workshopID).MaxAge >= 0:
		return "it set a member cookie"
	}
	return ""
}

func TestWorkshopJoinLinks(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		e := wsOpen(t, databaseURL, false, nil)
		a := e.create("Alpha")
		b := e.create("Beta")
		pia := e.member(a.ID, "Pia", workshop.RoleParticipant)
		quinn := e.member(b.ID, "Quinn", workshop.RoleParticipant)
		cookieName := "hone_w_" + a.ID

		// A join link signs the browser in to its workshop's pages only.
		pc := e.client()
		r := pc.get(workshop.JoinPath(a.ID, pia.Token))
		if r.StatusCode != http.StatusSeeOther || r.location() != "/w/"+a.ID {
			t.Fatalf("join = %d to %q, want 303 to /w/%s", r.StatusCode, r.location(), a.ID)
		}
		c := r.cookie(cookieName)
		switch {
		case c == nil:
			t.Fatalf("join set no %s cookie: %v", cookieName, r.Header["Set-Cookie"])
		case !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Path != "/w/"+a.ID || c.MaxAge <= 0 || c.Secure:
			t.Errorf("member cookie %s: HttpOnly %v SameSite %v Path %q MaxAge %d Secure %v; want HttpOnly, Lax, /w/%s, lasting, not Secure over HTTP",
				c.Name, c.HttpOnly, c.SameSite, c.Path, c.MaxAge, c.Secure, a.ID)
		}
		if cc := r.Header.Get("Cache-Control"); cc != "no-store" {
			t.Errorf("the join answer's Cache-Control = %q, want no-store", cc)
		}
		if page := pc.page("/w/" + a.ID); !strings.Contains(page, `id="pending"`) || !strings.Contains(page, "Pia · participant") {
			t.Errorf("after joining, /w/%s is not Pia's pending page:\n%s", a.ID, page)
		}

		// Links that are not valid get one page, which says nothing more.
		stranger := e.client()
		stranger.csrf()
		bad := map[string]string{
			"a mistyped token":               workshop.JoinPath(a.ID, "hw_"+strings.Repeat("x", 32)),
			"no token at all":                workshop.JoinPath(a.ID, "hello"),
			"a token of another workshop":    workshop.JoinPath(a.ID, quinn.Token),
			"a token for a made-up workshop": workshop.JoinPath("nosuchworkshop", pia.Token),
		}
		var first string
		for what, path := range bad {
			r := stranger.get(path)
			wid := strings.Split(path, "/")[2]
			if why := wsRefusedJoin(r, wid); why != "" {
				t.Errorf("%s: %s\n%s", what, why, r.body)
				continue
			}
			for _, secret := range []string{"Alpha", "Beta", "Pia", "Quinn", "Fay"} {
				if strings.Contains(r.body, secret) {
					t.Errorf("%s: the refusal names %q:\n%s", what, secret, r.body)
				}
			}
			if first == "" {
				first = r.body
			} else if r.body != first {
				t.Errorf("%s: the refusal differs from another invalid link's, so it tells them apart:\n%s\n---\n%s", what, r.body, first)
			}
		}
		if stranger.cookie("/w/"+a.ID, cookieName) != nil || stranger.cookie("/w/nosuchworkshop", "hone_w_nosuchworkshop") != nil {
			t.Error("an invalid link left a member cookie")
		}

		// A facilitator's "New link" revokes the old link and its sign-ins at once.
		fc := e.join(a.Facilitator)
		r = fc.post("/w/"+a.ID+"/members/"+pia.ID+"/link", url.Values{"back": {"/w/" + a.ID + "/setup"}})
		if r.StatusCode != http.StatusSeeOther || r.location() != "/w/"+a.ID+"/setup" {
			t.Fatalf("New link = %d to %q", r.StatusCode, r.location())
		}
		newLink := wsFlashLinkIn(t, fc.follow(r))
		if !strings.HasPrefix(newLink, e.base+"/w/"+a.ID+"/join/") {
			t.Errorf("the new link %q is not a join link of the workshop on this server", newLink)
		}
		r = pc.get("/w/" + a.ID)
		if r.StatusCode != http.StatusUnauthorized || !strings.Contains(r.body, "join link") {
			t.Errorf("the old link's sign-in after New link: %d, want 401 about join links\n%s", r.StatusCode, r.body)
		}
		if why := wsRefusedJoin(stranger.get(workshop.JoinPath(a.ID, pia.Token)), a.ID); why != "" {
			t.Errorf("the revoked link: %s", why)
		}
		if r := stranger.get(workshop.JoinPath(a.ID, pia.Token)); r.body != first {
			t.Errorf("a revoked link's page differs from a mistyped one's:\n%s", r.body)
		}
		pc.joinAs(a.ID, strings.TrimPrefix(wsPathOf(t, newLink), "/w/"+a.ID+"/join/"))
		pc.page("/w/" + a.ID)

		// So does the API's renewal.
		var renewed workshop.Access
		e.api("POST", "/workshops/"+a.ID+"/members/"+pia.ID+"/token", map[string]any{}, &renewed, http.StatusOK)
		if r := pc.get("/w/" + a.ID); r.StatusCode != http.StatusUnauthorized {
			t.Errorf("the sign-in of a link the API renewed: %d, want 401", r.StatusCode)
		}
		if why := wsRefusedJoin(stranger.get(wsPathOf(t, newLink)), a.ID); why != "" {
			t.Errorf("the link the API replaced: %s", why)
		}
		pc.joinAs(a.ID, renewed.Token)
		pc.page("/w/" + a.ID)

		// Signing out clears the cookie.
		r = pc.post("/w/"+a.ID+"/leave", nil)
		if r.StatusCode != http.StatusOK || !strings.Contains(r.body, "signed out of the workshop") {
			t.Errorf("sign out = %d:\n%s", r.StatusCode, r.body)
		}
		if c := r.cookie(cookieName); c == nil || c.MaxAge >= 0 || c.Value != "" || c.Path != "/w/"+a.ID {
			t.Errorf("sign out does not clear the member cookie: %v", r.Header["Set-Cookie"])
		}
		if pc.cookie("/w/"+a.ID, cookieName) != nil {
			t.Error("the browser still holds the member cookie after signing out")
		}
		if r := pc.get("/w/" + a.ID); r.StatusCode != http.StatusUnauthorized {
			t.Errorf("/w/%s after signing out = %d, want 401", a.ID, r.StatusCode)
		}
		// The link itself still works: it signs in again.
		pc.joinAs(a.ID, renewed.Token)
	})
}

func TestWorkshopHomeRoutesByRoleAndPhase(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		e := wsOpen(t, databaseURL, false, nil)
		ws := e.create("Routing")
		home := "/w/" + ws.ID
		ann := e.member(ws.ID, "Ann", workshop.RoleParticipant)
		ben := e.member(ws.ID, "Ben", workshop.RoleParticipant)
		e.traces(ws.ID, 3)
		fc, ac, bc := e.join(ws.Facilitator), e.join(ann), e.join(ben)

		// Before discovery starts.
		if page := fc.page(home); !strings.Contains(page, `id="start-discovery"`) || strings.Contains(page, `id="completion"`) {
			t.Errorf("the facilitator's home before discovery is not the start page:\n%s", page)
		}
		page := ac.page(home)
		if !strings.Contains(page, `<meta http-equiv="refresh" content="5">`) || !strings.Contains(page, `id="pending"`) {
			t.Errorf("the participant's home before discovery is not the pending page that refreshes every 5 seconds:\n%s", page)
		}
		if r := ac.get(home + "/traces/t1"); r.StatusCode != http.StatusNotFound {
			t.Errorf("a trace page before discovery = %d, want 404", r.StatusCode)
		}

		// During discovery.
		e.begin(ws.ID, 2)
		if page := fc.page(home); !strings.Contains(page, `id="completion"`) || !strings.Contains(page, `id="tab-monitor" class="active"`) {
			t.Errorf("the facilitator's home in discovery is not the dashboard's monitor:\n%s", page)
		}
		for _, c := range []*wsClient{ac, bc} {
			if r := c.get(home); r.StatusCode != http.StatusSeeOther || r.location() != home+"/traces/t1" {
				t.Errorf("a participant's home in discovery = %d to %q, want 303 to the first trace", r.StatusCode, r.location())
			}
		}
		e.complete(ann, "t1", "good")
		if r := ac.get(home); r.StatusCode != http.StatusSeeOther || r.location() != home+"/traces/t2" {
			t.Errorf("Ann's home after t1 = %d to %q, want 303 to t2, her first incomplete trace", r.StatusCode, r.location())
		}
		e.complete(ann, "t2", "bad")
		page = ac.page(home)
		if !strings.Contains(page, `id="complete"`) || !strings.Contains(page, "Discovery complete") || !strings.Contains(page, "all 2 of your traces") {
			t.Errorf("Ann's home after her last trace is not the completion page:\n%s", page)
		}
		if strings.Contains(page, "http-equiv") {
			t.Error("the completion page refreshes itself")
		}
		// Ben has traces left: still his first.
		if r := bc.get(home); r.StatusCode != http.StatusSeeOther || r.location() != home+"/traces/t1" {
			t.Errorf("Ben's home = %d to %q", r.StatusCode, r.location())
		}

		// After the phase moved on.
		if _, err := e.Workshops.SetPhase(wsAdmin, ws.ID, "", workshop.PhaseRubricCreation); err != nil {
			t.Fatal(err)
		}
		for name, c := range map[string]*wsClient{"Ann": ac, "Ben": bc} {
			page := c.page(home)
			if !strings.Contains(page, "Discovery has ended") || !strings.Contains(page, "Rubric creation") {
				t.Errorf("%s's home after discovery does not say it has ended:\n%s", name, page)
			}
		}
		if page := bc.page(home + "/traces/t1"); !strings.Contains(page, "Discovery is closed") || strings.Contains(page, `id="feedback-form"`) {
			t.Errorf("Ben's trace page after discovery still takes feedback:\n%s", page)
		}
		if page := fc.page(home); !strings.Contains(page, `id="completion"`) || !strings.Contains(page, `id="phase">Rubric creation`) {
			t.Errorf("the facilitator's home after discovery is not the dashboard:\n%s", page)
		}
	})
}

func TestWorkshopPagesNeedAMember(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		t.Run("without HONE_API_TOKEN", func(t *testing.T) {
			// Without an API token the browser without a member cookie is
			// the local user, who opens any workshop as its facilitator.
			e := wsOpen(t, databaseURL, true, nil)
			b := e.busy()
			local := e.client()
			w := "/w/" + b.ws.ID
			for _, tc := range []struct{ path, want string }{
				{w, `id="completion"`},
				{w + "/traces/t1", `id="trace-feedback"`},
				{w + "/analysis", `id="analysis-controls"`},
				{w + "/setup", `id="members"`},
				{w + "?member=" + b.part.ID, `id="feedback"`},
			} {
				if page := local.page(tc.path); !strings.Contains(page, tc.want) || strings.Contains(page, `id="member"`) {
					t.Errorf("GET %s as the local user: not the facilitator's page (%s), or shown as a member:\n%s", tc.path, tc.want, page)
				}
			}
			if r := local.get(w + "/export?format=csv"); r.StatusCode != http.StatusOK {
				t.Errorf("the local user's export = %d, want 200", r.StatusCode)
			}
			page := local.follow(local.post(w+"/members", url.Values{"name": {"Lee"}, "role": {"participant"}, "back": {w + "/setup"}}))
			if f := wsFlash(page); f == nil || !strings.HasPrefix(f.notice, "Lee was added") {
				t.Errorf("the local user adding a member: flash %+v", f)
			}
			if page := e.join(b.ws.Facilitator).page(w + "/setup"); !strings.Contains(page, `id="members"`) {
				t.Errorf("the facilitator's setup page:\n%s", page)
			}
		})

		t.Run("with HONE_API_TOKEN", func(t *testing.T) {
			e := wsOpen(t, databaseURL, false, nil)
			a := e.create("Alpha")
			b := e.create("Beta")
			e.traces(b.ID, 2)
			e.begin(b.ID, 2)
			pia := e.member(a.ID, "Pia", workshop.RoleParticipant)

			// Not signed in: the join-link page, not the admin's sign-in page.
			nobody := e.client()
			for _, path := range []string{"/w/" + a.ID, "/w/" + b.ID + "/setup"} {
				r := nobody.get(path)
				if r.StatusCode != http.StatusUnauthorized || !strings.Contains(r.body, "join link") {
					t.Errorf("GET %s without a sign-in = %d (Location %q), want 401 about join links", path, r.StatusCode, r.location())
				}
			}

			// The admin sees any workshop's facilitator pages.
			admin := e.admin()
			for _, tc := range []struct{ path, want string }{
				{"/w/" + a.ID, `id="start-discovery"`},
				{"/w/" + a.ID + "/setup", `id="members"`},
				{"/w/" + b.ID, `id="completion"`},
				{"/w/" + b.ID + "/analysis", `id="analysis-controls"`},
				{"/w/" + b.ID + "/setup", `id="import"`},
				{"/w/" + b.ID + "/traces/t1", `id="trace-feedback"`},
			} {
				if page := admin.page(tc.path); !strings.Contains(page, tc.want) || !strings.Contains(page, "Signed in as admin") {
					t.Errorf("the admin's %s lacks %s:\n%s", tc.path, tc.want, page)
				}
			}
			if r := admin.post("/w/"+a.ID+"/members", url.Values{"name": {"Ola"}}); r.StatusCode != http.StatusSeeOther {
				t.Errorf("the admin adding a member = %d:\n%s", r.StatusCode, r.body)
			}

			// A member of Alpha cannot use Beta's pages: the browser does
			// not send the cookie there, and it would not count if it did.
			pc := e.join(pia)
			beta, _ := url.Parse(e.base + "/w/" + b.ID)
			for _, ck := range pc.jar.Cookies(beta) {
				if strings.HasPrefix(ck.Name, "hone_w_") {
					t.Errorf("the browser sends Alpha's member cookie %s to Beta's pages", ck.Name)
				}
			}
			if r := pc.get("/w/" + b.ID); r.StatusCode != http.StatusUnauthorized {
				t.Errorf("Alpha's member on Beta's page = %d, want 401", r.StatusCode)
			}
			forged := e.client()
			forged.jar.SetCookies(beta, []*http.Cookie{{Name: "hone_w_" + b.ID, Value: pia.Token, Path: "/w/" + b.ID}})
			r := forged.get("/w/" + b.ID)
			if r.StatusCode != http.StatusUnauthorized {
				t.Errorf("Alpha's token in Beta's cookie = %d, want 401", r.StatusCode)
			}
			if c := r.cookie("hone_w_" + b.ID); c == nil || c.MaxAge >= 0 {
				t.Errorf("a cookie of another workshop's token is not cleared: %v", r.Header["Set-Cookie"])
			}
			// The admin's sign-in in the same browser opens Beta.
			pc.get("/signin")
			if r := pc.post("/signin", url.Values{"token": {signinToken}, "next": {"/"}}); r.StatusCode != http.StatusSeeOther {
				t.Fatalf("sign-in = %d", r.StatusCode)
			}
			if page := pc.page("/w/" + b.ID); !strings.Contains(page, `id="completion"`) {
				t.Errorf("Beta's page with the admin's sign-in:\n%s", page)
			}
			// …while Alpha's own cookie still makes them Pia there.
			if page := pc.page("/w/" + a.ID); !strings.Contains(page, "Pia · participant") {
				t.Errorf("Alpha's page with Pia's cookie and the admin's sign-in is not Pia's:\n%s", page)
			}
		})
	})
}

func TestWorkshopPostsNeedTheCSRFToken(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		e := wsOpen(t, databaseURL, false, nil)
		b := e.busy()
		posts := b.posts()
		wsCheckPostsCovered(t, e.authApp, posts)
		fc, pc := e.join(b.ws.Facilitator), e.join(b.part)
		who := func(p wsPost) *wsClient {
			if p.own {
				return pc
			}
			return fc
		}
		before := e.snapshot(b.ws.ID, b.tokens()...)
		for _, p := range posts {
			c := who(p)
			right := c.csrf()
			wrong := strings.Repeat("a", len(right))
			for _, tc := range []struct {
				what   string
				csrf   string
				header http.Header
				about  string
			}{
				{"without the csrf field", "", c.sameSite(), "security token"},
				{"with a wrong csrf field", wrong, c.sameSite(), "security token"},
				{"from another site", right, http.Header{"Origin": {"https://evil.example"}, "Sec-Fetch-Site": {"cross-site"}}, "cross-origin"},
			} {
				r := p.send(c, tc.csrf, tc.header)
				if r.StatusCode != http.StatusForbidden || !strings.Contains(r.body, tc.about) {
					t.Errorf("POST %s %s = %d (Location %q), want 403 about %q\n%s", p.route, tc.what, r.StatusCode, r.location(), tc.about, r.body)
				}
				if ck := r.cookie("hone_w_" + b.ws.ID); ck != nil {
					t.Errorf("POST %s %s changed the member cookie: %v", p.route, tc.what, ck)
				}
				if after := e.snapshot(b.ws.ID, b.tokens()...); after != before {
					t.Fatalf("POST %s %s changed the workshop: %s", p.route, tc.what, wsDiff(before, after))
				}
			}
		}
		for _, c := range []*wsClient{fc, pc} {
			if r := c.get("/w/" + b.ws.ID); r.StatusCode >= 400 {
				t.Errorf("a member's sign-in after the refused posts: %d", r.StatusCode)
			}
		}

		// The same forms with the token do what they do: the refusals above
		// were the token's.
		for _, p := range posts {
			c := who(p)
			was := e.snapshot(b.ws.ID, b.tokens()...)
			r := p.send(c, c.csrf(), c.sameSite())
			if r.StatusCode == http.StatusForbidden || r.StatusCode == http.StatusUnauthorized || r.StatusCode >= 500 {
				t.Errorf("POST %s with the token = %d:\n%s", p.route, r.StatusCode, r.body)
				continue
			}
			now := e.snapshot(b.ws.ID, b.tokens()...)
			if p.changes && now == was {
				t.Errorf("POST %s with the token changed nothing (status %d, Location %q)", p.route, r.StatusCode, r.location())
			}
			if !p.changes && now != was {
				t.Errorf("POST %s with the token changed the workshop: %s", p.route, wsDiff(was, now))
			}
			if p.route == "/w/{id}/leave" {
				if ck := r.cookie("hone_w_" + b.ws.ID); ck == nil || ck.MaxAge >= 0 {
					t.Errorf("sign out with the token kept the member cookie: %v", r.Header["Set-Cookie"])
				}
			}
		}
	})
}

func TestWorkshopParticipantsGet403OnFacilitatorPages(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		e := wsOpen(t, databaseURL, false, nil)
		w0 := e.create("Not started")
		p0 := e.member(w0.ID, "Pat", workshop.RoleParticipant)
		e.traces(w0.ID, 2)
		before := e.snapshot(w0.ID, p0.Token)
		r := e.join(p0).post("/w/"+w0.ID+"/begin", url.Values{"trace_limit": {"1"}, "model": {"x"}})
		if r.StatusCode != http.StatusForbidden || !strings.Contains(r.body, "facilitator") {
			t.Errorf("a participant starting discovery = %d, want 403\n%s", r.StatusCode, r.body)
		}
		if after := e.snapshot(w0.ID, p0.Token); after != before {
			t.Errorf("a participant's begin changed the workshop: %s", wsDiff(before, after))
		}

		b := e.busy()
		posts := b.posts()
		wsCheckPostsCovered(t, e.authApp, posts)
		pc := e.join(b.part)
		w := "/w/" + b.ws.ID
		before = e.snapshot(b.ws.ID, b.tokens()...)
		for _, path := range []string{w + "/analysis", w + "/setup", w + "/export?format=csv", w + "/export?format=jsonl",
			w + "/export?format=md"} {
			r := pc.get(path)
			if r.StatusCode != http.StatusForbidden || !strings.Contains(r.body, "facilitator") {
				t.Errorf("a participant's GET %s = %d, want a 403 page\n%s", path, r.StatusCode, r.body)
			}
			if r.Header.Get("Content-Disposition") != "" || strings.Contains(r.body, "Pia finds") {
				t.Errorf("a participant's GET %s shows the workshop's feedback", path)
			}
		}
		// t5 is not assigned: not found among the participant's traces, and
		// its text is not shown.
		if r := pc.get(w + "/traces/t5"); (r.StatusCode != http.StatusForbidden && r.StatusCode != http.StatusNotFound) ||
			strings.Contains(r.body, "Question t5") {
			t.Errorf("a participant's page of a trace not assigned = %d, want 403 or 404 without the trace:\n%s", r.StatusCode, r.body)
		}
		// Another member's feedback stays the facilitator's.
		zed := e.member(b.ws.ID, "Zoe", workshop.RoleParticipant)
		e.feedback(zed, "t1", "bad")
		before = e.snapshot(b.ws.ID, b.tokens()...)
		if r := pc.get(w + "?member=" + zed.ID); r.StatusCode != http.StatusSeeOther || strings.Contains(r.body, "Zoe finds") {
			t.Errorf("a participant's monitor view of another member = %d:\n%s", r.StatusCode, r.body)
		}
		for _, p := range posts {
			if p.own {
				continue
			}
			r := p.send(pc, pc.csrf(), pc.sameSite())
			if r.StatusCode != http.StatusForbidden || !strings.Contains(r.body, "facilitator") {
				t.Errorf("a participant's POST %s = %d (Location %q), want a 403 page\n%s", p.route, r.StatusCode, r.location(), r.body)
			}
			if after := e.snapshot(b.ws.ID, b.tokens()...); after != before {
				t.Fatalf("a participant's POST %s changed the workshop: %s", p.route, wsDiff(before, after))
			}
		}
	})
}

// wsStepState is the data-state of a participant's step on a trace page.
var wsStepState = regexp.MustCompile(`id="step" data-state="([a-z]*)" data-question="([0-9]*)"`)

func TestWorkshopFallbackShownToFacilitatorsOnly(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		e := wsOpen(t, databaseURL, false, nil) // no LLM: the fallback questions come at once
		ws := e.create("Generic questions")
		pia := e.member(ws.ID, "Pia", workshop.RoleParticipant)
		e.traces(ws.ID, 1)
		pc := e.join(pia)
		w := "/w/" + ws.ID
		var pages []string
		pages = append(pages, pc.page(w))
		e.begin(ws.ID, 1)
		trace := w + "/traces/t1"
		if r := pc.get(w); r.location() != trace {
			t.Fatalf("Pia's home = %d to %q", r.StatusCode, r.location())
		}
		pages = append(pages, pc.page(trace))
		pages = append(pages, pc.follow(pc.post(trace+"/feedback", url.Values{"feedback_label": {"bad"}, "comment": {"Too vague"}})))
		for n := 1; n <= workshop.Questions; n++ {
			page := pc.follow(pc.post(trace+"/question", url.Values{"question_number": {fmt.Sprint(n)}}))
			if !strings.Contains(page, html.EscapeString(workshop.FallbackQuestions[n-1])) {
				t.Fatalf("question %d is not the fallback question:\n%s", n, page)
			}
			pages = append(pages, page)
			pages = append(pages, pc.follow(pc.post(trace+"/answer", url.Values{"question": {workshop.FallbackQuestions[n-1]},
				"answer": {fmt.Sprintf("Answer %d", n)}})))
		}
		pages = append(pages, pc.page(w))
		if m := wsStepState.FindStringSubmatch(pages[len(pages)-2]); m == nil || m[1] != workshop.StateComplete {
			t.Fatalf("the trace is not complete after three answers:\n%s", pages[len(pages)-2])
		}
		for i, page := range pages {
			if strings.Contains(strings.ToLower(page), "fallback") {
				t.Errorf("participant page %d mentions the fallback:\n%s", i, page)
			}
		}
		fb, err := e.Workshops.ListFeedback(wsAdmin, ws.ID, pia.ID)
		if err != nil || len(fb) != 1 || len(fb[0].FollowupQnA) != 3 || !fb[0].FollowupQnA[0].Fallback {
			t.Fatalf("stored feedback: %+v %v", fb, err)
		}

		fc := e.join(ws.Facilitator)
		for _, path := range []string{w + "?member=" + pia.ID, trace} {
			page := fc.page(path)
			if n := strings.Count(page, `<span class="badge fallback"`); n != 3 {
				t.Errorf("the facilitator's %s shows %d fallback badges, want 3:\n%s", path, n, page)
			}
		}
	})
}
