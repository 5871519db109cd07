package web_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/honehq/hone/internal/app"
	"github.com/honehq/hone/internal/auth"
	"github.com/honehq/hone/internal/cli"
	"github.com/honehq/hone/internal/config"
	"github.com/honehq/hone/internal/llm/llmtest"
	"github.com/honehq/hone/internal/server"
	"github.com/honehq/hone/internal/web"
)

// signinToken is the HONE_API_TOKEN of the sign-in tests.
const signinToken = "web-signin-token-0123456789abcdef"

// authApp is hone serving with an API token, and an HTTP client that does
// not follow redirects and sends only the cookies a test gives it.
type authApp struct {
	*app.App
	t      *testing.T
	cfg    config.Config
	base   string
	client *http.Client
	// clock is the time of the UI's sign-in checks when the test replaced
	// them with withClock, else nil.
	clock *offsetClock
}

// offsetClock is the real time moved by an offset the test sets.
type offsetClock struct {
	mu     sync.Mutex
	offset time.Duration
}

func (c *offsetClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.offset)
}

func (c *offsetClock) Set(d time.Duration) {
	c.mu.Lock()
	c.offset = d
	c.mu.Unlock()
}

// openAuthApp opens hone on databaseURL (SQLite when empty) with cfg's
// token and settings; listen starts serving it.
func openAuthApp(t *testing.T, databaseURL string, edit func(*config.Config)) *authApp {
	t.Helper()
	cfg := config.Config{Addr: "127.0.0.1:0", DataDir: t.TempDir(), DatabaseURL: databaseURL, APIToken: signinToken,
		MaxBodyBytes: 1 << 20, MessageLimit: 25600, AppName: "Bot"}
	if edit != nil {
		edit(&cfg)
	}
	a, err := app.Open(context.Background(), cfg, slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelError})))
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		_ = a.Close()
	})
	return &authApp{App: a, t: t, cfg: cfg, client: &http.Client{Transport: tr, Timeout: time.Minute,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// withClock makes the UI check cookies and links with a clock the test
// moves, over the same database and token (only through exported fields:
// the download links are still signed by the app's own Auth).
func (a *authApp) withClock() {
	a.clock = &offsetClock{}
	a.UI.Auth = auth.New(a.DB.Auth(), auth.Options{Token: a.cfg.APIToken, LinkTTL: a.cfg.LinkTTL, Now: a.clock.Now})
}

// on is a for the subtest t.
func (a *authApp) on(t *testing.T) *authApp {
	b := *a
	b.t = t
	return &b
}

func (a *authApp) listen() {
	a.t.Helper()
	if err := a.Listen(); err != nil {
		a.t.Fatal(err)
	}
	a.base = a.URL()
}

// reply is a response with its body read.
type reply struct {
	*http.Response
	body string
}

// location is the response's Location header.
func (r reply) location() string { return r.Header.Get("Location") }

// cookie returns the cookie the response sets called name, or nil.
func (r reply) cookie(name string) *http.Cookie {
	for _, c := range r.Cookies() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// do sends a request with the form (as the body of a POST) or the raw
// body, the header and only the given cookies.
func (a *authApp) do(method, path string, body any, header http.Header, cookies ...*http.Cookie) reply {
	a.t.Helper()
	var r io.Reader
	contentType := ""
	switch b := body.(type) {
	case url.Values:
		r, contentType = strings.NewReader(b.Encode()), "application/x-www-form-urlencoded"
	case string:
		r, contentType = strings.NewReader(b), "application/json"
	case nil:
	default:
		a.t.Fatalf("body of type %T", body)
	}
	req, err := http.NewRequest(method, a.base+path, r)
	if err != nil {
		a.t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	for _, c := range cookies {
		if c != nil {
			req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
		}
	}
	resp, err := a.client.Do(req)
	if err != nil {
		a.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		a.t.Fatalf("%s %s: read body: %v", method, path, err)
	}
	return reply{resp, string(b)}
}

func (a *authApp) get(path string, cookies ...*http.Cookie) reply {
	a.t.Helper()
	return a.do(http.MethodGet, path, nil, nil, cookies...)
}

// csrf loads the sign-in page as a new visitor and returns the CSRF cookie
// it sets; its value is the form field's.
func (a *authApp) csrf() *http.Cookie {
	a.t.Helper()
	r := a.get("/signin")
	c := r.cookie(web.CSRFCookie)
	if r.StatusCode != http.StatusOK || c == nil || c.Value == "" {
		a.t.Fatalf("GET /signin = %d without a CSRF cookie:\n%s", r.StatusCode, r.body)
	}
	if m := csrfField.FindStringSubmatch(r.body); m == nil || m[1] != c.Value {
		a.t.Fatalf("the sign-in form's csrf field does not repeat the cookie %q:\n%s", c.Value, r.body)
	}
	return c
}

var (
	csrfField = regexp.MustCompile(`<input type="hidden" name="csrf" value="([^"]*)">`)
	nextField = regexp.MustCompile(`<input type="hidden" name="next" value="([^"]*)">`)
)

// signIn posts the form of the sign-in page and returns the response.
func (a *authApp) signIn(token, next string, csrf *http.Cookie) reply {
	a.t.Helper()
	form := url.Values{"token": {token}, "csrf": {csrf.Value}}
	if next != "" {
		form.Set("next", next)
	}
	return a.do(http.MethodPost, "/signin", form, nil, csrf)
}

// session signs in with the token and returns the sign-in cookie and the
// CSRF cookie.
func (a *authApp) session() (*http.Cookie, *http.Cookie) {
	a.t.Helper()
	csrf := a.csrf()
	r := a.signIn(signinToken, "/", csrf)
	c := r.cookie(auth.CookieName)
	if r.StatusCode != http.StatusSeeOther || c == nil || c.Value == "" {
		a.t.Fatalf("sign-in with the token: %d, cookie %v:\n%s", r.StatusCode, c, r.body)
	}
	return c, csrf
}

// api calls the JSON API with the Bearer token and decodes the answer.
func (a *authApp) api(method, path string, in, out any, want int) {
	a.t.Helper()
	b, _ := json.Marshal(in)
	h := http.Header{"Authorization": {"Bearer " + a.cfg.APIToken}}
	r := a.do(method, "/api/v1"+path, string(b), h)
	if r.StatusCode != want {
		a.t.Fatalf("%s /api/v1%s = %d, want %d: %s", method, path, r.StatusCode, want, r.body)
	}
	if out != nil {
		if err := json.Unmarshal([]byte(r.body), out); err != nil {
			a.t.Fatalf("%s /api/v1%s: %v", method, path, err)
		}
	}
}

// postTurn records a turn through the API and returns its session.
func (a *authApp) postTurn(conversation, message string) string {
	a.t.Helper()
	var out struct {
		SessionID string `json:"session_id"`
	}
	a.api("POST", "/turns", map[string]any{"conversation_id": conversation, "tester_id": "meg",
		"user_message": message, "response": "Answer to: " + message}, &out, http.StatusCreated)
	if out.SessionID == "" {
		a.t.Fatal("POST /turns gave no session")
	}
	return out.SessionID
}

// say sends a chat message through the API and returns hone's reply.
func (a *authApp) say(conversation, text string) string {
	a.t.Helper()
	var out struct {
		Reply string `json:"reply"`
	}
	a.api("POST", "/messages", map[string]any{"conversation_id": conversation, "tester_id": "meg", "text": text}, &out, http.StatusOK)
	return out.Reply
}

// toSignIn reports whether r sends a visitor who has not signed in to the
// sign-in page, and says why not.
func toSignIn(r reply, next string) error {
	want := "/signin?" + url.Values{"next": {next}}.Encode()
	if r.StatusCode != http.StatusSeeOther || r.location() != want {
		return fmt.Errorf("answered %d Location %q, want 303 to %s", r.StatusCode, r.location(), want)
	}
	return nil
}

// routePath fills in a route's path: {id} with a session, {token} with a
// fresh one-time sign-in token, the static tree with a real asset.
func routePath(t *testing.T, a *authApp, rt server.Route, sessionID string) string {
	t.Helper()
	p := strings.ReplaceAll(rt.Path, "{$}", "")
	p = strings.ReplaceAll(p, "{id}", sessionID)
	p = strings.ReplaceAll(p, "{number}", "1")
	if strings.Contains(p, "{token}") {
		link, err := a.Links.SignInLink(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		p = strings.ReplaceAll(p, "{token}", strings.TrimPrefix(link, a.Links.Base()+auth.SignInPath))
	}
	for _, v := range []string{"{trace}", "{member}", "{item}", "{group}", "{type}"} {
		p = strings.ReplaceAll(p, v, "x")
	}
	if strings.Contains(p, "{") {
		t.Fatalf("route %s %s has a path value this test does not fill in", rt.Method, rt.Path)
	}
	if p != "/" && strings.HasSuffix(p, "/") {
		p += "hone.css"
	}
	return p
}

// routeRequest sends the route's request with the cookies: a POST carries
// the CSRF token, and the sign-in form the API token.
func routeRequest(a *authApp, rt server.Route, path string, csrf *http.Cookie, cookies ...*http.Cookie) reply {
	a.t.Helper()
	cookies = append(cookies, csrf)
	if rt.Method == http.MethodGet {
		return a.do(rt.Method, path, nil, nil, cookies...)
	}
	if rt.JSON {
		return a.do(rt.Method, path, `{"prompt":"MASTER_PROMPT.md","text":"hello"}`, http.Header{web.CSRFHeader: {csrf.Value}}, cookies...)
	}
	form := url.Values{"csrf": {csrf.Value}}
	if rt.Open {
		form.Set("token", signinToken)
	}
	return a.do(rt.Method, path, form, nil, cookies...)
}

// signedIn is what each route of the UI answers someone signed in: the
// status, and where a redirect leads. Some are refused by their handler,
// past the sign-in: a rating gets the chat message's body, not a rating
// (400); POST /learnings an empty form (back with an error); and {id} is a
// session's, not a learning's (404).
var signedIn = map[string]struct {
	status   int
	location string
}{
	"GET /healthz":                  {http.StatusOK, ""},
	"GET /static/":                  {http.StatusOK, ""},
	"GET /signin":                   {http.StatusSeeOther, "/"},
	"POST /signin":                  {http.StatusSeeOther, "/"},
	"GET /signin/{token}":           {http.StatusSeeOther, "/"},
	"POST /signout":                 {http.StatusSeeOther, "/signin"},
	"GET /{$}":                      {http.StatusOK, ""},
	"GET /sessions/{id}":            {http.StatusOK, ""},
	"GET /sessions/{id}/export.csv": {http.StatusOK, ""},
	"GET /sessions.csv":             {http.StatusOK, ""},
	"GET /sessions.json":            {http.StatusOK, ""},
	"POST /sessions/{id}/turns/{number}/rating": {http.StatusSeeOther, "/sessions/{id}#turn-1"},
	"POST /sessions/{id}/turns/{number}/notes":  {http.StatusSeeOther, "/sessions/{id}#turn-1"},
	"POST /sessions/{id}/turns/{number}/scores": {http.StatusSeeOther, "/sessions/{id}#turn-1"},
	"GET /sessions/{id}/export.json":            {http.StatusOK, ""},
	"GET /quality":                              {http.StatusOK, ""},
	"GET /chat":                                 {http.StatusOK, ""},
	"POST /chat/messages":                       {http.StatusOK, ""},
	"POST /chat/turns/{id}/feedback":            {http.StatusBadRequest, ""},
	"GET /learnings":                            {http.StatusOK, ""},
	"GET /alerts":                               {http.StatusOK, ""},
	"POST /alerts/types/{type}/enable":          {http.StatusSeeOther, "/alerts"},
	"POST /learnings":                           {http.StatusSeeOther, "/learnings"},
	"POST /learnings/enabled":                   {http.StatusSeeOther, "/learnings"},
	"POST /learnings/synthesize":                {http.StatusSeeOther, "/learnings"},
	"POST /learnings/{id}":                      {http.StatusNotFound, ""},
	"POST /learnings/{id}/delete":               {http.StatusNotFound, ""},
	"POST /learnings/{id}/keep":                 {http.StatusNotFound, ""},
	"POST /learnings/alert-types/{type}/enable": {http.StatusSeeOther, "/learnings"},
	"GET /suggestions":                          {http.StatusOK, ""},
	"GET /suggestions/export":                   {http.StatusOK, ""},
	"GET /no/such/page":                         {http.StatusNotFound, ""},
	"GET /sessions/{id}/export.csv?x=1":         {http.StatusOK, ""},
	"GET /workshops":                            {http.StatusOK, ""},
	"POST /workshops":                           {http.StatusSeeOther, "/workshops"},
}

func TestEveryRouteRequiresSignIn(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		fake := llmtest.New(t)
		prompt := writeMasterPrompt(t)
		a := openAuthApp(t, databaseURL, func(c *config.Config) { c.LLM, c.Prompts = fake.Config(), []string{prompt} })
		a.listen()
		id := a.postTurn("conv-routes", "hello")
		routes := a.UI.AllRoutes()
		// Pages the route table does not have go through the same guard.
		routes = append(routes, server.Route{Method: "GET", Path: "/no/such/page"},
			server.Route{Method: "GET", Path: "/sessions/{id}/export.csv?x=1", Signed: true})
		csrf := a.csrf()
		open := 0

		t.Run("without a sign-in", func(t *testing.T) {
			a := a.on(t)
			for _, rt := range routes {
				path := routePath(t, a, rt, id)
				r := routeRequest(a, rt, path, csrf)
				what := rt.Method + " " + path
				switch {
				case rt.Members || strings.HasPrefix(rt.Path, "/w/{id}/join/"):
					// A workshop's pages take its members' join links, or the
					// admin's sign-in; without either they explain, and do not
					// send members to the admin's sign-in page.
					if r.StatusCode != http.StatusUnauthorized || !strings.Contains(r.body, "join link") {
						t.Errorf("workshop route %s: %d Location %q, want 401 about join links\n%s", what, r.StatusCode, r.location(), r.body)
					}
				case rt.Open:
					open++
					if r.StatusCode >= 400 || strings.HasPrefix(r.location(), "/signin?") {
						t.Errorf("open route %s: %d Location %q\n%s", what, r.StatusCode, r.location(), r.body)
					}
				case rt.JSON:
					var e struct {
						Error struct{ Code, Message string }
					}
					if r.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") ||
						json.Unmarshal([]byte(r.body), &e) != nil || e.Error.Code != "unauthorized" || !strings.Contains(e.Error.Message, "Sign in") {
						t.Errorf("JSON route %s: %d %s %s, want 401 JSON asking to sign in", what, r.StatusCode, r.Header.Get("Content-Type"), r.body)
					}
				case rt.Method == http.MethodGet:
					if err := toSignIn(r, path); err != nil {
						t.Errorf("%s %v", what, err)
					}
				default:
					if err := toSignIn(r, "/"); err != nil {
						t.Errorf("%s %v", what, err)
					}
				}
				if !rt.Open && r.cookie(auth.CookieName) != nil {
					t.Errorf("%s set a sign-in cookie", what)
				}
				if strings.Contains(r.body, "Answer to: hello") {
					t.Errorf("%s showed the session to someone not signed in:\n%s", what, r.body)
				}
			}
			if n := len(fake.Requests()); n != 0 {
				t.Errorf("%d chat messages reached the model without a sign-in", n)
			}
			if open < 5 {
				t.Errorf("only %d open routes: /healthz, /static/, the sign-in page, form and links should be", open)
			}
		})

		t.Run("signed in", func(t *testing.T) {
			a := a.on(t)
			cookie, csrf := a.session()
			// The chat's messages carry the tester cookie of the chat page.
			tester := a.get("/chat", cookie, csrf).cookie(web.TesterCookie)
			if tester == nil {
				t.Fatal("GET /chat signed in set no tester cookie")
			}
			for _, rt := range routes {
				if rt.Members || strings.HasPrefix(rt.Path, "/w/{id}/join/") {
					continue // a workshop's own: workshop_access_test.go
				}
				path := routePath(t, a, rt, id)
				r := routeRequest(a, rt, path, csrf, cookie, tester)
				what := rt.Method + " " + path
				if r.StatusCode == http.StatusUnauthorized || r.StatusCode == http.StatusForbidden || strings.HasPrefix(r.location(), "/signin?") {
					t.Errorf("%s refused someone signed in: %d Location %q\n%s", what, r.StatusCode, r.location(), r.body)
					continue
				}
				want, ok := signedIn[rt.Method+" "+rt.Path]
				if !ok {
					t.Errorf("no expected answer for the route %s %s in the signedIn table: it answered %d", rt.Method, rt.Path, r.StatusCode)
					continue
				}
				if want.location = strings.ReplaceAll(want.location, "{id}", id); r.StatusCode != want.status || r.location() != want.location {
					t.Errorf("%s = %d to %q, want %d to %q\n%s", what, r.StatusCode, r.location(), want.status, want.location, r.body)
				}
				if r.StatusCode == http.StatusOK && strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") && rt.Path != "/static/" &&
					!strings.Contains(r.body, "Signed in as admin") {
					t.Errorf("%s does not say who is signed in", what)
				}
			}
			if len(fake.Requests()) != 1 {
				t.Errorf("the signed-in chat message reached the model %d times, want 1", len(fake.Requests()))
			}
			if r := a.get("/sessions/"+id, cookie); !strings.Contains(r.body, "Answer to: hello") {
				t.Errorf("the session page does not show the turn:\n%s", r.body)
			}
		})
	})
}

func TestSignInNextKeepsThePage(t *testing.T) {
	a := openAuthApp(t, "", nil)
	a.listen()
	path := "/?tester=meg&page=2"
	r := a.get(path)
	if err := toSignIn(r, path); err != nil {
		t.Fatal(err)
	}
	page := a.get(r.location())
	m := nextField.FindStringSubmatch(page.body)
	if page.StatusCode != http.StatusOK || m == nil {
		t.Fatalf("GET %s = %d without a next field:\n%s", r.location(), page.StatusCode, page.body)
	}
	if got := strings.ReplaceAll(m[1], "&amp;", "&"); got != path {
		t.Errorf("the form's next = %q, want %q", got, path)
	}
	if strings.Contains(page.body, "Signed in as admin") || strings.Contains(page.body, `id="signout"`) {
		t.Error("the sign-in page shows a sign-out button to someone not signed in")
	}
	csrf := page.cookie(web.CSRFCookie)
	s := a.signIn(signinToken, path, csrf)
	if s.StatusCode != http.StatusSeeOther || s.location() != path {
		t.Fatalf("sign-in = %d to %q, want 303 to %s", s.StatusCode, s.location(), path)
	}
	if r := a.get(path, s.cookie(auth.CookieName)); r.StatusCode != http.StatusOK {
		t.Errorf("GET %s signed in = %d", path, r.StatusCode)
	}
	// Signed in, the sign-in page sends on to next.
	if r := a.get("/signin?next=%2Fquality", s.cookie(auth.CookieName)); r.StatusCode != http.StatusSeeOther || r.location() != "/quality" {
		t.Errorf("GET /signin?next=/quality signed in = %d to %q, want 303 to /quality", r.StatusCode, r.location())
	}
}

func TestSignInCookie(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		a := openAuthApp(t, databaseURL, nil)
		a.listen()
		csrf := a.csrf()
		r := a.signIn(signinToken, "/quality", csrf)
		if r.StatusCode != http.StatusSeeOther || r.location() != "/quality" {
			t.Fatalf("sign-in = %d to %q, want 303 to /quality", r.StatusCode, r.location())
		}
		c := r.cookie(auth.CookieName)
		if c == nil {
			t.Fatalf("sign-in set no %s cookie: %v", auth.CookieName, r.Header["Set-Cookie"])
		}
		if !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Path != "/" || c.Secure {
			t.Errorf("cookie %s: HttpOnly=%v SameSite=%v Path=%q Secure=%v, want HttpOnly, Lax, /, not Secure over HTTP",
				r.Header["Set-Cookie"], c.HttpOnly, c.SameSite, c.Path, c.Secure)
		}
		if d := time.Until(c.Expires); d < auth.DefaultSessionTTL-time.Minute || d > auth.DefaultSessionTTL+time.Minute {
			t.Errorf("cookie expires in %s, want %s", d, auth.DefaultSessionTTL)
		}
		if r.cookie(web.CSRFCookie) != nil {
			t.Error("sign-in replaced the CSRF cookie")
		}
		if page := a.get("/", c); page.StatusCode != http.StatusOK || !strings.Contains(page.body, "Signed in as admin") ||
			!strings.Contains(page.body, `action="/signout"`) {
			t.Errorf("GET / with the cookie = %d, without the signed-in header:\n%s", page.StatusCode, page.body)
		}

		// A cookie with one character changed is no sign-in.
		forged := &http.Cookie{Name: c.Name, Value: changeLast(c.Value)}
		if err := toSignIn(a.get("/", forged), "/"); err != nil {
			t.Errorf("a forged cookie: %v", err)
		}

		// The API still wants the Bearer token, not the cookie.
		if r := a.get("/api/v1/sessions", c); r.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET /api/v1/sessions with only the cookie = %d, want 401", r.StatusCode)
		}
		if r := a.get("/api/v1/openapi.json"); r.StatusCode != http.StatusOK {
			t.Errorf("GET /api/v1/openapi.json = %d, want 200 without a token", r.StatusCode)
		}
		a.api("GET", "/sessions", nil, nil, http.StatusOK)
	})
}

