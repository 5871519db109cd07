package auth_test

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/auth"
	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/storage/storagetest"
)

// clock is a time the test moves, shared by Auth and the database.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock {
	return &clock{now: time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)}
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	c.now = t
	c.mu.Unlock()
}

const testToken = "s3cret-API-token-0123456789abcdef"

// newAuth returns an Auth over db's store with the clock as its and the
// database's time.
func newAuth(db *storage.DB, clk *clock, opts auth.Options) *auth.Auth {
	db.Now = clk.Now
	opts.Now = clk.Now
	return auth.New(db.Auth(), opts)
}

// withCookie is a request carrying c.
func withCookie(c *http.Cookie) *http.Request {
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	if c != nil {
		r.AddCookie(c)
	}
	return r
}

// session is what a checks of a request carrying c, failing on an error.
func session(t *testing.T, a *auth.Auth, c *http.Cookie) (hone.Identity, bool) {
	t.Helper()
	id, ok, err := a.Session(context.Background(), withCookie(c))
	if err != nil {
		t.Fatalf("Session: %v", err)
	}
	return id, ok
}

func newCookie(t *testing.T, a *auth.Auth, id hone.Identity) *http.Cookie {
	t.Helper()
	c, err := a.SessionCookie(context.Background(), httptest.NewRequest(http.MethodGet, "/", nil), id)
	if err != nil {
		t.Fatalf("SessionCookie: %v", err)
	}
	return c
}

func TestSessionCookieRoundTrip(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		clk := newClock()
		a := newAuth(db, clk, auth.Options{Token: testToken})
		ctx := context.Background()

		for _, id := range []hone.Identity{
			hone.Admin,
			{Kind: hone.IdentityMember, WorkshopID: "w1", MemberID: "m1", Role: "editor"},
		} {
			c := newCookie(t, a, id)
			got, ok := session(t, a, c)
			if !ok || got != id {
				t.Errorf("cookie of %+v reads back as %+v, ok=%v", id, got, ok)
			}
		}

		c := newCookie(t, a, hone.Admin)
		if c.Name != "hone_session" {
			t.Errorf("cookie name = %q, want hone_session", c.Name)
		}
		if c.Path != "/" || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Secure {
			t.Errorf("cookie over plain HTTP: Path=%q HttpOnly=%v SameSite=%v Secure=%v; want /, true, Lax, false",
				c.Path, c.HttpOnly, c.SameSite, c.Secure)
		}
		if want := clk.Now().Add(auth.DefaultSessionTTL); !c.Expires.Equal(want) {
			t.Errorf("cookie expires %v, want %v (DefaultSessionTTL from now)", c.Expires, want)
		}
		tlsReq := httptest.NewRequest(http.MethodGet, "https://hone.example/", nil)
		tlsReq.TLS = &tls.ConnectionState{}
		if sc, err := a.SessionCookie(ctx, tlsReq, hone.Admin); err != nil || !sc.Secure {
			t.Errorf("cookie over TLS: Secure=%v err=%v, want Secure", sc != nil && sc.Secure, err)
		}

		clear := a.ClearCookie(httptest.NewRequest(http.MethodPost, "/signout", nil))
		if clear.Name != auth.CookieName || clear.Value != "" || clear.MaxAge >= 0 || clear.Path != "/" || !clear.HttpOnly {
			t.Errorf("ClearCookie = %+v, want an empty hone_session with MaxAge<0 at /", clear)
		}

		// Another server on the same database accepts the cookie.
		other := auth.New(db.Auth(), auth.Options{Token: testToken, Now: clk.Now})
		if got, ok := session(t, other, c); !ok || got != hone.Admin {
			t.Errorf("a second Auth on the same database reads %+v ok=%v, want admin", got, ok)
		}
	})
}

// tamper returns c with its value changed by f, which gets the four dot
// separated parts: version, payload, expiry and signature.
func tamper(c *http.Cookie, f func(p []string) []string) *http.Cookie {
	p := strings.Split(c.Value, ".")
	return &http.Cookie{Name: c.Name, Value: strings.Join(f(append([]string(nil), p...)), ".")}
}

// flip changes the first character of s to another one of the same alphabet.
func flip(s string) string {
	if s == "" {
		return "A"
	}
	r := byte('A')
	if s[0] == 'A' {
		r = 'B'
	}
	return string(r) + s[1:]
}

