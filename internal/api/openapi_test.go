package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/alerts"
	"github.com/honehq/hone/internal/api"
	"github.com/honehq/hone/internal/app"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/chat"
	"github.com/honehq/hone/internal/config"
	"github.com/honehq/hone/internal/learning"
	"github.com/honehq/hone/internal/llm/llmtest"
	"github.com/honehq/hone/internal/scoring"
	"github.com/honehq/hone/internal/server"
	"github.com/honehq/hone/internal/suggestions"
	"github.com/honehq/hone/internal/tuning"
	"github.com/honehq/hone/internal/workshop"
	"github.com/honehq/hone/suggest"
)

// route is one endpoint, with its path relative to api.Prefix.
type route struct{ method, path string }

// routes are the endpoints of the API: its own route table and the routes
// of the capabilities' modules, as a hone opened once over a scratch
// database serves them.
func routes() []route {
	apiRoutes.once.Do(func() {
		dir, err := os.MkdirTemp("", "hone-routes-")
		if err != nil {
			panic(err)
		}
		defer os.RemoveAll(dir)
		a, err := app.Open(context.Background(), config.Config{Addr: "127.0.0.1:0", DataDir: dir, MaxBodyBytes: 1 << 20},
			slog.New(slog.DiscardHandler))
		if err != nil {
			panic(err)
		}
		defer a.Close()
		apiRoutes.full = a.API.AllRoutes()
		for _, rt := range apiRoutes.full {
			apiRoutes.list = append(apiRoutes.list, route{rt.Method, rt.Path})
		}
	})
	return slices.Clone(apiRoutes.list)
}

// serverRoutes are the API's routes as the route tables give them, with
// their docs.
func serverRoutes() []server.Route {
	routes()
	return slices.Clone(apiRoutes.full)
}

var apiRoutes struct {
	once sync.Once
	list []route
	full []server.Route
}

const docURL = "https://hone.invalid/api/v1/openapi.json"

var schemas struct {
	sync.Mutex
	compiler *jsonschema.Compiler
	compiled map[string]*jsonschema.Schema
}

func openAPIFile(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile("openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// schemaAt compiles the schema at the JSON pointer of openapi.json.
func schemaAt(t testing.TB, pointer string) *jsonschema.Schema {
	t.Helper()
	schemas.Lock()
	defer schemas.Unlock()
	if schemas.compiler == nil {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(openAPIFile(t)))
		if err != nil {
			t.Fatalf("openapi.json: %v", err)
		}
		c := jsonschema.NewCompiler()
		c.DefaultDraft(jsonschema.Draft2020)
		c.AssertFormat()
		if err := c.AddResource(docURL, doc); err != nil {
			t.Fatal(err)
		}
		schemas.compiler, schemas.compiled = c, map[string]*jsonschema.Schema{}
	}
	if s := schemas.compiled[pointer]; s != nil {
		return s
	}
	s, err := schemas.compiler.Compile(docURL + "#" + pointer)
	if err != nil {
		t.Fatalf("compile %s of openapi.json: %v", pointer, err)
	}
	schemas.compiled[pointer] = s
	return s
}

// validate requires body to be JSON valid against the named component schema.
func validate(t testing.TB, name string, body []byte) {
	t.Helper()
	validateAt(t, "/components/schemas/"+name, body)
}

func validateAt(t testing.TB, pointer string, body []byte) {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("not JSON: %v: %s", err, body)
	}
	if err := schemaAt(t, pointer).Validate(v); err != nil {
		t.Errorf("does not match the schema %s of openapi.json: %v\n%s", pointer, err, body)
	}
}

// document is the part of an OpenAPI document the tests read.
type document struct {
	OpenAPI    string                                `json:"openapi"`
	Info       map[string]any                        `json:"info"`
	Servers    []struct{ URL string }                `json:"servers"`
	Security   []map[string][]string                 `json:"security"`
	Paths      map[string]map[string]json.RawMessage `json:"paths"`
	Components struct {
		SecuritySchemes map[string]map[string]any `json:"securitySchemes"`
		Schemas         map[string]schemaObject   `json:"schemas"`
	} `json:"components"`
}

type schemaObject struct {
	Required             []string                   `json:"required"`
	Properties           map[string]json.RawMessage `json:"properties"`
	AdditionalProperties *bool                      `json:"additionalProperties"`
}

type operation struct {
	OperationID string                     `json:"operationId"`
	Security    *[]map[string][]string     `json:"security"`
	Parameters  []map[string]any           `json:"parameters"`
	RequestBody map[string]any             `json:"requestBody"`
	Responses   map[string]json.RawMessage `json:"responses"`
}