func TestSignInWrongToken(t *testing.T) {
	a := openAuthApp(t, "", nil)
	a.listen()
	csrf := a.csrf()
	for _, token := range []string{"wrong", "", signinToken + "x", signinToken[1:], strings.ToUpper(signinToken)} {
		r := a.signIn(token, "/quality", csrf)
		if r.StatusCode != http.StatusUnauthorized {
			t.Errorf("sign-in with %q = %d, want 401", token, r.StatusCode)
		}
		if !strings.Contains(r.body, `id="signin-error"`) || !strings.Contains(r.body, "That is not hone&#39;s API token") {
			t.Errorf("sign-in with %q does not say what is wrong:\n%s", token, r.body)
		}
		if m := nextField.FindStringSubmatch(r.body); m == nil || m[1] != "/quality" {
			t.Errorf("the form after a wrong token forgot next: %v", m)
		}
		if c := r.cookie(auth.CookieName); c != nil {
			t.Errorf("a wrong token set the cookie %v", c)
		}
		if strings.Contains(r.body, signinToken) {
			t.Error("the page shows the API token")
		}
	}
	// Spaces around the token, as pasted, are fine.
	if r := a.signIn(" "+signinToken+"\n", "/", csrf); r.StatusCode != http.StatusSeeOther || r.cookie(auth.CookieName) == nil {
		t.Errorf("sign-in with the token between spaces = %d", r.StatusCode)
	}
}

