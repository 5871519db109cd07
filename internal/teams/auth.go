package teams

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/MicahParks/keyfunc/v3"
	"github.com/golang-jwt/jwt/v5"
)

// errUnauthenticated is a request without a valid Bot Framework token.
var errUnauthenticated = errors.New("teams: request not authenticated")

// verifier checks the bearer tokens of requests from the Bot Framework:
// signed by a key of the OpenID metadata's jwks_uri, issued by Issuer to
// the app id, in time, and naming the activity's serviceUrl.
type verifier struct {
	ctx      context.Context
	appID    string
	metadata string
	skew     time.Duration
	client   *http.Client
	log      *slog.Logger
	now      func() time.Time

	mu      sync.Mutex
	keys    keyfunc.Keyfunc
	fetched time.Time
}

// botClaims are the claims of a Bot Framework token.
type botClaims struct {
	ServiceURL string `json:"serviceurl"`
	jwt.RegisteredClaims
}

// verify checks the Authorization header of a request carrying an
// activity from serviceURL.
func (v *verifier) verify(ctx context.Context, header, serviceURL string) error {
	raw, ok := strings.CutPrefix(header, "Bearer ")
	if !ok || strings.TrimSpace(raw) == "" {
		return fmt.Errorf("%w: no bearer token", errUnauthenticated)
	}
	keys, err := v.keyfunc(ctx)
	if err != nil {
		return err
	}
	var claims botClaims
	_, err = jwt.ParseWithClaims(strings.TrimSpace(raw), &claims, keys.KeyfuncCtx(ctx),
		jwt.WithValidMethods([]string{"RS256"}),
		jwt.WithIssuer(Issuer),
		jwt.WithAudience(v.appID),
		jwt.WithExpirationRequired(),
		jwt.WithLeeway(v.skew),
		jwt.WithTimeFunc(v.now),
	)
	if err != nil {
		return fmt.Errorf("%w: %w", errUnauthenticated, err)
	}
	if !sameServiceURL(claims.ServiceURL, serviceURL) {
		return fmt.Errorf("%w: the token's serviceurl is not the activity's", errUnauthenticated)
	}
	return nil
}

// keyfunc is the signing keys, read from the OpenID metadata on first use
// (again after a failure, at most once a minute) and then kept fresh by
// keyfunc: hourly, and at once for a key id it does not know.
func (v *verifier) keyfunc(ctx context.Context) (keyfunc.Keyfunc, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.keys != nil {
		return v.keys, nil
	}
	if !v.fetched.IsZero() && time.Since(v.fetched) < time.Minute {
		return nil, fmt.Errorf("teams: the Bot Framework signing keys could not be read lately")
	}
	v.fetched = time.Now()
	jwksURI, err := v.jwksURI(ctx)
	if err != nil {
		return nil, err
	}
	keys, err := keyfunc.NewDefaultOverrideCtx(v.ctx, []string{jwksURI}, keyfunc.Override{
		Client: v.client,
		RefreshErrorHandlerFunc: func(string) func(context.Context, error) {
			return func(ctx context.Context, err error) {
				v.log.WarnContext(ctx, "teams: refreshing the Bot Framework signing keys failed", "url", jwksURI, "error", err)
			}
		},
	})
	if err != nil {
		return nil, fmt.Errorf("teams: the Bot Framework signing keys at %s: %w", jwksURI, err)
	}
	v.keys = keys
	return keys, nil
}

func (v *verifier) jwksURI(ctx context.Context) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, v.metadata, nil)
	if err != nil {
		return "", fmt.Errorf("teams: OpenID metadata %s: %w", v.metadata, err)
	}
	resp, err := v.client.Do(req)
	if err != nil {
		return "", fmt.Errorf("teams: OpenID metadata %s: %w", v.metadata, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("teams: OpenID metadata %s: %s", v.metadata, resp.Status)
	}
	var meta struct {
		JWKSURI string `json:"jwks_uri"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&meta); err != nil {
		return "", fmt.Errorf("teams: OpenID metadata %s: %w", v.metadata, err)
	}
	if meta.JWKSURI == "" {
		return "", fmt.Errorf("teams: OpenID metadata %s names no jwks_uri", v.metadata)
	}
	return meta.JWKSURI, nil
}

// sameServiceURL compares service URLs as the Bot Framework does: without
// case and a trailing slash.
func sameServiceURL(a, b string) bool {
	a, b = strings.TrimRight(a, "/"), strings.TrimRight(b, "/")
	return a != "" && strings.EqualFold(a, b)
}
