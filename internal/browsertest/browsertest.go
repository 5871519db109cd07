// Package browsertest runs real headless Chromium from Go tests, so that a
// page's test checks what a person sees and not only the HTML the server sends.
//
// A test calls New, which finds Chromium, starts it with a fresh profile and
// stops it when the test ends. Without a browser the test is skipped, unless
// HONE_TEST_BROWSER=1 asks for the browser tests to be required (as CI does).
package browsertest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// Environment variables that control the browser tests.
const (
	// ChromeEnv names the Chromium or Chrome binary to use.
	ChromeEnv = "HONE_TEST_CHROME"
	// RequireEnv, set to 1, makes a missing browser fail the test instead of
	// skipping it.
	RequireEnv = "HONE_TEST_BROWSER"
	// ArtifactsEnv names a directory for the screenshots of failed tests; the
	// default is the system's temporary directory.
	ArtifactsEnv = "HONE_TEST_ARTIFACTS"
)

// Timeouts of a browser test.
const (
	// TestTimeout bounds everything a Browser does in one test.
	TestTimeout = 60 * time.Second
	// ActionTimeout bounds one action, such as waiting for an element.
	ActionTimeout = 10 * time.Second
	// closeTimeout bounds the graceful shutdown of the browser.
	closeTimeout = 10 * time.Second
)

// ErrNoBrowser is what Find's error wraps when no candidate exists.
var ErrNoBrowser = errors.New("no browser found")

// candidates are the browsers Find tries when ChromeEnv is not set, in order.
var candidates = []string{"/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome"}

// Find returns the path of the browser to test with: ChromeEnv when set, else
// the first of /usr/bin/chromium, chromium, chromium-browser and google-chrome
// that exists.
func Find() (string, error) {
	if p := os.Getenv(ChromeEnv); p != "" {
		found, err := exec.LookPath(p)
		if err != nil {
			return "", fmt.Errorf("%s=%s: %w", ChromeEnv, p, err)
		}
		return found, nil
	}
	for _, c := range candidates {
		if found, err := exec.LookPath(c); err == nil {
			return found, nil
		}
	}
	return "", fmt.Errorf("%w (tried %s)", ErrNoBrowser, strings.Join(candidates, ", "))
}

// Browser is one headless Chromium tab that lives as long as a test. Its
// methods fail the test on error, so they must be called from the test's
// goroutine.
type Browser struct {
	// Ctx is the chromedp context of the tab, for actions the helpers lack.
	Ctx context.Context

	t       testing.TB
	dataDir string

	mu   sync.Mutex
	logs []string
}

// New starts a headless Chromium for t and returns its tab. It skips t when
// no browser is found, or fails it when RequireEnv is 1. Everything it starts
// ends with t.
func New(t testing.TB) *Browser {
	t.Helper()
	path, err := Find()
	if err != nil {
		if os.Getenv(RequireEnv) == "1" {
			t.Fatalf("browser tests are required (%s=1): %v", RequireEnv, err)
		}
		t.Skipf("skipping browser test: %v; install chromium or set %s to a Chrome binary (%s=1 makes this a failure)",
			err, ChromeEnv, RequireEnv)
	}
	dataDir := t.TempDir()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(dataDir),
		chromedp.WindowSize(1280, 900),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-breakpad", true),
		chromedp.Flag("metrics-recording-only", true),
		chromedp.Flag("password-store", "basic"),
		chromedp.Flag("use-mock-keychain", true),
	}
	root, cancelRoot := context.WithTimeout(context.Background(), TestTimeout)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(root, opts...)
	tab, cancelTab := chromedp.NewContext(allocCtx)
	b := &Browser{Ctx: tab, t: t, dataDir: dataDir}
	t.Cleanup(func() {
		closeCtx, cancel := context.WithTimeout(tab, closeTimeout)
		_ = chromedp.Cancel(closeCtx)
		cancel()
		cancelTab()
		cancelAlloc()
		cancelRoot()
		if n := killLeftovers(dataDir); n > 0 {
			t.Logf("browsertest: killed %d browser processes left running", n)
		}
	})
	if err := chromedp.Do(tab); err != nil {
		t.Fatalf("start %s: %v", path, err)
	}
	b.collectConsole()
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		b.screenshotOnFailure()
		for _, l := range b.Logs() {
			t.Logf("browser console: %s", l)
		}
	})
	return b
}

func (b *Browser) collectConsole() {
	messages := chromedp.Console(b.Ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			line := m.String()
			if m.URL != "" {
				line += " (" + m.URL + ")"
			}
			b.mu.Lock()
			b.logs = append(b.logs, line)
			b.mu.Unlock()
		}
	}()
}

// Logs returns what the pages wrote to the console so far, with uncaught
// exceptions, as "type: text (url)" lines.
func (b *Browser) Logs() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.logs...)
}

func (b *Browser) screenshotOnFailure() {
	ctx, cancel := context.WithTimeout(b.Ctx, ActionTimeout)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Logf("browsertest: no screenshot of the failure: %v", err)
		return
	}
	dir := os.Getenv(ArtifactsEnv)
	if dir == "" {
		dir = os.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.t.Logf("browsertest: no screenshot of the failure: %v", err)
		return
	}
	name := regexp.MustCompile(`[^A-Za-z0-9_.-]+`).ReplaceAllString(b.t.Name(), "_")
	f, err := os.CreateTemp(dir, "hone-"+name+"-*.png")
	if err == nil {
		_, err = f.Write(png)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		b.t.Logf("browsertest: no screenshot of the failure: %v", err)
		return
	}
	b.t.Logf("browsertest: screenshot of the failure: %s", f.Name())
}

