package suggest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/honehq/hone/internal/ndjson"
	"github.com/sethvargo/go-retry"
)

// SuggestionsPath is where a hone server takes suggestion records, below
// its base URL.
const SuggestionsPath = "/api/v1/suggestions"

// Defaults of HTTPOptions.
const (
	DefaultHTTPBatch        = 500
	DefaultFlushInterval    = time.Second
	DefaultHTTPBuffer       = 100_000
	DefaultCloseTimeout     = 30 * time.Second
	DefaultRequestTimeout   = 10 * time.Second
	DefaultRetryInitial     = 250 * time.Millisecond
	DefaultRetryMaxWait     = 30 * time.Second
	DefaultRetryMaxElapsed  = 5 * time.Minute
	retryJitterPercent      = 20
	maxAnswerBytes          = 8 << 20
	maxRetryAfterSeconds    = 1 << 31
	errorSnippetBytes       = 512
	keepPendingCapacity     = 1 << 16
	rejectionsInErrorString = 10
)

// MaxHTTPBatch is the most records a hone server takes in one request; a
// larger BatchSize is lowered to it.
const MaxHTTPBatch = ndjson.MaxBatchItems

// HTTPOptions configure an HTTP sink.
type HTTPOptions struct {
	// BaseURL is the hone server (http://localhost:8080); records go to
	// POST {BaseURL}/api/v1/suggestions. Required.
	BaseURL string
	// Token, when set, is sent as "Authorization: Bearer <token>".
	Token string
	// Client makes the requests (one with a DefaultRequestTimeout timeout
	// when nil).
	Client *http.Client
	// BatchSize is the most records in one request (DefaultHTTPBatch when
	// 0; at most MaxHTTPBatch, what a hone server takes in one request). A
	// full batch is sent at once.
	BatchSize int
	// FlushInterval is the longest a record waits for its batch to fill
	// (DefaultFlushInterval when 0): a partial batch is sent after it.
	FlushInterval time.Duration
	// Buffer bounds the records held, waiting or being sent, while the
	// server is slow or down (DefaultHTTPBuffer when 0); past it records
	// are dropped and counted (Dropped), the oldest kept.
	Buffer int
	// Redactor redacts each record before it leaves the process (in the
	// background); nil takes DefaultRedactor (API keys), and
	// NewRedactor() with no redactions sends records as they are.
	Redactor *Redactor
	// OnError is told, from the sink's goroutine, of each batch given up
	// on (*DeliveryError) and of the records the server refused
	// (*RejectedError); nil ignores them (they are still counted).
	OnError func(error)
	// RetryInitial is the first wait before a retry (DefaultRetryInitial
	// when 0); the waits double, with ±20% jitter, up to RetryMaxWait
	// (DefaultRetryMaxWait when 0). A Retry-After longer than the wait is
	// honoured.
	RetryInitial time.Duration
	RetryMaxWait time.Duration
	// RetryMaxElapsed bounds the time spent on one batch before it is
	// given up and counted Failed (DefaultRetryMaxElapsed when 0; negative:
	// retry until Close gives up).
	RetryMaxElapsed time.Duration
	// RetryMaxAttempts bounds the requests made for one batch (0: no bound
	// but RetryMaxElapsed).
	RetryMaxAttempts int
	// CloseTimeout bounds how long Close tries to deliver what is still
	// buffered (DefaultCloseTimeout when 0).
	CloseTimeout time.Duration
}

// HTTP is the sink that sends records to a hone server, in batches of
// NDJSON lines (one record a line) from a background goroutine, in the
// order they were sent. Send never waits: records are buffered while the
// server is slow or down, up to HTTPOptions.Buffer, and dropped and counted
// past it. Network errors and answers 408, 429 and 5xx are retried with
// exponential backoff and jitter, honouring Retry-After; other answers of
// 4xx give the batch up (Failed). Records the server refuses line by line
// are counted (Rejected) and not retried. The server deduplicates by
// record id, so a batch sent twice (an answer lost) is stored once.
type HTTP struct {
	opts       HTTPOptions
	endpoint   string
	ownsClient bool

	wake    chan struct{}
	closing chan struct{}
	done    chan struct{}
	ctx     context.Context
	cancel  context.CancelFunc

	mu       sync.Mutex
	pending  []*Record // from head on: waiting, in the order sent
	head     int
	inflight int       // records taken by the batch being sent
	oldest   time.Time // when pending last became non-empty
	closed   bool
	lastSize int

	sent, dropped, rejected, failed atomic.Int64
	closeOnce                       sync.Once
}

