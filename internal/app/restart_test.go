package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/honehq/hone/internal/app"
	"github.com/honehq/hone/internal/config"
	"github.com/honehq/hone/internal/storage/storagetest"
)

// Variables that make the test binary a hone server for restart tests.
const (
	childDirEnv = "HONE_TEST_CHILD_DATA_DIR"
	childDBEnv  = "HONE_TEST_CHILD_DATABASE_URL"
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(childDirEnv); dir != "" {
		serveChild(dir, os.Getenv(childDBEnv))
		return
	}
	if dir := os.Getenv(childUpstreamEnv); dir != "" {
		serveUpstreamChild(dir)
		return
	}
	os.Exit(m.Run())
}

// serveChild runs hone on a free port and writes its URL to dir/url, until killed.
func serveChild(dir, databaseURL string) {
	a, err := app.Open(context.Background(), config.Config{Addr: "127.0.0.1:0", DataDir: dir, DatabaseURL: databaseURL,
		MaxBodyBytes: 1 << 20, MessageLimit: 25600}, slog.New(slog.DiscardHandler))
	if err == nil {
		err = a.Listen()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	publishURL(filepath.Join(dir, "url"), a.URL())
	select {}
}

// publishURL writes a child's URL to file whole, for spawn to find.
func publishURL(file, url string) {
	_ = os.WriteFile(file+".tmp", []byte(url), 0o644)
	_ = os.Rename(file+".tmp", file)
}

// spawn runs the test binary in a process of its own with env added,
// stopped when the test ends, and waits until it has written its URL to
// file.
func spawn(tb testing.TB, file string, env ...string) (*exec.Cmd, string) {
	tb.Helper()
	os.Remove(file)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if url, err := os.ReadFile(file); err == nil {
			return cmd, string(url)
		}
	}
	tb.Fatal("the child process did not start")
	return nil, ""
}

// child is a hone server in a process of its own.
type child struct {
	cmd *exec.Cmd
	url string
}

func startChild(t *testing.T, dir, databaseURL string) *child {
	t.Helper()
	cmd, url := spawn(t, filepath.Join(dir, "url"), childDirEnv+"="+dir, childDBEnv+"="+databaseURL)
	return &child{cmd: cmd, url: url + "/api/v1"}
}

// kill stops the child at once, as kill -9 does.
func (c *child) kill(t *testing.T) {
	t.Helper()
	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	c.cmd.Wait()
}

func (c *child) call(t *testing.T, method, path, token string, body any) map[string]any {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = strings.NewReader(string(b))
	}
	req, _ := http.NewRequest(method, c.url+path, r)
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 300 {
		t.Fatalf("%s %s: %d %s", method, path, res.StatusCode, b)
	}
	var out map[string]any
	json.Unmarshal(b, &out)
	return out
}

// TestKilledServerLosesNoAnswer kills a hone server (SIGKILL) in the middle
// of a participant's follow-up questions and starts another on the same
// database: every answer saved before is there, and the participant goes on
// at question 3.
func TestKilledServerLosesNoAnswer(t *testing.T) {
	dbs := map[string]string{"sqlite": ""}
	if dsn := os.Getenv(storagetest.PostgresURLEnv); dsn != "" {
		dbs["postgres"] = storagetest.SchemaURL(t, dsn)
	}
	for name, databaseURL := range dbs {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			c := startChild(t, dir, databaseURL)
			ws := c.call(t, "POST", "/workshops", "", map[string]any{"name": "Restart", "facilitator": map[string]string{"name": "Fay"}})
			id := ws["id"].(string)
			alice := c.call(t, "POST", "/workshops/"+id+"/members", "", map[string]string{"name": "Alice"})
			token := alice["token"].(string)
			c.call(t, "POST", "/workshops/"+id+"/traces", "", []map[string]string{{"id": "t1", "input": "q", "output": "a"}})
			c.call(t, "POST", "/workshops/"+id+"/begin-discovery?trace_limit=1", "", nil)
			c.call(t, "POST", "/workshops/"+id+"/discovery-feedback", token, map[string]string{"trace_id": "t1", "feedback_label": "bad", "comment": "too vague"})
			for n := 1; n <= 2; n++ {
				q := c.call(t, "POST", "/workshops/"+id+"/generate-followup-question", token, map[string]any{"trace_id": "t1", "question_number": n})
				c.call(t, "POST", "/workshops/"+id+"/submit-followup-answer", token, map[string]any{"trace_id": "t1",
					"question": q["question"], "answer": fmt.Sprint("answer ", n)})
			}
			c.kill(t)

			c = startChild(t, dir, databaseURL)
			traces := c.call(t, "GET", "/workshops/"+id+"/traces", token, nil)["traces"].([]any)
			tr := traces[0].(map[string]any)
			if tr["state"] != "question" || tr["question_number"] != 3.0 {
				t.Fatalf("after the restart the participant is at %v %v, want question 3", tr["state"], tr["question_number"])
			}
			fb := c.call(t, "GET", "/workshops/"+id+"/discovery-feedback", token, nil)["feedback"].([]any)[0].(map[string]any)
			qna := fb["followup_qna"].([]any)
			if len(qna) != 2 || qna[0].(map[string]any)["answer"] != "answer 1" || qna[1].(map[string]any)["answer"] != "answer 2" ||
				fb["comment"] != "too vague" {
				t.Fatalf("after the restart: %v", fb)
			}
			q3 := c.call(t, "POST", "/workshops/"+id+"/generate-followup-question", token, map[string]any{"trace_id": "t1", "question_number": 3})
			done := c.call(t, "POST", "/workshops/"+id+"/submit-followup-answer", token, map[string]any{"trace_id": "t1",
				"question": q3["question"], "answer": "answer 3"})
			if len(done["followup_qna"].([]any)) != 3 {
				t.Fatalf("after the third answer: %v", done)
			}
		})
	}
}