var methods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

func parseDocument(t *testing.T, b []byte) document {
	t.Helper()
	var d document
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	return d
}

func (d document) operations(t *testing.T) map[route]operation {
	t.Helper()
	ops := map[route]operation{}
	for path, item := range d.Paths {
		for key, raw := range item {
			if !slices.Contains(methods, key) {
				continue
			}
			var op operation
			if err := json.Unmarshal(raw, &op); err != nil {
				t.Fatalf("%s %s: %v", key, path, err)
			}
			ops[route{strings.ToUpper(key), path}] = op
		}
	}
	return ops
}

func TestOpenAPIServed(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		cfg.APIToken = "s3cret"
		s := start(t, cfg)
		res, b := s.send("GET", "/openapi.json", "", nil)
		if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("GET /openapi.json without a token: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
		}
		if !bytes.Equal(b, openAPIFile(t)) {
			t.Error("the served document is not openapi.json")
		}
		d := parseDocument(t, b)
		if !regexp.MustCompile(`^3\.1\.\d+$`).MatchString(d.OpenAPI) {
			t.Errorf("openapi %q, want 3.1.x", d.OpenAPI)
		}
		if len(d.Servers) != 1 || d.Servers[0].URL != api.Prefix {
			t.Errorf("servers %+v, want one with url %s", d.Servers, api.Prefix)
		}
		if d.Info["title"] == "" || d.Info["version"] == "" || d.Info["description"] == nil {
			t.Errorf("info %v", d.Info)
		}
		if sc := d.Components.SecuritySchemes["bearerAuth"]; sc["type"] != "http" || sc["scheme"] != "bearer" {
			t.Errorf("bearerAuth security scheme %v", sc)
		}
		if len(d.Security) != 1 || d.Security[0]["bearerAuth"] == nil {
			t.Errorf("security %v, want bearerAuth", d.Security)
		}
	})
}

func TestOpenAPIDocumentsEveryRoute(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		cfg.APIToken = "s3cret"
		// With an LLM, so that what needs one (a synthesis) answers as it
		// does when hone has one, not 503.
		cfg.LLM = llmtest.New(t).Config()
		s := start(t, cfg)
		d := parseDocument(t, openAPIFile(t))
		ops := d.operations(t)
		for _, r := range routes() {
			if _, ok := ops[r]; !ok {
				t.Errorf("openapi.json does not document %s %s", r.method, r.path)
			}
		}
		ids := map[string]route{}
		for r, op := range ops {
			if !slices.Contains(routes(), r) {
				t.Errorf("openapi.json documents %s %s, which is not in the routes list", r.method, r.path)
			}
			if prev, dup := ids[op.OperationID]; op.OperationID == "" || dup {
				t.Errorf("%s %s: operationId %q is empty or also used by %v", r.method, r.path, op.OperationID, prev)
			}
			ids[op.OperationID] = r

			var body string
			if r.method == "POST" {
				body = "{}"
			}
			path := strings.ReplaceAll(r.path, "{id}", "nosuch00")
			res, b := s.call(r.method, path, body)
			var e server.ErrorBody
			if res.StatusCode == http.StatusNotFound && json.Unmarshal(b, &e) == nil && strings.HasPrefix(e.Error.Message, "no API endpoint") {
				t.Errorf("openapi.json documents %s %s, which the server does not serve: %s", r.method, r.path, b)
			}
			if res.StatusCode >= 500 || res.StatusCode == http.StatusUnauthorized || res.StatusCode == http.StatusMethodNotAllowed {
				t.Errorf("%s %s: %d %s", r.method, path, res.StatusCode, b)
			}
			if status := strconv.Itoa(res.StatusCode); op.Responses[status] == nil {
				t.Errorf("%s %s answered %s, which openapi.json does not list", r.method, path, status)
			}

			open := r.path == "/openapi.json"
			if open != (op.Security != nil && len(*op.Security) == 0) {
				t.Errorf("%s %s: security %v; only /openapi.json is open", r.method, r.path, op.Security)
			}
			want := []string{"405"}
			success := false
			for status := range op.Responses {
				success = success || strings.HasPrefix(status, "2")
			}
			if !success {
				t.Errorf("%s %s: no 2xx response", r.method, r.path)
			}
			if r.method == "GET" {
				want = append(want, "200")
			}
			if r.method != "GET" {
				want = append(want, "415")
			}
			if slices.Contains([]string{"POST", "PUT", "PATCH"}, r.method) {
				switch {
				case noBody[r]:
					if op.RequestBody != nil {
						t.Errorf("%s %s takes no body, but openapi.json documents one", r.method, r.path)
					}
				case op.RequestBody == nil:
					t.Errorf("%s %s: no request body", r.method, r.path)
				default:
					want = append(want, "400", "408", "413")
					if required := op.RequestBody["required"] == true; required == optionalBody[r] {
						t.Errorf("%s %s: the request body is required: %v", r.method, r.path, required)
					}
				}
			}
			if r.path == "/turns" {
				want = append(want, "201")
			}
			if !open {
				want = append(want, "401", "429")
			}
			// A member's token is 403 on the routes of no workshop, and may
			// lack the role on its workshop's; only the list of workshops
			// takes it from everyone (listing their own).
			if !open && r != (route{"GET", "/workshops"}) {
				want = append(want, "403")
			}
			if strings.Contains(r.path, "{id}") {
				want = append(want, "404")
			}
			for _, status := range want {
				if op.Responses[status] == nil {
					t.Errorf("%s %s: no %s response", r.method, r.path, status)
				}
			}
		}
		s.wantError("GET", "/sessions/nosuch00/export.xml", "", http.StatusNotFound, "not_found", "")
	})
}

