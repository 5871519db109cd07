package server

import (
	"io"
	"net/http"
	"strings"
	"time"
)

// RequestMeter is told of every request a face answered, for monitoring.
type RequestMeter interface {
	// ObserveRequest is told of one request: the face that answered it,
	// the route that served it (see Measure), its method, the status
	// answered and how long the answer took.
	ObserveRequest(face, route, method string, status int, d time.Duration)
}

// Measure returns h, the handler of the face named face, telling m of every
// request it answers. The route is the pattern of the route that served the
// request without its method ("/sessions/{id}"), never the path, so that a
// path's values (ids, tokens) stay out of what is counted; the face's
// fallback for what no route serves (404, 405) counts under its one pattern
// ("/api/v1/", "/"). A nil m measures nothing.
func Measure(face string, m RequestMeter, h http.Handler) http.Handler {
	if m == nil {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			m.ObserveRequest(face, routeOf(r.Pattern), r.Method, sw.Status(), time.Since(start))
		}()
		h.ServeHTTP(sw, r)
	})
}

// routeOf is a net/http pattern without its method: the route a request
// served under the pattern counts under.
func routeOf(pattern string) string {
	if _, path, ok := strings.Cut(pattern, " "); ok {
		return strings.TrimLeft(path, " ")
	}
	return pattern
}

// statusWriter notes the status a handler answers.
type statusWriter struct {
	http.ResponseWriter
	status int
}

// WriteHeader notes the first final status.
func (s *statusWriter) WriteHeader(code int) {
	if s.status == 0 && code >= 200 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(p []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(p)
}

// ReadFrom lets a file served go out as the underlying writer sends files.
func (s *statusWriter) ReadFrom(src io.Reader) (int64, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return io.Copy(s.ResponseWriter, src)
}

// Flush sends what is buffered to the client.
func (s *statusWriter) Flush() {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	_ = http.NewResponseController(s.ResponseWriter).Flush()
}

// Unwrap gives http.ResponseController the writer underneath.
func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// Status is the status answered: 200 when the handler wrote a body without
// one, and when it wrote nothing at all.
func (s *statusWriter) Status() int {
	if s.status == 0 {
		return http.StatusOK
	}
	return s.status
}
