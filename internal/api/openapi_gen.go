package api

//go:generate go run ./gen

import (
	_ "embed"
	"net/http"
	"slices"

	invopop "github.com/invopop/jsonschema"

	"github.com/honehq/hone/internal/api/openapi"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/jsonschema"
	"github.com/honehq/hone/internal/server"
	"github.com/honehq/hone/internal/suggestions"
	"github.com/honehq/hone/internal/timebound"
)

// prose is the prose of openapi.json: descriptions, summaries and
// examples, by schema, property, component and operationId.
//
//go:embed openapi.yaml
var prose []byte

// tags are the groups of operations, in the order the document lists them.
var tags = []string{"alerts", "suggestions", "chat", "sessions", "llm", "metrics", "learning", "workshops", "scores", "meta"}

// Generate builds openapi.json from routes (the API's own and the
// capabilities' modules'), the component schemas, the shared parameters,
// headers and answers below, and the prose file openapi.yaml.
//
// A route is documented by its server.Doc: in the route table (routes.go,
// learning.go, alerts.go, suggestions.go, scores.go), from the docs of the *_docs.go
// files. A field added to a Go type of a body or answer appears in the
// document as it is; its description goes into openapi.yaml, and its
// bounds, patterns and enumerations into the JSONSchemaExtend method of its
// type (a jsonschema.go file beside the validation that enforces them).
// `go generate ./internal/api` writes openapi.json; TestOpenAPIGenerated
// fails while the committed file differs.
func Generate(routes []server.Route) ([]byte, error) {
	doc, err := openapi.Build(openapi.Spec{
		Version: "3.1.0",
		Info: openapi.Info{Title: "hone API", Version: "1.0.0", License: "Proprietary",
			LicenseIdentity: "LicenseRef-Proprietary"},
		Server:     Prefix,
		Security:   openapi.Security{Name: "bearerAuth", Scheme: "bearer"},
		Tags:       tags,
		Routes:     routes,
		Components: slices.Concat(schemas...),
		Parameters: sharedParams,
		Headers:    sharedHeaders,
		Responses:  sharedAnswers,
		Standard:   standardAnswers,
		Prose:      prose,
	})
	if err != nil {
		return nil, err
	}
	return openapi.Indent(doc)
}

// standardAnswers are the shared answers a route gives besides its own,
// from what its guard and its body reader do: every route answers another
// method 405; an open route answers only its Host check's 403; any other
// answers a missing or wrong token 401, guessing 429, a member's token 403
// (on the workshop routes, also what the member's role does not allow), a
// change that is no JSON 415, and a body it cannot read 400, 408 or 413; a
// route that uses the database answers 500 and 503.
func standardAnswers(rt server.Route) map[int]string {
	out := map[int]string{http.StatusMethodNotAllowed: "MethodNotAllowed"}
	if rt.Open {
		out[http.StatusForbidden] = "HostForbidden"
		return out
	}
	out[http.StatusUnauthorized] = "Unauthorized"
	out[http.StatusTooManyRequests] = "TooManyRequests"
	out[http.StatusForbidden] = "MemberTokenForbidden"
	if rt.Members {
		out[http.StatusForbidden] = "Forbidden"
	}
	if rt.Method != http.MethodGet {
		out[http.StatusUnsupportedMediaType] = "UnsupportedMediaType"
	}
	if rt.Doc != nil && rt.Doc.Body != nil {
		out[http.StatusBadRequest] = "BadRequest"
		out[http.StatusRequestTimeout] = "Timeout"
		out[http.StatusRequestEntityTooLarge] = "TooLarge"
	}
	if rt.Doc == nil || !rt.Doc.NoDatabase {
		out[http.StatusInternalServerError] = "Internal"
		out[http.StatusServiceUnavailable] = "Unavailable"
	}
	return out
}

// errorBody is the body of every error answer.
var errorBody = server.ErrorBody{}

// str is a string schema with rules.
func str(rules ...jsonschema.Rule) *invopop.Schema {
	return jsonschema.Schema(append([]jsonschema.Rule{jsonschema.Type("string")}, rules...)...)
}

// shared names a shared parameter.
func shared(name string) server.Param { return server.Param{Ref: name} }

// pathParam is a path parameter.
func pathParam(name string) server.Param {
	return server.Param{Name: name, In: "path", Required: true, Schema: str()}
}

// queryParam is a text query parameter.
func queryParam(name string, rules ...jsonschema.Rule) server.Param {
	return server.Param{Name: name, In: "query", Schema: str(rules...)}
}

// boolValues are the spellings strconv.ParseBool takes.
var boolValues = []string{"1", "t", "T", "TRUE", "true", "True", "0", "f", "F", "FALSE", "false", "False"}

// suggestionText is a text filter of suggestion tracking.
func suggestionText(name string) server.Param {
	return server.Param{Name: name, In: "query", AllowEmpty: true, Schema: str(jsonschema.MaxLength(suggestions.MaxNameLength))}
}

