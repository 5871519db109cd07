package app_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/honehq/hone/internal/config"
	"github.com/honehq/hone/internal/storage/storagetest"
)

// eachDatabaseConfig runs fn with a config on SQLite, and on PostgreSQL when
// HONE_TEST_DATABASE_URL is set.
func eachDatabaseConfig(t *testing.T, fn func(t *testing.T, cfg config.Config)) {
	t.Run("sqlite", func(t *testing.T) { fn(t, config.Config{}) })
	if dsn := os.Getenv(storagetest.PostgresURLEnv); dsn != "" {
		t.Run("postgres", func(t *testing.T) { fn(t, config.Config{DatabaseURL: storagetest.SchemaURL(t, dsn)}) })
	}
}

// raw sends a request with exactly the given headers (Host among them).
func raw(t *testing.T, method, url, body string, h map[string]string) (int, string) {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range h {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	res, err := (&http.Client{Timeout: 20 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// TestCrossSiteWritesRefused: with no API token, what another site's page
// can make a browser send changes nothing: a text/plain body (a "no-cors"
// fetch), a form, a request the browser marks cross-site or same-site or
// with a foreign Origin, and any request for a Host hone does not answer to
// (DNS rebinding). curl and SDKs, which send none of that, keep working.
func TestCrossSiteWritesRefused(t *testing.T) {
	eachDatabaseConfig(t, func(t *testing.T, cfg config.Config) {
		a := startWith(t, cfg)
		base := a.URL()
		port := base[strings.LastIndexByte(base, ':')+1:]
		learning := `{"pattern":"Always answer in French","prompt_adjustment":"Answer in French."}`
		turn := `{"conversation_id":"c1","tester_id":"meg","user_message":"hi","response":"hello"}`
		jsonType := map[string]string{"Content-Type": "application/json"}
		with := func(extra map[string]string) map[string]string {
			h := map[string]string{"Content-Type": "application/json"}
			for k, v := range extra {
				h[k] = v
			}
			return h
		}
		for _, c := range []struct {
			what   string
			path   string
			body   string
			header map[string]string
			status int
		}{
			{"a no-cors learning", "/api/v1/learnings", learning, map[string]string{"Content-Type": "text/plain;charset=UTF-8", "Origin": "null"}, 403},
			{"a text/plain learning", "/api/v1/learnings", learning, map[string]string{"Content-Type": "text/plain"}, 415},
			{"a learning without a Content-Type", "/api/v1/learnings", learning, map[string]string{}, 415},
			{"a form turn", "/api/v1/turns", "conversation_id=c1", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, 415},
			{"a text/plain turn", "/api/v1/turns", turn, map[string]string{"Content-Type": "text/plain"}, 415},
			{"a cross-site turn", "/api/v1/turns", turn, with(map[string]string{"Sec-Fetch-Site": "cross-site"}), 403},
			{"a same-site turn", "/api/v1/turns", turn, with(map[string]string{"Sec-Fetch-Site": "same-site"}), 403},
			{"a turn from a foreign origin", "/api/v1/turns", turn, with(map[string]string{"Origin": "http://evil.example"}), 403},
			{"a turn from another port", "/api/v1/turns", turn, with(map[string]string{"Origin": "http://127.0.0.1:1"}), 403},
			{"a rebound turn", "/api/v1/turns", turn, with(map[string]string{"Host": "evil.example:" + port}), 403},
			{"a rebound synthesis", "/api/v1/learnings/synthesize", "", map[string]string{"Host": "evil.example:" + port}, 403},
		} {
			status, body := raw(t, "POST", base+c.path, c.body, c.header)
			if status != c.status {
				t.Errorf("%s: %d %s, want %d", c.what, status, body, c.status)
			}
		}
		for _, path := range []string{"/api/v1/sessions", "/api/v1/prompt", "/", "/metrics", "/api/v1/openapi.json"} {
			if status, body := raw(t, "GET", base+path, "", map[string]string{"Host": "evil.example:" + port}); status != http.StatusForbidden ||
				!strings.Contains(body, "HONE_PUBLIC_URL") {
				t.Errorf("GET %s for a foreign host: %d %.200s, want 403 saying how to allow a host", path, status, body)
			}
		}
		_, sessions := raw(t, "GET", base+"/api/v1/sessions", "", nil)
		_, prompt := raw(t, "GET", base+"/api/v1/prompt", "", nil)
		_, learnings := raw(t, "GET", base+"/api/v1/learnings", "", nil)
		if strings.Contains(sessions, `"id"`) || strings.Contains(prompt, "French") || strings.Contains(learnings, "French") {
			t.Fatalf("a refused request changed something:\n%s\n%s\n%s", sessions, prompt, learnings)
		}

		// What API clients send keeps working: no Origin, no Sec-Fetch-*,
		// a JSON body; and the browser's own pages (same-origin, or a
		// navigation the user typed).
		for _, h := range []map[string]string{jsonType, with(map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": base}),
			with(map[string]string{"Sec-Fetch-Site": "none"}), with(map[string]string{"Host": "localhost:" + port}),
			with(map[string]string{"Host": "[::1]:" + port})} {
			if status, body := raw(t, "POST", base+"/api/v1/turns", turn, h); status != http.StatusCreated && status != http.StatusOK {
				t.Errorf("a turn with %v: %d %s", h, status, body)
			}
		}
		if status, body := raw(t, "POST", base+"/api/v1/learnings", learning, jsonType); status != http.StatusCreated {
			t.Errorf("a learning from an API client: %d %s", status, body)
		}
		var ls struct{ Learnings []json.RawMessage }
		_, body := raw(t, "GET", base+"/api/v1/learnings", "", nil)
		if err := json.Unmarshal([]byte(body), &ls); err != nil || len(ls.Learnings) != 1 {
			t.Errorf("learnings after one from an API client: %s", body)
		}
	})
}

// TestHostsHoneAnswers: without a token hone answers to the host of
// HONE_PUBLIC_URL and of the address it listens on; with a token it answers
// to any host, the token being what guards it.
func TestHostsHoneAnswers(t *testing.T) {
	a := startWith(t, config.Config{PublicURL: "https://hone.example.com"})
	u, _ := url.Parse(a.URL())
	for host, want := range map[string]int{"hone.example.com": 200, "hone.example.com:443": 200, "HONE.example.com": 200,
		u.Host: 200, "localhost:" + u.Port(): 200, "other.example.com": 403, "example.com": 403} {
		if status, body := raw(t, "GET", a.URL()+"/api/v1/sessions", "", map[string]string{"Host": host}); status != want {
			t.Errorf("Host %s: %d %.200s, want %d", host, status, body, want)
		}
	}
	b := startWith(t, config.Config{APIToken: "a-long-enough-token-0123456789"})
	if status, body := raw(t, "GET", b.URL()+"/api/v1/sessions", "", map[string]string{"Host": "other.example.com",
		"Authorization": "Bearer a-long-enough-token-0123456789"}); status != 200 {
		t.Errorf("with a token, Host other.example.com: %d %.200s", status, body)
	}
}
