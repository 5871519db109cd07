package browsertest

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestFindHonoursChromeEnv(t *testing.T) {
	t.Setenv(ChromeEnv, filepath.Join(t.TempDir(), "no-such-chrome"))
	if _, err := Find(); err == nil {
		t.Fatal("Find accepted a browser path that does not exist")
	}
	fake := filepath.Join(t.TempDir(), "chrome")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(ChromeEnv, fake)
	if got, err := Find(); err != nil || got != fake {
		t.Fatalf("Find() = %q, %v; want %q", got, err, fake)
	}
}

func TestFindWithoutBrowser(t *testing.T) {
	t.Setenv(ChromeEnv, "")
	t.Setenv("PATH", t.TempDir())
	saved := candidates
	candidates = []string{filepath.Join(t.TempDir(), "chromium"), "chromium"}
	t.Cleanup(func() { candidates = saved })
	if _, err := Find(); !errors.Is(err, ErrNoBrowser) {
		t.Fatalf("Find() error = %v, want ErrNoBrowser", err)
	}
}

func TestBrowser(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Start</title>
<ul><li class="item">one</li><li class="item"> two </li></ul>
<a id="next" href="/next" data-x="42">Next</a>
<script>console.log("hello from the page")</script>`)
	})
	mux.HandleFunc("GET /next", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTeapot)
		fmt.Fprint(w, `<!doctype html><title>Next</title><h1>Arrived</h1>`)
	})
	mux.HandleFunc("GET /data.csv", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/csv")
		fmt.Fprint(w, "a,b\n1,2\n")
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	var dataDir string
	t.Run("tab", func(t *testing.T) {
		b := New(t)
		dataDir = b.dataDir
		b.OnNewDocument(`window.__hooked = "yes"`)
		if got := b.NavigateStatus(srv.URL + "/"); got != http.StatusOK {
			t.Errorf("status = %d, want 200", got)
		}
		if got := b.Title(); got != "Start" {
			t.Errorf("Title() = %q, want Start", got)
		}
		if got, want := b.Texts("li.item"), []string{"one", "two"}; !slices.Equal(got, want) {
			t.Errorf("Texts = %q, want %q", got, want)
		}
		if got := Eval[string](b, `window.__hooked`); got != "yes" {
			t.Errorf("OnNewDocument script did not run: window.__hooked = %q", got)
		}
		if got := b.Texts("table"); len(got) != 0 {
			t.Errorf("Texts of nothing = %q, want empty", got)
		}
		if got := b.Count("li"); got != 2 {
			t.Errorf("Count = %d, want 2", got)
		}
		if got := b.Attr("#next", "data-x"); got != "42" {
			t.Errorf("Attr = %q, want 42", got)
		}
		if got := Eval[int](b, `Promise.resolve(6 * 7)`); got != 42 {
			t.Errorf("Eval = %d, want 42", got)
		}
		f := b.Fetch("/data.csv")
		if f.Status != 200 || f.ContentType != "text/csv" || f.Body != "a,b\n1,2\n" {
			t.Errorf("Fetch = %+v", f)
		}
		if got := b.ClickNavigate("#next"); got != http.StatusTeapot {
			t.Errorf("status after click = %d, want 418", got)
		}
		if got, want := b.Location(), srv.URL+"/next"; got != want {
			t.Errorf("Location() = %q, want %q", got, want)
		}
		if got := b.Text("h1"); got != "Arrived" {
			t.Errorf("Text(h1) = %q, want Arrived", got)
		}
		if !slices.ContainsFunc(b.Logs(), func(l string) bool { return l == "log: hello from the page ("+srv.URL+"/)" }) {
			t.Errorf("Logs() = %q, want the page's console.log", b.Logs())
		}
	})
	if dataDir == "" {
		return
	}
	if n := killLeftovers(dataDir); n != 0 {
		t.Errorf("%d browser processes outlived the test", n)
	}
}
