package teams

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/honehq/hone/internal/bots"
)

// fakeBot is a bots.Bot that records what it is handed and answers each
// message with a turn.
type fakeBot struct {
	mu       sync.Mutex
	messages []bots.Incoming
	ratings  []bots.Rating
	presses  []bots.AlertPress
	// reply, when set, is the answer to a message; else "echo: <text>"
	// with turn "turn-<n>".
	reply   func(in bots.Incoming) bots.Outgoing
	rateOut bots.Outgoing
	fail    bool
	seen    chan struct{}
}

func newFakeBot() *fakeBot { return &fakeBot{seen: make(chan struct{}, 100)} }

func (b *fakeBot) Message(_ context.Context, in bots.Incoming) (bots.Outgoing, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	defer func() { b.seen <- struct{}{} }()
	b.messages = append(b.messages, in)
	if b.fail {
		return bots.Outgoing{}, fmt.Errorf("the model is down")
	}
	if b.reply != nil {
		return b.reply(in), nil
	}
	return bots.Outgoing{Text: "echo: " + in.Text, TurnID: fmt.Sprintf("turn-%d", len(b.messages))}, nil
}

func (b *fakeBot) Rate(_ context.Context, r bots.Rating) (bots.Outgoing, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	defer func() { b.seen <- struct{}{} }()
	if b.fail {
		return bots.Outgoing{}, fmt.Errorf("the database is down")
	}
	b.ratings = append(b.ratings, r)
	return b.rateOut, nil
}

func (b *fakeBot) React(_ context.Context, p bots.AlertPress) (bots.Outgoing, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	defer func() { b.seen <- struct{}{} }()
	if b.fail {
		return bots.Outgoing{}, fmt.Errorf("the database is down")
	}
	b.presses = append(b.presses, p)
	return bots.Outgoing{Text: "Alert " + p.AlertID + ": " + p.Reaction}, nil
}

func (b *fakeBot) snapshot() ([]bots.Incoming, []bots.Rating, []bots.AlertPress) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]bots.Incoming(nil), b.messages...), append([]bots.Rating(nil), b.ratings...), append([]bots.AlertPress(nil), b.presses...)
}

// posted is one activity the fake Bot Connector received.
type posted struct {
	ID       string
	Path     string
	Auth     string
	Activity map[string]any
}

// fakeConnector is a Bot Connector: it records the activities posted to
// it and gives them ids; fail answers the next requests with a status.
type fakeConnector struct {
	*httptest.Server
	mu    sync.Mutex
	posts []posted
	fail  []int
	retry string
	got   chan posted
	n     int
	// typing counts the typing indicators, which got does not carry.
	typing int
}

func newFakeConnector(t *testing.T) *fakeConnector {
	c := &fakeConnector{got: make(chan posted, 100)}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var a map[string]any
		_ = json.NewDecoder(r.Body).Decode(&a)
		c.mu.Lock()
		if a["type"] == "typing" {
			c.typing++
			c.mu.Unlock()
			w.WriteHeader(http.StatusOK)
			return
		}
		if len(c.fail) > 0 {
			status := c.fail[0]
			c.fail = c.fail[1:]
			c.mu.Unlock()
			if c.retry != "" {
				w.Header().Set("Retry-After", c.retry)
			}
			w.WriteHeader(status)
			return
		}
		c.n++
		id := fmt.Sprintf("bot-act-%d", c.n)
		p := posted{ID: id, Path: r.URL.Path, Auth: r.Header.Get("Authorization"), Activity: a}
		c.posts = append(c.posts, p)
		c.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":%q}`, id)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		c.got <- p
	}))
	t.Cleanup(c.Close)
	return c
}

// next waits for the next posted activity.
func (c *fakeConnector) next(t *testing.T) posted {
	t.Helper()
	select {
	case p := <-c.got:
		return p
	case <-time.After(10 * time.Second):
		t.Fatal("no activity reached the Bot Connector")
		return posted{}
	}
}

func (c *fakeConnector) none(t *testing.T) {
	t.Helper()
	select {
	case p := <-c.got:
		t.Fatalf("unexpected activity posted: %+v", p)
	case <-time.After(100 * time.Millisecond):
	}
}

// botFramework is a fake of the Bot Framework's token issuing side: its
// OpenID metadata, its JWKS and a key to sign tokens with.
type botFramework struct {
	*httptest.Server
	key   *rsa.PrivateKey
	kid   string
	other *rsa.PrivateKey
}

