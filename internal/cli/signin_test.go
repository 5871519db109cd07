package cli

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/auth"
	"github.com/honehq/hone/internal/logtest"
	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/storage/storagetest"
)

// clearSignInEnv makes the environment hold none of the settings these
// tests give, so that they come from flags alone.
func clearSignInEnv(t *testing.T) {
	for _, name := range []string{"HONE_API_TOKEN", "HONE_ADDR", "HONE_PUBLIC_URL", "HONE_DATABASE_URL", "HONE_DATA_DIR",
		"HONE_PROMPT_FILE", "HONE_METRICS_FILE"} {
		t.Setenv(name, "")
	}
}

var servingURL = regexp.MustCompile(`msg="hone is serving" url=(\S+) .*sign_in=(true|false)`)

// serveBriefly runs hone with args until it says it is serving, checks that
// GET / asks to sign in exactly when wantSignIn, stops it and requires a
// clean exit.
func serveBriefly(t *testing.T, wantSignIn bool, args ...string) {
	t.Helper()
	defer slog.SetDefault(slog.Default())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout bytes.Buffer
	stderr := &logtest.Buffer{}
	done := make(chan int, 1)
	go func() {
		done <- Execute(ctx, append([]string{"--log-level", "info"}, args...), strings.NewReader(""), &stdout, stderr)
	}()
	var m []string
	for deadline := time.Now().Add(20 * time.Second); m == nil; {
		select {
		case code := <-done:
			t.Fatalf("hone %s stopped (exit %d) instead of serving:\n%s", strings.Join(args, " "), code, stderr)
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("hone %s did not say it serves:\n%s", strings.Join(args, " "), stderr)
		}
		m = servingURL.FindStringSubmatch(stderr.String())
	}
	if got := m[2] == "true"; got != wantSignIn {
		t.Errorf("hone %s serves with sign_in=%s", strings.Join(args, " "), m[2])
	}
	client := &http.Client{Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(m[1] + "/")
	if err != nil {
		t.Fatalf("GET %s/: %v", m[1], err)
	}
	resp.Body.Close()
	if wantSignIn && (resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/signin")) {
		t.Errorf("GET / with a token = %d to %q, want the sign-in page", resp.StatusCode, resp.Header.Get("Location"))
	}
	if !wantSignIn && resp.StatusCode != http.StatusOK {
		t.Errorf("GET / without a token = %d, want 200", resp.StatusCode)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("hone %s exited %d when stopped:\n%s", strings.Join(args, " "), code, stderr)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("hone %s did not stop", strings.Join(args, " "))
	}
}

func TestServeRefusesExposedAddressWithoutToken(t *testing.T) {
	clearSignInEnv(t)
	dir := t.TempDir()
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "192.0.2.1:0"} {
		code, out, errOut := run(t, "--data-dir", dir, "--log-level", "error", "serve", "--addr", addr)
		if code == 0 {
			t.Errorf("serve --addr %s without a token started", addr)
			continue
		}
		for _, want := range []string{"hone will not serve " + addr + " without sign-in", "other machines can reach",
			"HONE_API_TOKEN", "--no-auth", "localhost"} {
			if !strings.Contains(errOut, want) {
				t.Errorf("serve --addr %s: stderr %q lacks %q", addr, errOut, want)
			}
		}
		if strings.Contains(errOut, "hone is serving") || out != "" {
			t.Errorf("serve --addr %s wrote %q %q", addr, out, errOut)
		}
	}
}

func TestServeStarts(t *testing.T) {
	for _, tc := range []struct {
		name  string
		token string
		args  []string
	}{
		{"every interface with a token", "serve-test-token", []string{"--addr", "0.0.0.0:0"}},
		{"every interface with --no-auth", "", []string{"--addr", "0.0.0.0:0", "--no-auth"}},
		{"empty host with --no-auth", "", []string{"--addr", ":0", "--no-auth"}},
		{"localhost without a token", "", []string{"--addr", "localhost:0"}},
		{"127.0.0.1 without a token", "", []string{"--addr", "127.0.0.1:0"}},
		{"127.0.0.1 with a token", "serve-test-token", []string{"--addr", "127.0.0.1:0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clearSignInEnv(t)
			t.Setenv("HONE_API_TOKEN", tc.token)
			serveBriefly(t, tc.token != "", append([]string{"--data-dir", t.TempDir(), "serve"}, tc.args...)...)
		})
	}
}

