package teams

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// tokenEndpoint is a fake Entra client-credentials endpoint that counts
// the tokens it gives.
type tokenEndpoint struct {
	*httptest.Server
	issued atomic.Int32
	form   atomic.Value
}

func newTokenEndpoint(t *testing.T) *tokenEndpoint {
	te := &tokenEndpoint{}
	te.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		te.form.Store(r.PostForm.Encode())
		n := te.issued.Add(1)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"access_token":"connector-token-%d","token_type":"Bearer","expires_in":3600}`, n)
	}))
	t.Cleanup(te.Close)
	return te
}

func newAuthAdapter(t *testing.T, bf *botFramework, te *tokenEndpoint, bot *fakeBot, logs *bytes.Buffer) *Adapter {
	t.Helper()
	cfg := Config{
		AppID: testAppID, AppPassword: "s3cret-password", TenantID: "tenant-1",
		OpenIDMetadataURL: bf.URL + "/v1/.well-known/openidconfiguration",
		TokenURL:          te.URL + "/oauth2/v2.0/token",
	}
	a, err := newAdapter(cfg, bot, slog.New(slog.NewTextHandler(logs, nil)), &http.Client{Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close(t.Context()) })
	return a
}

func TestInboundAuthentication(t *testing.T) {
	bf := newBotFramework(t)
	te := newTokenEndpoint(t)
	conn := newFakeConnector(t)
	bot := newFakeBot()
	var logs bytes.Buffer
	a := newAuthAdapter(t, bf, te, bot, &logs)
	h := a.Handler()

	tests := []struct {
		name  string
		token func() string
		want  int
	}{
		{"good token", func() string { return bf.token(t, testAppID, conn.URL, nil) }, http.StatusOK},
		{"service url with trailing slash and other case", func() string {
			return bf.token(t, testAppID, strings.ToUpper(conn.URL)+"/", nil)
		}, http.StatusOK},
		{"no token", func() string { return "" }, http.StatusUnauthorized},
		{"not a JWT", func() string { return "not-a-token" }, http.StatusUnauthorized},
		{"wrong audience", func() string { return bf.token(t, "another-app", conn.URL, nil) }, http.StatusUnauthorized},
		{"wrong issuer", func() string {
			return bf.token(t, testAppID, conn.URL, func(c jwt.MapClaims) { c["iss"] = "https://sts.example.com" })
		}, http.StatusUnauthorized},
		{"expired", func() string {
			return bf.token(t, testAppID, conn.URL, func(c jwt.MapClaims) { c["exp"] = time.Now().Add(-10 * time.Minute).Unix() })
		}, http.StatusUnauthorized},
		{"expired within the clock skew", func() string {
			return bf.token(t, testAppID, conn.URL, func(c jwt.MapClaims) { c["exp"] = time.Now().Add(-time.Minute).Unix() })
		}, http.StatusOK},
		{"no expiry", func() string {
			return bf.token(t, testAppID, conn.URL, func(c jwt.MapClaims) { delete(c, "exp") })
		}, http.StatusUnauthorized},
		{"bad signature", func() string {
			return bf.token(t, testAppID, conn.URL, func(c jwt.MapClaims) { c["sign_with_other"] = true })
		}, http.StatusUnauthorized},
		{"service url of another connector", func() string {
			return bf.token(t, testAppID, "https://smba.trafficmanager.net/emea/", nil)
		}, http.StatusUnauthorized},
		{"no service url claim", func() string {
			return bf.token(t, testAppID, conn.URL, func(c jwt.MapClaims) { delete(c, "serviceurl") })
		}, http.StatusUnauthorized},
		{"unsigned", func() string {
			s, _ := jwt.NewWithClaims(jwt.SigningMethodNone, jwt.MapClaims{"iss": Issuer, "aud": testAppID, "serviceurl": conn.URL,
				"exp": time.Now().Add(time.Hour).Unix()}).SignedString(jwt.UnsafeAllowNoneSignatureType)
			return s
		}, http.StatusUnauthorized},
	}
	var tokens []string
	accepted := 0
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok := tt.token()
			tokens = append(tokens, tok)
			rec := send(t, h, messageActivity(conn.URL, "hello"), tok)
			if rec.Code != tt.want {
				t.Fatalf("status %d, want %d: %s", rec.Code, tt.want, rec.Body)
			}
			if tt.want == http.StatusOK {
				accepted++
				p := conn.next(t)
				if p.Auth != "Bearer connector-token-1" {
					t.Errorf("reply sent with Authorization %q, want the client-credentials token", p.Auth)
				}
			}
		})
	}
	msgs, _, _ := bot.snapshot()
	if len(msgs) != accepted {
		t.Errorf("the bot got %d messages, want %d (only the authenticated ones)", len(msgs), accepted)
	}
	if n := te.issued.Load(); n != 1 {
		t.Errorf("%d connector tokens fetched, want 1 (cached until expiry)", n)
	}
	form, _ := te.form.Load().(string)
	for _, want := range []string{"grant_type=client_credentials", "client_id=" + testAppID, "scope=https%3A%2F%2Fapi.botframework.com%2F.default"} {
		if !strings.Contains(form, want) {
			t.Errorf("token request %q lacks %q", form, want)
		}
	}
	for _, tok := range tokens {
		if tok != "" && strings.Contains(logs.String(), tok) {
			t.Errorf("a token was logged: %s", logs.String())
		}
	}
	if strings.Contains(logs.String(), "s3cret-password") || strings.Contains(logs.String(), "connector-token") {
		t.Errorf("a secret was logged: %s", logs.String())
	}
}

func TestInboundAuthenticationRefreshesKeys(t *testing.T) {
	bf := newBotFramework(t)
	te := newTokenEndpoint(t)
	conn := newFakeConnector(t)
	bot := newFakeBot()
	var logs bytes.Buffer
	h := newAuthAdapter(t, bf, te, bot, &logs).Handler()
	if rec := send(t, h, messageActivity(conn.URL, "hello"), bf.token(t, testAppID, conn.URL, nil)); rec.Code != http.StatusOK {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	conn.next(t)
	bf.key, bf.kid = mustKey(t), "bf-key-2"
	if rec := send(t, h, messageActivity(conn.URL, "again"), bf.token(t, testAppID, conn.URL, nil)); rec.Code != http.StatusOK {
		t.Fatalf("a token signed with a key published after the first read: status %d, want 200", rec.Code)
	}
	conn.next(t)
}

func TestInboundAuthenticationMetadataDown(t *testing.T) {
	down := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(down.Close)
	a, err := newAdapter(Config{AppID: testAppID, AppPassword: "x", OpenIDMetadataURL: down.URL}, newFakeBot(),
		slog.New(slog.DiscardHandler), http.DefaultClient)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close(t.Context()) })
	if rec := send(t, a.Handler(), messageActivity("https://smba.example.com/", "hi"), "eyJ.x.y"); rec.Code != http.StatusUnauthorized {
		t.Fatalf("status %d, want 401 while the signing keys cannot be read", rec.Code)
	}
}