// NewHTTP starts an HTTP sink; Close delivers what is still buffered.
func NewHTTP(opts HTTPOptions) (*HTTP, error) {
	if opts.Redactor == nil {
		opts.Redactor = DefaultRedactor()
	}
	if opts.BaseURL == "" {
		return nil, errors.New("suggestion HTTP sink: no BaseURL")
	}
	u, err := url.Parse(opts.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("suggestion HTTP sink: BaseURL: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("suggestion HTTP sink: BaseURL %q is not an http(s) URL with a host", opts.BaseURL)
	}
	if strings.ContainsAny(opts.Token, "\r\n\x00") {
		return nil, errors.New("suggestion HTTP sink: the Token holds a line break or NUL")
	}
	u.Fragment, u.RawFragment = "", ""
	endpoint := u.JoinPath(SuggestionsPath).String()
	h := &HTTP{opts: opts, endpoint: endpoint}
	if h.opts.Client == nil {
		h.opts.Client = &http.Client{Timeout: DefaultRequestTimeout}
		h.ownsClient = true
	}
	if h.opts.BatchSize <= 0 {
		h.opts.BatchSize = DefaultHTTPBatch
	}
	if h.opts.FlushInterval <= 0 {
		h.opts.FlushInterval = DefaultFlushInterval
	}
	if h.opts.Buffer <= 0 {
		h.opts.Buffer = DefaultHTTPBuffer
	}
	h.opts.BatchSize = min(h.opts.BatchSize, h.opts.Buffer, MaxHTTPBatch)
	if h.opts.RetryInitial <= 0 {
		h.opts.RetryInitial = DefaultRetryInitial
	}
	if h.opts.RetryMaxWait <= 0 {
		h.opts.RetryMaxWait = DefaultRetryMaxWait
	}
	if h.opts.RetryMaxElapsed == 0 {
		h.opts.RetryMaxElapsed = DefaultRetryMaxElapsed
	}
	if h.opts.CloseTimeout <= 0 {
		h.opts.CloseTimeout = DefaultCloseTimeout
	}
	h.wake = make(chan struct{}, 1)
	h.closing = make(chan struct{})
	h.done = make(chan struct{})
	h.ctx, h.cancel = context.WithCancel(context.Background())
	go h.run()
	return h, nil
}

// Send buffers r for the sender, or counts it dropped when the buffer is
// full or the sink closed. It never waits on the network.
func (h *HTTP) Send(r *Record) {
	if r == nil {
		return
	}
	h.mu.Lock()
	n := len(h.pending) - h.head
	if h.closed || n+h.inflight >= h.opts.Buffer {
		h.mu.Unlock()
		h.dropped.Add(1)
		return
	}
	if n == 0 {
		h.oldest = time.Now()
	}
	h.pending = append(h.pending, r)
	n++
	h.mu.Unlock()
	// The sender re-reads the state after every wake-up, so a signal that
	// finds one already waiting is not needed.
	if n == 1 || n == h.opts.BatchSize {
		select {
		case h.wake <- struct{}{}:
		default:
		}
	}
}

// Sent counts the records the server took (stored, or already had).
func (h *HTTP) Sent() int64 { return h.sent.Load() }

// Dropped counts the records dropped because the buffer was full or the
// sink closed.
func (h *HTTP) Dropped() int64 { return h.dropped.Load() }

// Rejected counts the records the server refused (not retried).
func (h *HTTP) Rejected() int64 { return h.rejected.Load() }

// Failed counts the records not delivered: their batch was given up after
// its retries or on a 4xx answer, could not be encoded, or was still
// buffered when Close gave up.
func (h *HTTP) Failed() int64 { return h.failed.Load() }

// Close delivers what is buffered, waiting at most HTTPOptions.CloseTimeout,
// and releases the sink; see CloseContext.
func (h *HTTP) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), h.opts.CloseTimeout)
	defer cancel()
	return h.CloseContext(ctx)
}

