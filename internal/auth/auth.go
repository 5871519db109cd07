// Package auth signs people in and signs links: the API token (admin), the
// web UI's sign-in cookie, one-time sign-in links (hone login-link) and the
// signed, expiring download links !print hands to testers in a chat client.
// Everything is signed with HMAC-SHA256 under one secret kept in the
// database; rotating it (hone rotate-secret) revokes every cookie and link
// at once, on every server sharing the database.
package auth

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/honehq/hone"
)

// Store keeps the signing secret and the one-time sign-in links.
type Store interface {
	// Secret returns the named secret, creating it with newValue when there is none.
	Secret(ctx context.Context, name string, newValue func() string) (string, error)
	// RotateSecret replaces the named secret.
	RotateSecret(ctx context.Context, name, value string) error
	// CreateSignInLink keeps the hash of a one-time token until expires.
	CreateSignInLink(ctx context.Context, tokenHash string, expires time.Time) error
	// UseSignInLink marks a link used; EUNAUTHORIZED when it is unknown, used or expired.
	UseSignInLink(ctx context.Context, tokenHash string) error
}

// Defaults.
const (
	DefaultLinkTTL    = 7 * 24 * time.Hour
	DefaultSessionTTL = 30 * 24 * time.Hour
	DefaultSignInTTL  = 15 * time.Minute
	// SecretRefresh is how long a server keeps the secret before reading it
	// again, so a rotation reaches every server within it.
	SecretRefresh = 5 * time.Second
)

// secretName names the signing secret in the store.
const secretName = "signing"

// Options configure Auth.
type Options struct {
	// Token is HONE_API_TOKEN; empty means no sign-in anywhere.
	Token string
	// LinkTTL is how long a signed download link works (DefaultLinkTTL).
	LinkTTL time.Duration
	// SessionTTL is how long a sign-in lasts (DefaultSessionTTL).
	SessionTTL time.Duration
	// SignInTTL is how long a one-time sign-in link works (DefaultSignInTTL).
	SignInTTL time.Duration
	// SecureCookies marks every cookie Secure, as when hone is reached over
	// https through a TLS proxy (HONE_PUBLIC_URL is https).
	SecureCookies bool
	Now           func() time.Time
	// Log gets the refusals of clients that failed too often.
	Log *slog.Logger
}

// Auth checks the API token and signs and checks cookies and links.
type Auth struct {
	// Attempts limits failed attempts at every credential per client
	// address; nil allows every attempt.
	Attempts *Throttle

	store Store
	opts  Options

	mu      sync.Mutex
	secret  []byte
	fetched time.Time
}

// New returns an Auth over store.
func New(store Store, opts Options) *Auth {
	if opts.LinkTTL <= 0 {
		opts.LinkTTL = DefaultLinkTTL
	}
	if opts.SessionTTL <= 0 {
		opts.SessionTTL = DefaultSessionTTL
	}
	if opts.SignInTTL <= 0 {
		opts.SignInTTL = DefaultSignInTTL
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Auth{store: store, opts: opts, Attempts: NewThrottle(opts.Log, opts.Now)}
}

// Enabled reports whether sign-in is required (an API token is set).
func (a *Auth) Enabled() bool { return a.opts.Token != "" }

// CheckToken reports whether token is the API token, in constant time.
func (a *Auth) CheckToken(token string) bool {
	if a.opts.Token == "" {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(token), []byte(a.opts.Token)) == 1
}

// key returns the signing secret, reading it again after SecretRefresh.
func (a *Auth) key(ctx context.Context) ([]byte, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.opts.Now()
	if a.secret != nil && now.Sub(a.fetched) < SecretRefresh && now.After(a.fetched) {
		return a.secret, nil
	}
	v, err := a.store.Secret(ctx, secretName, newSecret)
	if err != nil {
		return nil, err
	}
	a.secret, a.fetched = []byte(v), now
	return a.secret, nil
}

// Rotate replaces the signing secret: every sign-in cookie, sign-in link
// and download link signed so far stops working.
func (a *Auth) Rotate(ctx context.Context) error {
	if err := a.store.RotateSecret(ctx, secretName, newSecret()); err != nil {
		return err
	}
	a.mu.Lock()
	a.secret = nil
	a.mu.Unlock()
	return nil
}

func newSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// sign is the HMAC of the parts, which must not contain "\n".
func (a *Auth) sign(ctx context.Context, parts ...string) (string, error) {
	key, err := a.key(ctx)
	if err != nil {
		return "", err
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(strings.Join(parts, "\n")))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)), nil
}

// verify reports whether sig is the signature of parts, in constant time.
func (a *Auth) verify(ctx context.Context, sig string, parts ...string) (bool, error) {
	want, err := a.sign(ctx, parts...)
	if err != nil {
		return false, err
	}
	return hmac.Equal([]byte(sig), []byte(want)), nil
}

// hashToken is how a one-time token is kept: its HMAC under the signing
// secret, so that a rotation revokes the links not used yet.
func (a *Auth) hashToken(ctx context.Context, token string) (string, error) {
	return a.sign(ctx, "signin", token)
}

// errSignIn is the answer to a missing or invalid sign-in.
var errSignIn = hone.Errorf(hone.EUNAUTHORIZED, "Sign in to hone first.")