func TestSignInRefusesOpenRedirects(t *testing.T) {
	a := openAuthApp(t, "", nil)
	a.listen()
	csrf := a.csrf()
	cookie, _ := a.session()
	for _, next := range []string{
		"//evil.example",
		"//evil.example/sessions",
		"https://evil.example",
		"https://evil.example/",
		"http:evil.example",
		"/\\evil.example",
		"\\\\evil.example",
		"/\\/evil.example",
		"/\t/evil.example",
		"/x/../\\evil.example",
		"/sessions/../\\evil.example",
		"javascript:alert(1)",
		"evil.example",
		"",
	} {
		t.Run(strconv.Quote(next), func(t *testing.T) {
			a := a.on(t)
			r := a.signIn(signinToken, next, csrf)
			if r.StatusCode != http.StatusSeeOther || r.location() != "/" {
				t.Errorf("sign-in with next %q = %d to %q, want 303 to /", next, r.StatusCode, r.location())
			}
			r = a.get("/signin?"+url.Values{"next": {next}}.Encode(), cookie)
			if r.StatusCode != http.StatusSeeOther || r.location() != "/" {
				t.Errorf("GET /signin signed in with next %q = %d to %q, want 303 to /", next, r.StatusCode, r.location())
			}
			r = a.get("/signin?" + url.Values{"next": {next}}.Encode())
			if m := nextField.FindStringSubmatch(r.body); m == nil || m[1] != "/" {
				t.Errorf("the sign-in form keeps next %q as %v, want /", next, m)
			}
		})
	}
	for _, next := range []string{"/quality", "/sessions/abc", "/?tester=meg"} {
		if r := a.signIn(signinToken, next, csrf); r.StatusCode != http.StatusSeeOther || r.location() != next {
			t.Errorf("sign-in with next %q = %d to %q", next, r.StatusCode, r.location())
		}
	}
}

