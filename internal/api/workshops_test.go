package api_test

import (
	"net/http"
	"testing"

	"github.com/honehq/hone/internal/config"
)

func TestScratchExplore(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		s := start(t, cfg)
		for _, p := range []string{"/sessions/%00", "/workshops/%00", "/workshops/a%00b/traces"} {
			res, b := s.call("GET", p, "")
			t.Logf("%s: %d %s", p, res.StatusCode, b)
		}
		res, b := s.call("POST", "/workshops", `{"name":"w","facilitator":{"name":"Fay"}}`)
		t.Logf("%d %s", res.StatusCode, b)
		_ = http.StatusOK
	})
}
