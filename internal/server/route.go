package server

import (
	"context"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/honehq/hone"
)

// Handler serves one request and returns its error instead of writing it;
// the face writes the error (see Face.Errors).
type Handler func(w http.ResponseWriter, r *http.Request) error

// Route is one entry of a face's route table.
type Route struct {
	Method string
	// Path is a net/http pattern path, such as /sessions/{id}.
	Path    string
	Handler Handler
	// Open routes need no sign-in even when hone has an API token
	// (/healthz, static assets, the sign-in page, the OpenAPI document).
	Open bool
	// Signed routes may also be reached with a signed link instead of a
	// sign-in (the !print downloads).
	Signed bool
	// JSON routes of the web UI answer errors as JSON, like the API.
	JSON bool
	// Members routes take a workshop member's own token as well as the
	// admin's; the others refuse it.
	Members bool
	// MaxBody, when set, bounds the route's request body instead of the
	// face's own limit (a file upload).
	MaxBody int64
	// Accepts are the media types the route's request body may have, for
	// CheckMediaType; nil means application/json only.
	Accepts []string
	// Fallback is set on the route Mux adds for what no other route serves:
	// it answers 404, or 405 with Allow, and changes nothing.
	Fallback bool
	// Doc documents a route of the JSON API for its OpenAPI document.
	Doc *Doc
}

// Pattern is the route's net/http pattern under prefix.
func (rt Route) Pattern(prefix string) string { return rt.Method + " " + prefix + rt.Path }

// Face is one HTTP face: its routes under a prefix, how it lets requests in
// and how it writes errors.
type Face struct {
	Prefix string
	Routes []Route
	// Guard runs before each route's handler: it checks who is calling,
	// puts their identity in the request's context and returns the request
	// to serve, or an error to answer instead. Nil lets everyone in as
	// hone.Local.
	Guard func(rt Route, w http.ResponseWriter, r *http.Request) (*http.Request, error)
	// Errors writes an error's body once WriteError has set the status.
	Errors Body
	// JSONErrors writes the body of errors of JSON routes; nil means Errors.
	JSONErrors Body
	// Log gets internal errors with their requests.
	Log Logger
	// What names what the face serves in its 404 and 405 messages, such as
	// "API endpoint" or "page".
	What string
	// Hosts, when not nil, are the only Host headers the face answers;
	// others get 403 before anything else runs.
	Hosts *Hosts
}

// Logger is the part of *slog.Logger faces use.
type Logger interface {
	ErrorContext(ctx context.Context, msg string, args ...any)
}

// Mux builds the face's handler: each route through Guard, and every other
// request under Prefix answered 405 with Allow when its path is served with
// other methods, else 404, by the face's own error writer.
func (f *Face) Mux() *http.ServeMux {
	mux := http.NewServeMux()
	for _, rt := range f.Routes {
		mux.Handle(rt.Pattern(f.Prefix), f.serve(rt))
	}
	fallback := f.Prefix + "/"
	mux.Handle(fallback, f.serve(Route{Fallback: true, Handler: func(w http.ResponseWriter, r *http.Request) error {
		what := f.What
		if what == "" {
			what = "page"
		}
		if allow := allowed(mux, r, fallback); len(allow) > 0 {
			w.Header().Set("Allow", strings.Join(allow, ", "))
			return hone.Errorf(hone.ENOTALLOWED, "the %s %s takes %s, not %s", what, r.URL.Path, strings.Join(allow, " or "), r.Method)
		}
		return hone.Errorf(hone.ENOTFOUND, "no %s %s %s", what, r.Method, r.URL.Path)
	}}))
	return mux
}

// methods are the request methods probed for the Allow header.
var methods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// allowed lists the methods whose routes serve r's path.
func allowed(mux *http.ServeMux, r *http.Request, fallback string) []string {
	var out []string
	for _, m := range methods {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := mux.Handler(probe); pattern != "" && pattern != fallback {
			out = append(out, m)
		}
	}
	return out
}

func (f *Face) serve(rt Route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := f.Errors
		if rt.JSON && f.JSONErrors != nil {
			body = f.JSONErrors
		}
		if p := r.URL.Path; strings.IndexByte(p, 0) >= 0 || !utf8.ValidString(p) {
			WriteError(w, r, f.Log, hone.Errorf(hone.ENOTFOUND, "nothing is at a path with a NUL character or bytes that are not UTF-8"), body)
			return
		}
		if !f.Hosts.Allow(r.Host) {
			WriteError(w, r, f.Log, errHost(r.Host), body)
			return
		}
		if f.Guard != nil {
			var err error
			if r, err = f.Guard(rt, w, r); err != nil {
				WriteError(w, r, f.Log, err, body)
				return
			}
		} else {
			r = r.WithContext(hone.WithIdentity(r.Context(), hone.Local))
		}
		if err := rt.Handler(w, r); err != nil {
			WriteError(w, r, f.Log, err, body)
		}
	})
}
