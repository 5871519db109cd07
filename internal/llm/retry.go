package llm

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

const (
	maxBackoff    = 30 * time.Second
	maxRetryAfter = 2 * time.Minute
)

// attemptTimer cancels an attempt's context when the attempt, or for a
// stream the wait for the next chunk, takes longer than the timeout.
type attemptTimer struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	timer  *time.Timer
	d      time.Duration
}

func newAttemptTimer(parent context.Context, d time.Duration) *attemptTimer {
	ctx, cancel := context.WithCancelCause(parent)
	return &attemptTimer{ctx: ctx, cancel: cancel, d: d, timer: time.AfterFunc(d, func() { cancel(errAttemptTimeout) })}
}

func (a *attemptTimer) touch() { a.timer.Reset(a.d) }

// stop ends the attempt and reports whether it timed out.
func (a *attemptTimer) stop() bool {
	a.timer.Stop()
	a.cancel(context.Canceled)
	return errors.Is(context.Cause(a.ctx), errAttemptTimeout)
}

// retryable reports whether a failed attempt may succeed when repeated:
// HTTP 408, 429 and 5xx, and network errors other than DNS failures.
func retryable(err error, at *attempt) bool {
	switch {
	case at.header.Get("x-should-retry") == "false":
		return false
	case at.status == http.StatusRequestTimeout, at.status == http.StatusTooManyRequests, at.status >= 500:
		return true
	case at.status == 0:
		return isNetworkError(err) && !isDNSError(err)
	}
	return false
}

// backoff returns the wait before retry n (0 for the first retry): the
// provider's Retry-After when given, else exponential backoff with jitter.
// It returns false when the provider asks to wait longer than maxRetryAfter.
func (c *Client) backoff(n int, h http.Header) (time.Duration, bool) {
	if d, ok := retryAfter(h, time.Now()); ok {
		return d, d <= maxRetryAfter
	}
	d := c.cfg.RetryBaseDelay << min(n, 30)
	if d <= 0 || d > maxBackoff {
		d = maxBackoff
	}
	half := d / 2
	return half + rand.N(half+1), true
}

// retryAfter reads retry-after-ms, then Retry-After in seconds or as an
// HTTP date.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if f, err := strconv.ParseFloat(v, 64); err == nil && f >= 0 {
			return seconds(f / 1000), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil && f >= 0 {
		return seconds(f), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

func seconds(f float64) time.Duration {
	if f > (24 * time.Hour).Seconds() {
		return 24 * time.Hour
	}
	return time.Duration(f * float64(time.Second))
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
