package api_test

import (
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/honehq/hone/internal/config"
	"github.com/honehq/hone/internal/logtest"
)

// TestGuessingTokensIsLimited: a client address that presents wrong Bearer
// tokens (the admin's or a member's) 20 times is answered 429 with
// Retry-After, the right token included, until it waited; the refusal is
// logged once, without any value tried.
func TestGuessingTokensIsLimited(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		cfg.APIToken = "the-real-token-0123456789"
		s := start(t, cfg)
		var logged logtest.Buffer
		s.app.Auth.Attempts.SetLog(slog.New(slog.NewTextHandler(&logged, nil)))
		var guesses []string
		for i := range 25 {
			guess := fmt.Sprintf("guess-%02d-abcdefghijklmnop", i)
			if i%2 == 1 {
				guess = fmt.Sprintf("hw_%032d", i)
			}
			guesses = append(guesses, guess)
			res, b := s.send("GET", "/sessions", "", http.Header{"Authorization": {"Bearer " + guess}})
			want := http.StatusUnauthorized
			if i >= 20 {
				want = http.StatusTooManyRequests
			}
			if res.StatusCode != want {
				t.Fatalf("guess %d: %d %s, want %d", i+1, res.StatusCode, b, want)
			}
			if want == http.StatusTooManyRequests {
				if errorOf(t, b).Code != "too_many_requests" || res.Header.Get("Retry-After") == "" {
					t.Errorf("guess %d: %s Retry-After %q", i+1, b, res.Header.Get("Retry-After"))
				}
				checkAnswer(t, confDoc(t), "GET", "/sessions", res, b)
			}
		}
		if res, b := s.send("GET", "/sessions", "", http.Header{"Authorization": {"Bearer " + cfg.APIToken}}); res.StatusCode != http.StatusTooManyRequests {
			t.Errorf("the right token while the address waits: %d %s, want 429", res.StatusCode, b)
		}
		// Asking without a token is no guess.
		if res, _ := s.send("GET", "/openapi.json", "", nil); res.StatusCode != http.StatusOK {
			t.Errorf("GET /openapi.json without a token while the address waits: %d", res.StatusCode)
		}
		log := logged.String()
		if n := strings.Count(log, "too many failed attempts"); n != 1 {
			t.Errorf("%d log lines for one burst, want 1:\n%s", n, log)
		}
		for _, g := range append(guesses, cfg.APIToken) {
			if strings.Contains(log, g) {
				t.Fatalf("the log holds a value tried: %s", log)
			}
		}
	})
}
