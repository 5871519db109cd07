package teams

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/sethvargo/go-retry"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

const (
	maxRetryAfter   = 2 * time.Minute
	maxAnswerBytes  = 1 << 20
	errorSnippetLen = 200
)

// connector posts activities to the Bot Connector of a conversation's
// serviceUrl, with the app's client-credentials token (none in NoAuth),
// retrying 429 and 5xx answers with backoff that honours Retry-After.
type connector struct {
	client *http.Client
	// retryInitial is the first wait; attempts bounds the tries.
	retryInitial time.Duration
	retryMax     time.Duration
	attempts     uint64
}

func newConnector(ctx context.Context, cfg Config, base *http.Client) *connector {
	c := &connector{client: base, retryInitial: 500 * time.Millisecond, retryMax: 30 * time.Second, attempts: 6}
	if cfg.NoAuth {
		return c
	}
	cc := clientcredentials.Config{
		ClientID:     cfg.AppID,
		ClientSecret: cfg.AppPassword,
		TokenURL:     cfg.tokenURL(),
		Scopes:       []string{ConnectorScope},
		AuthStyle:    oauth2.AuthStyleInParams,
	}
	tokenCtx := context.WithValue(ctx, oauth2.HTTPClient, base)
	c.client = &http.Client{
		Timeout:   base.Timeout,
		Transport: &oauth2.Transport{Source: cc.TokenSource(tokenCtx), Base: base.Transport},
	}
	return c
}

// reply posts a to the conversation in answer to the activity replyTo and
// returns the id the connector gave it.
func (c *connector) reply(ctx context.Context, serviceURL, conversationID, replyTo string, a *activity) (string, error) {
	u := endpoint(serviceURL, "v3/conversations", conversationID, "activities", replyTo)
	return c.post(ctx, u, a)
}

// send posts a to the conversation, proactively.
func (c *connector) send(ctx context.Context, serviceURL, conversationID string, a *activity) (string, error) {
	u := endpoint(serviceURL, "v3/conversations", conversationID, "activities")
	return c.post(ctx, u, a)
}

func endpoint(serviceURL string, parts ...string) string {
	var b strings.Builder
	b.WriteString(strings.TrimRight(serviceURL, "/"))
	for i, p := range parts {
		b.WriteByte('/')
		if i == 0 {
			b.WriteString(p)
		} else {
			b.WriteString(url.PathEscape(p))
		}
	}
	return b.String()
}

func (c *connector) post(ctx context.Context, u string, a *activity) (string, error) {
	body, err := json.Marshal(a)
	if err != nil {
		return "", err
	}
	var id string
	var retryAfter time.Duration
	err = retry.Do(ctx, c.backoff(&retryAfter), func(ctx context.Context) error {
		var err error
		id, retryAfter, err = c.postOnce(ctx, u, body)
		return err
	})
	return id, err
}

func (c *connector) backoff(retryAfter *time.Duration) retry.Backoff {
	b := retry.NewExponential(c.retryInitial)
	b = retry.WithCappedDuration(c.retryMax, b)
	b = retry.WithJitterPercent(20, b)
	b = retry.WithMaxRetries(c.attempts-1, b)
	return retry.BackoffFunc(func() (time.Duration, bool) {
		wait, stop := b.Next()
		if stop {
			return 0, true
		}
		return max(wait, *retryAfter), false
	})
}

func (c *connector) postOnce(ctx context.Context, u string, body []byte) (string, time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return "", 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.client.Do(req)
	if err != nil {
		return "", 0, retry.RetryableError(fmt.Errorf("teams: post to the Bot Connector: %w", err))
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes))
	switch s := resp.StatusCode; {
	case s >= 200 && s < 300:
		var rr resourceResponse
		_ = json.Unmarshal(data, &rr)
		return rr.ID, 0, nil
	case s == http.StatusTooManyRequests || s == http.StatusServiceUnavailable || s == http.StatusBadGateway || s == http.StatusGatewayTimeout || s == http.StatusInternalServerError:
		return "", parseRetryAfter(resp.Header.Get("Retry-After"), time.Now()),
			retry.RetryableError(fmt.Errorf("teams: the Bot Connector answered %s: %s", resp.Status, snippet(data)))
	default:
		return "", 0, fmt.Errorf("teams: the Bot Connector answered %s: %s", resp.Status, snippet(data))
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
		return min(max(time.Duration(s)*time.Second, 0), maxRetryAfter)
	}
	if t, err := http.ParseTime(v); err == nil {
		return min(max(t.Sub(now), 0), maxRetryAfter)
	}
	return 0
}

func snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > errorSnippetLen {
		s = s[:errorSnippetLen] + "…"
	}
	return s
}
