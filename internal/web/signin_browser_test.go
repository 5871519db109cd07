package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/honehq/hone/internal/browsertest"
	"github.com/honehq/hone/internal/cli"
	"github.com/honehq/hone/internal/config"
)

// loginLink runs hone login-link on cfg's database for a server at base,
// as an admin would, and returns the last line it prints.
func loginLink(t *testing.T, cfg config.Config, base string) string {
	t.Helper()
	defer slog.SetDefault(slog.Default())
	t.Setenv("HONE_PUBLIC_URL", "")
	t.Setenv("HONE_DATABASE_URL", cfg.DatabaseURL)
	t.Setenv("HONE_API_TOKEN", cfg.APIToken)
	args := []string{"--data-dir", cfg.DataDir, "--log-level", "error", "login-link", "--addr", strings.TrimPrefix(base, "http://")}
	if cfg.DatabaseURL != "" {
		args = append([]string{"--database-url", cfg.DatabaseURL}, args...)
	}
	var out, errOut bytes.Buffer
	if code := cli.Execute(context.Background(), args, strings.NewReader(""), &out, &errOut); code != 0 {
		t.Fatalf("hone login-link: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	return lines[len(lines)-1]
}

// signedInAs is the text of the page header's sign-in, "" when it has none.
func signedInAs(b *browsertest.Browser) string {
	return browsertest.Eval[string](b, `document.querySelector("header .signout .muted")?.innerText.trim() ?? ""`)
}

func TestBrowserSignIn(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		a := openAuthApp(t, databaseURL, nil)
		a.listen()
		id := a.postTurn("conv-browser", "hello browser")
		b := browsertest.New(t)

		// Not signed in, / lands on the sign-in page.
		if status := b.NavigateStatus(a.base + "/"); status != http.StatusOK {
			t.Fatalf("GET / = %d, want the sign-in page", status)
		}
		if got, want := b.Location(), a.base+"/signin?next=%2F"; got != want {
			t.Fatalf("GET / went to %s, want %s", got, want)
		}
		if got := b.Title(); got != "Sign in · hone" {
			t.Errorf("title = %q", got)
		}
		if got := signedInAs(b); got != "" || b.Count("#signout") != 0 {
			t.Errorf("the sign-in page shows %q and %d sign-out buttons", got, b.Count("#signout"))
		}

		// A wrong token is refused with a message.
		b.Type("#token", "not-the-token")
		if status := b.ClickNavigate("#signin"); status != http.StatusUnauthorized {
			t.Errorf("sign-in with a wrong token = %d, want 401", status)
		}
		if got := b.Text("#signin-error"); !strings.Contains(got, "That is not hone's API token") {
			t.Errorf("the error says %q", got)
		}

		// The token signs in.
		b.Type("#token", signinToken)
		if status := b.ClickNavigate("#signin"); status != http.StatusOK {
			t.Fatalf("sign-in = %d, want the sessions page", status)
		}
		if got := b.Location(); got != a.base+"/" {
			t.Errorf("after signing in the browser is at %s, want %s/", got, a.base)
		}
		if got := b.Text("main h1"); got != "Tuning sessions" {
			t.Errorf("heading = %q, want the sessions page", got)
		}
		if got := signedInAs(b); got != "Signed in as admin" {
			t.Errorf("the header says %q, want Signed in as admin", got)
		}
		if n := b.Count(`tr[data-session="` + id + `"]`); n != 1 {
			t.Errorf("the sessions page lists the session %d times", n)
		}
		if got := browsertest.Eval[string](b, `document.cookie`); strings.Contains(got, "hone_session") {
			t.Errorf("the page's script can read the sign-in cookie: %q", got)
		}
		if status := b.NavigateStatus(a.base + "/sessions/" + id); status != http.StatusOK || signedInAs(b) != "Signed in as admin" {
			t.Errorf("the session page signed in = %d, header %q", status, signedInAs(b))
		}

		// Sign out: back to the sign-in page, and / asks again.
		if status := b.ClickNavigate("#signout"); status != http.StatusOK {
			t.Fatalf("sign-out = %d", status)
		}
		if got := b.Location(); got != a.base+"/signin" {
			t.Errorf("after signing out the browser is at %s, want %s/signin", got, a.base)
		}
		if got := signedInAs(b); got != "" {
			t.Errorf("after signing out the header says %q", got)
		}
		b.NavigateStatus(a.base + "/")
		if got, want := b.Location(), a.base+"/signin?next=%2F"; got != want {
			t.Fatalf("after signing out / went to %s, want %s", got, want)
		}

		// Signing in from a deep page comes back to it.
		b.NavigateStatus(a.base + "/quality")
		if got, want := b.Location(), a.base+"/signin?next=%2Fquality"; got != want {
			t.Fatalf("GET /quality went to %s, want %s", got, want)
		}
		b.Type("#token", signinToken)
		if status := b.ClickNavigate("#signin"); status != http.StatusOK || b.Location() != a.base+"/quality" {
			t.Errorf("sign-in from /quality = %d at %s, want 200 at /quality", status, b.Location())
		}
		b.ClickNavigate("#signout")

		// A next that leads elsewhere once the browser reads it stays on hone.
		for _, next := range []string{"/x/../\\evil.example", "/\t/evil.example", "//evil.example", "https://evil.example/"} {
			b.NavigateStatus(a.base + "/signin?" + url.Values{"next": {next}}.Encode())
			browsertest.Eval[bool](b, `(document.querySelector("input[name=next]").value = `+jsQuote(next)+`, true)`)
			b.Type("#token", signinToken)
			if status := b.ClickNavigate("#signin"); status != http.StatusOK || b.Location() != a.base+"/" {
				t.Errorf("sign-in with next %q = %d at %s, want %s/", next, status, b.Location(), a.base)
			}
			b.ClickNavigate("#signout")
		}

		// hone login-link prints a one-time link that signs the browser in.
		link := loginLink(t, a.cfg, a.base)
		if !strings.HasPrefix(link, a.base+"/signin/") {
			t.Fatalf("hone login-link printed %q, want a link under %s/signin/", link, a.base)
		}
		if status := b.NavigateStatus(link); status != http.StatusOK {
			t.Fatalf("opening the sign-in link = %d", status)
		}
		if got := b.Location(); got != a.base+"/" {
			t.Errorf("the sign-in link led to %s, want %s/", got, a.base)
		}
		if got := signedInAs(b); got != "Signed in as admin" {
			t.Errorf("after the sign-in link the header says %q", got)
		}

		// A second use is refused, and signs no one in.
		b.ClickNavigate("#signout")
		if status := b.NavigateStatus(link); status != http.StatusUnauthorized {
			t.Errorf("opening the sign-in link again = %d, want 401", status)
		}
		if got := b.Text("#signin-error"); !strings.Contains(got, "used already") || !strings.Contains(got, "hone login-link") {
			t.Errorf("the second use says %q", got)
		}
		if got := signedInAs(b); got != "" {
			t.Errorf("the refused link signed in: %q", got)
		}
		b.NavigateStatus(a.base + "/")
		if got, want := b.Location(), a.base+"/signin?next=%2F"; got != want {
			t.Errorf("after the refused link / went to %s, want %s", got, want)
		}
	})
}

// jsQuote is s as a JavaScript string literal.
func jsQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
