package llm

import (
	"context"
	"errors"
	"syscall"
	"time"
)

// Meter is told of every call a Client makes, for monitoring.
type Meter interface {
	// ObserveLLMCall is told of one call of purpose: its outcome (one of
	// Outcomes), how long it took with its retries, and the tokens the
	// provider counted.
	ObserveLLMCall(purpose, outcome string, d time.Duration, usage Usage)
}

// The outcomes of a call, as a Meter is told them.
const (
	// OutcomeOK is an answer the caller can use.
	OutcomeOK = "ok"
	// OutcomeCutOff is an answer cut off at its bound (finish_reason
	// "length"), whether or not the caller keeps it.
	OutcomeCutOff = "cut_off"
	// OutcomeInvalidOutput is a complete answer that does not match the
	// schema asked for.
	OutcomeInvalidOutput = "invalid_output"
	// OutcomeTimeout is an attempt or a call that ran out of time.
	OutcomeTimeout = "timeout"
	// OutcomeCancelled is a call its caller gave up on.
	OutcomeCancelled = "cancelled"
	// OutcomeRateLimited is a provider answering 429 to every attempt.
	OutcomeRateLimited = "rate_limited"
	// OutcomeAuth is a provider refusing the API key (401, 403).
	OutcomeAuth = "auth"
	// OutcomeRejected is a provider refusing the request (any other 4xx).
	OutcomeRejected = "rejected"
	// OutcomeProviderError is a provider failing (5xx) on every attempt.
	OutcomeProviderError = "provider_error"
	// OutcomeUnreachable is a provider hone could not reach: a name that
	// does not resolve, a refused or broken connection.
	OutcomeUnreachable = "unreachable"
	// OutcomeBadResponse is an answer that is not a Chat Completions
	// response, or has no choices.
	OutcomeBadResponse = "bad_response"
)

// Outcomes lists every outcome a Meter may be told.
var Outcomes = []string{OutcomeOK, OutcomeCutOff, OutcomeInvalidOutput, OutcomeTimeout, OutcomeCancelled, OutcomeRateLimited,
	OutcomeAuth, OutcomeRejected, OutcomeProviderError, OutcomeUnreachable, OutcomeBadResponse}

// SetMeter makes the client tell m of every call it makes; call it before
// the client is used.
func (c *Client) SetMeter(m Meter) { c.meter = m }

// measure tells the Meter of a call of req's purpose that began at start.
func (c *Client) measure(req Request, start time.Time, resp *Response, invalid bool, err error) {
	if c.meter == nil {
		return
	}
	var usage Usage
	if resp != nil {
		usage = resp.Usage
	}
	c.meter.ObserveLLMCall(req.Purpose, outcome(resp, invalid, err), time.Since(start), usage)
}

// outcome names how a call went: resp is its answer (nil when none came),
// invalid whether the answer failed the caller's check, err its error.
func outcome(resp *Response, invalid bool, err error) string {
	var oe *OutputError
	var ce *callError
	switch {
	case resp != nil && resp.CutOff(), errors.As(err, &oe) && oe.MaxTokens > 0:
		return OutcomeCutOff
	case err == nil && invalid, oe != nil:
		return OutcomeInvalidOutput
	case err == nil:
		return OutcomeOK
	case !errors.As(err, &ce):
		return OutcomeBadResponse
	case errors.Is(ce.cause, errAttemptTimeout), errors.Is(ce.cause, context.DeadlineExceeded):
		return OutcomeTimeout
	case errors.Is(ce.cause, context.Canceled):
		return OutcomeCancelled
	}
	switch s := ce.status; {
	case s == 401 || s == 403:
		return OutcomeAuth
	case s == 429:
		return OutcomeRateLimited
	case s >= 500:
		return OutcomeProviderError
	case s >= 400:
		return OutcomeRejected
	case isDNSError(ce.cause), errors.Is(ce.cause, syscall.ECONNREFUSED), isNetworkError(ce.cause):
		return OutcomeUnreachable
	}
	return OutcomeBadResponse
}
