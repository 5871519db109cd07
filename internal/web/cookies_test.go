package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/honehq/hone/internal/auth"
	"github.com/honehq/hone/internal/config"
	"github.com/honehq/hone/internal/llm/llmtest"
	"github.com/honehq/hone/internal/web"
)

// TestCookiesSecureBehindHTTPS: hone reached over https through a TLS proxy
// (HONE_PUBLIC_URL is https) marks every cookie it sets Secure, the sign-in,
// the CSRF, the flash, the chat's tester and a workshop member's; over plain
// http without it, none is.
func TestCookiesSecureBehindHTTPS(t *testing.T) {
	for _, tc := range []struct {
		publicURL string
		secure    bool
	}{{"https://hone.example.com", true}, {"", false}, {"http://hone.example.com", false}} {
		t.Run(tc.publicURL, func(t *testing.T) {
			fake := llmtest.New(t)
			prompt := writeMasterPrompt(t)
			a := openAuthApp(t, "", func(c *config.Config) {
				c.PublicURL, c.LLM, c.Prompts = tc.publicURL, fake.Config(), []string{prompt}
			})
			a.listen()
			var got []*http.Cookie
			csrf := a.csrf()
			got = append(got, csrf)
			session := a.signIn(signinToken, "/", csrf).cookie(auth.CookieName)
			got = append(got, session)
			got = append(got, a.get("/chat", session, csrf).cookie(web.TesterCookie))
			created := a.do("POST", "/workshops", url.Values{"csrf": {csrf.Value}, "name": {"Tone review"}, "facilitator_name": {"Meg"}}, nil, session, csrf)
			var member, flash *http.Cookie
			for _, c := range created.Cookies() {
				switch {
				case strings.HasPrefix(c.Name, "hone_w_"):
					member = c
				case strings.Contains(c.Name, "flash"):
					flash = c
				}
			}
			got = append(got, member, flash)
			got = append(got, a.do("POST", "/signout", url.Values{"csrf": {csrf.Value}}, nil, session, csrf).cookie(auth.CookieName))
			for i, c := range got {
				if c == nil {
					t.Fatalf("cookie %d was not set (workshop answer %d %v)", i, created.StatusCode, created.Cookies())
				}
				if c.Secure != tc.secure {
					t.Errorf("cookie %s: Secure %v, want %v", c.Name, c.Secure, tc.secure)
				}
			}
		})
	}
}
