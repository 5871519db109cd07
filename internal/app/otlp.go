package app

import (
	"strconv"
	"strings"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/otlp"
	"github.com/prometheus/client_golang/prometheus"
)

// otlpModule is hone's OpenTelemetry face: OTLP/HTTP exports of chat spans
// become turns and gen_ai.evaluation.result events scores, on hone's own
// listener under the API's token rule; and every score recorded is pushed
// to an OTLP endpoint when HONE_OTLP_EXPORT_URL names one.
var otlpModule = Module{
	Name: "opentelemetry",
	Env: [][2]string{
		{"HONE_OTLP_EXPORT_URL", "push every score recorded as an OpenTelemetry gen_ai.evaluation.result log record to this OTLP/HTTP endpoint (its base URL, /v1/logs added; protobuf, batched, retried)"},
		{"HONE_OTLP_EXPORT_HEADERS", "headers sent with each push to HONE_OTLP_EXPORT_URL, as key=value pairs separated by commas (as OTEL_EXPORTER_OTLP_HEADERS)"},
		{"HONE_OTLP_MAX_BODY_BYTES", "the largest OTLP export hone takes at /v1/traces and /v1/logs, decompressed, in bytes (default 16 MiB)"},
	},
	Open: openOTLP,
}

func openOTLP(c *Core) (*Parts, error) {
	m := newOTLPMetrics()
	for _, col := range []prometheus.Collector{m.ignored, m.exported} {
		if err := c.Telemetry.Register(col); err != nil {
			return nil, err
		}
	}
	var limit int64
	if s := strings.TrimSpace(c.Getenv("HONE_OTLP_MAX_BODY_BYTES")); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n <= 0 {
			return nil, hone.FieldError("HONE_OTLP_MAX_BODY_BYTES", "HONE_OTLP_MAX_BODY_BYTES %q is not a number of bytes", s)
		}
		limit = n
	}
	rec := &otlp.Receiver{Recorder: c.Turns, Turns: c.DB.Capture(), Scores: c.Scores, Counter: m}
	h := otlp.Handler(otlp.FaceOptions{Receiver: rec, Auth: c.Auth, Hosts: c.Hosts, MaxBodyBytes: limit, Log: c.Log})
	parts := &Parts{Faces: []Face{
		{Name: "otlp", Pattern: otlp.TracesPath, Handler: h},
		{Name: "otlp", Pattern: otlp.LogsPath, Handler: h},
	}}
	raw := strings.TrimSpace(c.Getenv("HONE_OTLP_EXPORT_URL"))
	if raw == "" {
		return parts, nil
	}
	headers, err := otlp.ParseHeaders(c.Getenv("HONE_OTLP_EXPORT_HEADERS"))
	if err != nil {
		return nil, err
	}
	exp, err := otlp.NewExporter(otlp.ExporterOptions{URL: raw, Headers: headers, Spans: c.DB.Capture(), Counter: m, Log: c.Log})
	if err != nil {
		return nil, err
	}
	c.Scores.OnCommit(exp.Enqueue)
	parts.Jobs = append(parts.Jobs, Job{Name: "OTLP score export", Start: exp.Start, Stop: exp.Stop})
	return parts, nil
}

// otlpMetrics are the OpenTelemetry face's own metrics.
type otlpMetrics struct {
	ignored  *prometheus.CounterVec
	exported *prometheus.CounterVec
}

func newOTLPMetrics() *otlpMetrics {
	return &otlpMetrics{
		ignored: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hone_otlp_ignored_total",
			Help: "Spans and log records exported to hone over OTLP that carried no chat exchange or evaluation, by kind (span, log_record)."}, []string{"kind"}),
		exported: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hone_otlp_scores_exported_total",
			Help: "Scores pushed to HONE_OTLP_EXPORT_URL, by outcome: sent, failed (refused or still failing after the retries), dropped (the queue was full)."}, []string{"outcome"}),
	}
}

// Ignored counts spans and log records that carried nothing hone records.
func (m *otlpMetrics) Ignored(kind string, n int) { m.ignored.WithLabelValues(kind).Add(float64(n)) }

// ScoresExported counts the scores pushed out, by outcome.
func (m *otlpMetrics) ScoresExported(outcome string, n int) {
	m.exported.WithLabelValues(outcome).Add(float64(n))
}