func TestSessionCookieRefused(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		clk := newClock()
		a := newAuth(db, clk, auth.Options{Token: testToken, SessionTTL: time.Hour})
		c := newCookie(t, a, hone.Admin)
		if len(strings.Split(c.Value, ".")) != 4 {
			t.Fatalf("cookie value %q is not version.payload.expiry.signature", c.Value)
		}
		memberPayload := base64.RawURLEncoding.EncodeToString([]byte(`{"kind":"member","role":"owner"}`))
		adminPayload := base64.RawURLEncoding.EncodeToString([]byte(`{"kind":"admin"}`))

		// A cookie signed with another secret: an Auth over another database.
		foreign := newCookie(t, auth.New(storagetest.SQLite(t).Auth(), auth.Options{Token: testToken, Now: clk.Now}), hone.Admin)

		for _, tc := range []struct {
			name string
			c    *http.Cookie
		}{
			{"no cookie", nil},
			{"empty value", &http.Cookie{Name: auth.CookieName, Value: ""}},
			{"garbage", &http.Cookie{Name: auth.CookieName, Value: "admin"}},
			{"other cookie name", &http.Cookie{Name: "session", Value: c.Value}},
			{"changed payload", tamper(c, func(p []string) []string { p[1] = memberPayload; return p })},
			{"payload one character changed", tamper(c, func(p []string) []string { p[1] = flip(p[1]); return p })},
			{"payload re-encoded", tamper(c, func(p []string) []string { p[1] = adminPayload + "=="; return p })},
			{"later expiry", tamper(c, func(p []string) []string {
				n, _ := strconv.ParseInt(p[2], 10, 64)
				p[2] = strconv.FormatInt(n+365*24*3600, 10)
				return p
			})},
			{"earlier expiry", tamper(c, func(p []string) []string {
				n, _ := strconv.ParseInt(p[2], 10, 64)
				p[2] = strconv.FormatInt(n-1, 10)
				return p
			})},
			{"expiry not a number", tamper(c, func(p []string) []string { p[2] = "never"; return p })},
			{"signature one character changed", tamper(c, func(p []string) []string { p[3] = flip(p[3]); return p })},
			{"signature cut short", tamper(c, func(p []string) []string { p[3] = p[3][:len(p[3])-1]; return p })},
			{"no signature", tamper(c, func(p []string) []string { p[3] = ""; return p })},
			{"signature dropped", tamper(c, func(p []string) []string { return p[:3] })},
			{"extra part", tamper(c, func(p []string) []string { return append(p, "x") })},
			{"other version", tamper(c, func(p []string) []string { p[0] = "v2"; return p })},
			{"signed with another secret", foreign},
		} {
			t.Run(tc.name, func(t *testing.T) {
				if id, ok := session(t, a, tc.c); ok || id.Kind != "" {
					t.Errorf("accepted as %+v", id)
				}
			})
		}
		if _, ok := session(t, a, c); !ok {
			t.Fatal("the untouched cookie is refused")
		}

		// Expiry: accepted until SessionTTL has passed, not from then on.
		clk.Add(time.Hour - time.Second)
		if _, ok := session(t, a, c); !ok {
			t.Error("a cookie is refused a second before it expires")
		}
		clk.Add(time.Second)
		if _, ok := session(t, a, c); ok {
			t.Error("a cookie is accepted when it expires")
		}
		clk.Add(24 * time.Hour)
		if _, ok := session(t, a, c); ok {
			t.Error("a cookie is accepted a day after it expired")
		}
	})
}

func TestRotationRevokesCookies(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		ctx := context.Background()
		clk := newClock()
		a := newAuth(db, clk, auth.Options{Token: testToken})
		old := newCookie(t, a, hone.Admin)

		// Rotating on this server revokes at once.
		if err := a.Rotate(ctx); err != nil {
			t.Fatal(err)
		}
		if _, ok := session(t, a, old); ok {
			t.Error("a cookie signed before the rotation is accepted by the server that rotated")
		}
		fresh := newCookie(t, a, hone.Admin)
		if _, ok := session(t, a, fresh); !ok {
			t.Fatal("a cookie signed after the rotation is refused")
		}

		// Rotating elsewhere (hone rotate-secret) reaches this server within SecretRefresh.
		elsewhere := auth.New(db.Auth(), auth.Options{})
		if err := elsewhere.Rotate(ctx); err != nil {
			t.Fatal(err)
		}
		clk.Add(auth.SecretRefresh)
		if _, ok := session(t, a, fresh); ok {
			t.Errorf("a cookie signed before a rotation elsewhere is accepted %s later", auth.SecretRefresh)
		}
		if _, ok := session(t, a, newCookie(t, a, hone.Admin)); !ok {
			t.Error("a cookie signed with the new secret is refused")
		}
	})
}

