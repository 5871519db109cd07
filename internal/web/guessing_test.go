package web_test

import (
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/honehq/hone/internal/logtest"
	"github.com/honehq/hone/internal/workshop"
)

// TestGuessingCredentialsIsLimited: the sign-in form, sign-in links, join
// links and signed download links each take a few wrong guesses from an
// address, then answer 429 with Retry-After, the right credential too,
// and log the refusal once without the value tried.
func TestGuessingCredentialsIsLimited(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		e := wsOpen(t, databaseURL, false, nil)
		ws := e.create("Alpha")
		var logged logtest.Buffer
		e.Auth.Attempts.SetLog(slog.New(slog.NewTextHandler(&logged, nil)))
		csrf := e.csrf()
		sessionID := e.postTurn("conv-guess", "hello")
		good, err := e.Links.ExportURL(t.Context(), sessionID, "csv")
		if err != nil {
			t.Fatal(err)
		}
		goodPath := strings.TrimPrefix(good, e.Links.Base())
		u, _ := url.Parse(good)
		q := u.Query()
		q.Set("sig", strings.Repeat("A", len(q.Get("sig"))))
		badPath := u.Path + "?" + q.Encode()
		var tried []string
		for _, c := range []struct {
			what       string
			wrong      func(i int) reply
			right      func() reply
			wrongState int
		}{
			{"the sign-in form", func(i int) reply {
				guess := "guess-" + strings.Repeat("x", i+10)
				tried = append(tried, guess)
				return e.do("POST", "/signin", url.Values{"token": {guess}, "csrf": {csrf.Value}}, nil, csrf)
			}, func() reply {
				return e.do("POST", "/signin", url.Values{"token": {signinToken}, "csrf": {csrf.Value}}, nil, csrf)
			}, http.StatusUnauthorized},
			{"sign-in links", func(i int) reply {
				guess := strings.Repeat("q", 30+i)
				tried = append(tried, guess)
				return e.get("/signin/" + guess)
			}, nil, http.StatusUnauthorized},
			{"join links", func(i int) reply {
				guess := "hw_" + strings.Repeat("z", 31) + string(rune('a'+i))
				tried = append(tried, guess)
				return e.get(workshop.JoinPath(ws.ID, guess))
			}, func() reply { return e.get(workshop.JoinPath(ws.ID, ws.Facilitator.Token)) }, http.StatusUnauthorized},
			{"download links", func(i int) reply { return e.get(badPath) }, func() reply { return e.get(goodPath) }, http.StatusForbidden},
		} {
			e.Auth.Attempts.SetLimits(3, time.Minute)
			for i := range 3 {
				if r := c.wrong(i); r.StatusCode != c.wrongState {
					t.Fatalf("%s: wrong guess %d answered %d, want %d", c.what, i+1, r.StatusCode, c.wrongState)
				}
			}
			r := c.wrong(3)
			if r.StatusCode != http.StatusTooManyRequests || r.Header.Get("Retry-After") == "" || !strings.Contains(r.body, "wait") {
				t.Errorf("%s: the 4th guess answered %d Retry-After %q, want 429 asking to wait", c.what, r.StatusCode, r.Header.Get("Retry-After"))
			}
			if c.right != nil {
				if r := c.right(); r.StatusCode != http.StatusTooManyRequests {
					t.Errorf("%s: the right credential while the address waits: %d, want 429", c.what, r.StatusCode)
				}
			}
		}
		log := logged.String()
		if n := strings.Count(log, "too many failed attempts"); n != 4 {
			t.Errorf("%d log lines for 4 bursts, want 4:\n%s", n, log)
		}
		for _, v := range append(tried, signinToken, q.Get("sig"), ws.Facilitator.Token) {
			if strings.Contains(log, v) {
				t.Fatalf("the log holds a value tried (%s):\n%s", v, log)
			}
		}
	})
}
