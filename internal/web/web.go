// Package web serves hone's server-rendered UI: the sessions list, each
// session's turns and notes, the downloads, the metrics page, the chat and
// sign-in. Templates and static assets are embedded in the binary. routes.go
// is its route table.
package web

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/auth"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/chat"
	"github.com/honehq/hone/internal/learning"
	"github.com/honehq/hone/internal/playground"
	"github.com/honehq/hone/internal/score"
	"github.com/honehq/hone/internal/scoring"
	"github.com/honehq/hone/internal/server"
	"github.com/honehq/hone/internal/tuning"
	"github.com/honehq/hone/internal/workshop"
)

//go:embed templates static
var assets embed.FS

// UI is the web interface over the domain services.
type UI struct {
	Sessions capture.Store
	Turns    *capture.Recorder
	Chat     *chat.Router
	Tuning   *tuning.Service
	Scoring  *scoring.Service
	// Workshops runs the discovery workshops' pages (/workshops, /w/…).
	Workshops *workshop.Service
	// Learning is the learning loop: the chat's learned prompt section and
	// the /learnings page.
	Learning *learning.Service
	// Names keep the display names testers give themselves in the chat.
	Names *capture.Names
	// Scores records and reads every judgment of a turn: the session
	// page's ratings, scores and notes.
	Scores *score.Service
	// Prompts are the prompt files hone serves the chat with: the base of
	// the system prompt /learnings shows; nil when there is none.
	Prompts func() []*playground.Prompt
	Auth    *auth.Auth
	// Health checks that the database takes writes, for /healthz.
	Health func(ctx context.Context) error
	// Hosts, when not nil, are the only hosts the pages answer to.
	Hosts  *server.Hosts
	Logger *slog.Logger
	// Extra are the routes capabilities add to the UI's own (see Routes).
	Extra []server.Route
	// Nav are the links of the top navigation, in order; nil means
	// DefaultNav.
	Nav []NavItem

	pages     map[string]*template.Template
	staticSum string
	chat      *chatSetup
	static    http.Handler
}

// NavItem is a link of the top navigation.
type NavItem struct {
	Label string
	Path  string
}

// DefaultNav are the navigation links of the pages every hone has.
var DefaultNav = []NavItem{{"Sessions", "/"}, {"Workshops", "/workshops"}, {"Learnings", "/learnings"},
	{"Quality", "/quality"}, {"Chat", "/chat"}}

// layouts are the templates every page is parsed with; every other file of
// templates/ is a page, named after it.
var layouts = []string{"layout.html", "workshop_parts.html"}

// New returns the UI; its chat says what to set until EnableChat is called.
func New(u *UI) (*UI, error) {
	if u.Logger == nil {
		u.Logger = slog.Default()
	}
	u.pages = map[string]*template.Template{}
	if err := u.hashStatic(); err != nil {
		return nil, err
	}
	if u.Nav == nil {
		u.Nav = DefaultNav
	}
	files, err := fs.Glob(assets, "templates/*.html")
	if err != nil {
		return nil, err
	}
	for _, file := range files {
		name := strings.TrimSuffix(path.Base(file), ".html")
		if slices.Contains(layouts, name+".html") {
			continue
		}
		t := template.New("layout.html").Funcs(u.funcs())
		t, err := t.ParseFS(assets, "templates/layout.html", "templates/workshop_parts.html", file)
		if err != nil {
			return nil, fmt.Errorf("parse page %s: %w", name, err)
		}
		u.pages[name] = t
	}
	static, _ := fs.Sub(assets, "static")
	u.static = http.StripPrefix("/static/", http.FileServerFS(static))
	u.EnableChat(nil, nil, nil)
	return u, nil
}

// Handler serves the UI's route table.
func (u *UI) Handler() http.Handler {
	f := &server.Face{Routes: u.AllRoutes(), Guard: u.guard, Errors: u.errorPage, JSONErrors: server.JSONBody, Log: u.Logger,
		Hosts: u.Hosts}
	return f.Mux()
}

func (u *UI) hashStatic() error {
	h := sha256.New()
	err := fs.WalkDir(assets, "static", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := assets.ReadFile(path)
		h.Write([]byte(path))
		h.Write(b)
		return err
	})
	u.staticSum = hex.EncodeToString(h.Sum(nil))[:12]
	return err
}