// noBody are the routes taking a POST, PUT or PATCH without a body: they
// read none, so they answer neither 400 nor 408 nor 413 for one.
var noBody = map[route]bool{
	{"POST", "/workshops/{id}/members/{member_id}/token"}:         true,
	{"POST", "/workshops/{id}/draft-rubric-items/suggest-groups"}: true,
	{"POST", "/learnings/{id}/keep"}:                              true,
	{"POST", "/learnings/synthesize"}:                             true,
	{"POST", "/learnings/enable"}:                                 true,
	{"POST", "/learnings/disable"}:                                true,
	{"POST", "/alerts/types/{type}/enable"}:                       true,
}

// optionalBody are the routes whose body may be left out: the spec gives
// their parameters in the query.
var optionalBody = map[route]bool{
	{"POST", "/workshops/{id}/begin-discovery"}:            true,
	{"POST", "/workshops/{id}/generate-followup-question"}: true,
	{"POST", "/workshops/{id}/analyze-discovery"}:          true,
}

func TestOpenAPIReferencesAndExamples(t *testing.T) {
	b := openAPIFile(t)
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	var walk func(v any, pointer string)
	walk = func(v any, pointer string) {
		switch v := v.(type) {
		case map[string]any:
			if ref, ok := v["$ref"].(string); ok {
				if !strings.HasPrefix(ref, "#/") || resolve(doc, ref[1:]) == nil {
					t.Errorf("%s: $ref %q does not resolve", pointer, ref)
				}
			}
			if _, ok := v["schema"]; ok {
				if ex, ok := v["example"]; ok && strings.Contains(pointer, "/content/application~1json") {
					checkExample(t, pointer+"/schema", ex)
				}
				if exs, ok := v["examples"].(map[string]any); ok {
					for _, ex := range exs {
						checkExample(t, pointer+"/schema", ex.(map[string]any)["value"])
					}
				}
			}
			for k, e := range v {
				walk(e, pointer+"/"+strings.NewReplacer("~", "~0", "/", "~1").Replace(k))
			}
		case []any:
			for i, e := range v {
				walk(e, pointer+"/"+strconv.Itoa(i))
			}
		}
	}
	walk(doc, "")

	for path, item := range doc.(map[string]any)["paths"].(map[string]any) {
		item, _ := item.(map[string]any)
		shared, _ := item["parameters"].([]any)
		for _, m := range methods {
			op, ok := item[m].(map[string]any)
			if !ok {
				continue
			}
			own, _ := op["parameters"].([]any)
			for _, name := range regexp.MustCompile(`\{([^}]+)\}`).FindAllStringSubmatch(path, -1) {
				found := false
				for _, p := range append(slices.Clone(shared), own...) {
					p, _ := p.(map[string]any)
					if ref, ok := p["$ref"].(string); ok {
						p, _ = resolve(doc, strings.TrimPrefix(ref, "#")).(map[string]any)
					}
					found = found || (p["in"] == "path" && p["name"] == name[1] && p["required"] == true)
				}
				if !found {
					t.Errorf("%s %s: no required path parameter %q", m, path, name[1])
				}
			}
		}
	}
}

func checkExample(t *testing.T, schemaPointer string, example any) {
	t.Helper()
	b, err := json.Marshal(example)
	if err != nil {
		t.Fatal(err)
	}
	validateAt(t, schemaPointer, b)
}

