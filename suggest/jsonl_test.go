package suggest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/honehq/hone/suggest"
)

// round runs one round on tr and returns its record.
func round(t testing.TB, tr *suggest.Tracker, input string) *suggest.Record {
	tr.Fetching(1)
	tr.Fetched(exampleContext(), exampleSuggestions, exampleRequest(), exampleResponse(), "v1.0")
	tr.Next()
	two := 2
	r := tr.Submit(input, &two)
	if r == nil {
		t.Fatal("Submit returned nil")
	}
	return r
}

func TestJSONLWritesEachSessionAndReadsBack(t *testing.T) {
	root := t.TempDir()
	sink, err := suggest.NewJSONL(suggest.JSONLOptions{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	var sent []*suggest.Record
	for _, s := range []struct{ server, session string }{{"local", "my-project"}, {"prod/eu", "../debug"}, {"local", "my-project"}} {
		tr := suggest.NewTracker(suggest.Options{Server: s.server, Session: s.session, Sink: sink})
		sent = append(sent, round(t, tr, "@bash cat logs.txt | tail"))
	}
	if err := sink.Close(); err != nil {
		t.Fatal(err)
	}
	if sink.Written() != 3 || sink.Dropped() != 0 {
		t.Fatalf("written %d dropped %d", sink.Written(), sink.Dropped())
	}
	for _, want := range []string{"local/my-project/suggestion_history.jsonl", "prod%2Feu/%2E.%2Fdebug/suggestion_history.jsonl"} {
		if _, err := os.Stat(filepath.Join(root, want)); err != nil {
			t.Errorf("no %s: %v", want, err)
		}
	}
	got := map[string]*suggest.Record{}
	warnings, err := suggest.Walk(root, func(file string, line int, r *suggest.Record) error {
		got[r.ID] = r
		return nil
	})
	if err != nil || len(warnings) != 0 || len(got) != 3 {
		t.Fatalf("walk: %d records, warnings %v, %v", len(got), warnings, err)
	}
	for _, r := range sent {
		back := got[r.ID]
		// JSON numbers come back as float64.
		if back == nil || back.MatchType != "partial" || *back.AcceptedIndex != 1 || back.ActualInput != r.ActualInput ||
			!reflect.DeepEqual(back.ViewedIndices, r.ViewedIndices) || back.LLMRequest["model"] != "gpt-4o-mini" ||
			back.Context["cwd"] != "/home/user/project" || back.TimeToActionMS != r.TimeToActionMS || back.Session != r.Session {
			t.Errorf("read back %+v, sent %+v", back, r)
		}
	}
	// Sending after Close drops and counts.
	sink.Send(sent[0])
	if sink.Dropped() != 1 {
		t.Errorf("a record sent after Close: dropped %d", sink.Dropped())
	}
}

func TestReadJSONLSkipsTornAndBadLines(t *testing.T) {
	tr := suggest.NewTracker(suggest.Options{Session: "s"})
	a, _ := jsonLine(round(t, tr, "@bash ls"))
	b, _ := jsonLine(round(t, tr, "@python debug.py"))
	text := a + "\n" + "{not json}\n" + "\n" + b + "\n" + b[:len(b)/2]
	var lines []int
	warnings, err := suggest.ReadJSONL(strings.NewReader(text), func(line int, r *suggest.Record) error {
		lines = append(lines, line)
		return nil
	})
	if err != nil || len(lines) != 2 || lines[0] != 1 || lines[1] != 4 {
		t.Fatalf("read lines %v, %v", lines, err)
	}
	if len(warnings) != 2 || warnings[0].Line != 2 || !strings.HasPrefix(warnings[0].Message, "not a suggestion record") ||
		warnings[1].Line != 5 || !strings.HasPrefix(warnings[1].Message, "torn last line") {
		t.Fatalf("warnings %v", warnings)
	}
}

func TestRedaction(t *testing.T) {
	root := t.TempDir()
	key := "sk-proj-abcdefghijklmnopqrstuvwx"
	sink, err := suggest.NewJSONL(suggest.JSONLOptions{Root: root, Redactor: suggest.NewRedactor(suggest.APIKeys...)})
	if err != nil {
		t.Fatal(err)
	}
	tr := suggest.NewTracker(suggest.Options{Session: "s", Sink: sink})
	ctx := exampleContext()
	ctx["blocks"] = append(ctx["blocks"].([]any), map[string]any{"input": "@bash env", "output": "OPENAI_API_KEY=" + key + "\nAWS=AKIAABCDEFGHIJKLMNOP\nmail meg@example.com"})
	req := exampleRequest()
	req["messages"] = append(req["messages"].([]any), map[string]any{"role": "user", "content": "Authorization: Bearer abcdefghijklmnopqrstuvwxyz123456"})
	tr.Fetched(ctx, []string{"@bash curl -H 'x-key: " + key + "'"}, req, exampleResponse(), "v1")
	r := tr.Submit("export password=hunter22", nil)
	if err := sink.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, suggest.PathPart(""), "s", suggest.HistoryFile))
	if err != nil {
		t.Fatal(err)
	}
	line := string(b)
	for _, secret := range []string{key, "AKIAABCDEFGHIJKLMNOP", "abcdefghijklmnopqrstuvwxyz123456", "hunter22"} {
		if strings.Contains(line, secret) {
			t.Errorf("the line holds %q:\n%s", secret, line)
		}
	}
	for _, mark := range []string{"[REDACTED:openai_key]", "[REDACTED:aws_key]", "[REDACTED:bearer]", "password=[REDACTED:secret_assignment]", "meg@example.com"} {
		if !strings.Contains(line, mark) {
			t.Errorf("the line lacks %q:\n%s", mark, line)
		}
	}
	// The caller's record is not changed.
	if r.ActualInput != "export password=hunter22" || !strings.Contains(r.Suggestions[0], key) {
		t.Errorf("redaction changed the caller's record: %+v", r)
	}
	emails := suggest.NewRedactor(append(suggest.APIKeys, suggest.Emails...)...)
	if got := emails.Text("write to meg@example.com"); got != "write to [REDACTED:email]" {
		t.Errorf("emails: %q", got)
	}
	if got := suggest.NewRedactor().Text("sk-proj-abcdefghijklmnopqrstuvwx"); got != "sk-proj-abcdefghijklmnopqrstuvwx" {
		t.Errorf("no redactions changed the text: %q", got)
	}
}

