package web

import (
	"net/http"
	"strings"
	"unicode"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/auth"
)

// safeNext returns next when it is a path of this site, else "/", so that
// the sign-in page cannot send anyone elsewhere. A backslash or a control
// character anywhere is refused: http.Redirect cleans /x/../\evil into
// /\evil, and browsers drop tabs, so /<tab>/evil becomes //evil; browsers
// take both for another site.
func safeNext(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") ||
		strings.ContainsFunc(next, func(r rune) bool { return r == '\\' || unicode.IsControl(r) }) {
		return "/"
	}
	return next
}

func (u *UI) signedIn(r *http.Request) bool {
	id, _ := hone.IdentityFrom(r.Context())
	return id.Kind == hone.IdentityAdmin
}

func (u *UI) signInPage(w http.ResponseWriter, r *http.Request) error {
	next := safeNext(r.URL.Query().Get("next"))
	if u.Auth == nil || !u.Auth.Enabled() || u.signedIn(r) {
		http.Redirect(w, r, next, http.StatusSeeOther)
		return nil
	}
	u.Render(w, r, http.StatusOK, "signin", map[string]any{"Title": "Sign in", "Next": next})
	return nil
}

func (u *UI) signIn(w http.ResponseWriter, r *http.Request) error {
	next := safeNext(r.PostFormValue("next"))
	if u.Auth == nil || !u.Auth.Enabled() {
		http.Redirect(w, r, next, http.StatusSeeOther)
		return nil
	}
	if err := u.attempts().Check(r); err != nil {
		return err
	}
	if !u.Auth.CheckToken(strings.TrimSpace(r.PostFormValue("token"))) {
		u.attempts().Fail(r.Context(), r, "API token (sign-in form)")
		u.Render(w, r, http.StatusUnauthorized, "signin", map[string]any{"Title": "Sign in", "Next": next,
			"Error": "That is not hone's API token. Use the value of HONE_API_TOKEN, or a sign-in link from hone login-link."})
		return nil
	}
	return u.startSession(w, r, next)
}

func (u *UI) startSession(w http.ResponseWriter, r *http.Request, next string) error {
	c, err := u.Auth.SessionCookie(r.Context(), r, hone.Admin)
	if err != nil {
		return err
	}
	http.SetCookie(w, c)
	http.Redirect(w, r, next, http.StatusSeeOther)
	return nil
}

// signInLink spends a one-time sign-in link and signs its holder in.
func (u *UI) signInLink(w http.ResponseWriter, r *http.Request) error {
	if u.Auth == nil || !u.Auth.Enabled() {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return nil
	}
	w.Header().Set("Cache-Control", "no-store")
	if err := u.attempts().Check(r); err != nil {
		return err
	}
	if err := u.Auth.UseSignInLink(r.Context(), r.PathValue("token")); err != nil {
		if hone.ErrorCode(err) != hone.EUNAUTHORIZED {
			return err
		}
		u.attempts().Fail(r.Context(), r, "sign-in link")
		u.Render(w, r, http.StatusUnauthorized, "signin", map[string]any{"Title": "Sign in", "Next": "/",
			"Error": hone.ErrorMessage(err)})
		return nil
	}
	return u.startSession(w, r, "/")
}

func (u *UI) signOut(w http.ResponseWriter, r *http.Request) error {
	http.SetCookie(w, u.Auth.ClearCookie(r))
	http.Redirect(w, r, "/signin", http.StatusSeeOther)
	return nil
}

func (u *UI) healthz(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if u.Health != nil {
		if err := u.Health(r.Context()); err != nil {
			u.Logger.WarnContext(r.Context(), "health check failed", "err", err)
			w.Header().Set("Retry-After", "5")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte("unavailable: " + hone.ErrorMessage(err) + "\n"))
			return nil
		}
	}
	_, _ = w.Write([]byte("ok\n"))
	return nil
}

func (u *UI) serveStatic(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	u.static.ServeHTTP(w, r)
	return nil
}

// attempts limits failed attempts at credentials; nil without Auth.
func (u *UI) attempts() *auth.Throttle {
	if u.Auth == nil {
		return nil
	}
	return u.Auth.Attempts
}