// CloseContext stops taking records (those sent afterwards are dropped),
// sends what is buffered without waiting for FlushInterval, and when ctx
// ends first gives up the rest (counted Failed). It returns an error
// saying how many records were dropped, rejected or not delivered over
// the sink's life, if any were. Calling it again waits for the same end.
func (h *HTTP) CloseContext(ctx context.Context) error {
	h.closeOnce.Do(func() {
		h.mu.Lock()
		h.closed = true
		h.mu.Unlock()
		close(h.closing)
	})
	var cause error
	select {
	case <-h.done:
	case <-ctx.Done():
		select {
		case <-h.done:
		default:
			cause = context.Cause(ctx)
			h.cancel()
			<-h.done
		}
	}
	h.cancel()
	if h.ownsClient {
		h.opts.Client.CloseIdleConnections()
	}
	d, r, f := h.Dropped(), h.Rejected(), h.Failed()
	if d == 0 && r == 0 && f == 0 {
		return nil
	}
	err := fmt.Errorf("suggestion HTTP sink: %d records dropped (buffer full or sent after Close), %d rejected by the server, %d undelivered", d, r, f)
	if cause != nil && f > 0 {
		err = fmt.Errorf("%w (gave up at close: %w)", err, cause)
	}
	return err
}

// run sends the buffered records, batch after batch, until the sink is
// closed and empty or Close gives up.
func (h *HTTP) run() {
	defer close(h.done)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	batch := make([]*Record, 0, h.opts.BatchSize)
	for {
		if h.ctx.Err() != nil {
			h.abandon()
			return
		}
		h.mu.Lock()
		n, closed, due := len(h.pending)-h.head, h.closed, h.oldest.Add(h.opts.FlushInterval)
		h.mu.Unlock()
		if n == 0 {
			if closed {
				return
			}
			select {
			case <-h.wake:
			case <-h.closing:
			}
			continue
		}
		if n < h.opts.BatchSize && !closed {
			if wait := time.Until(due); wait > 0 {
				timer.Reset(wait)
				select {
				case <-h.wake:
				case <-h.closing:
				case <-timer.C:
				}
				timer.Stop()
				continue
			}
		}
		batch = h.take(batch[:0])
		h.deliver(batch)
		clear(batch)
		h.mu.Lock()
		h.inflight = 0
		h.mu.Unlock()
	}
}

// take moves the next batch out of pending.
func (h *HTTP) take(batch []*Record) []*Record {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := min(h.opts.BatchSize, len(h.pending)-h.head)
	batch = append(batch, h.pending[h.head:h.head+n]...)
	clear(h.pending[h.head : h.head+n])
	h.head += n
	h.inflight = n
	switch rest := len(h.pending) - h.head; {
	case rest == 0 && cap(h.pending) > keepPendingCapacity:
		h.pending, h.head = nil, 0
	case rest == 0:
		h.pending, h.head = h.pending[:0], 0
	case h.head > rest:
		copy(h.pending, h.pending[h.head:])
		clear(h.pending[rest:])
		h.pending, h.head = h.pending[:rest], 0
	}
	return batch
}

// abandon counts what is still buffered as failed, when Close gave up.
func (h *HTTP) abandon() {
	h.mu.Lock()
	n := len(h.pending) - h.head
	h.pending, h.head = nil, 0
	h.mu.Unlock()
	h.failed.Add(int64(n))
}

// answer is a hone server's answer to a batch.
type answer struct {
	Accepted   *int `json:"accepted"`
	Duplicates *int `json:"duplicates"`
	Errors     []struct {
		Line    int    `json:"line"`
		Field   string `json:"field"`
		Message string `json:"message"`
	} `json:"errors"`
	// ErrorsNotListed counts the records refused past the listed ones.
	ErrorsNotListed int `json:"errors_not_listed"`
}

