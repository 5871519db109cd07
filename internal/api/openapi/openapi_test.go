package openapi_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	invopop "github.com/invopop/jsonschema"

	"github.com/honehq/hone/internal/api/openapi"
	"github.com/honehq/hone/internal/jsonschema"
	"github.com/honehq/hone/internal/server"
)

type toyInput struct {
	Name  string    `json:"name"`
	Note  string    `json:"note,omitempty"`
	Tags  []string  `json:"tags"`
	Child *toyChild `json:"child"`
	Meta  any       `json:"meta"`
}

func (toyInput) JSONSchemaExtend(s *invopop.Schema) {
	s.Required = []string{"name"}
	jsonschema.Set(s, "name", jsonschema.NotBlank)
}

type toyChild struct {
	N int `json:"n"`
}

type toyAnswer struct {
	ID     string          `json:"id"`
	When   *time.Time      `json:"when"`
	Maybe  *int            `json:"maybe,omitempty"`
	Child  toyChild        `json:"child"`
	Kids   []toyChild      `json:"kids"`
	Raw    json.RawMessage `json:"raw"`
	Always *toyChild       `json:"always"`
	Counts map[string]int  `json:"counts"`
	Inline struct {
		Description string `json:"description"`
	} `json:"inline"`
}

func (toyAnswer) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "always", jsonschema.NotNull)
	jsonschema.Set(s, "counts", jsonschema.Ref("Counts"))
}

var toyComponents = []openapi.Component{
	openapi.Of[toyInput]("Input", true),
	openapi.Of[toyChild]("Child", false),
	openapi.Of[toyAnswer]("Answer", false),
	openapi.Of[map[string]int]("Counts", false, func(s *invopop.Schema) {
		jsonschema.Apply(s, jsonschema.Values(jsonschema.Minimum(1)))
	}),
}

func toySpec(prose string, routes ...server.Route) openapi.Spec {
	return openapi.Spec{Version: "3.1.0", Info: openapi.Info{Title: "toy", Version: "1"}, Server: "/api",
		Security: openapi.Security{Name: "bearerAuth", Scheme: "bearer"}, Tags: []string{"toys"},
		Routes: routes, Components: toyComponents,
		Responses: []openapi.Named[server.Response]{{Name: "Gone", Value: server.Response{JSON: "Child"}}},
		Standard: func(rt server.Route) map[int]string {
			return map[int]string{http.StatusGone: "Gone", http.StatusOK: "Gone"}
		},
		Prose: []byte(prose)}
}

var toyRoutes = []server.Route{
	{Method: "POST", Path: "/toys", Doc: &server.Doc{ID: "addToy", Tag: "toys",
		Params: []server.Param{{Name: "dry", In: "query", AllowEmpty: true, Schema: jsonschema.Schema(jsonschema.Type("boolean"))}},
		Body:   &server.RequestBody{JSON: toyInput{}, Media: []string{"text/csv"}},
		Responses: map[int]server.Response{http.StatusCreated: {JSON: toyAnswer{}},
			http.StatusOK: {JSON: []toyAnswer{}, Headers: map[string]server.Header{"X-N": {Required: true, Schema: jsonschema.Schema(jsonschema.Type("integer"))}}}}}},
	{Method: "GET", Path: "/toys/{id}", Open: true, Doc: &server.Doc{ID: "getToy", Tag: "toys",
		Params:    []server.Param{{Name: "id", In: "path", Schema: jsonschema.Schema(jsonschema.Type("string"))}},
		Responses: map[int]server.Response{http.StatusNoContent: {}}}},
}

func build(t *testing.T, spec openapi.Spec) map[string]any {
	t.Helper()
	doc, err := openapi.Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	b, err := openapi.Indent(doc)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	return out
}