// resolve returns the value at the JSON pointer in doc, or nil.
func resolve(doc any, pointer string) any {
	v := doc
	for _, tok := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		switch c := v.(type) {
		case map[string]any:
			v = c[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil
			}
			v = c[i]
		default:
			return nil
		}
	}
	return v
}

// jsonFields returns the JSON names of t's fields with whether each is omitempty.
func jsonFields(t reflect.Type) map[string]bool {
	out := map[string]bool{}
	for f := range t.Fields() {
		tag := f.Tag.Get("json")
		if tag == "-" || !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			embedded := f.Type
			if embedded.Kind() == reflect.Pointer {
				embedded = embedded.Elem()
			}
			maps.Copy(out, jsonFields(embedded))
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero")
	}
	return out
}

func TestOpenAPISchemasMatchGoTypes(t *testing.T) {
	d := parseDocument(t, openAPIFile(t))
	exported := jsonFields(reflect.TypeFor[capture.Session]())
	exported["duration_seconds"] = false
	// The body of POST /workshops/{id}/traces/from-sessions: the import and who acts.
	sessionImport := jsonFields(reflect.TypeFor[workshop.SessionImport]())
	sessionImport["user_id"] = true
	for _, c := range []struct {
		schema   string
		fields   map[string]bool
		response bool
	}{
		{"TurnInput", jsonFields(reflect.TypeFor[capture.TurnInput]()), false},
		{"Message", jsonFields(reflect.TypeFor[capture.Message]()), false},
		{"ToolCall", jsonFields(reflect.TypeFor[capture.ToolCall]()), false},
		{"FunctionCall", jsonFields(reflect.TypeFor[capture.FunctionCall]()), false},
		{"TurnUsage", jsonFields(reflect.TypeFor[capture.Usage]()), false},
		{"MessageInput", jsonFields(reflect.TypeFor[api.MessageInput]()), false},
		{"TurnCreated", jsonFields(reflect.TypeFor[api.TurnCreated]()), true},
		{"Reply", jsonFields(reflect.TypeFor[chat.Reply]()), true},
		{"Session", jsonFields(reflect.TypeFor[capture.Session]()), true},
		{"ExportedSession", exported, true},
		{"Turn", jsonFields(reflect.TypeFor[tuning.Turn]()), true},
		{"Improvement", jsonFields(reflect.TypeFor[tuning.Improvement]()), true},
		{"SessionList", jsonFields(reflect.TypeFor[api.SessionList]()), true},
		{"ErrorBody", jsonFields(reflect.TypeFor[server.ErrorBody]()), true},
		{"ErrorDetail", jsonFields(reflect.TypeFor[server.ErrorDetail]()), true},
		{"ScoreInput", jsonFields(reflect.TypeFor[api.ScoreInput]()), false},
		{"ScoreResult", jsonFields(reflect.TypeFor[api.ScoreResult]()), true},
		{"ScoresInput", jsonFields(reflect.TypeFor[api.ScoresInput]()), false},
		{"TurnScores", jsonFields(reflect.TypeFor[scoring.TurnScores]()), true},
		{"SessionMetrics", jsonFields(reflect.TypeFor[scoring.SessionReport]()), true},
		{"MetricStat", jsonFields(reflect.TypeFor[scoring.Stat]()), true},
		{"MetricDiff", jsonFields(reflect.TypeFor[scoring.Diff]()), true},
		{"VersionComparison", jsonFields(reflect.TypeFor[scoring.Comparison]()), true},
		{"RegressionStep", jsonFields(reflect.TypeFor[scoring.Step]()), true},
		{"RegressionReport", jsonFields(reflect.TypeFor[scoring.RegressionReport]()), true},

		{"WorkshopInput", jsonFields(reflect.TypeFor[workshop.Create]()), false},
		{"FacilitatorInput", jsonFields(reflect.TypeFor[workshop.Person]()), false},
		{"MemberInput", jsonFields(reflect.TypeFor[workshop.Person]()), false},
		{"WorkshopSettings", jsonFields(reflect.TypeFor[workshop.Settings]()), false},
		{"TraceInput", jsonFields(reflect.TypeFor[workshop.TraceInput]()), false},
		{"SessionImportInput", sessionImport, false},
		{"PhaseInput", jsonFields(reflect.TypeFor[api.PhaseInput]()), false},
		{"BeginInput", jsonFields(reflect.TypeFor[api.BeginInput]()), false},
		{"FeedbackInput", jsonFields(reflect.TypeFor[workshop.FeedbackInput]()), false},
		{"QuestionInput", jsonFields(reflect.TypeFor[api.QuestionInput]()), false},
		{"AnswerInput", jsonFields(reflect.TypeFor[workshop.AnswerInput]()), false},
		{"AnalyzeInput", jsonFields(reflect.TypeFor[workshop.AnalyzeInput]()), false},
		{"TemplateInput", map[string]bool{"name": false, "title": false, "instruction": false}, false},
		{"DraftItemInput", jsonFields(reflect.TypeFor[workshop.DraftItemInput]()), false},
		{"DraftItemUpdate", jsonFields(reflect.TypeFor[workshop.DraftItemUpdate]()), false},
		{"GroupingInput", jsonFields(reflect.TypeFor[workshop.Grouping]()), false},
		{"GroupInput", jsonFields(reflect.TypeFor[workshop.ProposedGroup]()), false},
		{"GroupRename", jsonFields(reflect.TypeFor[api.GroupRename]()), false},

		{"Workshop", jsonFields(reflect.TypeFor[workshop.Workshop]()), true},
		{"WorkshopCreated", jsonFields(reflect.TypeFor[workshop.Created]()), true},
		{"Member", jsonFields(reflect.TypeFor[workshop.Member]()), true},
		{"Access", jsonFields(reflect.TypeFor[workshop.Access]()), true},
		{"Trace", jsonFields(reflect.TypeFor[workshop.Trace]()), true},
		{"TraceView", jsonFields(reflect.TypeFor[workshop.TraceView]()), true},
		{"ImportResult", jsonFields(reflect.TypeFor[workshop.ImportResult]()), true},
		{"LineError", jsonFields(reflect.TypeFor[workshop.LineError]()), true},
		{"Feedback", jsonFields(reflect.TypeFor[workshop.Feedback]()), true},
		{"QA", jsonFields(reflect.TypeFor[workshop.QA]()), true},
		{"PendingQuestion", jsonFields(reflect.TypeFor[workshop.Pending]()), true},
		{"Question", jsonFields(reflect.TypeFor[workshop.Question]()), true},
		{"ParticipantStatus", jsonFields(reflect.TypeFor[workshop.ParticipantStatus]()), true},
		{"CompletionStatus", jsonFields(reflect.TypeFor[workshop.CompletionStatus]()), true},
		{"AnalysisStarted", jsonFields(reflect.TypeFor[workshop.Started]()), true},
		{"Analysis", jsonFields(reflect.TypeFor[workshop.Analysis]()), true},
		{"Disagreements", jsonFields(reflect.TypeFor[workshop.Disagreements]()), true},
		{"Disagreement", jsonFields(reflect.TypeFor[workshop.Disagreement]()), true},
		{"Review", jsonFields(reflect.TypeFor[workshop.Review]()), true},
		{"DisagreementAnalysis", jsonFields(reflect.TypeFor[workshop.DisagreementAnalysis]()), true},
		{"Finding", jsonFields(reflect.TypeFor[workshop.Finding]()), true},
		{"Template", jsonFields(reflect.TypeFor[workshop.Template]()), true},
		{"DraftItem", jsonFields(reflect.TypeFor[workshop.DraftItem]()), true},
		{"Grouping", jsonFields(reflect.TypeFor[workshop.Grouping]()), true},
		{"ProposedGroup", jsonFields(reflect.TypeFor[workshop.ProposedGroup]()), true},
		{"Agreement", jsonFields(reflect.TypeFor[workshop.Agreement]()), true},
		{"TraceAgreement", jsonFields(reflect.TypeFor[workshop.TraceAgreement]()), true},
		{"PairAgreement", jsonFields(reflect.TypeFor[workshop.PairAgreement]()), true},
		{"FeedbackRecord", jsonFields(reflect.TypeFor[workshop.FeedbackRecord]()), true},
		{"WorkshopList", jsonFields(reflect.TypeFor[api.WorkshopList]()), true},
		{"MemberList", jsonFields(reflect.TypeFor[api.MemberList]()), true},
		{"TraceList", jsonFields(reflect.TypeFor[api.TraceList]()), true},
		{"FeedbackList", jsonFields(reflect.TypeFor[api.FeedbackList]()), true},
		{"AnalysisList", jsonFields(reflect.TypeFor[api.AnalysisList]()), true},
		{"TemplateList", jsonFields(reflect.TypeFor[api.TemplateList]()), true},
		{"DraftItemList", jsonFields(reflect.TypeFor[api.DraftItemList]()), true},

		{"RatingInput", jsonFields(reflect.TypeFor[learning.RatingInput]()), false},
		{"LearningInput", jsonFields(reflect.TypeFor[learning.LearningInput]()), false},
		{"LearningUpdate", jsonFields(reflect.TypeFor[learning.LearningUpdate]()), false},
		{"Rating", jsonFields(reflect.TypeFor[learning.Rating]()), true},
		{"RatingAnswer", jsonFields(reflect.TypeFor[api.RatingAnswer]()), true},
		{"RatingList", jsonFields(reflect.TypeFor[api.RatingList]()), true},
		{"Approval", jsonFields(reflect.TypeFor[learning.Approval]()), true},
		{"FeedbackStats", jsonFields(reflect.TypeFor[learning.Stats]()), true},
		{"Correction", jsonFields(reflect.TypeFor[learning.Correction]()), true},
		{"CorrectionList", jsonFields(reflect.TypeFor[api.CorrectionList]()), true},
		{"Learning", jsonFields(reflect.TypeFor[learning.Learning]()), true},
		{"LearningDetail", jsonFields(reflect.TypeFor[api.LearningDetail]()), true},
		{"LearningList", jsonFields(reflect.TypeFor[api.LearningList]()), true},
		{"LearningRun", jsonFields(reflect.TypeFor[learning.Run]()), true},
		{"LearningRunList", jsonFields(reflect.TypeFor[api.RunList]()), true},
		{"LearningSwitch", jsonFields(reflect.TypeFor[api.Switch]()), true},
		{"PromptView", jsonFields(reflect.TypeFor[learning.PromptView]()), true},

		{"PermitInput", jsonFields(reflect.TypeFor[alerts.PermitInput]()), false},
		{"AlertInput", jsonFields(reflect.TypeFor[alerts.AlertInput]()), false},
		{"ReactionInput", jsonFields(reflect.TypeFor[alerts.ReactionInput]()), false},
		{"Permit", jsonFields(reflect.TypeFor[alerts.Permit]()), true},
		{"Alert", jsonFields(reflect.TypeFor[alerts.Alert]()), true},
		{"AlertReaction", jsonFields(reflect.TypeFor[alerts.AlertReaction]()), true},
		{"Reacted", jsonFields(reflect.TypeFor[alerts.Reacted]()), true},
		{"AlertType", jsonFields(reflect.TypeFor[alerts.AlertType]()), true},
		{"AlertTypeList", jsonFields(reflect.TypeFor[api.AlertTypeList]()), true},

		{"SuggestionRecord", jsonFields(reflect.TypeFor[suggest.Record]()), false},
		{"IngestResult", jsonFields(reflect.TypeFor[suggestions.Result]()), true},
		{"SuggestionLineError", jsonFields(reflect.TypeFor[suggestions.LineError]()), true},
		{"SuggestionList", jsonFields(reflect.TypeFor[api.SuggestionList]()), true},
		{"Forgotten", jsonFields(reflect.TypeFor[suggestions.Forgotten]()), true},
		{"SuggestionStats", jsonFields(reflect.TypeFor[suggestions.Stats]()), true},
		{"SuggestionGroup", jsonFields(reflect.TypeFor[suggestions.Group]()), true},
		{"SuggestionPercentiles", jsonFields(reflect.TypeFor[suggestions.Percentiles]()), true},
		{"SuggestionPoint", jsonFields(reflect.TypeFor[suggestions.Point]()), true},
		{"SuggestionBin", jsonFields(reflect.TypeFor[suggestions.Bin]()), true},
		{"SuggestionThresholds", jsonFields(reflect.TypeFor[suggestions.Thresholds]()), true},
	} {
		t.Run(c.schema, func(t *testing.T) {
			s, ok := d.Components.Schemas[c.schema]
			if !ok {
				t.Fatalf("openapi.json has no schema %s", c.schema)
			}
			got, want := slices.Sorted(maps.Keys(s.Properties)), slices.Sorted(maps.Keys(c.fields))
			if !slices.Equal(got, want) {
				t.Errorf("properties %v, the Go type has %v", got, want)
			}
			if _, open := openSchemas[c.schema]; open {
				if s.AdditionalProperties == nil || !*s.AdditionalProperties {
					t.Error("additionalProperties is not true: this schema keeps the fields it does not list")
				}
			} else if s.AdditionalProperties == nil || *s.AdditionalProperties {
				t.Error("additionalProperties is not false")
			}
			for _, r := range s.Required {
				if _, ok := c.fields[r]; !ok {
					t.Errorf("required %q is not a field", r)
				}
			}
			if c.response {
				var always []string
				for name, omitempty := range c.fields {
					if !omitempty {
						always = append(always, name)
					}
				}
				if got, want := slices.Sorted(slices.Values(s.Required)), slices.Sorted(slices.Values(always)); !slices.Equal(got, want) {
					t.Errorf("required %v, but the server always sends %v", got, want)
				}
			}
		})
	}

	var codes []string
	if err := json.Unmarshal(d.Components.Schemas["ErrorDetail"].Properties["code"], &struct {
		Enum *[]string `json:"enum"`
	}{&codes}); err != nil {
		t.Fatal(err)
	}
	want := hone.Codes
	if !slices.Equal(slices.Sorted(slices.Values(codes)), slices.Sorted(slices.Values(want))) {
		t.Errorf("error codes %v, hone has %v", codes, want)
	}
	var categories struct {
		Enum []string `json:"enum"`
	}
	if err := json.Unmarshal(d.Components.Schemas["Improvement"].Properties["category"], &categories); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(categories.Enum, append([]string{""}, tuning.Categories...)) {
		t.Errorf("categories %q, tuning has %q", categories.Enum, tuning.Categories)
	}

	// The enumerations of the workshop answers are the domain's.
	for _, e := range []struct {
		schema, property string
		want             []string
	}{
		{"Workshop", "phase", workshop.Phases},
		{"Member", "role", []string{workshop.RoleFacilitator, workshop.RoleParticipant}},
		{"Feedback", "feedback_label", []string{workshop.LabelGood, workshop.LabelBad}},
		{"TraceView", "state", []string{workshop.StateFeedback, workshop.StateQuestion, workshop.StateAnswer, workshop.StateComplete}},
		{"Analysis", "status", []string{workshop.StatusQueued, workshop.StatusRunning, workshop.StatusDone, workshop.StatusFailed}},
		{"Finding", "priority", []string{workshop.PriorityHigh, workshop.PriorityMedium, workshop.PriorityLow}},
		{"DraftItem", "source_type", []string{workshop.SourceFinding, workshop.SourceDisagreement, workshop.SourceFeedback, workshop.SourceManual}},
		{"Rating", "rating", []string{learning.RatingUp, learning.RatingDown}},
		{"AlertReaction", "reaction", []string{alerts.ReactionUp, alerts.ReactionAck, alerts.ReactionDown}},
		{"RatingAnswer", "rating", []string{learning.RatingUp, learning.RatingDown}},
		{"Learning", "status", []string{learning.StatusActive, learning.StatusBelowThreshold, learning.StatusConflict, learning.StatusRejected}},
		{"LearningDetail", "status", []string{learning.StatusActive, learning.StatusBelowThreshold, learning.StatusConflict, learning.StatusRejected}},
		{"LearningRun", "status", []string{learning.RunQueued, learning.RunRunning, learning.RunDone, learning.RunFailed}},
	} {
		var got struct {
			Enum []string `json:"enum"`
		}
		if err := json.Unmarshal(d.Components.Schemas[e.schema].Properties[e.property], &got); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.Enum, e.want) {
			t.Errorf("%s.%s: enum %q, the domain has %q", e.schema, e.property, got.Enum, e.want)
		}
	}
	var tiers []string
	for name := range d.Components.Schemas["Disagreements"].Properties {
		tiers = append(tiers, name)
	}
	if want := []string{workshop.TierHigh, workshop.TierLower, workshop.TierMedium}; !slices.Equal(slices.Sorted(slices.Values(tiers)), want) {
		t.Errorf("disagreement tiers %q, want %q", tiers, want)
	}
}