// deliver sends one batch, retrying as the options say, and counts it.
func (h *HTTP) deliver(batch []*Record) {
	body, ids := h.encode(batch)
	if len(ids) == 0 {
		return
	}
	var ans answer
	var status int
	var retryAfter time.Duration
	err := retry.Do(h.ctx, h.backoff(&retryAfter), func(ctx context.Context) error {
		var err error
		ans, status, retryAfter, err = h.post(ctx, body)
		return err
	})
	if err != nil {
		h.failed.Add(int64(len(ids)))
		h.report(&DeliveryError{URL: h.endpoint, IDs: ids, StatusCode: status, Err: err})
		return
	}
	var rej []Rejection
	lines := map[int]bool{}
	for _, e := range ans.Errors {
		x := Rejection{Line: e.Line, Field: e.Field, Message: e.Message}
		if e.Line >= 1 && e.Line <= len(ids) {
			x.ID = ids[e.Line-1]
			lines[e.Line] = true
		}
		rej = append(rej, x)
	}
	refused := min(len(lines)+max(ans.ErrorsNotListed, 0), len(ids))
	h.rejected.Add(int64(refused))
	h.sent.Add(int64(len(ids) - refused))
	if len(rej) > 0 || ans.ErrorsNotListed > 0 {
		h.report(&RejectedError{Rejections: rej, NotListed: max(ans.ErrorsNotListed, 0)})
	}
	if ans.Accepted != nil {
		took := *ans.Accepted
		if ans.Duplicates != nil {
			took += *ans.Duplicates
		}
		if took != len(ids)-refused {
			h.report(fmt.Errorf("suggestion HTTP sink: %s counted %d records accepted or duplicate of %d sent with %d refused",
				h.endpoint, took, len(ids), refused))
		}
	}
}

func (h *HTTP) report(err error) {
	if h.opts.OnError != nil {
		h.opts.OnError(err)
	}
}

// encode redacts and encodes the batch as NDJSON, and returns the ids of
// its lines; a record that cannot be encoded is counted failed.
func (h *HTTP) encode(batch []*Record) ([]byte, []string) {
	// A new buffer each time: the transport may still read a request's
	// body after its answer came.
	buf := make([]byte, 0, h.lastSize+h.lastSize/4)
	ids := make([]string, 0, len(batch))
	for _, r := range batch {
		line, err := appendRecord(buf, r, h.opts.Redactor)
		if err != nil {
			h.failed.Add(1)
			h.report(&DeliveryError{URL: h.endpoint, IDs: []string{r.ID}, Err: fmt.Errorf("encode: %w", err)})
			continue
		}
		buf = line
		ids = append(ids, r.ID)
	}
	h.lastSize = min(len(buf), 64<<20)
	return buf, ids
}

// backoff is the waits between the requests for one batch: exponential
// with jitter, capped, bounded in attempts and time, and at least what
// the last answer's Retry-After asked.
func (h *HTTP) backoff(retryAfter *time.Duration) retry.Backoff {
	b := retry.NewExponential(h.opts.RetryInitial)
	b = retry.WithCappedDuration(h.opts.RetryMaxWait, b)
	b = retry.WithJitterPercent(retryJitterPercent, b)
	if h.opts.RetryMaxAttempts > 0 {
		b = retry.WithMaxRetries(uint64(h.opts.RetryMaxAttempts-1), b)
	}
	var deadline time.Time
	if h.opts.RetryMaxElapsed > 0 {
		deadline = time.Now().Add(h.opts.RetryMaxElapsed)
		b = retry.WithMaxDuration(h.opts.RetryMaxElapsed, b)
	}
	return retry.BackoffFunc(func() (time.Duration, bool) {
		wait, stop := b.Next()
		if stop {
			return 0, true
		}
		if ra := *retryAfter; ra > wait {
			if !deadline.IsZero() && time.Until(deadline) < ra {
				return 0, true // the server asks to wait past the budget
			}
			wait = ra
		}
		return wait, false
	})
}

