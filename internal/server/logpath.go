package server

import (
	"net/http"
	"strings"
)

// secretWildcards are the path wildcards whose values are credentials: the
// tokens of sign-in links and workshop join links.
var secretWildcards = map[string]bool{"token": true}

// LoggedPath is r's path as a log line may show it: the pattern of the
// route that served it, its wildcards filled in with the request's values
// except those that hold a credential, which stay as {token}. A request no
// route matched is shown by its pattern alone, since its path could hold
// anything, a mistyped secret among it.
func LoggedPath(r *http.Request) string {
	pattern := r.Pattern
	if _, p, ok := strings.Cut(pattern, " "); ok {
		pattern = p
	}
	if pattern == "" {
		return "(no route)"
	}
	if strings.HasSuffix(pattern, "/") && !strings.Contains(pattern, "{") {
		return pattern
	}
	var b strings.Builder
	for rest := pattern; ; {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			b.WriteString(rest)
			return b.String()
		}
		end := strings.IndexByte(rest[open:], '}')
		if end < 0 {
			b.WriteString(rest)
			return b.String()
		}
		b.WriteString(rest[:open])
		wild := rest[open : open+end+1]
		name := strings.TrimSuffix(strings.Trim(wild, "{}"), "...")
		if v := r.PathValue(name); name == "$" {
		} else if v != "" && !secretWildcards[name] {
			b.WriteString(v)
		} else {
			b.WriteString(wild)
		}
		rest = rest[open+end+1:]
	}
}