// openSchemas are the schemas of bodies whose fields not listed are kept,
// not refused (additionalProperties true), with why.
var openSchemas = map[string]string{
	// A suggestion record is kept exactly as received, with every field:
	// the suggest library's JSONL lines may carry fields hone does not read.
	"SuggestionRecord": "suggestions.Parse reads the fields it knows and keeps the record whole",
}

// TestOpenAPISuggestionEnums holds the enumerations of suggestion tracking
// in openapi.json to the domain's.
func TestOpenAPISuggestionEnums(t *testing.T) {
	doc := confDoc(t)
	strs := func(pointer string) []string {
		t.Helper()
		list, ok := resolve(doc, pointer).([]any)
		if !ok {
			t.Fatalf("openapi.json has no list at %s", pointer)
		}
		var out []string
		for _, v := range list {
			s, _ := v.(string)
			out = append(out, s)
		}
		return out
	}
	keys := func(pointer string) []string {
		t.Helper()
		m, ok := resolve(doc, pointer).(map[string]any)
		if !ok {
			t.Fatalf("openapi.json has no object at %s", pointer)
		}
		return slices.Sorted(maps.Keys(m))
	}
	matches := []string{suggest.MatchExact, suggest.MatchPartial, suggest.MatchPrefix, suggest.MatchNone}
	stats := "/components/schemas/SuggestionStats/properties"
	for _, c := range []struct {
		what      string
		got, want []string
	}{
		{"the format parameter", strs("/paths/~1suggestions~1export/get/parameters/0/schema/enum"), suggestions.Formats},
		{"the match_type parameter", strs("/components/parameters/SuggestionMatchType/schema/enum"), matches},
		{"the record's match_type", strs("/components/schemas/SuggestionRecord/properties/match_type/enum")[:4], matches},
		{"by_match_type", keys(stats + "/by_match_type/properties"), slices.Sorted(slices.Values(matches))},
		{"by_context_size", strs(stats + "/by_context_size/propertyNames/enum"), suggestions.ContextClasses},
		{"by_tokens", strs(stats + "/by_tokens/propertyNames/enum"), suggestions.TokenClasses},
		{"negative_signals", strs(stats + "/negative_signals/required"), suggestions.Signals},
		{"negative_signals' properties", keys(stats + "/negative_signals/properties"), slices.Sorted(slices.Values(suggestions.Signals))},
	} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s: %q in openapi.json, the domain has %q", c.what, c.got, c.want)
		}
	}
	if got := resolve(doc, "/paths/~1suggestions~1export/get/parameters/0/name"); got != "format" {
		t.Errorf("the export's first parameter is %v, not format", got)
	}
	for _, c := range []struct {
		pointer string
		want    float64
	}{
		{"/components/schemas/SuggestionRecord/properties/id/maxLength", suggestions.MaxIDLength},
		{"/components/schemas/SuggestionRecord/properties/session/maxLength", suggestions.MaxNameLength},
		{"/components/schemas/SuggestionRecord/properties/server/maxLength", suggestions.MaxNameLength},
		{"/components/schemas/SuggestionRecord/properties/suggestion_node_version/maxLength", suggestions.MaxNameLength},
		{"/components/parameters/SuggestionServer/schema/maxLength", suggestions.MaxNameLength},
		{"/components/schemas/SuggestionStats/properties/time_histogram/minItems", float64(len(suggestions.Compute(nil).TimeHistogram))},
	} {
		if got := resolve(doc, c.pointer); got != c.want {
			t.Errorf("%s is %v, the domain has %v", c.pointer, got, c.want)
		}
	}
}

