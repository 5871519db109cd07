package auth_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/auth"
)

func TestThrottle(t *testing.T) {
	clk := newClock()
	var logged bytes.Buffer
	th := auth.NewThrottle(slog.New(slog.NewTextHandler(&logged, nil)), clk.Now)
	th.SetLimits(3, 10*time.Second)
	ctx := context.Background()
	req := httptest.NewRequest("GET", "/", nil)
	req.RemoteAddr = "203.0.113.7:51234"
	other := httptest.NewRequest("GET", "/", nil)
	other.RemoteAddr = "203.0.113.8:40000"
	samePort := httptest.NewRequest("GET", "/", nil)
	samePort.RemoteAddr = "203.0.113.7:60000"

	for i := range 3 {
		if err := th.Check(req); err != nil {
			t.Fatalf("attempt %d refused: %v", i+1, err)
		}
		th.Fail(ctx, req, "API token")
	}
	err := th.Check(req)
	var tooMany *auth.TooManyError
	if !errors.As(err, &tooMany) || hone.ErrorCode(err) != hone.ETOOMANY || tooMany.RetryAfter() != 10 {
		t.Fatalf("after 3 failures: %v, want too_many_requests with Retry-After 10", err)
	}
	if th.Check(samePort) == nil {
		t.Error("the same address from another port is let in")
	}
	if err := th.Check(other); err != nil {
		t.Errorf("another address is refused: %v", err)
	}
	clk.Add(4 * time.Second)
	if err := th.Check(req); !errors.As(err, &tooMany) || tooMany.RetryAfter() != 6 {
		t.Errorf("4s later: %v, want Retry-After 6", err)
	}
	clk.Add(6 * time.Second)
	if err := th.Check(req); err != nil {
		t.Errorf("10s later one more attempt is allowed: %v", err)
	}
	th.Fail(ctx, req, "API token")
	if th.Check(req) == nil {
		t.Error("after the earned attempt failed, the address is let in again")
	}
	if n := strings.Count(logged.String(), "too many failed attempts"); n != 1 {
		t.Errorf("%d log lines for one burst, want 1:\n%s", n, logged.String())
	}
	if !strings.Contains(logged.String(), "client=203.0.113.7") || !strings.Contains(logged.String(), `credential="API token"`) {
		t.Errorf("the log line does not say who and what: %s", logged.String())
	}

	// Rested (the allowance full again), the address is forgotten and a
	// new burst is logged anew.
	clk.Add(time.Minute)
	for range 3 {
		th.Fail(ctx, req, "sign-in link")
	}
	if n := strings.Count(logged.String(), "too many failed attempts"); n != 2 {
		t.Errorf("%d log lines after a second burst, want 2", n)
	}
	var none *auth.Throttle
	none.Fail(ctx, req, "x")
	if err := none.Check(req); err != nil {
		t.Errorf("a nil Throttle refuses: %v", err)
	}
}
