package server_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/server"
)

// request is one request a meter was told of.
type request struct {
	face, route, method string
	status              int
}

// meter keeps the requests it is told of.
type meter struct {
	mu   sync.Mutex
	seen []request
}

func (m *meter) ObserveRequest(face, route, method string, status int, d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if d <= 0 {
		panic("no duration")
	}
	m.seen = append(m.seen, request{face, route, method, status})
}

// TestMeasureCountsRoutesNotPaths: every request a face answers is counted
// under the pattern of the route that served it, never its path (which may
// hold ids and tokens), with the status answered; what no route serves
// counts under the face's fallback pattern.
func TestMeasureCountsRoutesNotPaths(t *testing.T) {
	f := &server.Face{Prefix: "/api", Errors: server.JSONBody, Hosts: server.NewHosts(), Routes: []server.Route{
		{Method: "GET", Path: "/sessions/{id}", Handler: func(w http.ResponseWriter, r *http.Request) error {
			if r.PathValue("id") == "missing" {
				return hone.Errorf(hone.ENOTFOUND, "no session")
			}
			return server.WriteJSON(w, http.StatusOK, map[string]string{"id": r.PathValue("id")})
		}},
		{Method: "POST", Path: "/links/{token}", Handler: func(w http.ResponseWriter, r *http.Request) error {
			w.WriteHeader(http.StatusAccepted)
			return nil
		}},
		{Method: "GET", Path: "/stream", Handler: func(w http.ResponseWriter, r *http.Request) error {
			w.(http.Flusher).Flush()
			_, err := io.WriteString(w, "part")
			return err
		}},
		{Method: "GET", Path: "/quiet", Handler: func(w http.ResponseWriter, r *http.Request) error { return nil }},
	}}
	m := &meter{}
	srv := httptest.NewServer(server.Measure("api", m, f.Mux()))
	defer srv.Close()
	for _, c := range []struct{ method, path, host string }{
		{"GET", "/api/sessions/s3cr3t-session", ""},
		{"GET", "/api/sessions/missing", ""},
		{"POST", "/api/links/tok-abcdef", ""},
		{"GET", "/api/stream", ""},
		{"GET", "/api/quiet", ""},
		{"GET", "/api/no/such/path-with-user-text", ""},
		{"DELETE", "/api/sessions/s3cr3t-session", ""},
		{"GET", "/api/sessions/s3cr3t-session", "evil.example"},
	} {
		req, _ := http.NewRequest(c.method, srv.URL+c.path, nil)
		if c.host != "" {
			req.Host = c.host
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
	want := []request{
		{"api", "/api/sessions/{id}", "GET", 200},
		{"api", "/api/sessions/{id}", "GET", 404},
		{"api", "/api/links/{token}", "POST", 202},
		{"api", "/api/stream", "GET", 200},
		{"api", "/api/quiet", "GET", 200},
		{"api", "/api/", "GET", 404},
		{"api", "/api/", "DELETE", 405},
		{"api", "/api/sessions/{id}", "GET", 403},
	}
	if !slices.Equal(m.seen, want) {
		t.Errorf("counted\n%v\nwant\n%v", m.seen, want)
	}
	for _, r := range m.seen {
		if strings.Contains(r.route, "s3cr3t") || strings.Contains(r.route, "tok-") || strings.Contains(r.route, "user-text") {
			t.Errorf("a route label holds a path's value: %v", r)
		}
	}
}