func TestSignOut(t *testing.T) {
	a := openAuthApp(t, "", nil)
	a.listen()
	cookie, csrf := a.session()
	if r := a.do("POST", "/signout", url.Values{}, nil, cookie, csrf); r.StatusCode != http.StatusForbidden {
		t.Errorf("sign-out without the CSRF token = %d, want 403", r.StatusCode)
	}
	r := a.do("POST", "/signout", url.Values{"csrf": {csrf.Value}}, nil, cookie, csrf)
	if r.StatusCode != http.StatusSeeOther || r.location() != "/signin" {
		t.Fatalf("sign-out = %d to %q, want 303 to /signin", r.StatusCode, r.location())
	}
	c := r.cookie(auth.CookieName)
	if c == nil || c.Value != "" || c.MaxAge >= 0 || c.Path != "/" {
		t.Errorf("sign-out does not clear the cookie: %v", r.Header["Set-Cookie"])
	}
	// Without a sign-in, signing out asks to sign in first.
	if err := toSignIn(a.do("POST", "/signout", url.Values{"csrf": {csrf.Value}}, nil, csrf), "/"); err != nil {
		t.Errorf("sign-out without a sign-in: %v", err)
	}
}

func TestPostsNeedTheCSRFToken(t *testing.T) {
	a := openAuthApp(t, "", nil)
	a.listen()
	cookie, csrf := a.session()
	other := &http.Cookie{Name: web.CSRFCookie, Value: strings.Repeat("a", len(csrf.Value))}
	for _, tc := range []struct {
		name    string
		path    string
		body    any
		header  http.Header
		cookies []*http.Cookie
	}{
		{"sign-in without csrf", "/signin", url.Values{"token": {signinToken}}, nil, []*http.Cookie{csrf}},
		{"sign-in without the cookie", "/signin", url.Values{"token": {signinToken}, "csrf": {csrf.Value}}, nil, nil},
		{"sign-in with another cookie", "/signin", url.Values{"token": {signinToken}, "csrf": {csrf.Value}}, nil, []*http.Cookie{other}},
		{"sign-in from another site", "/signin", url.Values{"token": {signinToken}, "csrf": {csrf.Value}},
			http.Header{"Origin": {"https://evil.example"}, "Sec-Fetch-Site": {"cross-site"}}, []*http.Cookie{csrf}},
		{"sign-out without csrf", "/signout", url.Values{}, nil, []*http.Cookie{cookie, csrf}},
		{"sign-out with a wrong csrf", "/signout", url.Values{"csrf": {other.Value}}, nil, []*http.Cookie{cookie, csrf}},
		{"chat message without the header", "/chat/messages", `{"prompt":"MASTER_PROMPT.md","text":"hi"}`, nil, []*http.Cookie{cookie, csrf}},
		{"chat message from another site", "/chat/messages", `{"prompt":"MASTER_PROMPT.md","text":"hi"}`,
			http.Header{web.CSRFHeader: {csrf.Value}, "Origin": {"https://evil.example"}, "Sec-Fetch-Site": {"cross-site"}}, []*http.Cookie{cookie, csrf}},
	} {
		r := a.do("POST", tc.path, tc.body, tc.header, tc.cookies...)
		if r.StatusCode != http.StatusForbidden {
			t.Errorf("%s: %d, want 403\n%s", tc.name, r.StatusCode, r.body)
		}
		if c := r.cookie(auth.CookieName); c != nil {
			t.Errorf("%s changed the sign-in: %v", tc.name, c)
		}
	}
}

