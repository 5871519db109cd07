// Package web serves hone's server-rendered UI: the sessions list, each
// session's turns and notes, and the downloads. Templates and static assets
// are embedded in the binary.
package web

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/api"
	"github.com/honehq/hone/internal/scoring"
	"github.com/honehq/hone/internal/tuning"
)

//go:embed templates static
var assets embed.FS

// UI is the web interface. Later capabilities add pages with Handle and Page.
type UI struct {
	Engine *tuning.Engine
	Logger *slog.Logger

	mux       *http.ServeMux
	pages     map[string]*template.Template
	staticSum string
	chat      *chat
}

// New returns the UI with its pages registered.
func New(engine *tuning.Engine, log *slog.Logger) (*UI, error) {
	if log == nil {
		log = slog.Default()
	}
	u := &UI{Engine: engine, Logger: log, mux: http.NewServeMux(), pages: map[string]*template.Template{}}
	if err := u.hashStatic(); err != nil {
		return nil, err
	}
	for _, name := range []string{"sessions", "session", "error"} {
		if err := u.Page(name, assets, "templates/"+name+".html"); err != nil {
			return nil, err
		}
	}
	static, _ := fs.Sub(assets, "static")
	fileServer := http.StripPrefix("/static/", http.FileServerFS(static))
	u.mux.HandleFunc("GET /static/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		fileServer.ServeHTTP(w, r)
	})
	u.mux.HandleFunc("GET /{$}", u.listSessions)
	u.mux.HandleFunc("GET /sessions/{id}", u.showSession)
	u.mux.HandleFunc("GET /sessions/{id}/export.csv", func(w http.ResponseWriter, r *http.Request) {
		api.ServeExport(w, r, u.Engine, r.PathValue("id"), "csv", u.Logger)
	})
	u.mux.HandleFunc("GET /sessions/{id}/export.json", func(w http.ResponseWriter, r *http.Request) {
		api.ServeExport(w, r, u.Engine, r.PathValue("id"), "json", u.Logger)
	})
	if err := u.registerChat(); err != nil {
		return nil, err
	}
	return u, nil
}

// ServeHTTP serves the UI.
func (u *UI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("X-Frame-Options", "DENY")
	w.Header().Set("Referrer-Policy", "same-origin")
	u.mux.ServeHTTP(w, r)
}

// Handle registers a route of another capability's page.
func (u *UI) Handle(pattern string, h http.HandlerFunc) { u.mux.HandleFunc(pattern, h) }

// Page parses a page template from fsys together with the layout.
func (u *UI) Page(name string, fsys fs.FS, file string) error {
	t := template.New("layout.html").Funcs(u.funcs())
	t, err := t.ParseFS(assets, "templates/layout.html")
	if err == nil {
		t, err = t.ParseFS(fsys, file)
	}
	if err != nil {
		return fmt.Errorf("parse page %s: %w", name, err)
	}
	u.pages[name] = t
	return nil
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
		"score":      scoring.Format,
		"metricList": metricList,
	}
}

// Render writes the named page with data, or an error page when it fails.
func (u *UI) Render(w http.ResponseWriter, r *http.Request, status int, name string, data any) {
	t, ok := u.pages[name]
	if !ok {
		u.Error(w, r, fmt.Errorf("no page %q", name))
		return
	}
	var b strings.Builder
	if err := t.Execute(&b, data); err != nil {
		u.Logger.ErrorContext(r.Context(), "render page", "page", name, "err", err)
		http.Error(w, "Internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(b.String()))
}

// Error renders err as a page with the matching status.
func (u *UI) Error(w http.ResponseWriter, r *http.Request, err error) {
	status := api.Status(err)
	if status >= 500 {
		u.Logger.ErrorContext(r.Context(), "web request failed", "path", r.URL.Path, "err", err)
	}
	u.Render(w, r, status, "error", map[string]any{"Title": http.StatusText(status), "Status": status, "Message": hone.ErrorMessage(err)})
}