// run runs a on the tab within ActionTimeout, failing the test on error.
func run[T any](b *Browser, what string, a chromedp.Action[T]) T {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.Ctx, ActionTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		b.t.Fatalf("browser: %s: %v", what, err)
	}
	return v
}

// Navigate opens url and waits for it to load.
func (b *Browser) Navigate(url string) {
	b.t.Helper()
	run(b, "navigate to "+url, chromedp.Navigate(url))
}

// NavigateStatus opens url, waits for it to load and returns the HTTP status
// of the document.
func (b *Browser) NavigateStatus(url string) int {
	b.t.Helper()
	resp := run(b, "navigate to "+url, chromedp.NavigateResponse(url))
	return int(resp.Status)
}

// Click clicks the first visible element matching the CSS selector sel.
func (b *Browser) Click(sel string) {
	b.t.Helper()
	run(b, "click "+sel, chromedp.Click(chromedp.CSS(sel)))
}

// ClickNavigate clicks the element matching sel, waits for the page it leads
// to to load and returns that page's HTTP status.
func (b *Browser) ClickNavigate(sel string) int {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.Ctx, ActionTimeout)
	defer cancel()
	resp, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(sel)))
	if err != nil {
		b.t.Fatalf("browser: click %s and wait for the next page: %v", sel, err)
	}
	return int(resp.Status)
}

// Type types text into the first visible element matching sel, key by key.
func (b *Browser) Type(sel, text string) {
	b.t.Helper()
	run(b, "type into "+sel, chromedp.SendKeys(chromedp.CSS(sel), text))
}

// WaitVisible waits until an element matching sel is visible.
func (b *Browser) WaitVisible(sel string) {
	b.t.Helper()
	run(b, "wait for "+sel+" to be visible", chromedp.WaitVisible(chromedp.CSS(sel)))
}

// Text returns the rendered text (innerText) of the first element matching
// sel, waiting for it to appear.
func (b *Browser) Text(sel string) string {
	b.t.Helper()
	return strings.TrimSpace(run(b, "text of "+sel, chromedp.Text(chromedp.CSS(sel))))
}

// Texts returns the rendered text of every element matching sel now, in
// document order; none is an empty slice.
func (b *Browser) Texts(sel string) []string {
	b.t.Helper()
	return Eval[[]string](b, `Array.from(document.querySelectorAll(`+jsString(sel)+`), e => e.innerText.trim())`)
}

// Count returns how many elements match sel now.
func (b *Browser) Count(sel string) int {
	b.t.Helper()
	return Eval[int](b, `document.querySelectorAll(`+jsString(sel)+`).length`)
}

// Attr returns the attribute name of the first element matching sel, failing
// the test when the element has no such attribute.
func (b *Browser) Attr(sel, name string) string {
	b.t.Helper()
	r := run(b, "attribute "+name+" of "+sel, chromedp.AttributeValue(chromedp.CSS(sel), name))
	if !r.Exists {
		b.t.Fatalf("browser: %s has no attribute %s", sel, name)
	}
	return r.Value
}

// Location returns the URL of the page.
func (b *Browser) Location() string {
	b.t.Helper()
	return run(b, "location", chromedp.Location())
}

// Title returns the title of the page.
func (b *Browser) Title() string {
	b.t.Helper()
	return run(b, "title", chromedp.Title())
}

// Eval evaluates the JavaScript expression in the page, awaiting it when it
// is a promise, and decodes its JSON value into T.
func Eval[T any](b *Browser, expr string) T {
	b.t.Helper()
	return run(b, "evaluate "+short(expr), chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
}

// OnNewDocument makes every page the tab opens from now on run script before
// its own scripts, for example to record calls of window.alert.
func (b *Browser) OnNewDocument(script string) {
	b.t.Helper()
	run(b, "add a script to new documents", chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument,
			page.AddScriptToEvaluateOnNewDocumentParams{Source: script})
		return err
	}))
}

// Fetched is what a fetch() from the page returned.
type Fetched struct {
	// Status is the HTTP status code.
	Status int `json:"status"`
	// ContentType is the Content-Type header.
	ContentType string `json:"contentType"`
	// Body is the body as text.
	Body string `json:"body"`
}

// Fetch requests url with fetch() from the page, as the page's own scripts
// would, and returns the response.
func (b *Browser) Fetch(url string) Fetched {
	b.t.Helper()
	return Eval[Fetched](b, `fetch(`+jsString(url)+`).then(async r => ({status: r.status,
		contentType: r.headers.get("Content-Type") || "", body: await r.text()}))`)
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func short(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}

// killLeftovers kills the processes still running with the profile dir, such
// as Chromium's helpers outliving the browser, and returns how many it found.
func killLeftovers(dir string) int {
	want := []byte("--user-data-dir=" + dir)
	total := 0
	for quiet, deadline := 0, time.Now().Add(2*time.Second); quiet < 3 && time.Now().Before(deadline); {
		n := 0
		entries, err := os.ReadDir("/proc")
		if err != nil {
			return total
		}
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || pid == os.Getpid() {
				continue
			}
			cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			if err != nil || !hasArg(cmdline, want) {
				continue
			}
			if p, err := os.FindProcess(pid); err == nil && p.Kill() == nil {
				n++
			}
		}
		if total += n; n == 0 {
			quiet++
		} else {
			quiet = 0
		}
		time.Sleep(10 * time.Millisecond)
	}
	return total
}

func hasArg(cmdline, want []byte) bool {
	for arg := range bytes.SplitSeq(cmdline, []byte{0}) {
		if bytes.Equal(arg, want) {
			return true
		}
	}
	return false
}
