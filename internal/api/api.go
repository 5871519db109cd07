// Package api serves hone's JSON API under /api/v1: the same domain calls the
// CLI, the web UI and the chat surfaces make, for applications to integrate with.
package api

import (
	"crypto/subtle"
	_ "embed"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/honehq/hone/internal/tuning"
)

// Prefix is where the API is mounted.
const Prefix = "/api/v1"

//go:embed openapi.json
var openAPI []byte

// API is the JSON API. Extra routes from later capabilities are added with Handle.
type API struct {
	Engine       *tuning.Engine
	Store        tuning.Store
	Token        string
	MaxBodyBytes int64
	Logger       *slog.Logger
	Now          func() time.Time

	mux *http.ServeMux
}

// New returns the API with its routes registered.
func New(engine *tuning.Engine, token string, maxBodyBytes int64, log *slog.Logger) *API {
	if log == nil {
		log = slog.Default()
	}
	a := &API{Engine: engine, Store: engine.Store(), Token: token, MaxBodyBytes: maxBodyBytes, Logger: log,
		Now: time.Now, mux: http.NewServeMux()}
	a.mux.HandleFunc("GET "+Prefix+"/openapi.json", a.openAPI)
	a.Handle("POST "+Prefix+"/turns", a.createTurn)
	a.Handle("POST "+Prefix+"/messages", a.createMessage)
	a.Handle("GET "+Prefix+"/sessions", a.listSessions)
	a.Handle("GET "+Prefix+"/sessions/{id}", a.getSession)
	a.Handle("GET "+Prefix+"/sessions/{id}/export.csv", a.exportCSV)
	a.Handle("GET "+Prefix+"/sessions/{id}/export.json", a.exportJSON)
	a.mux.HandleFunc(Prefix+"/", func(w http.ResponseWriter, r *http.Request) {
		a.authorized(func(w http.ResponseWriter, r *http.Request) {
			writeError(w, r, a.Logger, notFoundRoute(r))
		})(w, r)
	})
	return a
}

// Handle registers an authenticated, size-limited route.
func (a *API) Handle(pattern string, h http.HandlerFunc) {
	a.mux.HandleFunc(pattern, a.authorized(h))
}

// ServeHTTP serves the API.
func (a *API) ServeHTTP(w http.ResponseWriter, r *http.Request) { a.mux.ServeHTTP(w, r) }

// authorized requires the Bearer token when one is configured and bounds the body.
func (a *API) authorized(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if a.Token != "" {
			got, ok := bearerToken(r.Header.Get("Authorization"))
			if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(a.Token)) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="hone"`)
				writeError(w, r, a.Logger, errUnauthorized)
				return
			}
		}
		if r.Body != nil && a.MaxBodyBytes > 0 {
			r.Body = http.MaxBytesReader(w, r.Body, a.MaxBodyBytes)
		}
		h(w, r)
	}
}

// bearerToken returns the credentials of an Authorization header value of the
// Bearer scheme, whose name is case-insensitive (RFC 9110 section 11.1).
func bearerToken(header string) (string, bool) {
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimLeft(token, " "), true
}

func (a *API) openAPI(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(openAPI)
}
