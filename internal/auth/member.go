package auth

import (
	"context"
	"strings"
)

// MemberCookieValue is the value of the cookie that keeps a workshop
// member signed in to workshopID's pages in one browser: their token,
// signed under the secret, so that a rotation (hone rotate-secret) ends
// these sign-ins too. The join link itself stays valid until the
// facilitator replaces it.
func (a *Auth) MemberCookieValue(ctx context.Context, workshopID, token string) (string, error) {
	sig, err := a.sign(ctx, "member", cookieVersion, workshopID, token)
	if err != nil {
		return "", err
	}
	return cookieVersion + "." + token + "." + sig, nil
}

// MemberCookieToken returns the member token a cookie of MemberCookieValue
// holds; ok is false for a value that is forged, of another workshop, or
// signed before a rotation.
func (a *Auth) MemberCookieToken(ctx context.Context, workshopID, value string) (token string, ok bool, err error) {
	version, rest, _ := strings.Cut(value, ".")
	i := strings.LastIndexByte(rest, '.')
	if version != cookieVersion || i <= 0 {
		return "", false, nil
	}
	token, sig := rest[:i], rest[i+1:]
	if strings.ContainsRune(token, '\n') {
		return "", false, nil
	}
	good, err := a.verify(ctx, sig, "member", cookieVersion, workshopID, token)
	if err != nil || !good {
		return "", false, err
	}
	return token, true, nil
}