func newBotFramework(t *testing.T) *botFramework {
	t.Helper()
	bf := &botFramework{key: mustKey(t), other: mustKey(t), kid: "bf-key-1"}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/.well-known/openidconfiguration", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"issuer":%q,"jwks_uri":%q,"id_token_signing_alg_values_supported":["RS256"]}`, Issuer, bf.URL+"/v1/.well-known/keys")
	})
	mux.HandleFunc("GET /v1/.well-known/keys", func(w http.ResponseWriter, r *http.Request) {
		b64 := base64.RawURLEncoding.EncodeToString
		pub := bf.key.PublicKey
		fmt.Fprintf(w, `{"keys":[{"kty":"RSA","use":"sig","kid":%q,"n":%q,"e":%q,"endorsements":["msteams"]}]}`,
			bf.kid, b64(pub.N.Bytes()), b64(big.NewInt(int64(pub.E)).Bytes()))
	})
	bf.Server = httptest.NewServer(mux)
	t.Cleanup(bf.Close)
	return bf
}

func mustKey(t *testing.T) *rsa.PrivateKey {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// token signs a Bot Framework token; edit changes its claims first.
func (bf *botFramework) token(t *testing.T, appID, serviceURL string, edit func(c jwt.MapClaims)) string {
	t.Helper()
	now := time.Now()
	claims := jwt.MapClaims{
		"iss": Issuer, "aud": appID, "serviceurl": serviceURL,
		"nbf": now.Add(-time.Minute).Unix(), "exp": now.Add(time.Hour).Unix(), "iat": now.Unix(),
	}
	key := bf.key
	if edit != nil {
		edit(claims)
		if claims["sign_with_other"] == true {
			delete(claims, "sign_with_other")
			key = bf.other
		}
	}
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, claims)
	tok.Header["kid"] = bf.kid
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

const testAppID = "11111111-2222-3333-4444-555555555555"

// messageActivity is a tester's message in a personal chat, as Teams
// sends it.
func messageActivity(serviceURL, text string) map[string]any {
	return map[string]any{
		"type": "message", "id": "user-act-1", "channelId": "msteams", "serviceUrl": serviceURL,
		"from":         map[string]any{"id": "29:user-1", "name": "Alex Wilber", "aadObjectId": "aad-user-1"},
		"recipient":    map[string]any{"id": "28:" + testAppID, "name": "hone"},
		"conversation": map[string]any{"id": "a:conv-1", "conversationType": "personal", "tenantId": "tenant-1"},
		"text":         text,
		"channelData":  map[string]any{"tenant": map[string]any{"id": "tenant-1"}},
	}
}

// feedbackInvoke is a press of Teams' feedback buttons under the
// activity replyTo, in the shape Teams sends.
func feedbackInvoke(serviceURL, replyTo, reaction, text string) map[string]any {
	a := messageActivity(serviceURL, "")
	delete(a, "text")
	a["type"] = "invoke"
	a["id"] = "user-invoke-1"
	a["name"] = "message/submitAction"
	a["replyToId"] = replyTo
	form, _ := json.Marshal(map[string]string{"feedbackText": text})
	a["value"] = map[string]any{"actionName": "feedback", "actionValue": map[string]any{"reaction": reaction, "feedback": string(form)}}
	return a
}

// newTestAdapter is an adapter in NoAuth mode handing to bot.
func newTestAdapter(t *testing.T, bot bots.Bot) *Adapter {
	t.Helper()
	a, err := newAdapter(Config{NoAuth: true, Loopback: true}, bot, slog.New(slog.DiscardHandler), &http.Client{Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	a.conn.retryInitial = time.Millisecond
	t.Cleanup(func() { _ = a.Close(context.Background()) })
	return a
}

// send posts v (an activity, or raw bytes) to the handler with the token.
func send(t *testing.T, h http.Handler, v any, token string) *httptest.ResponseRecorder {
	t.Helper()
	var body []byte
	switch v := v.(type) {
	case []byte:
		body = v
	case string:
		body = []byte(v)
	default:
		var err error
		if body, err = json.Marshal(v); err != nil {
			t.Fatal(err)
		}
	}
	req := httptest.NewRequest(http.MethodPost, "/api/messages", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func readAll(t *testing.T, r io.Reader) string {
	t.Helper()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func httptestGet(t *testing.T, h http.Handler) int {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/messages", nil))
	return rec.Code
}

// answered waits for the next posted activity and, when it carries a
// turn, until the adapter remembers it.
func answered(t *testing.T, a *Adapter, c *fakeConnector) posted {
	t.Helper()
	p := c.next(t)
	if _, ok := p.Activity["channelData"]; !ok {
		return p
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if _, ok := a.turns.get(p.ID); ok {
			return p
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("the turn of answer %s was not remembered", p.ID)
	return p
}
