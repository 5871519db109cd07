package telemetry

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/honehq/hone/internal/server"
)

// BenchmarkTurnHooks times what the metrics add to one POST /api/v1/turns:
// the request measured around its handler, the turn counted, a read and a
// write timed. Compare with the time of a turn in
// BenchmarkTelemetryCostSingle (internal/app).
func BenchmarkTurnHooks(b *testing.B) {
	m := New()
	h := server.Measure("api", m, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Pattern = "POST /api/v1/turns"
		m.TurnsRecorded("api", 1)
		m.ObserveDBCall("read", 100*time.Microsecond, false)
		m.ObserveDBCall("write", 300*time.Microsecond, false)
		w.WriteHeader(http.StatusCreated)
	}))
	req := httptest.NewRequest("POST", "/api/v1/turns", nil)
	w := httptest.NewRecorder()
	b.ReportAllocs()
	for b.Loop() {
		h.ServeHTTP(w, req)
	}
}
