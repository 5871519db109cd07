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
	"github.com/chromedp/cdproto/input"
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
	// person names a tab of NewPerson, in its logs and screenshots.
	person string

	mu   sync.Mutex
	logs []string
}

// New starts a headless Chromium for t and returns its tab. It skips t when
// no browser is found, or fails it when RequireEnv is 1. Everything it starts
// ends with t, and at the latest after TestTimeout.
func New(t testing.TB) *Browser {
	t.Helper()
	return NewWithTimeout(t, TestTimeout)
}

// NewWithTimeout is New for a test that needs the browser longer than
// TestTimeout, such as one that walks several people through a whole
// workshop: everything the browser does must end within d.
func NewWithTimeout(t testing.TB, d time.Duration) *Browser {
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
	root, cancelRoot := context.WithTimeout(context.Background(), d)
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
	png, err := chromedp.Run(ctx, fullPage())
	if err != nil {
		b.t.Logf("browsertest: no screenshot of the failure%s: %v", b.of(), err)
		return
	}
	path, err := b.savePNG("failure", png)
	if err != nil {
		b.t.Logf("browsertest: no screenshot of the failure%s: %v", b.of(), err)
		return
	}
	b.t.Logf("browsertest: screenshot of the failure%s: %s", b.of(), path)
}

// of is " of <person>" for a tab of NewPerson, else "".
func (b *Browser) of() string {
	if b.person == "" {
		return ""
	}
	return " of " + b.person
}

// Artifacts returns the directory screenshots are written to: ArtifactsEnv,
// else the system's temporary directory.
func Artifacts() string {
	if dir := os.Getenv(ArtifactsEnv); dir != "" {
		return dir
	}
	return os.TempDir()
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// savePNG writes png to a new file of the artifacts directory named after
// the test, the person and what, and returns its path.
func (b *Browser) savePNG(what string, png []byte) (string, error) {
	dir := Artifacts()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	name := b.t.Name()
	if b.person != "" {
		name += "-" + b.person
	}
	name = unsafeName.ReplaceAllString(name+"-"+what, "_")
	f, err := os.CreateTemp(dir, "hone-"+name+"-*.png")
	if err != nil {
		return "", err
	}
	_, err = f.Write(png)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return f.Name(), err
}

// fullPage captures the whole page as a PNG, beyond the window too.
func fullPage() chromedp.Action[[]byte] {
	return func(ctx context.Context, t *chromedp.Target) ([]byte, error) {
		m, err := cdp.Call(ctx, t, page.GetLayoutMetrics, cdp.Empty{})
		if err != nil {
			return nil, err
		}
		params := page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng, FromSurface: new(true)}
		if size := m.CSSContentSize; size != nil && size.Width > 0 && size.Height > 0 {
			params.CaptureBeyondViewport = new(true)
			params.Clip = &page.Viewport{X: 0, Y: 0, Width: size.Width, Height: size.Height, Scale: 1}
		}
		r, err := cdp.Call(ctx, t, page.CaptureScreenshot, params)
		if err != nil {
			return nil, err
		}
		return r.Data, nil
	}
}

// Screenshot writes a PNG of the whole page to a new file of the artifacts
// directory (see Artifacts), named after the test and name, logs its path
// and returns it, so that a reviewer can look at the page.
func (b *Browser) Screenshot(name string) string {
	b.t.Helper()
	png := run(b, "screenshot "+name, fullPage())
	path, err := b.savePNG(name, png)
	if err != nil {
		b.t.Fatalf("browser: screenshot %s: %v", name, err)
	}
	b.t.Logf("browsertest: screenshot %s%s: %s", name, b.of(), path)
	return path
}