// testDatabase is a database the commands use: its flags (a data directory,
// or a fresh PostgreSQL schema) and the DSN that opens it in the test.
type testDatabase struct {
	flags []string
	dsn   string
}

func (d testDatabase) open(t *testing.T) *storage.DB {
	t.Helper()
	db, err := storage.Open(context.Background(), d.dsn, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db
}

// eachTestDatabase runs fn on a SQLite data directory, and on PostgreSQL
// when HONE_TEST_DATABASE_URL is set.
func eachTestDatabase(t *testing.T, fn func(t *testing.T, d testDatabase)) {
	t.Run("sqlite", func(t *testing.T) {
		dir := t.TempDir()
		fn(t, testDatabase{flags: []string{"--data-dir", dir}, dsn: filepath.Join(dir, "hone.db")})
	})
	if url := os.Getenv(storagetest.PostgresURLEnv); url != "" {
		t.Run("postgres", func(t *testing.T) {
			dsn := storagetest.SchemaURL(t, url)
			fn(t, testDatabase{flags: []string{"--database-url", dsn}, dsn: dsn})
		})
	}
}

// lastLine is the last line of out, which must end with a newline.
func lastLine(t *testing.T, out string) string {
	t.Helper()
	if !strings.HasSuffix(out, "\n") {
		t.Fatalf("output %q does not end with a newline", out)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	return lines[len(lines)-1]
}

func TestLoginLink(t *testing.T) {
	eachTestDatabase(t, func(t *testing.T, d testDatabase) {
		const token = "login-link-token"
		for _, tc := range []struct {
			name   string
			env    map[string]string
			args   []string
			want   string
			stderr string
			server string
		}{
			{"public URL flag", nil, []string{"--public-url", "https://hone.example/"}, "https://hone.example/signin/", "", ""},
			{"public URL with a path", nil, []string{"--public-url", "https://example.com/hone"}, "https://example.com/hone/signin/", "", ""},
			{"HONE_PUBLIC_URL", map[string]string{"HONE_PUBLIC_URL": "https://env.example"}, nil, "https://env.example/signin/", "", ""},
			{"address flag", nil, []string{"--addr", "127.0.0.1:9999"}, "http://127.0.0.1:9999/signin/", "", ""},
			{"HONE_ADDR", map[string]string{"HONE_ADDR": "hone.internal:8181"}, nil, "http://hone.internal:8181/signin/", "", ""},
			{"default address, no server yet", nil, nil, "http://localhost:8080/signin/", "no hone server has started on this database yet", ""},
			{"the server that started last", nil, nil, "http://localhost:9123/signin/", "Using http://localhost:9123, where the hone server that started last", "http://localhost:9123"},
			{"an address given wins over the server's", nil, []string{"--addr", "127.0.0.1:9999"}, "http://127.0.0.1:9999/signin/", "", "http://localhost:9123"},
			{"every interface", nil, []string{"--addr", "0.0.0.0:8080"}, "http://localhost:8080/signin/", "", ""},
			{"empty host", nil, []string{"--addr", ":8080"}, "http://localhost:8080/signin/", "", ""},
			{"IPv6 every interface", nil, []string{"--addr", "[::]:8080"}, "http://localhost:8080/signin/", "", ""},
			{"IPv6 loopback", nil, []string{"--addr", "[::1]:8080"}, "http://[::1]:8080/signin/", "", ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				clearSignInEnv(t)
				t.Setenv("HONE_API_TOKEN", token)
				for k, v := range tc.env {
					t.Setenv(k, v)
				}
				if err := d.open(t).Exec(context.Background(), "DELETE FROM servers"); err != nil {
					t.Fatal(err)
				}
				if tc.server != "" {
					if err := d.open(t).Auth().RecordServer(context.Background(), tc.server); err != nil {
						t.Fatal(err)
					}
				}
				args := append(append(append([]string{}, d.flags...), "--log-level", "error", "login-link"), tc.args...)
				code, out, errOut := run(t, args...)
				if code != 0 {
					t.Fatalf("login-link: exit %d %q", code, errOut)
				}
				link := lastLine(t, out)
				tok, ok := strings.CutPrefix(link, tc.want)
				if !ok || tok == "" || strings.ContainsAny(tok, "/?# ") {
					t.Fatalf("the last line %q is not a link %s<token>; stdout:\n%s", link, tc.want, out)
				}
				if tc.stderr == "" && errOut != "" || !strings.Contains(errOut, tc.stderr) {
					t.Errorf("stderr %q, want %q", errOut, tc.stderr)
				}
				a := auth.New(d.open(t).Auth(), auth.Options{Token: token})
				ctx := context.Background()
				if err := a.UseSignInLink(ctx, tok); err != nil {
					t.Fatalf("the printed link does not sign in: %v", err)
				}
				if err := a.UseSignInLink(ctx, tok); hone.ErrorCode(err) != hone.EUNAUTHORIZED {
					t.Errorf("the printed link signs in twice: %v", err)
				}
			})
		}

		t.Run("without a token", func(t *testing.T) {
			clearSignInEnv(t)
			code, out, errOut := run(t, append(append([]string{}, d.flags...), "--log-level", "error", "login-link")...)
			if code != 0 || !strings.HasPrefix(lastLine(t, out), "http://localhost:8080/signin/") {
				t.Fatalf("login-link without a token: exit %d %q %q", code, out, errOut)
			}
			if !strings.Contains(errOut, "HONE_API_TOKEN is not set") {
				t.Errorf("login-link without a token does not say it is not needed: %q", errOut)
			}
		})
	})
}

func TestRotateSecretRevokes(t *testing.T) {
	eachTestDatabase(t, func(t *testing.T, d testDatabase) {
		clearSignInEnv(t)
		t.Setenv("HONE_API_TOKEN", "rotate-token")
		ctx := context.Background()
		db := d.open(t)
		before := auth.New(db.Auth(), auth.Options{Token: "rotate-token"})
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		cookie, err := before.SessionCookie(ctx, req, hone.Admin)
		if err != nil {
			t.Fatal(err)
		}
		download, err := before.NewLinks("http://localhost:8080").ExportURL(ctx, "s1", "csv")
		if err != nil {
			t.Fatal(err)
		}
		code, out, errOut := run(t, append(append([]string{}, d.flags...), "--log-level", "error", "login-link")...)
		if code != 0 {
			t.Fatalf("login-link: %d %q", code, errOut)
		}
		signIn := strings.TrimPrefix(lastLine(t, out), "http://localhost:8080/signin/")

		code, out, errOut = run(t, append(append([]string{}, d.flags...), "--log-level", "error", "rotate-secret")...)
		if code != 0 || !strings.Contains(out, "every sign-in and signed link from before no longer works") {
			t.Fatalf("rotate-secret: exit %d %q %q", code, out, errOut)
		}

		// A server started now (or any within auth.SecretRefresh) refuses all three.
		after := auth.New(db.Auth(), auth.Options{Token: "rotate-token"})
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.AddCookie(cookie)
		if _, ok, err := after.Session(ctx, r); ok || err != nil {
			t.Errorf("a cookie from before rotate-secret: ok=%v err=%v", ok, err)
		}
		u, _ := http.NewRequest(http.MethodGet, download, nil)
		if ok, err := after.Verify(ctx, u.URL.Path, u.URL.Query()); ok || err != nil {
			t.Errorf("a download link from before rotate-secret: ok=%v err=%v", ok, err)
		}
		if err := after.UseSignInLink(ctx, signIn); hone.ErrorCode(err) != hone.EUNAUTHORIZED {
			t.Errorf("a sign-in link from before rotate-secret: %v", err)
		}
	})
}

func TestTokenCommand(t *testing.T) {
	seen := map[string]bool{}
	for range 3 {
		code, out, errOut := run(t, "token")
		tok := strings.TrimSpace(out)
		if code != 0 || len(tok) != 43 || strings.Trim(tok, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") != "" {
			t.Fatalf("hone token: exit %d %q %q", code, out, errOut)
		}
		if seen[tok] {
			t.Fatalf("hone token printed %q twice", tok)
		}
		seen[tok] = true
	}
}
