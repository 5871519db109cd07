package api_test

import (
	"bytes"
	"mime"
	"slices"
	"strings"
	"testing"

	"github.com/honehq/hone/internal/api"
	"github.com/honehq/hone/internal/api/openapi"
	"github.com/honehq/hone/internal/llm"
	"github.com/honehq/hone/internal/server"
	"github.com/honehq/hone/internal/workshop"
)

// TestOpenAPIGenerated holds the committed openapi.json to what the
// generator makes of the code now: the Go types, the route table and
// openapi.yaml.
func TestOpenAPIGenerated(t *testing.T) {
	got, err := api.Generate(serverRoutes())
	if err != nil {
		t.Fatalf("the generator fails: %v", err)
	}
	want := openAPIFile(t)
	if bytes.Equal(got, want) {
		return
	}
	gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	i := 0
	for i < len(gl) && i < len(wl) && gl[i] == wl[i] {
		i++
	}
	line := func(l []string) string {
		if i < len(l) {
			return strings.TrimSpace(l[i])
		}
		return "(the end)"
	}
	t.Errorf("openapi.json is not what the code generates: run go generate ./internal/api and commit the result. "+
		"First difference at line %d: the file has %q, the generator %q", i+1, line(wl), line(gl))
}

// TestOpenAPIDescribed requires prose everywhere a reader needs it: every
// tag, schema and property, operation (summary and description), and every
// parameter, header and answer. What a new field, route or answer lacks is
// written in openapi.yaml.
func TestOpenAPIDescribed(t *testing.T) {
	v, err := openapi.Decode(openAPIFile(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, missing := range openapi.Undescribed(v.(*openapi.Object)) {
		t.Errorf("openapi.json: %s; write it in openapi.yaml", missing)
	}
}

// TestOpenAPIMediaTypes holds the media types a route's doc gives its body
// to those its guard takes (Route.Accepts).
func TestOpenAPIMediaTypes(t *testing.T) {
	for _, rt := range serverRoutes() {
		if rt.Doc == nil || rt.Doc.Body == nil {
			continue
		}
		accepts := rt.Accepts
		if accepts == nil {
			accepts = []string{server.JSONType}
		}
		documented := slices.Clone(rt.Doc.Body.Media)
		if rt.Doc.Body.JSON != nil {
			documented = append(documented, server.JSONType)
		}
		for _, m := range documented {
			if mt, _, err := mime.ParseMediaType(m); err != nil || !slices.Contains(accepts, mt) {
				t.Errorf("%s %s: the doc gives the body as %s, which the route does not take (Accepts %v)", rt.Method, rt.Path, m, accepts)
			}
		}
	}
}

// TestOpenAPIRulesStayOutOfLLMSchemas holds the types an LLM fills in (the
// answers llm.Generate asks for) to the schema the model is given: the
// API's rules of the same types (a finding's priorities, a group's items)
// are stated beside their components, not in JSONSchemaExtend methods that
// would reach the model too.
func TestOpenAPIRulesStayOutOfLLMSchemas(t *testing.T) {
	for name, schema := range map[string]func() (string, error){
		"workshop.Grouping":           llm.Schema[workshop.Grouping],
		"workshop.DistillationOutput": llm.Schema[workshop.DistillationOutput],
	} {
		s, err := schema()
		if err != nil {
			t.Fatal(err)
		}
		for _, keyword := range []string{`"minItems"`, `"uniqueItems"`, `"minLength"`, `"enum"`} {
			if strings.Contains(s, keyword) {
				t.Errorf("the LLM's schema of %s has %s, an API rule: %s", name, keyword, s)
			}
		}
	}
}
