package telemetry

import (
	"strconv"
	"time"

	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/llm"
	"github.com/honehq/hone/internal/score"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Metrics are one hone's metrics, in a registry of their own. The methods
// of a nil *Metrics count nothing.
type Metrics struct {
	reg *prometheus.Registry

	requests        *prometheus.CounterVec
	requestDuration *prometheus.HistogramVec
	turns           *prometheus.CounterVec
	scores          *prometheus.CounterVec
	llmCalls        *prometheus.CounterVec
	llmDuration     *prometheus.HistogramVec
	llmTokens       *prometheus.CounterVec
	dbDuration      *prometheus.HistogramVec
	dbUnavailable   *prometheus.CounterVec
}

// Bucket bounds of the latency histograms, in seconds.
var (
	requestBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}
	llmBuckets     = []float64{.1, .25, .5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300}
	dbBuckets      = []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}
)

// New returns metrics in a new registry, with the Go runtime's and the
// process's collectors.
func New() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hone_http_requests_total",
		Help: "HTTP requests answered, by face (api, web, metrics, …), route pattern, method and status code."},
		[]string{"face", "route", "method", "code"})
	m.requestDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "hone_http_request_duration_seconds",
		Help: "Time to answer an HTTP request, by face, route pattern and method.", Buckets: requestBuckets},
		[]string{"face", "route", "method"})
	m.turns = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hone_turns_recorded_total",
		Help: "Turns recorded (replays of a turn already recorded are not), by the turn's source: api (POST /api/v1/turns and /turns/batch, unless the turn says otherwise), chat (hone's chat playground), proxy, otlp, import."},
		[]string{"source"})
	m.scores = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hone_scores_recorded_total",
		Help: "Scores recorded, by source (chat, web, api, workshop, metric, llm, import, otlp) and data type (numeric, categorical, boolean, text)."},
		[]string{"source", "data_type"})
	m.llmCalls = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hone_llm_calls_total",
		Help: "LLM calls, by purpose and outcome (ok, cut_off, invalid_output, timeout, cancelled, rate_limited, auth, rejected, provider_error, unreachable, bad_response)."},
		[]string{"purpose", "outcome"})
	m.llmDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "hone_llm_call_duration_seconds",
		Help: "Time an LLM call took, its retries included, by purpose.", Buckets: llmBuckets},
		[]string{"purpose"})
	m.llmTokens = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hone_llm_tokens_total",
		Help: "Tokens of LLM calls as the provider counted them, by purpose and kind (prompt, completion)."},
		[]string{"purpose", "kind"})
	m.dbDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "hone_db_call_duration_seconds",
		Help:    "Time of a database call, by operation: read (a query, until its first rows) or write (a transaction, from the call to its commit, the wait for SQLite's writer included).",
		Buckets: dbBuckets}, []string{"op"})
	m.dbUnavailable = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hone_db_unavailable_total",
		Help: "Database calls that found the database down, timing out, locked or full, by operation; a request that makes one is answered 503."},
		[]string{"op"})
	m.reg.MustRegister(m.requests, m.requestDuration, m.turns, m.scores, m.llmCalls, m.llmDuration, m.llmTokens,
		m.dbDuration, m.dbUnavailable,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	for _, s := range turnSources {
		m.turns.WithLabelValues(s)
	}
	for _, p := range llm.Purposes {
		m.llmCalls.WithLabelValues(p, llm.OutcomeOK)
		m.llmTokens.WithLabelValues(p, "prompt")
		m.llmTokens.WithLabelValues(p, "completion")
	}
	for _, op := range dbOps {
		m.dbUnavailable.WithLabelValues(op)
	}
	return m
}

// Register adds a module's own collector to the registry; its metrics'
// names should start with hone_.
func (m *Metrics) Register(c prometheus.Collector) error {
	if m == nil {
		return nil
	}
	return m.reg.Register(c)
}

// ObserveRequest counts a request a face answered (server.RequestMeter).
func (m *Metrics) ObserveRequest(face, route, method string, status int, d time.Duration) {
	if m == nil {
		return
	}
	if route == "" {
		route = "(none)"
	}
	method = oneOf(method, httpMethods, "OTHER")
	m.requests.WithLabelValues(face, route, method, statusText(status)).Inc()
	m.requestDuration.WithLabelValues(face, route, method).Observe(d.Seconds())
}

// TurnsRecorded counts turns recorded (capture.Counter).
func (m *Metrics) TurnsRecorded(source string, n int) {
	if m == nil {
		return
	}
	m.turns.WithLabelValues(oneOf(source, turnSources, other)).Add(float64(n))
}

// ScoresRecorded counts n scores recorded from source ("chat", "web",
// "api", "workshop", "metric", "llm", "import") of a config of dataType
// ("numeric", "categorical", "boolean", "text"): the score capability's
// counter, which its domain package takes as an interface of its own,
// interface{ ScoresRecorded(source, dataType string, n int) }.
func (m *Metrics) ScoresRecorded(source, dataType string, n int) {
	if m == nil {
		return
	}
	m.scores.WithLabelValues(oneOf(source, scoreSources, other), oneOf(dataType, dataTypes, other)).Add(float64(n))
}

// ObserveLLMCall counts an LLM call (llm.Meter).
func (m *Metrics) ObserveLLMCall(purpose, outcome string, d time.Duration, usage llm.Usage) {
	if m == nil {
		return
	}
	purpose = oneOf(purpose, llm.Purposes, other)
	m.llmCalls.WithLabelValues(purpose, oneOf(outcome, llm.Outcomes, other)).Inc()
	m.llmDuration.WithLabelValues(purpose).Observe(d.Seconds())
	if usage.PromptTokens > 0 {
		m.llmTokens.WithLabelValues(purpose, "prompt").Add(float64(usage.PromptTokens))
	}
	if usage.CompletionTokens > 0 {
		m.llmTokens.WithLabelValues(purpose, "completion").Add(float64(usage.CompletionTokens))
	}
}

// ObserveDBCall counts a database call (storage.Meter).
func (m *Metrics) ObserveDBCall(op string, d time.Duration, unavailable bool) {
	if m == nil {
		return
	}
	op = oneOf(op, dbOps, other)
	m.dbDuration.WithLabelValues(op).Observe(d.Seconds())
	if unavailable {
		m.dbUnavailable.WithLabelValues(op).Inc()
	}
}

// other stands for a label value hone does not know.
const other = "other"

// The label values hone knows; a value outside them counts as other, so
// that no label ever carries what a client sent.
var (
	httpMethods  = []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}
	turnSources  = capture.Sources
	scoreSources = score.Sources
	dataTypes    = score.DataTypes
	dbOps        = []string{"read", "write"}
)

// oneOf is v when known holds it, else def.
func oneOf(v string, known []string, def string) string {
	for _, k := range known {
		if v == k {
			return k
		}
	}
	return def
}

// statusTexts are the status codes as label values, made once.
var statusTexts = func() []string {
	out := make([]string, 600)
	for i := range out {
		out[i] = strconv.Itoa(i)
	}
	return out
}()

// statusText is code as a label value.
func statusText(code int) string {
	if code >= 100 && code < len(statusTexts) {
		return statusTexts[code]
	}
	return other
}
