package telegram

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// ctxClient makes the client's requests under a context, so that stopping
// the adapter ends a long poll and a delivery's deadline bounds its calls.
type ctxClient struct {
	ctx context.Context
	c   tgbotapi.HTTPClient
}

func (c ctxClient) Do(r *http.Request) (*http.Response, error) { return c.c.Do(r.WithContext(c.ctx)) }

// with is the Bot API client making its calls under ctx.
func (a *Adapter) with(ctx context.Context) *tgbotapi.BotAPI {
	b := *a.api
	b.Client = ctxClient{ctx: ctx, c: a.api.Client}
	return &b
}

// retry runs do until it succeeds, ctx ends, or attempts (0: without end)
// are spent: a 429 waits its retry_after, a 5xx or a network failure the
// next backoff, doubled each time up to MaxBackoff. A refusal (4xx) is not
// retried.
func (a *Adapter) retry(ctx context.Context, what string, attempts int, do func(context.Context) error) error {
	wait := a.opts.MinBackoff
	for n := 1; ; n++ {
		err := do(ctx)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		pause, again := a.pause(err, wait)
		if !again || attempts > 0 && n >= attempts {
			a.log.Warn("telegram: could not "+what, "attempts", n, "err", a.redact(err))
			return a.scrub(err)
		}
		a.log.Info("telegram: retrying to "+what, "in", pause, "err", a.redact(err))
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		if pause == wait {
			wait = min(wait*2, a.opts.MaxBackoff)
		}
	}
}

// pause is how long to wait before trying a failed call again, and whether
// to.
func (a *Adapter) pause(err error, backoff time.Duration) (time.Duration, bool) {
	var te *tgbotapi.Error
	if !errors.As(err, &te) {
		return backoff, true
	}
	switch {
	case te.Code == http.StatusTooManyRequests:
		if te.RetryAfter > 0 {
			return time.Duration(te.RetryAfter) * time.Second, true
		}
		return backoff, true
	case te.Code >= 500 || te.Code == 0:
		return backoff, true
	}
	return 0, false
}

// redact is err's text without the token, which the Bot API's URLs carry.
func (a *Adapter) redact(err error) string {
	return strings.ReplaceAll(err.Error(), a.opts.Token, "<token>")
}

// scrub is err with the token taken out of its text.
func (a *Adapter) scrub(err error) error {
	if err == nil || !strings.Contains(err.Error(), a.opts.Token) {
		return err
	}
	return fmt.Errorf("%s", a.redact(err))
}

// request sends c, retried as retry says, up to Attempts times.
func (a *Adapter) request(ctx context.Context, what string, c tgbotapi.Chattable) error {
	return a.retry(ctx, what, a.opts.Attempts, func(ctx context.Context) error {
		_, err := a.with(ctx).Request(c)
		return err
	})
}
