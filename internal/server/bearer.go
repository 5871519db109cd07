package server

import "strings"

// BearerToken returns the credentials of an Authorization header value of
// the Bearer scheme, whose name is case-insensitive (RFC 9110 section 11.1).
func BearerToken(header string) (string, bool) {
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimLeft(token, " "), true
}
