package auth

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Links makes URLs under hone's public address: signed download links and
// one-time sign-in links.
type Links struct {
	auth *Auth

	mu   sync.Mutex
	base string
	// public is set when base is the URL users reach hone at
	// (HONE_PUBLIC_URL), which every link then starts with.
	public bool
}

// NewLinks returns links under public, the URL users reach hone at; when
// it is "", links start with the address a request came to (see
// WithRequestBase), else with the one SetBase gives.
func (a *Auth) NewLinks(public string) *Links {
	public = strings.TrimRight(public, "/")
	return &Links{auth: a, base: public, public: public != ""}
}

// SetBase changes the URL links start with when there is no public URL
// and no request to take it from: the address hone listens on.
func (l *Links) SetBase(base string) {
	l.mu.Lock()
	if !l.public {
		l.base = strings.TrimRight(base, "/")
	}
	l.mu.Unlock()
}

// Base is the URL links start with outside a request.
func (l *Links) Base() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.base
}

// BaseFor is the URL links made for the request of ctx start with: the
// public URL when there is one, else the scheme and host the request came
// to, so that a browser on http://localhost:8080 gets links to
// localhost:8080 (its cookies' origin) and not to 127.0.0.1.
func (l *Links) BaseFor(ctx context.Context) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.public {
		if b, ok := ctx.Value(requestBaseKey{}).(string); ok && b != "" {
			return b
		}
	}
	return l.base
}

// requestBaseKey is the context key of the address a request came to.
type requestBaseKey struct{}

// WithRequestBase returns ctx carrying the scheme and host of r, for the
// links made while answering it.
func WithRequestBase(ctx context.Context, r *http.Request) context.Context {
	if r.Host == "" {
		return ctx
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return context.WithValue(ctx, requestBaseKey{}, scheme+"://"+r.Host)
}

// Sign returns path with a signature that lets anyone holding the link use
// it until LinkTTL from now, without signing in.
func (l *Links) Sign(ctx context.Context, path string) (string, error) {
	exp := strconv.FormatInt(l.auth.opts.Now().Add(l.auth.opts.LinkTTL).Unix(), 10)
	sig, err := l.auth.sign(ctx, "link", path, exp)
	if err != nil {
		return "", err
	}
	return l.BaseFor(ctx) + path + "?" + url.Values{"expires": {exp}, "sig": {sig}}.Encode(), nil
}

// ExportURL is the signed download link of a session's export; it makes
// Links a tuning.Links.
func (l *Links) ExportURL(ctx context.Context, sessionID, format string) (string, error) {
	return l.Sign(ctx, "/sessions/"+sessionID+"/export."+format)
}

// Verify reports whether the request's path carries a valid, unexpired
// signature. The error is for a failure to read the secret.
func (a *Auth) Verify(ctx context.Context, path string, query url.Values) (bool, error) {
	exp, sig := query.Get("expires"), query.Get("sig")
	unix, err := strconv.ParseInt(exp, 10, 64)
	if err != nil || sig == "" || !a.opts.Now().Before(time.Unix(unix, 0)) {
		return false, nil
	}
	return a.verify(ctx, sig, "link", path, exp)
}

// SignInPath is where one-time sign-in links point, followed by the token.
const SignInPath = "/signin/"

// SignInLink makes a one-time link that signs its holder in as admin, valid
// for SignInTTL.
func (l *Links) SignInLink(ctx context.Context) (string, error) {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	token := base64.RawURLEncoding.EncodeToString(b)
	hash, err := l.auth.hashToken(ctx, token)
	if err != nil {
		return "", err
	}
	if err := l.auth.store.CreateSignInLink(ctx, hash, l.auth.opts.Now().Add(l.auth.opts.SignInTTL)); err != nil {
		return "", err
	}
	return l.BaseFor(ctx) + SignInPath + token, nil
}

// UseSignInLink spends a one-time sign-in token: nil the first time, within
// SignInTTL; an EUNAUTHORIZED error after that.
func (a *Auth) UseSignInLink(ctx context.Context, token string) error {
	if token == "" || len(token) > 100 {
		return errSignIn
	}
	hash, err := a.hashToken(ctx, token)
	if err != nil {
		return err
	}
	return a.store.UseSignInLink(ctx, hash)
}