func (u *UI) funcs() template.FuncMap {
	return template.FuncMap{
		"static": func(name string) string { return "/static/" + name + "?v=" + u.staticSum },
		"time": func(t time.Time) string {
			if t.IsZero() {
				return ""
			}
			return t.UTC().Format("2006-01-02 15:04:05 UTC")
		},
		"endtime": func(t *time.Time) string {
			if t == nil {
				return "open"
			}
			return t.UTC().Format("2006-01-02 15:04:05 UTC")
		},
		"isotime": func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
		"orDash": func(s string) string {
			if strings.TrimSpace(s) == "" {
				return "—"
			}
			return s
		},
		"add": func(a, b int) int { return a + b },
		"deref": func(f *float64) float64 {
			if f == nil {
				return 0
			}
			return *f
		},
		"score":            scoring.Format,
		"metricList":       metricList,
		"metricHelp":       u.metricHelp,
		"markdown":         renderMarkdown,
		"prettyJSON":       prettyJSON,
		"tracePath":        tracePath,
		"sourceLabel":      func(t string) string { return sourceLabels[t] },
		"phaseLabel":       func(p string) string { return phaseLabels[p] },
		"fixed":            fixed,
		"truncate":         truncate,
		"disagreementText": disagreementText,
		"dict":             dict,
		"turnLink":         turnLink,
		"statusLabel":      statusLabel,
		"sub100":           func(p float64) float64 { return 100 - p },
		"list":             func(v ...any) []any { return v },
		"judgeValue":       tuning.FormatValue,
		"fnum":             func(f *float64) string { return tuning.FormatValue(*f) },
		"navCurrent":       navCurrent,
		"stepState":        func(state string) string { return stepStates[state] },
		"promoted":         func(set map[string]bool, text string) bool { return set[workshop.DraftText(text)] },
	}
}

// Render writes the named page with data and what every page shows: the
// CSRF token of its forms and who is signed in.
func (u *UI) Render(w http.ResponseWriter, r *http.Request, status int, name string, data map[string]any) {
	t, ok := u.pages[name]
	if !ok {
		u.Logger.ErrorContext(r.Context(), "no page", "page", name)
		http.Error(w, "Internal error", http.StatusInternalServerError)
		return
	}
	if data == nil {
		data = map[string]any{}
	}
	data["CSRF"] = csrfToken(w, r)
	data["Here"] = r.URL.RequestURI()
	if f := takeFlash(w, r); f != nil {
		data["Flash"] = f
	}
	id, _ := hone.IdentityFrom(r.Context())
	data["SignedIn"] = u.Auth != nil && u.Auth.Enabled() && id.Kind == hone.IdentityAdmin
	data["Nav"] = u.Nav
	var b strings.Builder
	if err := t.Execute(&b, data); err != nil {
		u.Logger.ErrorContext(r.Context(), "render page", "page", name, "err", err)
		http.Error(w, "Internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", pageCSP)
	w.WriteHeader(status)
	_, _ = w.Write([]byte(b.String()))
}

// navCurrent is the aria-current of the navigation link to path on the
// page here: "page" on that page (or a page of its list, such as a
// session of the sessions list), "true" on a page inside it (a workshop
// under Workshops), else "".
func navCurrent(here, path string) string {
	here, _, _ = strings.Cut(here, "?")
	switch {
	case here == path:
		return "page"
	case path == "/":
		if strings.HasPrefix(here, "/sessions/") {
			return "true"
		}
	case path == "/workshops":
		if strings.HasPrefix(here, "/w/") {
			return "true"
		}
	case strings.HasPrefix(here, path+"/"):
		return "true"
	}
	return ""
}

// signInRequired is the error of a page request without a valid sign-in.
type signInRequired struct{ next string }

func (e *signInRequired) Error() string { return "sign in required" }

// Unwrap gives the error's code and message.
func (e *signInRequired) Unwrap() error {
	return hone.Errorf(hone.EUNAUTHORIZED, "Sign in to hone first.")
}

// errorPage writes an error as a page; a missing sign-in is a 303 to the
// sign-in page instead.
func (u *UI) errorPage(w http.ResponseWriter, r *http.Request, status int, err error) {
	var si *signInRequired
	if errors.As(err, &si) {
		http.Redirect(w, r, "/signin?"+url.Values{"next": {si.next}}.Encode(), http.StatusSeeOther)
		return
	}
	data := map[string]any{"Title": http.StatusText(status), "Status": status, "Message": hone.ErrorMessage(err),
		"Back": "/", "BackLabel": "Back to the sessions"}
	if strings.HasPrefix(r.URL.Path, "/w/") {
		data["Back"] = ""
		if id, _ := hone.IdentityFrom(r.Context()); id.Kind == hone.IdentityMember {
			data["Back"], data["BackLabel"] = workshopPath(id.WorkshopID), "Back to the workshop"
		}
		if status == http.StatusUnauthorized && u.Auth != nil && u.Auth.Enabled() {
			next := r.URL.RequestURI()
			if r.Method != http.MethodGet || strings.Contains(r.URL.Path, "/join/") {
				next = "/workshops"
			}
			data["SignIn"] = "/signin?" + url.Values{"next": {next}}.Encode()
		}
	}
	u.Render(w, r, status, "error", data)
}
