package auth

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/honehq/hone"
)

// CookieName is the sign-in cookie.
const CookieName = "hone_session"

// cookieVersion opens every cookie value, so the format can change.
const cookieVersion = "v1"

// SessionCookie returns a cookie that signs id in for SessionTTL: signed,
// HttpOnly, SameSite=Lax, Secure as Secure says.
func (a *Auth) SessionCookie(ctx context.Context, r *http.Request, id hone.Identity) (*http.Cookie, error) {
	b, err := json.Marshal(id)
	if err != nil {
		return nil, err
	}
	payload := base64.RawURLEncoding.EncodeToString(b)
	expires := a.opts.Now().Add(a.opts.SessionTTL)
	exp := strconv.FormatInt(expires.Unix(), 10)
	sig, err := a.sign(ctx, "session", cookieVersion, payload, exp)
	if err != nil {
		return nil, err
	}
	return &http.Cookie{Name: CookieName, Value: strings.Join([]string{cookieVersion, payload, exp, sig}, "."),
		Path: "/", Expires: expires, HttpOnly: true, Secure: a.Secure(r), SameSite: http.SameSiteLaxMode}, nil
}

// ClearCookie returns the cookie that signs out.
func (a *Auth) ClearCookie(r *http.Request) *http.Cookie {
	return &http.Cookie{Name: CookieName, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, Secure: a.Secure(r),
		SameSite: http.SameSiteLaxMode}
}

// Secure reports whether cookies set in answer to r must be Secure: r came
// over TLS, or hone is reached over https (Options.SecureCookies).
func (a *Auth) Secure(r *http.Request) bool {
	return r.TLS != nil || a != nil && a.opts.SecureCookies
}

// Session returns the identity r's sign-in cookie carries; ok is false when
// it has none, or one that is forged, expired or signed with a rotated
// secret. The error is for a failure to read the secret.
func (a *Auth) Session(ctx context.Context, r *http.Request) (id hone.Identity, ok bool, err error) {
	c, err := r.Cookie(CookieName)
	if err != nil {
		return id, false, nil
	}
	parts := strings.Split(c.Value, ".")
	if len(parts) != 4 || parts[0] != cookieVersion {
		return id, false, nil
	}
	payload, exp, sig := parts[1], parts[2], parts[3]
	unix, err := strconv.ParseInt(exp, 10, 64)
	if err != nil || !a.opts.Now().Before(time.Unix(unix, 0)) {
		return id, false, nil
	}
	good, err := a.verify(ctx, sig, "session", cookieVersion, payload, exp)
	if err != nil || !good {
		return id, false, err
	}
	b, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil || json.Unmarshal(b, &id) != nil || id.Kind == "" {
		return hone.Identity{}, false, nil
	}
	return id, true, nil
}
