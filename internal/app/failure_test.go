package app_test

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/honehq/hone/internal/app"
	"github.com/honehq/hone/internal/chat"
	"github.com/honehq/hone/internal/config"
	"github.com/honehq/hone/internal/storage/storagetest"
	"github.com/honehq/hone/internal/tuning"
)

// startWith opens and serves hone with cfg on a free loopback port.
func startWith(t *testing.T, cfg config.Config) *app.App {
	t.Helper()
	cfg.Addr = "127.0.0.1:0"
	if cfg.DataDir == "" {
		cfg.DataDir = t.TempDir()
	}
	cfg.MaxBodyBytes, cfg.MessageLimit = 1<<20, tuning.DefaultMessageLimit
	a, err := app.Open(context.Background(), cfg, slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelError})))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Listen(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

// answer is an HTTP answer with its body decoded.
type answer struct {
	status int
	header http.Header
	body   map[string]any
	raw    string
}

func call(t *testing.T, method, url string, body any) answer {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = strings.NewReader(string(b))
	}
	req, _ := http.NewRequest(method, url, r)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	client := &http.Client{Timeout: 20 * time.Second}
	res, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	a := answer{status: res.StatusCode, header: res.Header, raw: string(b)}
	_ = json.Unmarshal(b, &a.body)
	return a
}

func turnBody(conversation, message string) map[string]any {
	return map[string]any{"conversation_id": conversation, "tester_id": "meg", "user_message": message,
		"response": "Per our policy, call first."}
}

// wantUnavailable requires a 503 with Retry-After and the code unavailable.
func wantUnavailable(t *testing.T, what string, got answer) {
	t.Helper()
	e, _ := got.body["error"].(map[string]any)
	if got.status != http.StatusServiceUnavailable || got.header.Get("Retry-After") == "" || e["code"] != "unavailable" {
		t.Fatalf("%s: %d Retry-After %q %s; want 503 unavailable with Retry-After", what, got.status, got.header.Get("Retry-After"), got.raw)
	}
}

func TestFullDiskAnswers503AndLosesNothing(t *testing.T) {
	a := startWith(t, config.Config{})
	api := a.URL() + "/api/v1"
	if got := call(t, "POST", api+"/turns", turnBody("c1", "first")); got.status != http.StatusCreated {
		t.Fatalf("first turn: %d %s", got.status, got.raw)
	}
	if got := call(t, "POST", api+"/messages", map[string]string{"conversation_id": "c1", "tester_id": "meg", "text": "!improve saved before"}); got.body["ack"] != true {
		t.Fatalf("first note: %s", got.raw)
	}
	// The database may not grow past the pages it has: SQLite answers SQLITE_FULL.
	if err := a.DB.Exec(context.Background(), "PRAGMA max_page_count = 1"); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("a long answer that needs new pages ", 3000)
	got := call(t, "POST", api+"/turns", turnBody("c1", big))
	wantUnavailable(t, "POST /turns on a full disk", got)
	if msg := got.body["error"].(map[string]any)["message"]; !strings.Contains(msg.(string), "full") {
		t.Errorf("the message does not say the database is full: %v", msg)
	}
	got = call(t, "POST", api+"/messages", map[string]string{"conversation_id": "c1", "tester_id": "meg", "text": "!improve " + big})
	wantUnavailable(t, "!improve on a full disk", got)
	if msg := got.body["error"].(map[string]any)["message"]; msg != chat.FailedSaveText {
		t.Errorf("!improve on a full disk says %q, want the spec's %q", msg, chat.FailedSaveText)
	}
	if err := a.DB.Exec(context.Background(), "PRAGMA max_page_count = 1073741823"); err != nil {
		t.Fatal(err)
	}
	if got := call(t, "POST", api+"/turns", turnBody("c1", big)); got.status != http.StatusCreated || got.body["turn_number"] != 2.0 {
		t.Fatalf("after space was freed: %d %s", got.status, got.raw)
	}
	got = call(t, "POST", api+"/messages", map[string]string{"conversation_id": "c1", "tester_id": "meg", "text": "!session"})
	if !strings.Contains(got.body["reply"].(string), "Turns: 2\nImprovements: 1\n") {
		t.Fatalf("what was acknowledged is not all there: %s", got.body["reply"])
	}
}

func TestLockedDatabaseTimesOutWith503(t *testing.T) {
	dir := t.TempDir()
	a := startWith(t, config.Config{DataDir: dir, DBTimeout: 300 * time.Millisecond})
	api := a.URL() + "/api/v1"
	if got := call(t, "POST", api+"/turns", turnBody("c1", "first")); got.status != http.StatusCreated {
		t.Fatalf("first turn: %d %s", got.status, got.raw)
	}
	other, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "hone.db")+"?_pragma=busy_timeout(100)")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	begin := time.Now()
	wantUnavailable(t, "POST /turns while another process holds the write lock", call(t, "POST", api+"/turns", turnBody("c1", "second")))
	if d := time.Since(begin); d > 5*time.Second {
		t.Errorf("the answer took %s", d)
	}
	health := call(t, "GET", a.URL()+"/healthz", nil)
	if health.status != http.StatusServiceUnavailable || health.header.Get("Retry-After") == "" {
		t.Errorf("/healthz while writes fail: %d %q", health.status, health.raw)
	}
	if _, err := conn.ExecContext(context.Background(), "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	recovers(t, api, "after the lock was released")
	if health := call(t, "GET", a.URL()+"/healthz", nil); health.status != http.StatusOK {
		t.Errorf("/healthz after the lock: %d", health.status)
	}
}

