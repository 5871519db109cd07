package otlp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/score"
	"github.com/sethvargo/go-retry"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
)

// Outcomes of the scores an Exporter was given.
const (
	ExportSent    = "sent"
	ExportFailed  = "failed"
	ExportDropped = "dropped"
)

// ExportCounter counts what became of the scores an Exporter was given.
type ExportCounter interface {
	// ScoresExported is told that n scores were sent, failed (refused, or
	// still failing after the retries) or dropped (the queue was full).
	ScoresExported(outcome string, n int)
}

// ExporterOptions configure an Exporter.
type ExporterOptions struct {
	// URL is the OTLP/HTTP endpoint: its base URL, to which /v1/logs is
	// added, or the whole URL of its logs when it ends so.
	URL string
	// Headers are sent with every export (an API key of the endpoint).
	Headers map[string]string
	// Spans finds the trace context of the scores' turns.
	Spans Spans
	// Queue bounds the scores waiting to be sent (default 10,000); Batch
	// the scores of one export (default 512); Interval how long a score
	// waits for others to fill a batch (default 1s).
	Queue    int
	Batch    int
	Interval time.Duration
	// Backoff is the first wait before a retry, doubled at each (default
	// 500ms, capped at 30s); Retries how many retries an export gets
	// (default 5).
	Backoff time.Duration
	Retries uint64
	Client  *http.Client
	Counter ExportCounter
	Log     *slog.Logger
}

// Exporter pushes every score hone records to an OTLP endpoint as
// gen_ai.evaluation.result log records (see ScoreLogs), in batches,
// retried with backoff, off the request path: Enqueue never blocks, and
// what a full queue cannot take is dropped and counted.
type Exporter struct {
	o       ExporterOptions
	url     string
	queue   chan *score.Score
	stop    chan struct{}
	done    chan struct{}
	once    sync.Once
	started atomic.Bool
}

// ParseExportURL checks an export URL and returns the URL of its logs.
func ParseExportURL(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", hone.FieldError("HONE_OTLP_EXPORT_URL", "HONE_OTLP_EXPORT_URL %q is not an http(s) URL", raw)
	}
	if !strings.HasSuffix(u.Path, LogsPath) {
		u.Path = strings.TrimRight(u.Path, "/") + LogsPath
	}
	return u.String(), nil
}

// ParseHeaders reads headers given as OTEL_EXPORTER_OTLP_HEADERS gives
// them: key=value pairs separated by commas, the values URL-encoded.
func ParseHeaders(raw string) (map[string]string, error) {
	out := map[string]string{}
	for part := range strings.SplitSeq(raw, ",") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		k, v, ok := strings.Cut(part, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, hone.FieldError("HONE_OTLP_EXPORT_HEADERS", "HONE_OTLP_EXPORT_HEADERS must be key=value pairs separated by commas")
		}
		if dec, err := url.QueryUnescape(strings.TrimSpace(v)); err == nil {
			v = dec
		}
		out[k] = strings.TrimSpace(v)
	}
	return out, nil
}