// linkQuery splits a signed link into its path and query.
func linkQuery(t *testing.T, link, base string) (string, url.Values) {
	t.Helper()
	if !strings.HasPrefix(link, base+"/") {
		t.Fatalf("link %q does not start with %s/", link, base)
	}
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	return u.Path, u.Query()
}

func TestSignedLinks(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		ctx := context.Background()
		clk := newClock()
		const base = "https://hone.example/tuning"
		a := newAuth(db, clk, auth.Options{Token: testToken, LinkTTL: time.Hour})
		links := a.NewLinks(base + "/")
		if links.Base() != base {
			t.Errorf("Base() = %q, want %q without the trailing slash", links.Base(), base)
		}
		link, err := links.ExportURL(ctx, "sess1", "csv")
		if err != nil {
			t.Fatal(err)
		}
		path, q := linkQuery(t, link, base)
		if want := "/tuning/sessions/sess1/export.csv"; path != want {
			t.Fatalf("link path = %q, want %q", path, want)
		}
		if want := strconv.FormatInt(clk.Now().Add(time.Hour).Unix(), 10); q.Get("expires") != want || q.Get("sig") == "" {
			t.Fatalf("link query = %v, want expires=%s and a sig", q, want)
		}
		signed := "/sessions/sess1/export.csv"
		verify := func(path string, q url.Values) bool {
			t.Helper()
			ok, err := a.Verify(ctx, path, q)
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			return ok
		}
		if !verify(signed, q) {
			t.Fatal("a fresh link does not verify")
		}

		with := func(key, value string) url.Values {
			v := url.Values{"expires": {q.Get("expires")}, "sig": {q.Get("sig")}}
			if value == "\x00" {
				v.Del(key)
			} else {
				v.Set(key, value)
			}
			return v
		}
		exp, _ := strconv.ParseInt(q.Get("expires"), 10, 64)
		for _, tc := range []struct {
			name string
			path string
			q    url.Values
		}{
			{"another session", "/sessions/sess2/export.csv", q},
			{"another format", "/sessions/sess1/export.json", q},
			{"another page", "/sessions/sess1", q},
			{"a longer path", signed + "/x", q},
			{"the base's path", "/tuning" + signed, q},
			{"later expiry", signed, with("expires", strconv.FormatInt(exp+3600, 10))},
			{"earlier expiry", signed, with("expires", strconv.FormatInt(exp-1, 10))},
			{"expiry not a number", signed, with("expires", "tomorrow")},
			{"no expiry", signed, with("expires", "\x00")},
			{"signature one character changed", signed, with("sig", flip(q.Get("sig")))},
			{"signature cut short", signed, with("sig", q.Get("sig")[1:])},
			{"no signature", signed, with("sig", "\x00")},
			{"empty signature", signed, with("sig", "")},
			{"nothing", signed, url.Values{}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				if verify(tc.path, tc.q) {
					t.Errorf("Verify(%s, %v) = true", tc.path, tc.q)
				}
			})
		}

		// Expiry: the link works until LinkTTL has passed.
		clk.Add(time.Hour - time.Second)
		if !verify(signed, q) {
			t.Error("a link is refused a second before it expires")
		}
		clk.Add(time.Second)
		if verify(signed, q) {
			t.Error("a link works when it expires")
		}
		clk.Add(-time.Hour)

		// The default lifetime is DefaultLinkTTL.
		d := auth.New(db.Auth(), auth.Options{Token: testToken, Now: clk.Now})
		link, err = d.NewLinks(base).ExportURL(ctx, "sess1", "json")
		if err != nil {
			t.Fatal(err)
		}
		_, dq := linkQuery(t, link, base)
		if want := strconv.FormatInt(clk.Now().Add(auth.DefaultLinkTTL).Unix(), 10); dq.Get("expires") != want {
			t.Errorf("default expiry = %s, want %s (7 days)", dq.Get("expires"), want)
		}
		if ok, err := a.Verify(ctx, "/sessions/sess1/export.json", dq); err != nil || !ok {
			t.Errorf("a link signed by another Auth on the same database: %v %v", ok, err)
		}

		// Rotation revokes every link.
		if err := d.Rotate(ctx); err != nil {
			t.Fatal(err)
		}
		clk.Add(auth.SecretRefresh)
		if verify(signed, q) {
			t.Error("a link signed before a rotation still works")
		}
	})
}