// sharedParams are the parameters several routes take.
var sharedParams = []openapi.Named[server.Param]{
	{Name: "SessionID", Value: pathParam("id")},
	{Name: "IdempotencyKey", Value: server.Param{Name: IdempotencyHeader, In: "header",
		Schema: str(jsonschema.MaxLength(capture.MaxKeyLength))}},
	{Name: "SuggestionServer", Value: suggestionText("server")},
	{Name: "SuggestionVersion", Value: suggestionText("version")},
	{Name: "SuggestionSession", Value: suggestionText("session")},
	{Name: "SuggestionModel", Value: suggestionText("model")},
	{Name: "SuggestionMatchType", Value: server.Param{Name: "match_type", In: "query", AllowEmpty: true,
		Schema: str(jsonschema.Enum(suggestions.MatchTypes...))}},
	{Name: "SuggestionSince", Value: server.Param{Name: "since", In: "query", AllowEmpty: true,
		Schema: str(jsonschema.Pattern(timebound.Pattern))}},
	{Name: "SuggestionUntil", Value: server.Param{Name: "until", In: "query", AllowEmpty: true,
		Schema: str(jsonschema.Pattern(timebound.Pattern))}},
	{Name: "WorkshopID", Value: pathParam("id")},
	{Name: "MemberID", Value: pathParam("member_id")},
	{Name: "AnalysisID", Value: pathParam("analysis_id")},
	{Name: "ItemID", Value: pathParam("item_id")},
	{Name: "GroupID", Value: pathParam("group_id")},
	{Name: "UserID", Value: queryParam("user_id")},
	{Name: "UserIDSelf", Value: queryParam("user_id")},
	{Name: "TurnID", Value: pathParam("id")},
	{Name: "LearningID", Value: pathParam("id")},
	{Name: "LearningRunID", Value: pathParam("id")},
	{Name: "LearningLimit", Value: learningLimit.param()},
	{Name: "ScoreConfigRef", Value: pathParam("id")},
	{Name: "ScoreID", Value: pathParam("id")},
}

// sharedHeaders are the headers several answers carry.
var sharedHeaders = []openapi.Named[server.Header]{
	{Name: "ContentDisposition", Value: server.Header{Schema: str()}},
	{Name: "Allow", Value: server.Header{Required: true, Schema: str(jsonschema.MinLength(1))}},
	{Name: "RetryAfter", Value: server.Header{Required: true,
		Schema: jsonschema.Schema(jsonschema.Type("integer"), jsonschema.Const(server.RetryAfter))}},
	{Name: "IdempotentReplayed", Value: server.Header{Required: true, Schema: str(jsonschema.Const("true"))}},
	{Name: "RetryAfterThrottle", Value: server.Header{Required: true,
		Schema: jsonschema.Schema(jsonschema.Type("integer"), jsonschema.Minimum(1))}},
}

// errorAnswer is an error answer with headers.
func errorAnswer(headers map[string]server.Header) server.Response {
	return server.Response{JSON: errorBody, Headers: headers}
}

// retryAfter is the header of an answer to try again later.
var retryAfter = map[string]server.Header{"Retry-After": {Ref: "RetryAfter"}}

// sharedAnswers are the answers several routes give.
var sharedAnswers = []openapi.Named[server.Response]{
	{Name: "BadRequest", Value: errorAnswer(nil)},
	{Name: "Unauthorized", Value: errorAnswer(map[string]server.Header{"WWW-Authenticate": {Required: true, Schema: str()}})},
	{Name: "NotFound", Value: errorAnswer(nil)},
	{Name: "MethodNotAllowed", Value: errorAnswer(map[string]server.Header{"Allow": {Ref: "Allow"}})},
	{Name: "Timeout", Value: errorAnswer(nil)},
	{Name: "TooLarge", Value: errorAnswer(nil)},
	{Name: "Internal", Value: errorAnswer(nil)},
	{Name: "Unavailable", Value: errorAnswer(retryAfter)},
	{Name: "Forbidden", Value: errorAnswer(nil)},
	{Name: "MemberTokenForbidden", Value: errorAnswer(nil)},
	{Name: "WorkshopNotFound", Value: errorAnswer(nil)},
	{Name: "LLMUnavailable", Value: errorAnswer(retryAfter)},
	{Name: "UnsupportedMediaType", Value: errorAnswer(nil)},
	{Name: "HostForbidden", Value: errorAnswer(nil)},
	{Name: "TooManyRequests", Value: errorAnswer(map[string]server.Header{"Retry-After": {Ref: "RetryAfterThrottle"}})},
}

// answer is an answer with a JSON body of v's Go type (or the component v
// names).
func answer(v any) server.Response { return server.Response{JSON: v} }

// failure is an error answer of a route's own.
var failure = errorAnswer(nil)

// sharedAnswer names a shared answer.
func sharedAnswer(name string) server.Response { return server.Response{Ref: name} }

// body is a required JSON body of v's Go type (or the component v names).
func body(v any) *server.RequestBody { return &server.RequestBody{JSON: v} }

// getOpenAPIDoc documents GET /openapi.json.
var getOpenAPIDoc = &server.Doc{ID: "getOpenAPI", Tag: "meta", NoDatabase: true,
	Responses: map[int]server.Response{http.StatusOK: answer(jsonschema.Schema(jsonschema.Type("object")))}}
