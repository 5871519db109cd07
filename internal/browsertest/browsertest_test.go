package browsertest

import (
	"bytes"
	"errors"
	"fmt"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
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

func TestNewWithTimeout(t *testing.T) {
	b := NewWithTimeout(t, 3*TestTimeout)
	deadline, ok := b.Ctx.Deadline()
	if left := time.Until(deadline); !ok || left <= TestTimeout || left > 3*TestTimeout {
		t.Errorf("the tab's deadline is %v away (set: %v), want more than TestTimeout and at most %v", left, ok, 3*TestTimeout)
	}
}

func TestBrowserPeople(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /set", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "who", Value: r.URL.Query().Get("v"), Path: "/", HttpOnly: true})
		fmt.Fprint(w, `<!doctype html><title>Set</title>`)
	})
	mux.HandleFunc("GET /who", func(w http.ResponseWriter, r *http.Request) {
		v := "nobody"
		if c, err := r.Cookie("who"); err == nil {
			v = c.Value
		}
		fmt.Fprintf(w, `<!doctype html><title>Who</title><p id="who">%s</p><script>localStorage.setItem("seen", (localStorage.getItem("seen") || "") + "x"); console.log("who is %s")</script>`, v, v)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	var person *Browser
	t.Run("two", func(t *testing.T) {
		alice := New(t)
		bob := alice.NewPerson("bob")
		carol := bob.NewPerson("carol")
		if bob.Ctx == alice.Ctx || carol.Ctx == bob.Ctx {
			t.Fatal("NewPerson returned the same tab")
		}
		alice.Navigate(srv.URL + "/set?v=alice")
		bob.Navigate(srv.URL + "/who")
		if got := bob.Text("#who"); got != "nobody" {
			t.Errorf("bob sees the cookie %q that alice got", got)
		}
		bob.Navigate(srv.URL + "/set?v=bob")
		alice.Navigate(srv.URL + "/who")
		bob.Navigate(srv.URL + "/who")
		carol.Navigate(srv.URL + "/who")
		if got := alice.Text("#who"); got != "alice" {
			t.Errorf("alice's cookie = %q, want alice", got)
		}
		if got := bob.Text("#who"); got != "bob" {
			t.Errorf("bob's cookie = %q, want bob", got)
		}
		if got := carol.Text("#who"); got != "nobody" {
			t.Errorf("carol, a person of bob's tab, sees the cookie %q", got)
		}
		if got := Eval[string](bob, `localStorage.getItem("seen")`); got != "xx" {
			t.Errorf("bob's local storage = %q, want xx (his two visits only)", got)
		}
		if !slices.Contains(bob.Logs(), "log: who is bob ("+srv.URL+"/who)") || slices.Contains(bob.Logs(), "log: who is alice ("+srv.URL+"/who)") {
			t.Errorf("bob's console = %q, want his own page's logs only", bob.Logs())
		}
		person = carol
	})
	if person == nil {
		return
	}
	if err := person.Ctx.Err(); err == nil {
		t.Error("a person's tab outlived the test")
	}
}

// pngMagic starts every PNG file.
var pngMagic = []byte("\x89PNG\r\n\x1a\n")

func TestScreenshot(t *testing.T) {
	t.Setenv(ArtifactsEnv, t.TempDir())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Tall</title><body style="margin:0"><div style="height:3000px;background:#c00">tall</div>`)
	}))
	t.Cleanup(srv.Close)
	b := New(t)
	b.Navigate(srv.URL)
	path := b.Screenshot("tall page")
	if dir := filepath.Dir(path); dir != os.Getenv(ArtifactsEnv) {
		t.Errorf("screenshot written to %s, want the artifacts dir %s", dir, os.Getenv(ArtifactsEnv))
	}
	if base := filepath.Base(path); !strings.HasPrefix(base, "hone-TestScreenshot-tall_page-") || !strings.HasSuffix(base, ".png") {
		t.Errorf("screenshot file name %s does not name the test and the shot", base)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(data, pngMagic) {
		t.Fatalf("%s is not a PNG", path)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Height < 3000 || cfg.Width < 1000 {
		t.Errorf("screenshot is %d×%d, want the whole 3000 px tall page", cfg.Width, cfg.Height)
	}
}

func TestWaitUntilUploadDrag(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /later", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Later</title><script>setTimeout(() => location.href = "/arrived", 300)</script>`)
	})
	mux.HandleFunc("GET /arrived", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Arrived</title><p id="here">here</p>`)
	})
	mux.HandleFunc("GET /upload", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Upload</title>
<form method="post" action="/upload" enctype="multipart/form-data"><input type="file" id="f" name="file"><button id="send">Send</button></form>`)
	})
	mux.HandleFunc("POST /upload", func(w http.ResponseWriter, r *http.Request) {
		f, hdr, err := r.FormFile("file")
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		defer f.Close()
		body, _ := io.ReadAll(f)
		fmt.Fprintf(w, `<!doctype html><title>Got</title><p id="name">%s</p><p id="body">%s</p>`, hdr.Filename, body)
	})
	// The drag page moves the box it is dragged from to the list it is
	// dropped on, following pointer events only, as SortableJS's fallback does.
	mux.HandleFunc("GET /drag", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Drag</title>
<style>ul { min-height: 60px; border: 1px solid; margin: 40px; } li { padding: 10px; }</style>
<ul id="a"><li id="item"><span id="handle">drag me</span></li></ul><ul id="b"></ul>
<script>
let dragging = null, moves = 0;
window.__events = [];
document.addEventListener("pointerdown", e => { window.__events.push("down:" + e.buttons); dragging = e.target.closest("li"); });
document.addEventListener("pointermove", e => { if (dragging && e.buttons === 1) moves++; });
document.addEventListener("pointerup", e => {
  window.__events.push("up:" + moves);
  const to = document.elementFromPoint(e.clientX, e.clientY)?.closest("ul");
  if (dragging && to) to.appendChild(dragging);
  dragging = null;
});
</script>`)
	})
	mux.HandleFunc("GET /slow-drag", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Slow drag</title>
<style>ul { min-height: 60px; border: 1px solid; margin: 40px; } li { padding: 10px; }</style>
<ul id="a"><li id="item"><span id="handle">drag me</span></li></ul><ul id="b"></ul>
<script>
let dragging = null, at = null;
window.__dropped = false;
document.addEventListener("pointerdown", e => { dragging = e.target.closest("li"); });
document.addEventListener("pointermove", e => { at = e; });
setInterval(() => {
  const to = dragging && at && document.elementFromPoint(at.clientX, at.clientY)?.closest("ul");
  if (to && to !== dragging.parentElement) to.appendChild(dragging);
}, 400);
document.addEventListener("pointerup", e => { window.__dropped = dragging !== null; dragging = null; });
</script>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	b := New(t)
	b.Navigate(srv.URL + "/later")
	b.WaitUntil(`document.getElementById("here") !== null`, 5*time.Second)
	if got := b.Location(); got != srv.URL+"/arrived" {
		t.Errorf("WaitUntil returned at %s", got)
	}

	file := filepath.Join(t.TempDir(), "traces.jsonl")
	if err := os.WriteFile(file, []byte(`{"input":"hi"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	b.Navigate(srv.URL + "/upload")
	b.Upload("#f", file)
	b.ClickNavigate("#send")
	if got, body := b.Text("#name"), b.Text("#body"); got != "traces.jsonl" || body != `{"input":"hi"}` {
		t.Errorf("the upload sent %q holding %q", got, body)
	}

	b.Navigate(srv.URL + "/drag")
	b.Drag("#handle", "#b")
	if got := Eval[string](b, `document.getElementById("item").parentElement.id`); got != "b" {
		t.Errorf("after the drag the item is in list %q, want b", got)
	}
	events := Eval[[]string](b, `window.__events`)
	if len(events) != 2 || events[0] != "down:1" || events[1] == "up:0" {
		t.Errorf("pointer events = %q, want a press with the left button, moves with it held, a release", events)
	}

	// The slow page looks where the pointer is only every 400 ms, and
	// moves the dragged item there: DragUntil holds on until it has.
	b.Navigate(srv.URL + "/slow-drag")
	b.DragUntil("#handle", "#b", `document.querySelector("#b #item") !== null`)
	if got := Eval[string](b, `document.getElementById("item").parentElement.id + " " + window.__dropped`); got != "b true" {
		t.Errorf("after the slow drag: %q, want the item dropped in b", got)
	}
}