// TestOpenAPIRequired posts a valid body without each property in turn: the
// server must refuse exactly the properties the schema requires.
func TestOpenAPIRequired(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		s := start(t, cfg)
		d := parseDocument(t, openAPIFile(t))
		for _, c := range []struct {
			schema, path string
			body         map[string]any
		}{
			{"TurnInput", "/turns", map[string]any{"id": "client-turn-1", "conversation_id": "c", "tester_id": "meg", "tester_email": "meg@example.com",
				"user_message": "q", "response": "r", "prompt_version": "v1", "branch": "b", "search_results": []any{1},
				"avg_similarity": 0.5, "processing_time_ms": 3, "metadata": map[string]any{},
				"messages": []any{map[string]any{"role": "user", "content": "q"}, map[string]any{"role": "assistant", "content": "r"}},
				"model":    "m", "usage": map[string]any{"prompt_tokens": 1, "completion_tokens": 2}, "latency_ms": 2, "source": "import",
				"trace_id": "4bf92f3577b34da6a3ce929d0e0e4736", "span_id": nil, "parent_id": nil}},
			{"MessageInput", "/messages", map[string]any{"conversation_id": "c", "tester_id": "meg", "tester_email": "meg@example.com",
				"text": "hello"}},
			{"ScoreInput", "/score", map[string]any{"query": "My employee quit", "response": "Got it.", "search_results": []any{"a"},
				"avg_similarity": 0.5, "processing_time_ms": 3, "is_first_response": true}},
		} {
			props := d.Components.Schemas[c.schema].Properties
			if got, want := slices.Sorted(maps.Keys(c.body)), slices.Sorted(maps.Keys(props)); !slices.Equal(got, want) {
				t.Fatalf("%s: the test body has %v, the schema %v", c.schema, got, want)
			}
			validate(t, c.schema, []byte(mustJSON(t, c.body)))
			for name := range props {
				body := maps.Clone(c.body)
				if _, ok := body["id"]; ok {
					body["id"] = "client-turn-without-" + name
				}
				delete(body, name)
				res, b := s.call("POST", c.path, mustJSON(t, body))
				required := slices.Contains(d.Components.Schemas[c.schema].Required, name)
				if required && res.StatusCode != http.StatusBadRequest || !required && res.StatusCode >= 300 {
					t.Errorf("%s without %s: %d %s; required in openapi.json: %v", c.path, name, res.StatusCode, b, required)
				}
			}
		}
	})
}
