package app_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/honehq/hone/internal/app"
	"github.com/honehq/hone/internal/config"
	"github.com/honehq/hone/internal/llm/llmtest"
	recording "github.com/honehq/hone/internal/proxy"
	"github.com/honehq/hone/internal/storage/storagetest"
)

// TestProxyAnswersWithTheDatabaseStopped stops the database while 64
// clients call the proxy: every call is answered as the upstream answered
// it, without waiting for the database; the turns that could not be
// recorded are counted in hone_proxy_turns_dropped_total; once the
// database is back, turns are recorded again.
func TestProxyAnswersWithTheDatabaseStopped(t *testing.T) {
	t.Run("sqlite locked by another process", func(t *testing.T) {
		dir := t.TempDir()
		var conn *sql.Conn
		proxyUnderOutage(t, config.Config{DataDir: dir, DBTimeout: 5 * time.Second}, func() {
			other, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "hone.db")+"?_pragma=busy_timeout(100)")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { other.Close() })
			if conn, err = other.Conn(context.Background()); err != nil {
				t.Fatal(err)
			}
			if _, err := conn.ExecContext(context.Background(), "BEGIN EXCLUSIVE"); err != nil {
				t.Fatal(err)
			}
		}, func() {
			if _, err := conn.ExecContext(context.Background(), "ROLLBACK"); err != nil {
				t.Fatal(err)
			}
			conn.Close()
		})
	})
	t.Run("postgres stopped", func(t *testing.T) {
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
		q.Set("connect_timeout", "5")
		u.RawQuery = q.Encode()
		proxyUnderOutage(t, config.Config{DatabaseURL: u.String(), DBTimeout: 5 * time.Second}, p.stop, p.start)
	})
}

// proxyUnderOutage runs 64 clients through the proxy of hone with cfg,
// calls stop while they run and start after, and checks every answer, the
// drops counted and that recording resumes.
func proxyUnderOutage(t *testing.T, cfg config.Config, stop, start func()) {
	fake := llmtest.New(t)
	t.Setenv("HONE_PROXY_QUEUE", "32")
	a := startProxy(t, fake.URL, cfg)
	endpoint := a.URL() + "/v1/chat/completions"
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: 30 * time.Second}

	var done, failed atomic.Int64
	var slowest atomic.Int64
	var firstErr sync.Once
	quit := make(chan struct{})
	var wg sync.WaitGroup
	for c := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-quit:
					return
				default:
				}
				text := fmt.Sprintf("client %d asks question %d", c, i)
				stream := i%2 == 1
				body, _ := json.Marshal(map[string]any{"model": "fake-model", "stream": stream,
					"messages": []map[string]string{{"role": "user", "content": text}}})
				began := time.Now()
				res, err := client.Post(endpoint, "application/json", strings.NewReader(string(body)))
				var b []byte
				if err == nil {
					b, err = io.ReadAll(res.Body)
					res.Body.Close()
				}
				took := time.Since(began)
				for d := slowest.Load(); int64(took) > d && !slowest.CompareAndSwap(d, int64(took)); d = slowest.Load() {
				}
				if err != nil || res.StatusCode != http.StatusOK || !strings.Contains(string(b), strings.Fields(text)[3]) {
					failed.Add(1)
					firstErr.Do(func() { t.Errorf("a call failed: %v %s", err, b) })
				}
				done.Add(1)
			}
		}()
	}
	waitFor := func(n int64) {
		deadline := time.Now().Add(60 * time.Second)
		for done.Load() < n && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if done.Load() < n {
			t.Fatalf("only %d calls were answered", done.Load())
		}
	}
	waitFor(200)
	stop()
	outage := done.Load()
	waitFor(outage + 1000)
	during, answered := slowest.Swap(0), done.Load()-outage
	start()
	waitFor(done.Load() + 200)
	close(quit)
	wg.Wait()
	if failed.Load() > 0 {
		t.Fatalf("%d of %d calls failed", failed.Load(), done.Load())
	}
	// A call waiting for the database would take the database's timeout (5s).
	if during >= int64(2500*time.Millisecond) {
		t.Errorf("a call took %s while the database was stopped", time.Duration(during))
	}

	deadline := time.Now().Add(30 * time.Second)
	var dropped float64
	for {
		res := call(t, "POST", endpoint, map[string]any{"model": "fake-model", "user": "after-outage",
			"messages": []map[string]string{{"role": "user", "content": "back?"}}})
		if res.status != http.StatusOK {
			t.Fatalf("after the outage: %d %s", res.status, res.raw)
		}
		id := res.header.Get(recording.HeaderTurnID)
		recorded := false
		for end := time.Now().Add(3 * time.Second); time.Now().Before(end) && !recorded; time.Sleep(50 * time.Millisecond) {
			recorded = turnRecorded(a, "after-outage", id)
		}
		series, _ := scrape(t, a.URL(), "")
		dropped = series[`hone_proxy_turns_dropped_total{reason="queue_full"}`] + series[`hone_proxy_turns_dropped_total{reason="store"}`]
		if recorded {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("recording did not resume after the database came back")
		}
	}
	if dropped == 0 {
		t.Fatal("no turn was counted as dropped during the outage")
	}
	t.Logf("%d calls answered, %d during the outage (the slowest in %s); %v turns dropped and counted; recording resumed",
		done.Load(), answered, time.Duration(during).Round(time.Millisecond), dropped)
}

// turnRecorded reports whether the turn id of the conversation is recorded.
func turnRecorded(a *app.App, conversation, id string) bool {
	ctx := context.Background()
	s, err := a.DB.Capture().CurrentSession(ctx, conversation)
	if err != nil {
		return false
	}
	turns, err := a.DB.Capture().RecentTurns(ctx, s.ID, 1000)
	if err != nil {
		return false
	}
	for _, turn := range turns {
		if turn.ID == id {
			return true
		}
	}
	return false
}