// NewPerson opens a tab of b's Chromium in a new browser context: another
// person, with cookies, storage and cache of their own, using the site at
// the same time as b. The tab shares b's deadline, collects its console and
// is screenshot when the test fails, as New's tab; it closes, its context
// disposed of, when the test ends. name labels its logs and screenshots.
func (b *Browser) NewPerson(name string) *Browser {
	b.t.Helper()
	tab, cancel := chromedp.NewContext(b.Ctx, chromedp.WithNewBrowserContext())
	p := &Browser{Ctx: tab, t: b.t, person: name}
	b.t.Cleanup(cancel)
	if err := chromedp.Do(tab); err != nil {
		b.t.Fatalf("browser: open a tab for %s: %v", name, err)
	}
	p.collectConsole()
	b.t.Cleanup(func() {
		if !b.t.Failed() {
			return
		}
		p.screenshotOnFailure()
		for _, l := range p.Logs() {
			b.t.Logf("browser console of %s: %s", name, l)
		}
	})
	return p
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

// WaitUntil evaluates the JavaScript expression cond in the page every
// 25 ms until it is true, and fails the test when it is not within d. It
// keeps trying while pages load, so cond may hold only on a page the tab
// is yet to open, for example after a form's redirect or a page's refresh.
func (b *Browser) WaitUntil(cond string, d time.Duration) {
	b.t.Helper()
	deadline := time.Now().Add(d)
	var last error
	for {
		ctx, cancel := context.WithTimeout(b.Ctx, min(time.Until(deadline), pollTimeout)+100*time.Millisecond)
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool]("!!("+cond+")"))
		cancel()
		switch {
		case err == nil && ok:
			return
		case err != nil:
			last = err
		}
		if b.Ctx.Err() != nil || time.Now().After(deadline) {
			where := ""
			if loc, err := chromedp.Run(b.Ctx, chromedp.Location()); err == nil {
				where = " (at " + loc + ")"
			}
			if last != nil {
				b.t.Fatalf("browser: timed out after %v waiting for %s%s; last error: %v", d, short(cond), where, last)
			}
			b.t.Fatalf("browser: timed out after %v waiting for %s%s", d, short(cond), where)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// pollTimeout bounds one evaluation of WaitUntil's condition.
const pollTimeout = 2 * time.Second

// Upload sets the files of the file input matching sel, as choosing them
// in the browser's file dialog does.
func (b *Browser) Upload(sel string, paths ...string) {
	b.t.Helper()
	run(b, "choose files for "+sel, chromedp.SetUploadFiles(chromedp.CSS(sel), paths))
}

// point is a place in the window, in CSS pixels.
type point struct{ X, Y float64 }

// dragPoints are where a drag starts and ends, or why it cannot be done.
type dragPoints struct {
	Error    string
	From, To point
}

// dragSteps is how many mouse moves lead from the source to the target.
const dragSteps = 12

// Drag drags the first element matching from onto the first element
// matching to with real mouse events, as a person does: it presses the
// left button on from's centre, moves to to's centre in steps, lingers
// there a moment, moving slightly, and releases. It scrolls from into view,
// then to if needed; both must then be in the window, and from must be
// what the mouse presses on. Pages that follow mouse or pointer events see
// a drag (SortableJS with forceFallback, for example).
func (b *Browser) Drag(from, to string) {
	b.t.Helper()
	b.drag(from, to, "")
}

// DragUntil is Drag that keeps the button pressed over the target, moving
// slightly, until the JavaScript expression cond is true, and only then
// releases; it fails the test when cond does not hold within ActionTimeout.
// A page that reacts to the pointer's place on a timer (SortableJS moves
// the dragged element into the list under the pointer every 50 ms) may
// need more than a moment on a busy machine: cond says when it has seen
// the pointer there, for example that the dragged element is in the list.
func (b *Browser) DragUntil(from, to, cond string) {
	b.t.Helper()
	b.drag(from, to, cond)
}

// lingerMoves is how many small moves Drag makes over the target, 50 ms
// apart, before it releases.
const lingerMoves = 6

func (b *Browser) drag(from, to, cond string) {
	b.t.Helper()
	run(b, "drag "+from+" onto "+to, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		pts, err := chromedp.Evaluate[dragPoints](`(() => {
			const from = document.querySelector(`+jsString(from)+`), to = document.querySelector(`+jsString(to)+`);
			if (!from) return {Error: "no element matches " + `+jsString(from)+`};
			if (!to) return {Error: "no element matches " + `+jsString(to)+`};
			const centre = e => { const r = e.getBoundingClientRect(); return {X: r.left + r.width / 2, Y: r.top + r.height / 2}; };
			const inside = p => p.X >= 0 && p.Y >= 0 && p.X < innerWidth && p.Y < innerHeight;
			from.scrollIntoView({block: "center", inline: "center"});
			if (!inside(centre(to))) to.scrollIntoView({block: "nearest", inline: "nearest"});
			const f = centre(from), t = centre(to);
			if (!inside(f) || !inside(t)) return {Error: "the two elements do not fit in the window together"};
			const hit = document.elementFromPoint(f.X, f.Y);
			if (!hit || !(from === hit || from.contains(hit))) return {Error: "the centre of the source is covered by " + (hit ? hit.outerHTML.slice(0, 80) : "nothing")};
			return {Error: "", From: f, To: t};
		})()`)(ctx, t)
		if err != nil {
			return err
		}
		if pts.Error != "" {
			return errors.New(pts.Error)
		}
		held := func(p *input.DispatchMouseEventParams) { p.Button, p.Buttons = input.MouseButtonLeft, 1 }
		pause := chromedp.Sleep(16 * time.Millisecond)
		steps := []chromedp.Action[chromedp.Void]{
			chromedp.MouseEvent(chromedp.MouseMoved, pts.From.X, pts.From.Y, chromedp.ButtonNone),
			chromedp.MouseEvent(chromedp.MousePressed, pts.From.X, pts.From.Y, held, chromedp.ClickCount(1)),
			pause,
		}
		for i := 1; i <= dragSteps; i++ {
			f := float64(i) / dragSteps
			steps = append(steps, chromedp.MouseEvent(chromedp.MouseMoved,
				pts.From.X+(pts.To.X-pts.From.X)*f, pts.From.Y+(pts.To.Y-pts.From.Y)*f, held), pause)
		}
		if _, err := chromedp.Steps(steps...)(ctx, t); err != nil {
			return err
		}
		// Linger over the target, as a hand does, so that pages which
		// check the pointer's place on a timer see it there.
		for i := 0; ; i++ {
			d := float64(i%2*2 - 1)
			if _, err := chromedp.Steps(chromedp.MouseEvent(chromedp.MouseMoved, pts.To.X+d, pts.To.Y+d, held),
				chromedp.Sleep(50*time.Millisecond))(ctx, t); err != nil {
				if cond != "" && ctx.Err() != nil {
					return fmt.Errorf("%s did not hold while the pointer was over the target: %w", short(cond), err)
				}
				return err
			}
			if cond == "" {
				if i+1 >= lingerMoves {
					break
				}
				continue
			}
			ok, err := chromedp.Evaluate[bool]("!!("+cond+")")(ctx, t)
			if err != nil {
				return err
			}
			if ok && i+1 >= 2 {
				break
			}
		}
		_, err = chromedp.Steps(chromedp.MouseEvent(chromedp.MouseMoved, pts.To.X, pts.To.Y, held),
			chromedp.MouseEvent(chromedp.MouseReleased, pts.To.X, pts.To.Y, chromedp.ButtonLeft, chromedp.ClickCount(1)))(ctx, t)
		return err
	}))
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
