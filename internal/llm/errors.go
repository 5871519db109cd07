package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/honehq/hone"
)

// OutputError is returned when the model's answer is not one the caller
// can use: from Generate when it is not valid JSON matching the schema, even
// after one repair attempt; from any call but the chat's when the answer was
// cut off at its bound (finish_reason "length"), which gets no repair, as a
// second answer would run into the same bound. hone.ErrorCode gives
// hone.EUNAVAILABLE for it.
type OutputError struct {
	// Purpose is the Request.Purpose of the call.
	Purpose string
	// Raw is the model's last answer.
	Raw string
	// Problem says what is wrong with Raw.
	Problem string
	// MaxTokens is the bound the answer was cut off at; 0 when the answer
	// was complete but invalid.
	MaxTokens int
	// setting is the variable that sets the bound, "" when the code did.
	setting string
}

// Error implements the error interface.
func (e *OutputError) Error() string {
	if e.MaxTokens > 0 {
		return "llm: " + e.Problem
	}
	return "llm: invalid output: " + truncate(e.Problem, 500)
}

// Unwrap returns the user-facing *hone.Error.
func (e *OutputError) Unwrap() error {
	answer := "The LLM's answer"
	if e.Purpose != "" {
		answer = fmt.Sprintf("The LLM's answer for %s", e.Purpose)
	}
	if e.MaxTokens > 0 {
		fix := ""
		if e.setting != "" {
			fix = fmt.Sprintf(" raise %s, or", e.setting)
		}
		return hone.Errorf(hone.EUNAVAILABLE, "%s was cut off at its limit of %d tokens (finish_reason \"length\") before it was complete:%s check that the model's context window holds the prompt and the answer.", answer, e.MaxTokens, fix)
	}
	return hone.Errorf(hone.EUNAVAILABLE, "%s did not have the expected form, even after a repair attempt: %s", answer, truncate(e.Problem, 300))
}

// callError is a failed call: a user-facing *hone.Error plus the underlying
// cause, both reachable with errors.As and errors.Is. Its message never holds
// the API key.
type callError struct {
	herr   *hone.Error
	cause  error
	status int
	body   string
}

func (e *callError) Error() string   { return e.herr.Error() }
func (e *callError) Unwrap() []error { return []error{e.herr, e.cause} }

var errAttemptTimeout = errors.New("llm: attempt timed out")

func (c *Client) newError(code string, cause error, format string, args ...any) *callError {
	return &callError{herr: &hone.Error{Code: code, Message: c.scrub(fmt.Sprintf(format, args...))}, cause: cause}
}

func (c *Client) scrub(s string) string {
	if len(c.cfg.APIKey) >= 8 {
		s = strings.ReplaceAll(s, c.cfg.APIKey, "[redacted]")
	}
	return s
}

// where is the base URL without credentials or query, for messages.
func (c *Client) where() string {
	u, err := url.Parse(c.cfg.BaseURL)
	if err != nil {
		return "HONE_LLM_BASE_URL"
	}
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()
}

func (c *Client) cancelled(ctx context.Context) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return c.newError(hone.EUNAVAILABLE, ctx.Err(), "The LLM call ran past its deadline.")
	}
	return c.newError(hone.EUNAVAILABLE, ctx.Err(), "The LLM call was cancelled.")
}

func (c *Client) timedOut(stream bool) error {
	cause := fmt.Errorf("%w: %w", errAttemptTimeout, context.DeadlineExceeded)
	if stream {
		return c.newError(hone.EUNAVAILABLE, cause, "The LLM at %s sent nothing for %s (timeout): the model may be slow or overloaded; try again or raise %s.", c.where(), c.cfg.Timeout, EnvTimeout)
	}
	return c.newError(hone.EUNAVAILABLE, cause, "The LLM at %s did not answer within %s (timeout): the model may be slow or overloaded; try again or raise %s.", c.where(), c.cfg.Timeout, EnvTimeout)
}