func at(v any, path ...string) any {
	for _, p := range path {
		switch c := v.(type) {
		case map[string]any:
			v = c[p]
		case []any:
			i := 0
			for _, ch := range p {
				i = i*10 + int(ch-'0')
			}
			v = c[i]
		default:
			return nil
		}
	}
	return v
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestReflect holds the schemas to the rules of Component: requests
// require what their rules say and take null for the rest; answers require
// what encoding/json always writes and are null only where a pointer is
// written without omitempty; named types refer to their components.
func TestReflect(t *testing.T) {
	doc := build(t, toySpec("", toyRoutes...))
	schemas := at(doc, "components", "schemas")
	for _, c := range []struct {
		path []string
		want string
	}{
		{[]string{"Input", "required"}, `["name"]`},
		{[]string{"Input", "additionalProperties"}, `false`},
		{[]string{"Input", "properties", "name"}, `{"minLength":1,"pattern":` + jsonOf("[^"+jsonschema.SpaceChars+"]") + `,"type":"string"}`},
		{[]string{"Input", "properties", "note"}, `{"type":["string","null"]}`},
		{[]string{"Input", "properties", "tags"}, `{"items":{"type":"string"},"type":["array","null"]}`},
		{[]string{"Input", "properties", "child"}, `{"anyOf":[{"$ref":"#/components/schemas/Child"},{"type":"null"}]}`},
		{[]string{"Input", "properties", "meta"}, `{}`},
		{[]string{"Answer", "required"}, `["id","when","child","kids","raw","always","counts","inline"]`},
		{[]string{"Answer", "properties", "when"}, `{"format":"date-time","type":["string","null"]}`},
		{[]string{"Answer", "properties", "maybe"}, `{"type":"integer"}`},
		{[]string{"Answer", "properties", "child"}, `{"$ref":"#/components/schemas/Child"}`},
		{[]string{"Answer", "properties", "kids", "items"}, `{"$ref":"#/components/schemas/Child"}`},
		{[]string{"Answer", "properties", "raw"}, `{}`},
		{[]string{"Answer", "properties", "always"}, `{"$ref":"#/components/schemas/Child"}`},
		{[]string{"Answer", "properties", "counts"}, `{"$ref":"#/components/schemas/Counts"}`},
		{[]string{"Answer", "properties", "inline", "additionalProperties"}, `false`},
		{[]string{"Counts"}, `{"additionalProperties":{"minimum":1,"type":"integer"},"type":"object"}`},
	} {
		if got := jsonOf(at(schemas, c.path...)); got != c.want {
			t.Errorf("%s: %s, want %s", strings.Join(c.path, "."), got, c.want)
		}
	}
	var props []string
	for _, p := range []string{"id", "when", "maybe", "child", "kids", "raw", "always", "counts", "inline"} {
		props = append(props, `"`+p+`"`)
	}
	b, _ := openapi.Build(toySpec("", toyRoutes...))
	text, _ := openapi.Indent(b)
	if i := strings.Index(string(text), `"Answer"`); i < 0 || !inOrder(string(text[i:]), props) {
		t.Error("the properties are not in the Go fields' order")
	}
}

func inOrder(s string, words []string) bool {
	at := 0
	for _, w := range words {
		i := strings.Index(s[at:], w)
		if i < 0 {
			return false
		}
		at += i + len(w)
	}
	return true
}

// TestOperations holds the operations to their routes and docs.
func TestOperations(t *testing.T) {
	doc := build(t, toySpec("", toyRoutes...))
	add := at(doc, "paths", "/toys", "post")
	for _, c := range []struct {
		path []string
		want string
	}{
		{[]string{"operationId"}, `"addToy"`},
		{[]string{"tags"}, `["toys"]`},
		{[]string{"security"}, `null`},
		{[]string{"parameters", "0"}, `{"allowEmptyValue":true,"in":"query","name":"dry","schema":{"type":"boolean"}}`},
		{[]string{"requestBody"}, `{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/Input"}},` +
			`"text/csv":{"schema":{"type":"string"}}},"required":true}`},
		{[]string{"responses", "200", "content", "application/json", "schema"}, `{"items":{"$ref":"#/components/schemas/Answer"},"type":"array"}`},
		{[]string{"responses", "200", "headers", "X-N"}, `{"required":true,"schema":{"type":"integer"}}`},
		{[]string{"responses", "201", "content", "application/json", "schema"}, `{"$ref":"#/components/schemas/Answer"}`},
		{[]string{"responses", "410"}, `{"$ref":"#/components/responses/Gone"}`},
	} {
		if got := jsonOf(at(add, c.path...)); got != c.want {
			t.Errorf("addToy %s: %s, want %s", strings.Join(c.path, "."), got, c.want)
		}
	}
	get := at(doc, "paths", "/toys/{id}", "get")
	if got := jsonOf(at(get, "security")); got != `[]` {
		t.Errorf("an open route's security: %s", got)
	}
	if got := jsonOf(at(get, "parameters", "0", "required")); got != `true` {
		t.Errorf("a path parameter is not required: %s", got)
	}
	if got := jsonOf(at(get, "responses", "204")); got != `{}` {
		t.Errorf("an answer without a body: %s", got)
	}
}

const toyProse = `
info:
  description: A toy.
tags:
  toys: Toys.
schemas:
  Input:
    description: What a toy is made of.
    properties:
      name: Its name.
  Answer:
    properties:
      inline:
        properties:
          description: A property named description.
operations:
  addToy:
    summary: Add a toy
    description: Adds one.
    parameters:
      dry: Checks only.
    body:
      text/csv:
        schema: A CSV file.
        example: "name\nbear\n"
    responses:
      "201":
        description: Added.
        application/json:
          example: {"id": "t1", "n": 1.5e3}
      "200":
        headers:
          X-N: How many.
`

// TestProse lays the prose file over the document and places each text.
func TestProse(t *testing.T) {
	doc := build(t, toySpec(toyProse, toyRoutes...))
	add := at(doc, "paths", "/toys", "post")
	for _, c := range []struct {
		got  any
		want string
	}{
		{at(doc, "info", "description"), `"A toy."`},
		{at(doc, "tags", "0", "description"), `"Toys."`},
		{at(doc, "components", "schemas", "Input", "description"), `"What a toy is made of."`},
		{at(doc, "components", "schemas", "Input", "properties", "name", "description"), `"Its name."`},
		{at(doc, "components", "schemas", "Answer", "properties", "inline", "properties", "description", "description"), `"A property named description."`},
		{at(add, "summary"), `"Add a toy"`},
		{at(add, "parameters", "0", "description"), `"Checks only."`},
		{at(add, "requestBody", "content", "text/csv", "schema", "description"), `"A CSV file."`},
		{at(add, "requestBody", "content", "text/csv", "example"), `"name\nbear\n"`},
		{at(add, "responses", "201", "description"), `"Added."`},
		{at(add, "responses", "201", "content", "application/json", "example"), `{"id":"t1","n":1500}`},
		{at(add, "responses", "200", "headers", "X-N", "description"), `"How many."`},
	} {
		if got := jsonOf(c.got); got != c.want {
			t.Errorf("%s, want %s", got, c.want)
		}
	}
	b, _ := openapi.Build(toySpec(toyProse, toyRoutes...))
	text, _ := openapi.Indent(b)
	if !regexp.MustCompile(`"operationId": "addToy",\s*"summary": "Add a toy",\s*"description": "Adds one.",`).Match(text) {
		t.Errorf("summary and description do not follow the operationId:\n%s", text)
	}
}

// TestProseForNothing refuses prose for what the document does not have, so
// that prose of a field, route or answer that is gone is noticed.
func TestProseForNothing(t *testing.T) {
	for _, prose := range []string{
		"schemas: {Input: {properties: {gone: Gone.}}}",
		"schemas: {Nothing: A schema that is not there.}",
		"operations: {nothing: {summary: Nothing}}",
		"operations: {addToy: {parameters: {gone: Gone.}}}",
		"operations: {addToy: {responses: {\"404\": Not found.}}}",
		"operations: {addToy: {body: {text/plain: {example: x}}}}",
		"operations: {getToy: {body: {description: No body.}}}",
		"tags: {nothing: Nothing.}",
		"other: {}",
		"schemas: {Input: {description: \"\"}}",
		"schemas: {Input: {description: A, description: B}}",
	} {
		if _, err := openapi.Build(toySpec(prose, toyRoutes...)); err == nil {
			t.Errorf("prose %s: no error", prose)
		}
	}
}

// TestBuildRefuses refuses a document the code cannot mean.
func TestBuildRefuses(t *testing.T) {
	noDoc := server.Route{Method: "GET", Path: "/bare"}
	twice := toyRoutes[1]
	twice.Path = "/again"
	unknownTag := server.Route{Method: "GET", Path: "/x", Doc: &server.Doc{ID: "x", Tag: "nothing"}}
	unknownSchema := server.Route{Method: "GET", Path: "/y", Doc: &server.Doc{ID: "y", Tag: "toys",
		Responses: map[int]server.Response{200: {JSON: "Nothing"}}}}
	unknownType := server.Route{Method: "GET", Path: "/z", Doc: &server.Doc{ID: "z", Tag: "toys",
		Responses: map[int]server.Response{200: {JSON: time.Time{}}}}}
	badRef := server.Route{Method: "GET", Path: "/r", Doc: &server.Doc{ID: "r", Tag: "toys",
		Responses: map[int]server.Response{200: {JSON: jsonschema.Schema(jsonschema.Ref("Nothing"))}}}}
	for name, routes := range map[string][]server.Route{
		"a route without a doc":    {noDoc},
		"an operationId twice":     {toyRoutes[1], twice},
		"a tag not listed":         {unknownTag},
		"a schema name not listed": {unknownSchema},
		"a type of no component":   {unknownType},
		"a $ref to nothing":        {badRef},
		"a route listed twice":     {toyRoutes[0], toyRoutes[0]},
	} {
		if _, err := openapi.Build(toySpec("", routes...)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	dup := toySpec("")
	dup.Components = append(slices.Clone(toyComponents), openapi.Of[toyChild]("Child", false))
	if _, err := openapi.Build(dup); err == nil {
		t.Error("a component listed twice: no error")
	}
}

// TestUndescribed lists what the prose leaves without a description.
func TestUndescribed(t *testing.T) {
	doc, err := openapi.Build(toySpec(toyProse, toyRoutes...))
	if err != nil {
		t.Fatal(err)
	}
	got := openapi.Undescribed(doc)
	for _, want := range []string{"schema Answer: no description", "schema Input.note: no description",
		"GET /toys/{id}: no summary", "GET /toys/{id} parameter id: no description", "POST /toys 200: no description"} {
		if !slices.Contains(got, want) {
			t.Errorf("Undescribed does not list %q: %q", want, got)
		}
	}
	for _, not := range []string{"schema Input.name: no description", "tag toys: no description", "POST /toys: no summary",
		"POST /toys 410: no description", "schema Answer.child: no description"} {
		if slices.Contains(got, not) {
			t.Errorf("Undescribed lists %q, which is described (or a $ref)", not)
		}
	}
}

func TestObjectKeepsOrder(t *testing.T) {
	v, err := openapi.Decode([]byte(`{"z": 1, "a": [true, null, {"m": "<&>", "b": 2.50}], "k": {}}`))
	if err != nil {
		t.Fatal(err)
	}
	b, err := openapi.Indent(v)
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"z\": 1,\n  \"a\": [\n    true,\n    null,\n    {\n      \"m\": \"<&>\",\n      \"b\": 2.50\n    }\n  ],\n  \"k\": {}\n}\n"
	if string(b) != want {
		t.Errorf("got\n%s\nwant\n%s", b, want)
	}
}
