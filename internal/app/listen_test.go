package app_test

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/app"
	"github.com/honehq/hone/internal/config"
)

// openAt opens hone, not listening yet, to serve addr with the token and
// NoAuth; the caller closes it.
func openAt(t *testing.T, addr, token string, noAuth bool) *app.App {
	t.Helper()
	a, err := app.Open(context.Background(), config.Config{Addr: addr, DataDir: t.TempDir(), APIToken: token, NoAuth: noAuth,
		MaxBodyBytes: 1 << 20}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestListenRefusesExposedAddressWithoutToken(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "192.0.2.1:0"} {
		a := openAt(t, addr, "", false)
		err := a.Listen()
		_ = a.Close()
		if err == nil {
			t.Errorf("Listen on %s without a token or NoAuth started", addr)
			continue
		}
		if hone.ErrorCode(err) == "" {
			t.Errorf("Listen on %s: %v is not a hone error a user reads", addr, err)
		}
		msg := hone.ErrorMessage(err)
		for _, want := range []string{"hone will not serve " + addr + " without sign-in", "other machines can reach that address",
			"Set HONE_API_TOKEN", "serve on localhost", "--no-auth"} {
			if !strings.Contains(msg, want) {
				t.Errorf("Listen on %s: %q lacks %q", addr, msg, want)
			}
		}
	}
}

func TestListenStarts(t *testing.T) {
	for _, tc := range []struct {
		addr   string
		token  string
		noAuth bool
	}{
		{"0.0.0.0:0", "listen-test-token", false},
		{"0.0.0.0:0", "", true},
		{":0", "", true},
		{":0", "listen-test-token", false},
		{"localhost:0", "", false},
		{"127.0.0.1:0", "", false},
	} {
		a := openAt(t, tc.addr, tc.token, tc.noAuth)
		if err := a.Listen(); err != nil {
			t.Errorf("Listen on %s (token %v, NoAuth %v): %v", tc.addr, tc.token != "", tc.noAuth, err)
			continue
		}
		client := &http.Client{Timeout: 10 * time.Second}
		resp, err := client.Get(a.URL() + "/healthz")
		if err != nil {
			t.Errorf("serving %s: %v", tc.addr, err)
		} else {
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("serving %s: GET /healthz = %d", tc.addr, resp.StatusCode)
			}
		}
		if err := a.Close(); err != nil {
			t.Errorf("Close %s: %v", tc.addr, err)
		}
	}
}

// TestListenRefusesWeakTokenBeyondLoopback: a token shorter than 16
// characters, or only white space, does not guard an address other machines
// reach; the refusal gives a fresh random token. On loopback any token goes.
func TestListenRefusesWeakTokenBeyondLoopback(t *testing.T) {
	for _, token := range []string{"short", "fifteen-chars-x", "                    ", "\t\n \u00a0\u2003\u3000\t\n \u00a0\u2003\u3000\t\n"} {
		a := openAt(t, "0.0.0.0:0", token, false)
		err := a.Listen()
		_ = a.Close()
		msg := hone.ErrorMessage(err)
		if err == nil || hone.ErrorField(err) != "HONE_API_TOKEN" || !strings.Contains(msg, "at least 16 characters") {
			t.Errorf("Listen on 0.0.0.0 with token %q: %v", token, err)
			continue
		}
		fresh := msg[strings.LastIndexByte(msg, ' ')+1:]
		if len(fresh) < 40 || strings.Contains(msg, token) && strings.TrimSpace(token) != "" {
			t.Errorf("the refusal does not give a fresh token, or repeats the weak one: %q", msg)
		}
	}
	for _, tc := range []struct{ addr, token string }{{"0.0.0.0:0", "sixteen-chars-xx"}, {"127.0.0.1:0", "short"}} {
		a := openAt(t, tc.addr, tc.token, false)
		if err := a.Listen(); err != nil {
			t.Errorf("Listen on %s with token %q: %v", tc.addr, tc.token, err)
		}
		_ = a.Close()
	}
}
