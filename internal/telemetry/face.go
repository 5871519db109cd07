package telemetry

import (
	"log/slog"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/auth"
	"github.com/honehq/hone/internal/server"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Path is where the metrics are served.
const Path = "/metrics"

// FaceOptions are what the /metrics face needs beside the metrics.
type FaceOptions struct {
	// Auth requires the API token as a Bearer token when one is set, and
	// slows down guessing it; nil lets everyone in.
	Auth *auth.Auth
	// Hosts, when not nil, are the only hosts the face answers to.
	Hosts *server.Hosts
	// Browser answers a request that prefers HTML, without the token: a
	// person who opened the quality page's old address, /metrics, in a
	// browser. Nil answers it with the metrics too.
	Browser http.Handler
	Log     *slog.Logger
}

// errUnauthorized answers a scrape without the token.
var errUnauthorized = hone.Errorf(hone.EUNAUTHORIZED, "a valid Bearer token is required to read the metrics (HONE_API_TOKEN)")

// Handler serves the metrics at GET /metrics in the Prometheus text format,
// or OpenMetrics when the scraper asks for it, and a browser asking for
// HTML with o.Browser; to a host the face answers to, in both cases.
func (m *Metrics) Handler(o FaceOptions) http.Handler {
	if o.Log == nil {
		o.Log = slog.Default()
	}
	expose := promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{EnableOpenMetrics: true,
		ErrorLog: slog.NewLogLogger(o.Log.Handler(), slog.LevelWarn), ErrorHandling: promhttp.ContinueOnError})
	browser := func(r *http.Request) bool { return o.Browser != nil && PrefersHTML(r.Header.Get("Accept")) }
	return (&server.Face{
		Routes: []server.Route{{Method: http.MethodGet, Path: Path, Handler: func(w http.ResponseWriter, r *http.Request) error {
			if browser(r) {
				o.Browser.ServeHTTP(w, r)
			} else {
				expose.ServeHTTP(w, r)
			}
			return nil
		}}},
		Guard:  guard(o.Auth, browser),
		Errors: server.JSONBody,
		Log:    o.Log,
		What:   "metrics endpoint",
		Hosts:  o.Hosts,
	}).Mux()
}

// guard requires the API token, when one is set, as a Bearer token compared
// in constant time, of every request but a browser's; an address that
// presents a wrong one too often must wait, as on the API.
func guard(a *auth.Auth, browser func(*http.Request) bool) func(rt server.Route, w http.ResponseWriter, r *http.Request) (*http.Request, error) {
	return func(rt server.Route, w http.ResponseWriter, r *http.Request) (*http.Request, error) {
		id := hone.Local
		if browser(r) && !rt.Fallback {
			id = hone.Identity{Kind: hone.IdentityAnonymous}
		} else if a != nil && a.Enabled() {
			got, hasToken := server.BearerToken(r.Header.Get("Authorization"))
			if hasToken {
				if err := a.Attempts.Check(r); err != nil {
					return r, err
				}
			}
			if !hasToken || !a.CheckToken(got) {
				if hasToken {
					a.Attempts.Fail(r.Context(), r, "API token (metrics)")
				}
				w.Header().Set("WWW-Authenticate", `Bearer realm="hone"`)
				return r, errUnauthorized
			}
			id = hone.Admin
		}
		return r.WithContext(hone.WithIdentity(r.Context(), id)), nil
	}
}

// PrefersHTML reports whether an Accept header value ranks text/html above
// every format the metrics come in (text/plain, OpenMetrics), as a
// browser's does; wildcards count for neither, so */* (curl) and
// Prometheus' own header get the metrics.
func PrefersHTML(accept string) bool {
	var html, metrics float64
	for part := range strings.SplitSeq(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		q := 1.0
		if v, ok := params["q"]; ok {
			if q, err = strconv.ParseFloat(v, 64); err != nil {
				continue
			}
		}
		switch mt {
		case "text/html", "application/xhtml+xml":
			html = max(html, q)
		case "text/plain", "application/openmetrics-text":
			metrics = max(metrics, q)
		}
	}
	return html > 0 && html > metrics
}