func TestEnabledFromEnv(t *testing.T) {
	for v, want := range map[string]bool{"": false, "0": false, "1": true, "true": true, " ON ": true, "no": false} {
		t.Setenv(suggest.EnvHistory, v)
		if suggest.EnabledFromEnv() != want {
			t.Errorf("%s=%q: %v", suggest.EnvHistory, v, !want)
		}
	}
}

// crashEnv tells the test binary to be the writer the crash test kills.
const crashEnv = "SUGGEST_CRASH_ROOT"

func TestMain(m *testing.M) {
	if root := os.Getenv(crashEnv); root != "" {
		sink, err := suggest.NewJSONL(suggest.JSONLOptions{Root: root, Queue: 1 << 16})
		if err != nil {
			os.Exit(2)
		}
		tr := suggest.NewTracker(suggest.Options{Server: "local", Session: "crash", Sink: sink})
		for i := 0; ; i++ {
			tr.Fetched(exampleContext(), exampleSuggestions, exampleRequest(), exampleResponse(), "v1.0")
			tr.Submit(strings.Repeat("x", i%300), nil)
			if i%64 == 0 {
				time.Sleep(time.Millisecond)
			}
		}
	}
	os.Exit(m.Run())
}

// A writer killed mid-stream leaves every line but the last intact.
func TestCrashLeavesAtMostATornLastLine(t *testing.T) {
	root := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashEnv+"="+root)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(root, "local", "crash", suggest.HistoryFile)
	deadline := time.Now().Add(30 * time.Second)
	for {
		if info, err := os.Stat(file); err == nil && info.Size() > 1<<20 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the writer wrote under 1 MiB in 30 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	n := 0
	warnings, err := suggest.Walk(root, func(_ string, line int, r *suggest.Record) error {
		n++
		if line != n || len(r.Suggestions) != 3 {
			t.Fatalf("line %d: %+v", line, r)
		}
		return nil
	})
	if err != nil || n < 100 {
		t.Fatalf("read %d records: %v", n, err)
	}
	if len(warnings) > 1 || len(warnings) == 1 && (warnings[0].Line != n+1 || !strings.Contains(warnings[0].Message, "torn last line")) {
		t.Fatalf("after %d good lines: %v", n, warnings)
	}
	t.Logf("%d whole lines, %d torn", n, len(warnings))
}

// The sinks redact API keys unless told not to; the history is opt-in.
func TestDefaultsRedactAndOptIn(t *testing.T) {
	key := "sk-proj-abcdefghijklmnopqrstuvwx"
	for _, c := range []struct {
		name     string
		redactor *suggest.Redactor
		kept     bool
	}{{"default", nil, false}, {"no redactions", suggest.NewRedactor(), true}} {
		root := t.TempDir()
		sink, err := suggest.NewJSONL(suggest.JSONLOptions{Root: root, Redactor: c.redactor})
		if err != nil {
			t.Fatal(err)
		}
		tr := suggest.NewTracker(suggest.Options{Session: "s", Sink: sink})
		tr.Fetched(nil, []string{"x"}, nil, nil, "")
		tr.Submit("export KEY="+key+" mail meg@example.com", nil)
		if err := sink.Close(); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(filepath.Join(root, suggest.PathPart(""), "s", suggest.HistoryFile))
		if strings.Contains(string(b), key) != c.kept || !strings.Contains(string(b), "meg@example.com") {
			t.Errorf("%s: %s", c.name, b)
		}
	}
	t.Setenv(suggest.EnvHistory, "")
	if s, err := suggest.HistorySink(suggest.JSONLOptions{Root: t.TempDir()}); s != nil || err != nil {
		t.Errorf("the history without %s: %v %v", suggest.EnvHistory, s, err)
	}
	t.Setenv(suggest.EnvHistory, "1")
	s, err := suggest.HistorySink(suggest.JSONLOptions{Root: t.TempDir()})
	if _, ok := s.(*suggest.JSONL); !ok || err != nil {
		t.Fatalf("the history with %s=1: %v %v", suggest.EnvHistory, s, err)
	}
	s.Close()
}

// A line longer than MaxLine is skipped whole with a warning at its own
// number; the lines after it are read, with their numbers.
func TestReadJSONLSkipsAnOversizedLine(t *testing.T) {
	tr := suggest.NewTracker(suggest.Options{Session: "s"})
	a, _ := jsonLine(round(t, tr, "@bash ls"))
	b, _ := jsonLine(round(t, tr, "@python debug.py"))
	text := a + "\n" + strings.Repeat(" ", suggest.MaxLine) + b + "\n" + b + "\n"
	var lines []int
	warnings, err := suggest.ReadJSONL(strings.NewReader(text), func(line int, r *suggest.Record) error {
		lines = append(lines, line)
		return nil
	})
	if err != nil || len(lines) != 2 || lines[0] != 1 || lines[1] != 3 || len(warnings) != 1 || warnings[0].Line != 2 {
		t.Fatalf("lines %v, warnings %v, %v", lines, warnings, err)
	}
}