func (c *Client) failure(err error, at *attempt, attempts int, model string) error {
	tries := ""
	if attempts > 1 {
		tries = fmt.Sprintf(" after %d attempts", attempts)
	}
	detail := ""
	if m := providerMessage(at.body); m != "" {
		detail = " The provider said: " + truncate(m, 300)
	}
	var e *callError
	switch s := at.status; {
	case s == 401 || s == 403:
		e = c.newError(hone.EUNAVAILABLE, err, "The LLM provider at %s refused the API key (HTTP %d): check %s.%s", c.where(), s, EnvAPIKey, detail)
	case s == 404:
		e = c.newError(hone.EUNAVAILABLE, err, "The LLM provider at %s answered 404 Not Found for model %q: check %s (the model name) and %s (usually ends in /v1).%s", c.where(), model, EnvModel, EnvBaseURL, detail)
	case s == 429:
		e = c.newError(hone.EUNAVAILABLE, err, "The LLM provider at %s is rate limiting requests (HTTP 429)%s: wait and try again, or check the quota of the account behind %s.%s", c.where(), tries, EnvAPIKey, detail)
	case s >= 500:
		e = c.newError(hone.EUNAVAILABLE, err, "The LLM provider at %s failed (HTTP %d)%s: try again later.%s", c.where(), s, tries, detail)
	case s >= 400:
		e = c.newError(hone.EUNAVAILABLE, err, "The LLM provider at %s rejected the request (HTTP %d): check %s and %s.%s", c.where(), s, EnvModel, EnvBaseURL, detail)
	case s == 0 && isDNSError(err):
		e = c.newError(hone.EUNAVAILABLE, err, "Could not find the LLM host of %s: check %s.", c.where(), EnvBaseURL)
	case s == 0 && errors.Is(err, syscall.ECONNREFUSED):
		e = c.newError(hone.EUNAVAILABLE, err, "Could not connect to the LLM at %s (connection refused)%s: check %s and that the server is running.", c.where(), tries, EnvBaseURL)
	case s == 0 && isNetworkError(err):
		e = c.newError(hone.EUNAVAILABLE, err, "Could not reach the LLM at %s%s (%s): check %s and the network.", c.where(), tries, netReason(err), EnvBaseURL)
	case errors.Is(err, errNoChoices):
		e = c.newError(hone.EUNAVAILABLE, err, "The LLM at %s returned no answer (no choices).", c.where())
	default:
		e = c.newError(hone.EUNAVAILABLE, err, "The LLM at %s did not answer like an OpenAI-compatible Chat Completions API: check %s.", c.where(), EnvBaseURL)
	}
	e.status = at.status
	e.body = c.scrub(string(at.body))
	return e
}

var errNoChoices = errors.New("llm: response has no choices")

func isDNSError(err error) bool {
	var dns *net.DNSError
	return errors.As(err, &dns)
}

func isNetworkError(err error) bool {
	var op *net.OpError
	var ue *url.Error
	return errors.As(err, &op) || errors.As(err, &ue) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

func netReason(err error) string {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return op.Err.Error()
	}
	for u := errors.Unwrap(err); u != nil; u = errors.Unwrap(u) {
		err = u
	}
	return truncate(err.Error(), 200)
}

// providerMessage extracts the message from an error body such as
// {"error":{"message":"..."}} or {"error":"..."}.
func providerMessage(body []byte) string {
	if len(body) == 0 {
		return ""
	}
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(body, &v) == nil {
		var obj struct {
			Message string `json:"message"`
		}
		var s string
		switch {
		case json.Unmarshal(v.Error, &obj) == nil && obj.Message != "":
			return obj.Message
		case json.Unmarshal(v.Error, &s) == nil && s != "":
			return s
		case v.Message != "":
			return v.Message
		}
		return ""
	}
	text := strings.TrimSpace(string(body))
	if strings.HasPrefix(text, "<") {
		return ""
	}
	return text
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func ms(d time.Duration) float64 {
	return float64(d.Microseconds()) / 1000
}