// NewExporter returns an exporter to o.URL (see ParseExportURL), not
// started.
func NewExporter(o ExporterOptions) (*Exporter, error) {
	u, err := ParseExportURL(o.URL)
	if err != nil {
		return nil, err
	}
	if o.Queue <= 0 {
		o.Queue = 10_000
	}
	if o.Batch <= 0 {
		o.Batch = 512
	}
	if o.Interval <= 0 {
		o.Interval = time.Second
	}
	if o.Backoff <= 0 {
		o.Backoff = 500 * time.Millisecond
	}
	if o.Retries == 0 {
		o.Retries = 5
	}
	if o.Client == nil {
		o.Client = &http.Client{Timeout: 30 * time.Second}
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	return &Exporter{o: o, url: u, queue: make(chan *score.Score, o.Queue), stop: make(chan struct{}), done: make(chan struct{})}, nil
}

// Enqueue takes scores just recorded to send; it never blocks: what the
// queue has no room for is dropped and counted.
func (e *Exporter) Enqueue(scores []*score.Score) {
	dropped := 0
	for _, sc := range scores {
		select {
		case e.queue <- sc:
		default:
			dropped++
		}
	}
	if dropped > 0 {
		e.count(ExportDropped, dropped)
		e.o.Log.Warn("OTLP export queue full: scores dropped", "dropped", dropped)
	}
}

// Start sends in the background until Stop.
func (e *Exporter) Start() {
	if e.started.CompareAndSwap(false, true) {
		go e.run()
	}
}

// Stop sends what is queued, giving it a few seconds, and stops; an
// exporter never started just stops.
func (e *Exporter) Stop() {
	e.once.Do(func() { close(e.stop) })
	if e.started.Load() {
		<-e.done
	}
}

// stopGrace bounds the last export Stop makes.
const stopGrace = 5 * time.Second

func (e *Exporter) run() {
	defer close(e.done)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	batch := make([]*score.Score, 0, e.o.Batch)
	tick := time.NewTicker(e.o.Interval)
	defer tick.Stop()
	for {
		select {
		case sc := <-e.queue:
			batch = append(batch, sc)
			if len(batch) >= e.o.Batch {
				e.send(ctx, batch)
				batch = batch[:0]
			}
		case <-tick.C:
			if len(batch) > 0 {
				e.send(ctx, batch)
				batch = batch[:0]
			}
		case <-e.stop:
			last, cancel := context.WithTimeout(ctx, stopGrace)
			defer cancel()
			for {
				select {
				case sc := <-e.queue:
					batch = append(batch, sc)
					continue
				default:
				}
				break
			}
			for part := range slices.Chunk(batch, e.o.Batch) {
				e.send(last, part)
			}
			return
		}
	}
}

// send exports one batch, retrying what may succeed later.
func (e *Exporter) send(ctx context.Context, batch []*score.Score) {
	var ids []string
	for _, sc := range batch {
		if sc.TurnID != "" {
			ids = append(ids, sc.TurnID)
		}
	}
	slices.Sort(ids)
	spans, err := e.o.Spans.TurnSpans(ctx, slices.Compact(ids))
	if err != nil {
		e.o.Log.Warn("OTLP export: the turns' spans not found; the scores go without", "err", err)
		spans = nil
	}
	body, err := plogotlp.NewExportRequestFromLogs(ScoreLogs(batch, spans)).MarshalProto()
	if err != nil {
		e.o.Log.Error("OTLP export: encode", "err", err)
		e.count(ExportFailed, len(batch))
		return
	}
	b := retry.WithMaxRetries(e.o.Retries, retry.WithCappedDuration(30*time.Second, retry.NewExponential(e.o.Backoff)))
	err = retry.Do(ctx, b, func(ctx context.Context) error { return e.post(ctx, body) })
	if err != nil {
		e.o.Log.Warn("OTLP export failed: scores not sent", "scores", len(batch), "url", e.url, "err", err)
		e.count(ExportFailed, len(batch))
		return
	}
	e.count(ExportSent, len(batch))
}

// post sends one export; an error worth retrying is retryable.
func (e *Exporter) post(ctx context.Context, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", contentProtobuf)
	for k, v := range e.o.Headers {
		req.Header.Set(k, v)
	}
	resp, err := e.o.Client.Do(req)
	if err != nil {
		return retry.RetryableError(err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		out := plogotlp.NewExportResponse()
		if out.UnmarshalProto(answer) == nil && out.PartialSuccess().RejectedLogRecords() > 0 {
			e.o.Log.Warn("OTLP export: the endpoint rejected some scores", "rejected", out.PartialSuccess().RejectedLogRecords(),
				"message", out.PartialSuccess().ErrorMessage())
		}
		return nil
	case resp.StatusCode == http.StatusTooManyRequests, resp.StatusCode == http.StatusBadGateway,
		resp.StatusCode == http.StatusServiceUnavailable, resp.StatusCode == http.StatusGatewayTimeout:
		return retry.RetryableError(fmt.Errorf("status %d", resp.StatusCode))
	}
	return fmt.Errorf("status %d", resp.StatusCode)
}

func (e *Exporter) count(outcome string, n int) {
	if e.o.Counter != nil {
		e.o.Counter.ScoresExported(outcome, n)
	}
}
