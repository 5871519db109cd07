package web_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestWrongMethodAndUnknownPath: a known path asked with another method is
// a 405 page with Allow, an unknown path a 404 page, whatever the method and
// without a CSRF token, since neither changes anything.
func TestWrongMethodAndUnknownPath(t *testing.T) {
	a := openApp(t, "")
	a.listen()
	for _, c := range []struct {
		method, path string
		status       int
		allow        string
	}{
		{"POST", "/quality", http.StatusMethodNotAllowed, "GET, HEAD"},
		{"DELETE", "/sessions/abc", http.StatusMethodNotAllowed, "GET, HEAD"},
		{"GET", "/chat/messages", http.StatusMethodNotAllowed, "POST"},
		{"PUT", "/signout", http.StatusMethodNotAllowed, "POST"},
		{"GET", "/nowhere", http.StatusNotFound, ""},
		{"POST", "/nowhere", http.StatusNotFound, ""},
	} {
		req, _ := http.NewRequest(c.method, a.base+c.path, strings.NewReader("x=1"))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != c.status || res.Header.Get("Allow") != c.allow ||
			!strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
			t.Errorf("%s %s: %d Allow %q %s; want %d Allow %q, a page", c.method, c.path, res.StatusCode,
				res.Header.Get("Allow"), res.Header.Get("Content-Type"), c.status, c.allow)
		}
		if c.status == http.StatusMethodNotAllowed && !strings.Contains(string(body), "takes "+strings.ReplaceAll(c.allow, ", ", " or ")) {
			t.Errorf("%s %s: the page does not say which methods work:\n%s", c.method, c.path, body)
		}
	}
}