// exportLink returns the download link that ends the reply of cmd in a
// conversation over the message limit.
func exportLink(t *testing.T, a *authApp, conversation, cmd, id, format string) string {
	t.Helper()
	text := a.say(conversation, cmd)
	lines := strings.Split(text, "\n")
	link := lines[len(lines)-1]
	if strings.Contains(text, "```") || !strings.HasPrefix(link, a.base+"/sessions/"+id+"/export."+format+"?") {
		t.Fatalf("%s did not answer with a link to the export:\n%s", cmd, text)
	}
	return link
}

func TestSignedExportLinks(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		const ttl = time.Hour
		a := openAuthApp(t, databaseURL, func(c *config.Config) { c.MessageLimit = 1024; c.LinkTTL = ttl })
		a.withClock()
		a.listen()
		cookie, _ := a.session()

		var id string
		for i := range 5 {
			id = a.postTurn("big", fmt.Sprintf("question %d %s", i, strings.Repeat("x", 300)))
		}
		otherID := a.postTurn("other", "small")
		before := time.Now()
		link := exportLink(t, a, "big", "!print", id, "csv")
		jsonLink := exportLink(t, a, "big", "!export-json", id, "json")
		u, err := url.Parse(link)
		if err != nil {
			t.Fatal(err)
		}
		q := u.Query()
		exp, err := strconv.ParseInt(q.Get("expires"), 10, 64)
		if err != nil || q.Get("sig") == "" {
			t.Fatalf("link %s has no expires and sig", link)
		}
		if d := time.Unix(exp, 0).Sub(before); d < ttl-time.Minute || d > ttl+time.Minute {
			t.Errorf("the link expires in %s, want the configured LinkTTL %s", d, ttl)
		}

		// The link downloads without signing in.
		r := a.get(strings.TrimPrefix(link, a.base))
		if r.StatusCode != http.StatusOK || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/csv") {
			t.Fatalf("GET %s = %d %s\n%s", link, r.StatusCode, r.Header.Get("Content-Type"), r.body)
		}
		rows, err := csv.NewReader(strings.NewReader(r.body)).ReadAll()
		if err != nil || len(rows) != 6 || !strings.HasPrefix(rows[1][1], "question 0") {
			t.Errorf("the linked CSV is not the session's 5 turns (%v):\n%s", err, r.body)
		}
		if r := a.get(strings.TrimPrefix(jsonLink, a.base)); r.StatusCode != http.StatusOK ||
			!strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") || !strings.Contains(r.body, id) {
			t.Errorf("GET %s = %d %s", jsonLink, r.StatusCode, r.Header.Get("Content-Type"))
		}
		if c := r.cookie(auth.CookieName); c != nil {
			t.Error("a download link signed its holder in")
		}
		// It opens nothing else: the session page still asks to sign in.
		if err := toSignIn(a.get("/sessions/"+id+"?"+u.RawQuery), "/sessions/"+id+"?"+u.RawQuery); err != nil {
			t.Errorf("the link's signature on the session page: %v", err)
		}

		sig := q.Get("sig")
		refused := func(what, path string, q url.Values) {
			t.Helper()
			r := a.get(path + "?" + q.Encode())
			if r.StatusCode != http.StatusForbidden || !strings.Contains(r.body, "This download link has expired or is not valid") {
				t.Errorf("%s: GET %s = %d, want 403 saying the link is not valid\n%s", what, path, r.StatusCode, r.body)
			}
			if strings.Contains(r.body, "question 0") {
				t.Errorf("%s: the refusal shows the session", what)
			}
		}
		with := func(key, value string) url.Values {
			v := url.Values{"expires": {q.Get("expires")}, "sig": {sig}}
			v.Set(key, value)
			return v
		}
		path := u.Path
		refused("sig changed by one character", path, with("sig", changeLast(sig)))
		refused("sig changed by one character at the start", path, with("sig", changeFirst(sig)))
		refused("expires one second later", path, with("expires", strconv.FormatInt(exp+1, 10)))
		refused("expires a year later", path, with("expires", strconv.FormatInt(exp+365*24*3600, 10)))
		refused("expires not a number", path, with("expires", "never"))
		refused("another session", "/sessions/"+otherID+"/export.csv", q)
		refused("another format", "/sessions/"+id+"/export.json", q)
		refused("an empty sig", path, with("sig", ""))
		// Without a signature it is a page like any other.
		if err := toSignIn(a.get(path+"?expires="+q.Get("expires")), path+"?expires="+q.Get("expires")); err != nil {
			t.Errorf("the export without sig: %v", err)
		}

		// Until LinkTTL has passed, then no more.
		a.clock.Set(ttl - time.Minute)
		if r := a.get(path + "?" + q.Encode()); r.StatusCode != http.StatusOK {
			t.Errorf("the link a minute before it expires = %d, want 200", r.StatusCode)
		}
		a.clock.Set(ttl + time.Second)
		refused("after LinkTTL", path, q)
		// The admin's sign-in lasts 30 days: the export still works for them.
		if r := a.get(path, cookie); r.StatusCode != http.StatusOK {
			t.Errorf("the admin's download after the link's TTL = %d", r.StatusCode)
		}
		a.clock.Set(0)

		// hone rotate-secret revokes links and cookies on every server.
		rotateSecret(t, a.cfg)
		a.clock.Set(auth.SecretRefresh)
		refused("after hone rotate-secret", path, q)
		if err := toSignIn(a.get("/", cookie), "/"); err != nil {
			t.Errorf("a cookie from before hone rotate-secret: %v", err)
		}

		// A server started after the rotation refuses them at once.
		cfg := a.cfg
		cfg.Addr = "127.0.0.1:0"
		b, err := app.Open(context.Background(), cfg, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		if err := b.Listen(); err != nil {
			t.Fatal(err)
		}
		fresh := &authApp{App: b, t: t, cfg: cfg, base: b.URL(), client: a.client}
		refused2 := fresh.get(path + "?" + q.Encode())
		if refused2.StatusCode != http.StatusForbidden {
			t.Errorf("a new server on the rotated database: the old link = %d, want 403", refused2.StatusCode)
		}
		if err := toSignIn(fresh.get("/", cookie), "/"); err != nil {
			t.Errorf("a new server on the rotated database, an old cookie: %v", err)
		}
		newLink := exportLink(t, fresh, "big", "!print", id, "csv")
		if r := fresh.get(strings.TrimPrefix(newLink, fresh.base)); r.StatusCode != http.StatusOK {
			t.Errorf("a link signed after the rotation = %d", r.StatusCode)
		}
	})
}

