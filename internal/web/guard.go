package web

import (
	"cmp"
	"context"
	"crypto/subtle"
	"net/http"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/server"
)

// Cookie, header and form field of the CSRF token.
const (
	// CSRFCookie holds the token every form and POST must repeat.
	CSRFCookie = "hone_csrf"
	// CSRFHeader carries the token on the chat's POST /chat/messages.
	CSRFHeader = "X-CSRF-Token"
	// CSRFField carries the token in forms.
	CSRFField  = "csrf"
	csrfLength = 32
)

// pageCSP keeps every page to its own scripts, styles and connections, so
// text a page shows from a chat log or a participant cannot run.
const pageCSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'; object-src 'none'"

// maxBody bounds every request to the UI: the longest chat message, escaped.
const maxBody = 2*capture.MaxTextLength + 4096

var crossOrigin = http.NewCrossOriginProtection()

var errCSRF = hone.Errorf(hone.EFORBIDDEN, "the page's security token is missing or stale: reload the page")

var errLink = hone.Errorf(hone.EFORBIDDEN, "This download link has expired or is not valid. Ask for a new one (!print in the chat).")

// guard sets the security headers, finds who is calling, sends a visitor who
// has not signed in to the sign-in page (when hone has an API token), and
// refuses a POST from another site or without the page's CSRF token.
func (u *UI) guard(rt server.Route, w http.ResponseWriter, r *http.Request) (*http.Request, error) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Content-Security-Policy", pageCSP)
	if r.Body != nil {
		r.Body = http.MaxBytesReader(w, r.Body, cmp.Or(rt.MaxBody, maxBody))
	}
	var id hone.Identity
	var err error
	if rt.Members {
		id, err = u.memberIdentity(w, r)
	} else {
		id, err = u.identify(rt, r)
	}
	if err != nil {
		return r, err
	}
	ctx := hone.WithIdentity(r.Context(), id)
	if u.Auth.Secure(r) {
		ctx = context.WithValue(ctx, secureKey{}, true)
	}
	r = r.WithContext(ctx)
	if r.Method != http.MethodGet && r.Method != http.MethodHead && !rt.Fallback {
		if err := crossOrigin.Check(r); err != nil {
			return r, hone.Errorf(hone.EFORBIDDEN, "cross-origin requests are not allowed")
		}
		if !validCSRF(r) {
			return r, errCSRF
		}
	}
	return r, nil
}

// identify returns who makes the request: hone.Local without an API token;
// else the signed-in identity, an anonymous visitor of an open route or of
// a route with a valid signed link, or an error.
func (u *UI) identify(rt server.Route, r *http.Request) (hone.Identity, error) {
	if u.Auth == nil || !u.Auth.Enabled() {
		return hone.Local, nil
	}
	ctx := r.Context()
	id, ok, err := u.Auth.Session(ctx, r)
	if err != nil {
		return id, err
	}
	if ok {
		return id, nil
	}
	anonymous := hone.Identity{Kind: hone.IdentityAnonymous}
	if rt.Open {
		return anonymous, nil
	}
	if rt.Signed && r.URL.Query().Has("sig") {
		if err := u.attempts().Check(r); err != nil {
			return id, err
		}
		good, err := u.Auth.Verify(ctx, r.URL.Path, r.URL.Query())
		if err != nil {
			return id, err
		}
		if !good {
			u.attempts().Fail(ctx, r, "signed download link")
			return id, errLink
		}
		return anonymous, nil
	}
	if rt.JSON {
		return id, hone.Errorf(hone.EUNAUTHORIZED, "Sign in to hone first: reload the page.")
	}
	next := r.URL.RequestURI()
	if r.Method != http.MethodGet {
		next = "/"
	}
	return id, &signInRequired{next: next}
}

// csrfToken returns the browser's CSRF token, giving it one when it has none.
func csrfToken(w http.ResponseWriter, r *http.Request) string {
	if c, err := r.Cookie(CSRFCookie); err == nil && validID(c.Value, csrfLength) {
		return c.Value
	}
	token := hone.NewID(csrfLength)
	setYearCookie(w, r, CSRFCookie, token, "/", http.SameSiteStrictMode)
	r.AddCookie(&http.Cookie{Name: CSRFCookie, Value: token})
	return token
}

// setYearCookie gives the browser an HttpOnly cookie for a year.
func setYearCookie(w http.ResponseWriter, r *http.Request, name, value, path string, sameSite http.SameSite) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: value, Path: path, MaxAge: int((365 * 24 * time.Hour).Seconds()),
		HttpOnly: true, Secure: secureCookies(r), SameSite: sameSite})
}

// secureKey marks a request whose answer's cookies must be Secure.
type secureKey struct{}

// secureCookies reports whether the cookies of r's answer must be Secure:
// r came over TLS, or hone is reached over https (HONE_PUBLIC_URL).
func secureCookies(r *http.Request) bool {
	return r.TLS != nil || r.Context().Value(secureKey{}) != nil
}

// validCSRF reports whether the request repeats its CSRF cookie in the
// X-CSRF-Token header or the csrf form field.
func validCSRF(r *http.Request) bool {
	c, err := r.Cookie(CSRFCookie)
	if err != nil || !validID(c.Value, csrfLength) {
		return false
	}
	got := r.Header.Get(CSRFHeader)
	if got == "" {
		got = r.PostFormValue(CSRFField)
	}
	return subtle.ConstantTimeCompare([]byte(c.Value), []byte(got)) == 1
}

// validID reports whether s looks like an id of hone.NewID(n).
func validID(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for _, r := range s {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') {
			return false
		}
	}
	return true
}
