package api_test

import (
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/honehq/hone/internal/config"
)

// pathProbes are values of many shapes for a path parameter, escaped as
// they go in a URL.
var pathProbes = []string{"x", "nosuch00", "price_drop", "Price_Drop", "price%20drop", "a.b:c-d", "%C3%A9t%C3%A9",
	strings.Repeat("a", 128), strings.Repeat("a", 129), strings.Repeat("a", 200), strings.Repeat("a", 201),
	"%20x%20", "a%2Fb", "%2A", "a%2Bb", "%E2%80%8B", "123"}

var pathWildcard = regexp.MustCompile(`\{([^}]+)\}`)

// TestConformancePathParameters sends every route each of its path
// parameters in many shapes. Where the parameter's schema in openapi.json
// accepts a value, the server may not refuse it as a bad parameter (400
// naming it); where the schema refuses it, the server may not take it (2xx).
// A path parameter documented as a bare string while the server wants a
// pattern is caught here.
func TestConformancePathParameters(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		s := start(t, cfg)
		doc := confDoc(t)
		cases := 0
		for _, r := range routes() {
			names := pathWildcard.FindAllStringSubmatch(r.path, -1)
			for _, name := range names {
				pointer := pathParamPointer(t, doc, r, name[1])
				for _, probe := range pathProbes {
					path := r.path
					for _, other := range names {
						v := "nosuch00"
						if other[1] == name[1] {
							v = probe
						}
						path = strings.Replace(path, other[0], v, 1)
					}
					value, err := url.PathUnescape(probe)
					if err != nil {
						t.Fatal(err)
					}
					body := ""
					if slices.Contains([]string{"POST", "PUT", "PATCH"}, r.method) && !noBody[r] {
						body = "{}"
						if b, ok := notFoundBodies[r]; ok {
							body = b
						}
					}
					cases++
					verdict := judgeValue(t, pointer+"/schema", value)
					res, b := s.call(r.method, path, body)
					switch {
					case res.StatusCode >= 500:
						t.Errorf("%s %s: %d %s", r.method, path, res.StatusCode, b)
					case verdict.valid && res.StatusCode == http.StatusBadRequest && errorOf(t, b).Field == name[1]:
						t.Errorf("%s %s: openapi.json accepts %s %q, the server refuses it: %s", r.method, r.path, name[1], value, b)
					case !verdict.valid && res.StatusCode < 300:
						t.Errorf("%s %s: openapi.json refuses %s %q (%v), the server takes it: %d %s", r.method, r.path, name[1], value,
							verdict, res.StatusCode, b)
					}
					checkAnswer(t, doc, r.method, r.path, res, b)
				}
			}
		}
		t.Logf("%d requests", cases)
	})
}

// pathParamPointer is the JSON pointer of the path parameter name of r in
// doc, shared by the path or the operation's own.
func pathParamPointer(t *testing.T, doc map[string]any, r route, name string) string {
	t.Helper()
	item := "/paths/" + pointerEscape(r.path)
	for _, at := range []string{item + "/" + strings.ToLower(r.method) + "/parameters", item + "/parameters"} {
		list, _ := resolve(doc, at).([]any)
		for i := range list {
			p, pointer := deref(doc, list[i], at+"/"+strconv.Itoa(i))
			if p["in"] == "path" && p["name"] == name {
				return pointer
			}
		}
	}
	t.Fatalf("%s %s: openapi.json does not document the path parameter %s", r.method, r.path, name)
	return ""
}