// post makes one request. Errors worth retrying are marked so.
func (h *HTTP) post(ctx context.Context, body []byte) (ans answer, status int, retryAfter time.Duration, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.endpoint, bytes.NewReader(body))
	if err != nil {
		return ans, 0, 0, err
	}
	req.Header.Set("Content-Type", "application/x-ndjson")
	req.Header.Set("Accept", "application/json")
	if h.opts.Token != "" {
		req.Header.Set("Authorization", "Bearer "+h.opts.Token)
	}
	resp, err := h.opts.Client.Do(req)
	if err != nil {
		return ans, 0, 0, retry.RetryableError(err)
	}
	defer resp.Body.Close()
	data, rerr := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // so the connection can be reused
	status = resp.StatusCode
	switch {
	case status >= 200 && status < 300:
		if rerr != nil {
			// The server dedupes by id: sending again is safe.
			return ans, status, 0, retry.RetryableError(fmt.Errorf("read the answer (%s): %w", resp.Status, rerr))
		}
		if len(bytes.TrimSpace(data)) == 0 {
			return ans, status, 0, nil
		}
		if err := json.Unmarshal(data, &ans); err != nil {
			return ans, status, 0, retry.RetryableError(fmt.Errorf("answer %s not understood: %w: %s", resp.Status, err, snippet(data)))
		}
		return ans, status, 0, nil
	case status == http.StatusRequestTimeout || status == http.StatusTooManyRequests || status >= 500:
		return ans, status, parseRetryAfter(resp.Header.Get("Retry-After"), time.Now()),
			retry.RetryableError(fmt.Errorf("answer %s: %s", resp.Status, snippet(data)))
	default:
		return ans, status, 0, fmt.Errorf("answer %s: %s", resp.Status, snippet(data))
	}
}

// parseRetryAfter reads a Retry-After header, in seconds or as a date; 0
// when it has none.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil {
		return time.Duration(min(max(s, 0), maxRetryAfterSeconds)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0)
	}
	return 0
}

func snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > errorSnippetBytes {
		s = s[:errorSnippetBytes] + "…"
	}
	return s
}

// DeliveryError is what OnError is told of a batch the sink gave up on:
// after its retries, on an answer not worth retrying, or when Close gave
// up; or of a record that could not be encoded.
type DeliveryError struct {
	URL string
	// IDs are the records' ids, in the order sent.
	IDs []string
	// StatusCode is the server's last answer, 0 when none came.
	StatusCode int
	Err        error
}

func (e *DeliveryError) Error() string {
	which := ""
	switch len(e.IDs) {
	case 0:
	case 1:
		which = " " + e.IDs[0]
	default:
		which = fmt.Sprintf(" %s…%s", e.IDs[0], e.IDs[len(e.IDs)-1])
	}
	return fmt.Sprintf("suggestion HTTP sink: %d records%s not delivered to %s: %v", len(e.IDs), which, e.URL, e.Err)
}

func (e *DeliveryError) Unwrap() error { return e.Err }

// Rejection is one error the server found in a record: its line in the
// batch (from 1), the field and why.
type Rejection struct {
	ID      string
	Line    int
	Field   string
	Message string
}

// RejectedError is what OnError is told of the records of a batch the
// server refused; they are not sent again. A record with several errors
// has several rejections.
type RejectedError struct {
	Rejections []Rejection
	// NotListed counts the records the server refused past those it
	// listed (a hone server lists the first 100 of a request).
	NotListed int
}

func (e *RejectedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "suggestion HTTP sink: the server refused records:")
	for i, x := range e.Rejections {
		if i == rejectionsInErrorString {
			fmt.Fprintf(&b, "; and %d more", len(e.Rejections)-i)
			break
		}
		if i > 0 {
			b.WriteByte(';')
		}
		fmt.Fprintf(&b, " %s (line %d) %s: %s", x.ID, x.Line, x.Field, x.Message)
	}
	if e.NotListed > 0 {
		fmt.Fprintf(&b, "; and %d not listed by the server", e.NotListed)
	}
	return b.String()
}