// rotateSecret runs hone rotate-secret on cfg's database, as an admin would.
func rotateSecret(t *testing.T, cfg config.Config) {
	t.Helper()
	defer slog.SetDefault(slog.Default())
	t.Setenv("HONE_DATABASE_URL", cfg.DatabaseURL)
	args := []string{"--data-dir", cfg.DataDir, "--log-level", "error", "rotate-secret"}
	if cfg.DatabaseURL != "" {
		args = append([]string{"--database-url", cfg.DatabaseURL}, args...)
	}
	var out, errOut bytes.Buffer
	if code := cli.Execute(context.Background(), args, strings.NewReader(""), &out, &errOut); code != 0 ||
		!strings.Contains(out.String(), "signing secret is new") {
		t.Fatalf("hone rotate-secret: exit %d\n%s%s", code, out.String(), errOut.String())
	}
}

func TestNoTokenEverythingOpen(t *testing.T) {
	fake := llmtest.New(t)
	prompt := writeMasterPrompt(t)
	a := openAuthApp(t, "", func(c *config.Config) { c.APIToken, c.LLM, c.Prompts = "", fake.Config(), []string{prompt} })
	a.listen()
	id := a.postTurn("conv", "hello")
	chat := a.get("/chat")
	csrf, tester := chat.cookie(web.CSRFCookie), chat.cookie(web.TesterCookie)
	if chat.StatusCode != http.StatusOK || csrf == nil || tester == nil {
		t.Fatalf("GET /chat = %d without the CSRF and tester cookies", chat.StatusCode)
	}
	for _, rt := range a.UI.AllRoutes() {
		path := routePath(t, a, rt, id)
		r := routeRequest(a, rt, path, csrf, tester)
		if strings.HasPrefix(rt.Path, "/w/{id}/join/") {
			// A join link that is not valid is refused even so.
			if r.StatusCode != http.StatusUnauthorized || !strings.Contains(r.body, "join link") {
				t.Errorf("without a token, workshop route %s %s = %d, want 401 about join links", rt.Method, path, r.StatusCode)
			}
			continue
		}
		if r.StatusCode == http.StatusUnauthorized || r.StatusCode == http.StatusForbidden || strings.HasPrefix(r.location(), "/signin?") {
			t.Errorf("without a token, %s %s = %d to %q", rt.Method, path, r.StatusCode, r.location())
		}
		if strings.Contains(r.body, "Signed in as admin") || strings.Contains(r.body, `action="/signout"`) {
			t.Errorf("without a token, %s %s shows a sign-out button", rt.Method, path)
		}
		if c := r.cookie(auth.CookieName); c != nil && c.Value != "" {
			t.Errorf("without a token, %s %s set a sign-in cookie", rt.Method, path)
		}
		if strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") {
			wantPagePolicy(t, rt.Method+" "+path, r.Response)
		}
	}
	for _, path := range []string{"/", "/sessions/" + id, "/sessions/" + id + "/export.csv", "/quality", "/chat", "/nowhere"} {
		r := a.get(path)
		if r.StatusCode != http.StatusOK && path != "/nowhere" {
			t.Errorf("without a token, GET %s = %d", path, r.StatusCode)
		}
		wantPagePolicy(t, "GET "+path, r.Response)
	}
	if r := a.get("/signin?next=%2Fquality"); r.StatusCode != http.StatusSeeOther || r.location() != "/quality" {
		t.Errorf("without a token, the sign-in page = %d to %q, want 303 to /quality", r.StatusCode, r.location())
	}
	// The CSRF token still guards every POST.
	if r := a.do("POST", "/chat/messages", `{"prompt":"MASTER_PROMPT.md","text":"hi"}`, nil, csrf); r.StatusCode != http.StatusForbidden {
		t.Errorf("without a token, a chat message without the CSRF header = %d, want 403", r.StatusCode)
	}
	if r := a.get("/api/v1/sessions"); r.StatusCode != http.StatusOK {
		t.Errorf("without a token, GET /api/v1/sessions = %d", r.StatusCode)
	}
}

// wantPagePolicy requires the Content-Security-Policy every page sends.
func wantPagePolicy(t *testing.T, what string, r *http.Response) {
	t.Helper()
	csp := r.Header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'self'", "script-src 'self'", "object-src 'none'", "frame-ancestors 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("%s: Content-Security-Policy %q lacks %s", what, csp, want)
		}
	}
}

// changeLast changes the last character of s to another base64url one.
func changeLast(s string) string {
	if strings.HasSuffix(s, "A") {
		return s[:len(s)-1] + "B"
	}
	return s[:len(s)-1] + "A"
}

// changeFirst changes the first character of s to another base64url one.
func changeFirst(s string) string {
	if strings.HasPrefix(s, "A") {
		return "B" + s[1:]
	}
	return "A" + s[1:]
}