// recovers posts a turn to conversation c1 until it is recorded, within 20
// s, and requires it to be turn 2: the turn refused meanwhile must not have
// been recorded.
func recovers(t *testing.T, api, when string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		got := call(t, "POST", api+"/turns", turnBody("c1", "third"))
		if got.status == http.StatusCreated {
			if got.body["turn_number"] != 2.0 {
				t.Errorf("%s: turn %v, want 2 (the refused turn must not be recorded)", when, got.body["turn_number"])
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("writes did not come back %s: %d %s", when, got.status, got.raw)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// proxy forwards TCP connections to a server and can be stopped, cutting
// every connection as a crashed database would, and started again.
type proxy struct {
	t      *testing.T
	target string
	addr   string
	mu     sync.Mutex
	ln     net.Listener
	conns  []net.Conn
}

func newProxy(t *testing.T, target string) *proxy {
	p := &proxy{t: t, target: target, addr: "127.0.0.1:0"}
	p.start()
	t.Cleanup(p.stop)
	return p
}

func (p *proxy) start() {
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		p.t.Fatal(err)
	}
	p.mu.Lock()
	p.ln, p.addr = ln, ln.Addr().String()
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", p.target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, s)
			p.mu.Unlock()
			go func() { io.Copy(s, c); s.Close() }()
			go func() { io.Copy(c, s); c.Close() }()
		}
	}()
}

func (p *proxy) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

func TestStoppedPostgresAnswers503(t *testing.T) {
	dsn := os.Getenv(storagetest.PostgresURLEnv)
	if dsn == "" {
		t.Skip(storagetest.PostgresURLEnv + " is not set")
	}
	u, err := url.Parse(storagetest.SchemaURL(t, dsn))
	if err != nil {
		t.Fatal(err)
	}
	p := newProxy(t, u.Host)
	u.Host = p.addr
	q := u.Query()
	q.Set("connect_timeout", "2")
	u.RawQuery = q.Encode()
	a := startWith(t, config.Config{DatabaseURL: u.String(), DBTimeout: 3 * time.Second})
	api := a.URL() + "/api/v1"
	if got := call(t, "POST", api+"/turns", turnBody("c1", "first")); got.status != http.StatusCreated {
		t.Fatalf("first turn: %d %s", got.status, got.raw)
	}
	p.stop()
	wantUnavailable(t, "POST /turns", call(t, "POST", api+"/turns", turnBody("c1", "second")))
	wantUnavailable(t, "GET /sessions", call(t, "GET", api+"/sessions", nil))
	got := call(t, "POST", api+"/messages", map[string]string{"conversation_id": "c1", "tester_id": "meg", "text": "!improve lost?"})
	wantUnavailable(t, "!improve", got)
	if msg := got.body["error"].(map[string]any)["message"]; msg != chat.FailedSaveText {
		t.Errorf("!improve on a stopped database says %q, want %q", msg, chat.FailedSaveText)
	}
	if health := call(t, "GET", a.URL()+"/healthz", nil); health.status != http.StatusServiceUnavailable {
		t.Errorf("/healthz on a stopped database: %d %s", health.status, health.raw)
	}
	p.start()
	recovers(t, api, "after the database came back")
}

func TestSlowBodyIsCutOff(t *testing.T) {
	a := startWith(t, config.Config{ReadTimeout: 500 * time.Millisecond})
	addr := strings.TrimPrefix(a.URL(), "http://")
	for _, path := range []string{"/api/v1/turns", "/api/v1/turns/batch", "/chat/messages"} {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		begin := time.Now()
		if _, err := io.WriteString(conn, "POST "+path+" HTTP/1.1\r\nHost: "+addr+"\r\nContent-Type: application/json\r\n"+
			"Content-Length: 100000\r\n\r\n{\"conversation_id\": \"c"); err != nil {
			t.Fatal(err)
		}
		conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		took := time.Since(begin)
		if err == nil {
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode != http.StatusRequestTimeout && res.StatusCode != http.StatusForbidden {
				t.Errorf("%s: a body that never arrives got %d", path, res.StatusCode)
			}
		} else if errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("%s: the server still waits for the body after %s", path, took)
		}
		if took > 5*time.Second {
			t.Errorf("%s: cut off after %s, the limit is 500ms", path, took)
		}
		conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := conn.Read(make([]byte, 1)); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("%s: the connection stays open after the timeout (%v)", path, err)
		}
		conn.Close()
	}
	if got := call(t, "POST", a.URL()+"/api/v1/turns", turnBody("c1", "fast")); got.status != http.StatusCreated {
		t.Fatalf("a normal request after the slow ones: %d %s", got.status, got.raw)
	}
}