func TestSignInLinks(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		ctx := context.Background()
		clk := newClock()
		const base = "http://localhost:8080"
		a := newAuth(db, clk, auth.Options{Token: testToken})
		links := a.NewLinks(base)
		tokenOf := func(link string) string {
			t.Helper()
			tok, ok := strings.CutPrefix(link, base+auth.SignInPath)
			if !ok || tok == "" || strings.ContainsAny(tok, "/?#") {
				t.Fatalf("sign-in link %q is not %s%s<token>", link, base, auth.SignInPath)
			}
			return tok
		}
		newLink := func() string {
			t.Helper()
			link, err := links.SignInLink(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return tokenOf(link)
		}
		refused := func(what, token string) {
			t.Helper()
			err := a.UseSignInLink(ctx, token)
			if hone.ErrorCode(err) != hone.EUNAUTHORIZED {
				t.Errorf("%s: UseSignInLink = %v, want an unauthorized error", what, err)
			}
		}

		tok := newLink()
		if other := newLink(); other == tok {
			t.Fatal("two sign-in links share a token")
		}
		if err := a.UseSignInLink(ctx, tok); err != nil {
			t.Fatalf("first use: %v", err)
		}
		refused("second use", tok)
		if msg := hone.ErrorMessage(a.UseSignInLink(ctx, tok)); !strings.Contains(msg, "hone login-link") {
			t.Errorf("the refusal %q does not say how to get a new link", msg)
		}
		refused("unknown token", "nope"+tok[4:])
		refused("empty token", "")
		refused("a token too long", strings.Repeat("a", 101))
		refused("two tokens joined", tok+tok)

		// Lifetime: DefaultSignInTTL.
		early := newLink()
		late := newLink()
		clk.Add(auth.DefaultSignInTTL - time.Second)
		if err := a.UseSignInLink(ctx, early); err != nil {
			t.Errorf("a link a second before it expires: %v", err)
		}
		clk.Add(2 * time.Second)
		refused("a link after DefaultSignInTTL", late)

		// A shorter SignInTTL.
		short := newAuth(db, clk, auth.Options{Token: testToken, SignInTTL: time.Minute})
		link, err := short.NewLinks(base).SignInLink(ctx)
		if err != nil {
			t.Fatal(err)
		}
		clk.Add(time.Minute)
		refused("a link after its SignInTTL of 1m", tokenOf(link))

		// A rotation revokes the links not used yet, on every server.
		unused := newLink()
		if err := auth.New(db.Auth(), auth.Options{}).Rotate(ctx); err != nil {
			t.Fatal(err)
		}
		clk.Add(auth.SecretRefresh)
		refused("a link issued before a rotation", unused)
		if err := a.UseSignInLink(ctx, newLink()); err != nil {
			t.Errorf("a link issued after a rotation: %v", err)
		}
	})
}

func TestCheckToken(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		a := auth.New(db.Auth(), auth.Options{Token: testToken})
		if !a.Enabled() {
			t.Error("Enabled() = false with a token")
		}
		for _, tc := range []struct {
			token string
			want  bool
		}{
			{testToken, true},
			{"", false},
			{testToken[:len(testToken)-1], false},
			{testToken + "x", false},
			{" " + testToken, false},
			{strings.ToUpper(testToken), false},
			{flip(testToken), false},
			{"Bearer " + testToken, false},
		} {
			if got := a.CheckToken(tc.token); got != tc.want {
				t.Errorf("CheckToken(%q) = %v, want %v", tc.token, got, tc.want)
			}
		}

		none := auth.New(db.Auth(), auth.Options{})
		if none.Enabled() {
			t.Error("Enabled() = true without a token")
		}
		for _, token := range []string{"", " ", testToken, "anything"} {
			if none.CheckToken(token) {
				t.Errorf("without a token, CheckToken(%q) = true", token)
			}
		}
	})
}
