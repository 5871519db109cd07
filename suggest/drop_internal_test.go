package suggest

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// A full queue drops and counts, and Close says how many were dropped.
func TestJSONLDropsWhenTheQueueIsFull(t *testing.T) {
	root := t.TempDir()
	// The writer is not started yet: the queue of two fills up.
	dir, err := os.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	j := &JSONL{opts: JSONLOptions{Root: root, Queue: 2}, queue: make(chan *Record, 2), done: make(chan struct{}), files: map[string]*os.File{}, root: dir}
	for i := range 5 {
		j.Send(&Record{ID: string(rune('a' + i)), Session: "s", Server: "x"})
	}
	if j.Dropped() != 3 {
		t.Fatalf("dropped %d, want 3", j.Dropped())
	}
	go j.run()
	err = j.Close()
	if err == nil || !strings.Contains(err.Error(), "3 records dropped") {
		t.Fatalf("Close: %v", err)
	}
	if j.Written() != 2 {
		t.Errorf("written %d, want 2", j.Written())
	}
	b, _ := os.ReadFile(root + "/x/s/" + HistoryFile)
	if strings.Count(string(b), "\n") != 2 || !strings.Contains(string(b), `"id":"a"`) || !strings.Contains(string(b), `"id":"b"`) {
		t.Errorf("the file holds %q", b)
	}
}

// A write error is counted, reported, and stops nothing else.
func TestJSONLWriteErrors(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(root+"/blocked", nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var errs []error
	j, err := NewJSONL(JSONLOptions{Root: root, OnError: func(err error) { errs = append(errs, err) }})
	if err != nil {
		t.Fatal(err)
	}
	j.Send(&Record{ID: "a", Server: "blocked", Session: "s"})
	j.Send(&Record{ID: "b", Server: "ok", Session: "s"})
	err = j.Close()
	if err == nil || !strings.Contains(err.Error(), "1 lost to write errors") || len(errs) != 1 || j.Written() != 1 || j.Failed() != 1 {
		t.Fatalf("Close %v, errors %v, written %d failed %d", err, errs, j.Written(), j.Failed())
	}
}

// A record written after a torn last line starts a line of its own.
func TestJSONLEndsATornLine(t *testing.T) {
	root := t.TempDir()
	path := root + "/x/s/" + HistoryFile
	if err := os.MkdirAll(root+"/x/s", 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(`{"id":"a","ts":1,"suggestions":[]}`+"\n"+`{"id":"b","ts`), 0o600); err != nil {
		t.Fatal(err)
	}
	j, err := NewJSONL(JSONLOptions{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	j.Send(&Record{ID: "c", Server: "x", Session: "s"})
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	var ids []string
	f, _ := os.Open(path)
	defer f.Close()
	warnings, err := ReadJSONL(f, func(_ int, r *Record) error {
		ids = append(ids, r.ID)
		return nil
	})
	if err != nil || len(ids) != 2 || ids[0] != "a" || ids[1] != "c" || len(warnings) != 1 || warnings[0].Line != 2 {
		t.Fatalf("ids %v warnings %v %v", ids, warnings, err)
	}
}

// Values of other types are redacted in their JSON form.
func TestRedactOtherTypes(t *testing.T) {
	r := NewRedactor(APIKeys...)
	key := "sk-proj-abcdefghijklmnopqrstuvwx"
	rec := r.Record(&Record{Context: map[string]any{"env": map[string]string{"KEY": key},
		"messages": []map[string]string{{"content": "use " + key}}, "n": 3}})
	b, _ := json.Marshal(rec)
	if strings.Contains(string(b), key) || !strings.Contains(string(b), `"n":3`) {
		t.Fatalf("redacted %s", b)
	}
}
