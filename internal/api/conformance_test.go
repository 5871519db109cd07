package api_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/honehq/hone/internal/api"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/chat"
	"github.com/honehq/hone/internal/config"
	"github.com/honehq/hone/internal/server"
)

// The conformance tests hold openapi.json and the server to each other
// input by input: every request is judged by the document's schema and sent
// to a real server, which must accept it (2xx) exactly when the schema says
// it is valid, refuse it otherwise with 400 naming the field the schema
// finds wrong, never answer 5xx, and answer with a status the operation
// lists and a body and headers the document gives for that status.

// confDoc is openapi.json as plain JSON values.
func confDoc(t testing.TB) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(openAPIFile(t), &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

func pointerEscape(s string) string { return strings.NewReplacer("~", "~0", "/", "~1").Replace(s) }

// deref follows node's $ref, if it has one, and returns the node with its
// JSON pointer in the document.
func deref(doc any, node any, pointer string) (map[string]any, string) {
	m, _ := node.(map[string]any)
	for m != nil {
		ref, ok := m["$ref"].(string)
		if !ok {
			break
		}
		pointer = strings.TrimPrefix(ref, "#")
		m, _ = resolve(doc, pointer).(map[string]any)
	}
	return m, pointer
}

// verdict is what the document says of an input: valid, or the places it
// finds wrong, each a path of property names from the input's root (an
// empty path is the input as a whole).
type verdict struct {
	valid  bool
	fields [][]string
}

func (v verdict) String() string {
	if v.valid {
		return "valid"
	}
	var s []string
	for _, f := range v.fields {
		s = append(s, "/"+strings.Join(f, "/"))
	}
	return "invalid at " + strings.Join(s, ", ")
}

// judge validates the JSON text body against the schema at pointer.
func judge(t testing.TB, pointer string, body []byte) verdict {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return verdict{fields: [][]string{{}}}
	}
	return judgeValue(t, pointer, v)
}

func judgeValue(t testing.TB, pointer string, v any) verdict {
	t.Helper()
	err := schemaAt(t, pointer).Validate(v)
	if err == nil {
		return verdict{valid: true}
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("validate against %s: %v", pointer, err)
	}
	var out [][]string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		at := func(name string) []string { return append(slices.Clone(e.InstanceLocation), name) }
		switch k := e.ErrorKind.(type) {
		case *kind.Required:
			for _, m := range k.Missing {
				out = append(out, at(m))
			}
			return
		case *kind.AdditionalProperties:
			for _, p := range k.Properties {
				out = append(out, at(p))
			}
			return
		case *kind.PropertyNames:
			out = append(out, at(k.Property))
			return
		}
		if len(e.Causes) == 0 {
			out = append(out, slices.Clone(e.InstanceLocation))
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return verdict{fields: out}
}

// names reports whether the server's error field (a property name, or a
// dotted path) names one of the places the verdict finds wrong, or the input
// as a whole when both say so.
func (v verdict) names(field string) bool {
	for _, f := range v.fields {
		if field == "" && len(f) == 0 {
			return true
		}
		if field == "" || len(f) == 0 {
			continue
		}
		if field == strings.Join(f, ".") {
			return true
		}
		if sp := strings.Split(field, "."); len(sp) <= len(f) && slices.Equal(sp, f[:len(sp)]) {
			return true
		}
	}
	return false
}

// item is the verdict on element i of an array, from the array's.
func (v verdict) item(i int) verdict {
	if v.valid {
		return v
	}
	out := verdict{}
	for _, f := range v.fields {
		if len(f) > 0 && f[0] == strconv.Itoa(i) {
			out.fields = append(out.fields, f[1:])
		}
	}
	out.valid = len(out.fields) == 0
	return out
}

// checkAnswer requires an answer the document gives for the operation: a
// status it lists, with the documented body and required headers.
func checkAnswer(t testing.TB, doc map[string]any, method, template string, res *http.Response, body []byte) {
	t.Helper()
	opPointer := "/paths/" + pointerEscape(template) + "/" + strings.ToLower(method)
	op, _ := resolve(doc, opPointer).(map[string]any)
	if op == nil {
		t.Fatalf("openapi.json has no operation %s %s", method, template)
	}
	responses, _ := op["responses"].(map[string]any)
	status := strconv.Itoa(res.StatusCode)
	resp, pointer := deref(doc, responses[status], opPointer+"/responses/"+status)
	if resp == nil {
		t.Errorf("%s %s answered %s, which openapi.json does not list: %s", method, template, status, body)
		return
	}
	if content, ok := resp["content"].(map[string]any); ok && content["application/json"] != nil {
		if ct := res.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("%s %s %s: Content-Type %q, want application/json", method, template, status, ct)
		}
		validateAt(t, pointer+"/content/application~1json/schema", body)
	}
	headers, _ := resp["headers"].(map[string]any)
	for _, name := range answerHeaders {
		if res.Header.Get(name) != "" && headers[name] == nil {
			t.Errorf("%s %s %s: the server sends %s, which openapi.json does not document", method, template, status, name)
		}
	}
	for name, h := range headers {
		h, hp := deref(doc, h, pointer+"/headers/"+pointerEscape(name))
		value := res.Header.Get(name)
		if value == "" {
			if h["required"] == true {
				t.Errorf("%s %s %s: no %s header", method, template, status, name)
			}
			continue
		}
		if v := judgeValue(t, hp+"/schema", paramValue(doc, hp, value)); !v.valid {
			t.Errorf("%s %s %s: header %s: %q is not as documented", method, template, status, name, value)
		}
	}
}

// answerHeaders are the headers of hone's answers that carry meaning for a
// client; the document must give every one an answer has.
var answerHeaders = []string{"Allow", "Retry-After", "WWW-Authenticate", "Content-Disposition", api.ReplayedHeader}

var (
	wholeNumber = regexp.MustCompile(`^[+-]?[0-9]+$`)
	turnID      = regexp.MustCompile(capture.TurnIDPattern)
)

// paramValue is the JSON value of a query parameter or header value for its
// schema: a whole number where the schema wants an integer, else a string.
func paramValue(doc map[string]any, pointer, value string) any {
	schema, _ := resolve(doc, pointer+"/schema").(map[string]any)
	if schema["type"] == "integer" && wholeNumber.MatchString(value) {
		n, _ := new(big.Int).SetString(value, 10)
		return json.Number(n.String())
	}
	return value
}

// absentValue stands for a property left out of a body.
type absentValue struct{}

var absent any = absentValue{}

// raw is JSON text put into a body as is, for numbers json.Marshal would
// write otherwise.
func raw(s string) json.RawMessage { return json.RawMessage(s) }

// value is one edge value of a property; make may give a fresh one each call.
type value struct {
	name string
	make func() any
}

func val(name string, v any) value { return value{name, func() any { return v }} }

// generic are values every property gets.
var generic = []value{
	val("missing", absent), val("null", nil), val("empty string", ""), val("white space", " \t\n"),
	val("no-break space", "\u00a0"), val("ideographic space", "\u3000"), val("next line U+0085", "\u0085"),
	val("line separator", "\u2028"), val("zero width no-break space (not white space)", "\ufeff"),
	val("zero width space (not white space)", "\u200b"), val("padded text", " x "), val("text", "x"), val("é", "é"),
	val("NUL", "\x00"), val("zero", 0), val("one", 1), val("minus one", -1), val("half", 0.5), val("2.5", 2.5),
	val("true", true), val("false", false), val("empty array", []any{}), val("array", []any{"x"}),
	val("empty object", map[string]any{}), val("object", map[string]any{"a": 1}),
}

// gen makes unique names so that idempotency never interferes.
type gen struct{ n, short atomic.Int64 }

func (g *gen) next() string { return strconv.FormatInt(g.n.Add(1), 36) }

const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// id is a valid, unused turn id of n characters.
func (g *gen) id(n int) string {
	s := "u" + g.next() + "-"
	if n < len(s) {
		return string(alnum[int(g.short.Add(1))%len(alnum)]) + s[1:n]
	}
	return s + strings.Repeat("-", n-len(s))
}

// text is a fresh text of n characters of c (after a unique prefix).
func (g *gen) text(c string, n int) string {
	p := "k" + g.next() + "-"
	return p + strings.Repeat(c, n-len(p))
}

// lengths are the values of a text property at and past its limits (the
// Go constant and the document's maxLength), with characters of several
// bytes so that bytes and characters differ.
func lengths(limits []int, huge bool, mk func(c string, n int) string) []value {
	var out []value
	for _, n := range slices.Compact(slices.Sorted(slices.Values(limits))) {
		for _, c := range []string{"é", "😀", "a"} {
			if huge && c != "é" {
				continue // four-byte characters would make the body too large
			}
			out = append(out, value{fmt.Sprintf("%d×%s", n, c), func() any { return mk(c, n) }},
				value{fmt.Sprintf("%d×%s", n+1, c), func() any { return mk(c, n+1) }})
		}
	}
	return out
}

func repeat(c string, n int) string { return strings.Repeat(c, n) }

// specific are the values particular to a property.
func (g *gen) specific(field string, docMax int) []value {
	limits := func(goLimit int) []int {
		if docMax > 0 {
			return []int{goLimit, docMax}
		}
		return []int{goLimit}
	}
	switch field {
	case "id":
		out := []value{
			{"one character", func() any { return g.id(1) }}, {"128 characters", func() any { return g.id(capture.MaxTurnIDLength) }},
			{"129 characters", func() any { return g.id(capture.MaxTurnIDLength + 1) }},
			{"all allowed characters", func() any { return "Az09" + g.next() + "._:-" }},
			{"starts with a digit", func() any { return "9" + g.next() }},
			{"starts with -", func() any { return "-" + g.next() }}, {"starts with .", func() any { return "." + g.next() }},
			{"starts with _", func() any { return "_" + g.next() }}, {"starts with :", func() any { return ":" + g.next() }},
			{"with a space", func() any { return "a " + g.next() }}, {"with a slash", func() any { return "a/" + g.next() }},
			{"with @", func() any { return "a@" + g.next() }}, {"with é", func() any { return "é" + g.next() }},
			{"with NUL", func() any { return "a" + g.next() + "\x00" }}, {"ends with a newline", func() any { return "a" + g.next() + "\n" }},
		}
		if docMax > 0 && docMax != capture.MaxTurnIDLength {
			out = append(out, value{"doc limit", func() any { return g.id(docMax) }}, value{"doc limit+1", func() any { return g.id(docMax + 1) }})
		}
		return out
	case "conversation_id", "tester_id", "prompt_version", "branch":
		return append(lengths(limits(capture.MaxIDLength), false, repeat), val("white space around", " é "))
	case "tester_email":
		out := []value{val("valid", "meg@example.com"), val("shortest", "a@b"), val("non-ASCII", "é@é.fr"),
			val("no @", "meg"), val("nothing before @", "@example.com"), val("nothing after @", "meg@"),
			val("two @", "a@b@c"), val("@@", "a@@b"), val("space in name", "m eg@example.com"),
			val("space in domain", "meg@exa mple.com"), val("leading space", " meg@example.com"),
			val("trailing newline", "meg@example.com\n"), val("tab", "meg@\texample.com"),
			val("no-break space", "meg\u00a0@example.com"), val("next line U+0085", "meg@example.com\u0085"),
			val("em space", "meg@\u2003example.com"), val("zero width no-break space (not white space)", "meg@example.com\ufeff"),
			val("zero width space (not white space)", "meg\u200b@example.com"), val("only @", "@"),
			val("dots and plus", "m.e+g@x.y.z"), val("NUL", "meg@ex\x00ample.com")}
		return append(out, lengths(limits(capture.MaxIDLength), false, func(c string, n int) string {
			return strings.Repeat(c, n-2) + "@x"
		})...)
	case "user_message", "response", "query":
		return lengths(limits(capture.MaxTextLength), true, repeat)
	case "text":
		return lengths(limits(chat.MaxTextLength), true, repeat)
	case "avg_similarity":
		return []value{val("0", 0), val("1", 1), val("1.0", raw("1.0")), val("just under 0", -0.0001), val("just over 1", 1.0001),
			val("-0", raw("-0")), val("1e-300", 1e-300), val("huge", raw("1e400")), val("huge negative", raw("-1e400")),
			val("string", "0.5"), val("0.99999", 0.99999)}
	case "processing_time_ms":
		return []value{val("0", 0), val("-0", raw("-0")), val("small negative", -0.001), val("large", 1e308),
			val("largest double", raw("1.7976931348623157e308")), val("beyond a double", raw("1e309")),
			val("huge negative", raw("-1e400")), val("string", "5"), val("1e3", raw("1e3"))}
	case "metadata", "search_results":
		return []value{val("nested NUL", map[string]any{"a": "\x00"}), val("nested null", map[string]any{"a": nil}),
			val("deep", map[string]any{"a": []any{map[string]any{"b": 1.5}}})}
	case "scores":
		out := []value{val("empty", map[string]any{}), val("all five", map[string]any{"professionalism": 1, "empathy": 2,
			"clarity": 3, "actionability": 4, "compliance": 5})}
		for _, name := range []string{"professionalism", "empathy", "clarity", "actionability", "compliance",
			"empathy_score", "EMPATHY", "Empathy_SCORE", " Empathy_SCORE\u00a0", "\u2003compliance\t", "clar\u0130ty",
			"CLAR\u0130TY_score", "empathy\u0085"} {
			out = append(out, val(fmt.Sprintf("name %q", name), map[string]any{name: 4}))
		}
		for _, name := range []string{"kindness", "empathy_scores", "empathyscore", "_score", "", "empathy_score_score",
			"em pathy", "émpathy", "empathy\u200b", "\ufeffempathy", "profeſſionalism", "empathy-score", "empathy.score", "score_empathy"} {
			out = append(out, val(fmt.Sprintf("unknown name %q", name), map[string]any{name: 4}))
		}
		for _, v := range []value{val("0", 0), val("1", 1), val("5", 5), val("6", 6), val("-1", -1), val("2.5", 2.5), val("4.0", raw("4.0")), val("4e0", raw("4e0")), val("5.000001", raw("5.000001")),
			val(`"4"`, "4"), val("null", nil), val("true", true), val("1e400", raw("1e400")), val("10^22", raw("10000000000000000000000")),
			val("array", []any{4}), val("object", map[string]any{"v": 4})} {
			out = append(out, value{"empathy " + v.name, func() any { return map[string]any{"empathy": v.make()} }})
		}
		return append(out, value{"one good, one bad", func() any { return map[string]any{"empathy": 4, "clarity": 0} }},
			value{"one good, one unknown", func() any { return map[string]any{"empathy": 4, "kindness": 4} }})
	}
	return g.turnSpecific(field, docMax)
}

// bodyEndpoint is an operation taking a JSON object body.
type bodyEndpoint struct {
	name, path, template string
	// pointer is the request schema in openapi.json.
	pointer string
	base    func() map[string]any
	// nested is set for the turn, whose properties inside messages and
	// usage are varied too.
	nested bool
	// known are inputs where the server and the document part ways for a
	// reason the document states; each is pinned so that a change shows.
	known []knownCase
}

// knownCase is an input on which the schema and the server disagree, with
// what each says.
type knownCase struct {
	name string
	edit func(m map[string]any) any
	// schemaValid is the document's verdict; status and field the server's answer.
	schemaValid bool
	status      int
	field       string
	why         string
}

// caseInput is one request body of a bodyEndpoint.
type caseInput struct {
	name string
	body any
}

// variants are the bodies made from the endpoint's valid one by changing
// one property at a time, for every property the schema documents, plus
// an unknown property and the body as a whole replaced.
func (g *gen) variants(t *testing.T, doc map[string]any, ep bodyEndpoint) []caseInput {
	schema, _ := deref(doc, resolve(doc, ep.pointer), ep.pointer)
	props, _ := schema["properties"].(map[string]any)
	if len(props) == 0 {
		t.Fatalf("%s: no properties at %s", ep.name, ep.pointer)
	}
	var out []caseInput
	for _, field := range slices.Sorted(maps.Keys(props)) {
		if _, ok := ep.base()[field]; !ok {
			t.Fatalf("%s: the valid body has no %s", ep.name, field)
		}
		prop, _ := deref(doc, props[field], "")
		docMax := 0
		if m, ok := prop["maxLength"].(float64); ok {
			docMax = int(m)
		}
		values := generic
		if field == "id" {
			// An id used twice would be a replay or a conflict: generic
			// values that are valid ids are left to specific's fresh ones.
			values = slices.DeleteFunc(slices.Clone(generic), func(v value) bool {
				s, ok := v.make().(string)
				return ok && turnID.MatchString(s)
			})
		}
		for _, v := range append(slices.Clone(values), g.specific(field, docMax)...) {
			m := ep.base()
			if x := v.make(); x == absent {
				delete(m, field)
			} else {
				m[field] = x
			}
			out = append(out, caseInput{field + ": " + v.name, m})
		}
	}
	for _, extra := range []struct {
		name string
		v    any
	}{{"colour", "blue"}, {"colour", nil}, {"Colour", 1}} {
		m := ep.base()
		m[extra.name] = extra.v
		out = append(out, caseInput{fmt.Sprintf("unknown property %s: %v", extra.name, extra.v), m})
	}
	for _, whole := range []string{"null", "[]", "1", `"x"`, "true", "[{}]"} {
		out = append(out, caseInput{"body " + whole, raw(whole)})
	}
	return out
}

func marshal(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// errorOf decodes the error of an error answer.
func errorOf(t testing.TB, b []byte) server.ErrorDetail {
	t.Helper()
	var e server.ErrorBody
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatalf("not an error body: %v: %.300s", err, b)
	}
	return e.Error
}

// short is body cut for messages.
func short(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + fmt.Sprintf("… (%d bytes)", len(b))
	}
	return string(b)
}

// expect requires the answer the verdict calls for: 2xx when valid, else
// 400 naming a field the verdict names.
func expect(t *testing.T, v verdict, res *http.Response, b []byte) {
	t.Helper()
	expectNamed(t, v, res, b, verdict.names)
}

// expectNamed is expect with names telling whether the server's error field
// is one the verdict finds wrong.
func expectNamed(t *testing.T, v verdict, res *http.Response, b []byte, names func(verdict, string) bool) {
	t.Helper()
	ok := res.StatusCode >= 200 && res.StatusCode < 300
	switch {
	case v.valid && !ok:
		t.Errorf("the schema says valid, the server answered %d: %s", res.StatusCode, short(b))
	case !v.valid && res.StatusCode != http.StatusBadRequest:
		t.Errorf("the schema says %v, the server answered %d: %s", v, res.StatusCode, short(b))
	case !v.valid:
		if e := errorOf(t, b); e.Code != "invalid" || !names(v, e.Field) {
			t.Errorf("the schema says %v, the server's error names field %q (code %s): %s", v, e.Field, e.Code, e.Message)
		}
	}
}

// confServer is a server with the document, for the conformance tests.
type confServer struct {
	*apiServer
	doc   map[string]any
	g     *gen
	cases int
}

// post sends body (JSON bytes) with header and checks the answer against
// the document; it returns the answer.
func (c *confServer) post(t *testing.T, path, template string, body []byte, header http.Header) (*http.Response, []byte) {
	t.Helper()
	s := *c.apiServer
	s.t = t
	c.cases++
	res, b := s.send("POST", path, string(body), header)
	if res.StatusCode >= 500 {
		t.Errorf("POST %s answered %d: %s", path, res.StatusCode, short(b))
	}
	checkAnswer(t, c.doc, "POST", template, res, b)
	return res, b
}

func TestConformanceBodies(t *testing.T) {
	eachDatabaseParallel(t, func(t *testing.T, cfg config.Config) {
		c := &confServer{apiServer: start(t, cfg), doc: confDoc(t), g: &gen{}}
		g := c.g
		scored := c.postTurn(turn("scored-"+g.next(), "q"))
		turnBase := func() map[string]any {
			return addRichRecord(map[string]any{"id": g.id(12), "conversation_id": "conv-" + g.next(), "tester_id": "meg",
				"tester_email": "meg@example.com", "user_message": "My employee didn't show up", "response": "Got it.",
				"prompt_version": "v1", "branch": "main", "search_results": []any{map[string]any{"chunk": "a", "similarity": 0.5}},
				"avg_similarity": 0.5, "processing_time_ms": 12, "metadata": map[string]any{"model": "m"}})
		}
		caseFold := []knownCase{
			{name: "a property name in other case", edit: func(m map[string]any) any {
				m["Response"] = m["response"]
				delete(m, "response")
				return m
			}, schemaValid: false, status: http.StatusOK,
				why: "Go's encoding/json matches property names without regard to case (info.description says so)"},
			{name: "a property name with ſ for s", edit: func(m map[string]any) any {
				m["re\u017fponse"] = m["response"]
				delete(m, "response")
				return m
			}, schemaValid: false, status: http.StatusOK,
				why: "Go's encoding/json folds ſ (U+017F) to s when matching property names"},
		}
		precision := []knownCase{
			{name: "avg_similarity a hair over 1", edit: func(m map[string]any) any {
				m["avg_similarity"] = raw("1.00000000000000001")
				return m
			}, schemaValid: false, status: http.StatusOK, why: "the number rounds to the double 1 (info.description says so)"},
			{name: "avg_similarity a hair under 0", edit: func(m map[string]any) any {
				m["avg_similarity"] = raw("-1e-400")
				return m
			}, schemaValid: false, status: http.StatusOK, why: "the number rounds to the double -0 (info.description says so)"},
		}
		endpoints := []bodyEndpoint{
			{name: "POST /turns", path: "/turns", template: "/turns",
				pointer: "/paths/~1turns/post/requestBody/content/application~1json/schema", base: turnBase, nested: true,
				known: append(append(slices.Clone(caseFold), precision...), turnKnown(http.StatusBadRequest)...)},
			{name: "POST /messages", path: "/messages", template: "/messages",
				pointer: "/paths/~1messages/post/requestBody/content/application~1json/schema",
				base: func() map[string]any {
					return map[string]any{"conversation_id": "conv-" + g.next(), "tester_id": "meg",
						"tester_email": "meg@example.com", "text": "I called once today"}
				},
				known: []knownCase{{name: "a property name in other case", edit: func(m map[string]any) any {
					m["TEXT"] = m["text"]
					delete(m, "text")
					return m
				}, schemaValid: false, status: http.StatusOK, why: caseFold[0].why}}},
			{name: "POST /score", path: "/score", template: "/score",
				pointer: "/paths/~1score/post/requestBody/content/application~1json/schema",
				base: func() map[string]any {
					return map[string]any{"query": "My employee quit", "response": "Got it.", "search_results": []any{"a"},
						"avg_similarity": 0.5, "processing_time_ms": 3, "is_first_response": true}
				},
				known: append([]knownCase{{name: "a property name in other case", edit: func(m map[string]any) any {
					m["Response"] = m["response"]
					delete(m, "response")
					return m
				}, schemaValid: false, status: http.StatusOK, why: caseFold[0].why}}, precision...)},
			{name: "POST /turns/{id}/scores", path: "/turns/" + scored.ID + "/scores", template: "/turns/{id}/scores",
				pointer: "/paths/~1turns~1{id}~1scores/post/requestBody/content/application~1json/schema",
				base:    func() map[string]any { return map[string]any{"scores": map[string]any{"empathy": 4}} },
				known: []knownCase{
					{name: "one name in two spellings", edit: func(m map[string]any) any {
						return map[string]any{"scores": map[string]any{"empathy": 4, "Empathy_score": 3}}
					}, schemaValid: true, status: http.StatusBadRequest, field: "scores",
						why: "JSON Schema cannot say that two property names may not mean the same score (HumanScores' description says so)"},
					{name: "a property name in other case", edit: func(m map[string]any) any { return map[string]any{"SCORES": m["scores"]} },
						schemaValid: false, status: http.StatusOK, why: caseFold[0].why}}},
		}
		for _, ep := range endpoints {
			t.Run(ep.name, func(t *testing.T) {
				if v := judge(t, ep.pointer, marshal(t, ep.base())); !v.valid {
					t.Fatalf("the valid body is %v", v)
				}
				names := verdict.names
				variants := g.variants(t, c.doc, ep)
				if ep.nested {
					names, variants = turnNames, append(variants, g.nestedVariants(t, c.doc, ep.pointer, ep.base)...)
				}
				for _, in := range variants {
					t.Run(in.name, func(t *testing.T) {
						body := marshal(t, in.body)
						v := judge(t, ep.pointer, body)
						res, b := c.post(t, ep.path, ep.template, body, nil)
						expectNamed(t, v, res, b, names)
					})
				}
				for _, k := range ep.known {
					t.Run("known: "+k.name, func(t *testing.T) {
						body := marshal(t, k.edit(ep.base()))
						c.known(t, ep.path, ep.template, judge(t, ep.pointer, body), body, nil, k)
					})
				}
			})
		}

		// Each turn of a batch, after a valid one, as a JSON array and as NDJSON.
		batchPointer := "/paths/~1turns~1batch/post/requestBody/content/application~1json/schema"
		turns := endpoints[0]
		for _, format := range []string{"json", "ndjson"} {
			t.Run("POST /turns/batch "+format, func(t *testing.T) {
				for _, in := range append(g.variants(t, c.doc, turns), g.nestedVariants(t, c.doc, turns.pointer, turns.base)...) {
					t.Run(in.name, func(t *testing.T) {
						body, v, h := c.batchBody(t, format, batchPointer, marshal(t, turns.base()), marshal(t, in.body))
						res, b := c.post(t, "/turns/batch", "/turns/batch", body, h)
						c.expectBatch(t, v, res, b)
					})
				}
				for _, k := range append(append(slices.Clone(caseFold), precision...), batchKnown(turnKnown(http.StatusBadRequest))...) {
					t.Run("known: "+k.name, func(t *testing.T) {
						body, v, h := c.batchBody(t, format, batchPointer, marshal(t, turns.base()), marshal(t, k.edit(turns.base())))
						c.known(t, "/turns/batch", "/turns/batch", v, body, h, k)
					})
				}
			})
		}

		t.Run("batch bodies", func(t *testing.T) {
			one := string(marshal(t, turnBase()))
			for _, b := range []struct {
				name, body string
				status     int
			}{
				{"empty", "", http.StatusBadRequest}, {"blank lines", "\n \n", http.StatusBadRequest},
				{"empty array", "[]", http.StatusBadRequest}, {"array of an empty array", " [[]]", http.StatusMultiStatus},
				{"cut short", "[" + one, http.StatusBadRequest}, {"two arrays", "[" + one + "] []", http.StatusBadRequest},
				{"array of a number", "[1]", http.StatusMultiStatus}, {"one turn", "[" + one + "]", http.StatusOK},
				{"one NDJSON turn", one, http.StatusOK}, {"NDJSON with blank lines", "\n" + one + "\n\n", http.StatusOK},
			} {
				t.Run(b.name, func(t *testing.T) {
					v := judge(t, batchPointer, []byte(b.body))
					res, body := c.post(t, "/turns/batch", "/turns/batch", []byte(b.body), nil)
					if res.StatusCode != b.status {
						t.Errorf("%d, want %d: %s", res.StatusCode, b.status, body)
					}
					if strings.HasPrefix(strings.TrimSpace(b.body), "[") && v.valid != (res.StatusCode == http.StatusOK) {
						t.Errorf("the schema says %v, the server answered %d: %s", v, res.StatusCode, body)
					}
				})
			}
		})

		t.Run("Idempotency-Key", func(t *testing.T) {
			keyPointer := "/components/parameters/IdempotencyKey/schema"
			for _, k := range []value{
				val("absent", absent), val("empty", ""),
				{"short", func() any { return g.text("x", 8) }},
				{"255×é", func() any { return g.text("é", capture.MaxKeyLength) }},
				{"255×😀", func() any { return g.text("😀", capture.MaxKeyLength) }},
				{"256×é", func() any { return g.text("é", capture.MaxKeyLength+1) }},
				{"256×a", func() any { return g.text("a", capture.MaxKeyLength+1) }},
			} {
				for _, path := range []string{"/turns", "/turns/batch"} {
					t.Run(path+" "+k.name, func(t *testing.T) {
						h := http.Header{}
						v := verdict{valid: true}
						if key := k.make(); key != absent {
							h.Set(api.IdempotencyHeader, key.(string))
							if v = judgeValue(t, keyPointer, key); !v.valid {
								v.fields = [][]string{{api.IdempotencyHeader}}
							}
						}
						body := marshal(t, turnBase())
						if path == "/turns/batch" {
							body = []byte("[" + string(body) + "," + string(marshal(t, turnBase())) + "]")
						}
						res, b := c.post(t, path, path, body, h)
						expect(t, v, res, b)
					})
				}
			}
			t.Run("not UTF-8", func(t *testing.T) {
				for _, path := range []string{"/turns", "/turns/batch"} {
					res, b := c.post(t, path, path, marshal(t, turnBase()), http.Header{api.IdempotencyHeader: {"k\xff" + g.next()}})
					if e := errorOf(t, b); res.StatusCode != http.StatusBadRequest || e.Field != api.IdempotencyHeader {
						t.Errorf("%s: %d %s", path, res.StatusCode, b)
					}
				}
			})
		})
		t.Run("replays and conflicts", func(t *testing.T) {
			key := http.Header{api.IdempotencyHeader: {g.text("k", 20)}}
			first, other := turnBase(), turnBase()
			sameID := turnBase()
			sameID["id"] = first["id"]
			for _, step := range []struct {
				name   string
				body   map[string]any
				header http.Header
				status int
				field  string
			}{
				{"first", first, key, http.StatusCreated, ""},
				{"replay", first, key, http.StatusOK, ""},
				{"same key, other turn", other, key, http.StatusConflict, api.IdempotencyHeader},
				{"same id, other turn", sameID, nil, http.StatusConflict, "id"},
			} {
				res, b := c.post(t, "/turns", "/turns", marshal(t, step.body), step.header)
				switch {
				case res.StatusCode != step.status:
					t.Errorf("%s: %d, want %d: %s", step.name, res.StatusCode, step.status, b)
				case step.status == http.StatusOK && res.Header.Get(api.ReplayedHeader) != "true":
					t.Errorf("%s: %s %q", step.name, api.ReplayedHeader, res.Header.Get(api.ReplayedHeader))
				case step.status == http.StatusConflict:
					if e := errorOf(t, b); e.Code != "conflict" || e.Field != step.field {
						t.Errorf("%s: %s", step.name, b)
					}
				}
			}
			key = http.Header{api.IdempotencyHeader: {g.text("k", 20)}}
			a, b2 := string(marshal(t, turnBase())), string(marshal(t, turnBase()))
			for _, step := range []struct {
				name, body string
				status     int
				replayed   bool
				conflict   bool
			}{
				{"first", "[" + a + "," + b2 + "]", http.StatusOK, false, false},
				{"replay", "[" + a + "," + b2 + "]", http.StatusOK, true, false},
				{"second turn other", "[" + a + "," + string(marshal(t, turnBase())) + "]", http.StatusMultiStatus, true, true},
			} {
				res, body := c.post(t, "/turns/batch", "/turns/batch", []byte(step.body), key)
				var out api.BatchAnswer
				if res.StatusCode != step.status || json.Unmarshal(body, &out) != nil || len(out.Results) != 2 {
					t.Fatalf("batch %s: %d, want %d: %s", step.name, res.StatusCode, step.status, body)
				}
				if out.Results[0].Replayed != step.replayed {
					t.Errorf("batch %s: %s", step.name, body)
				}
				if e := out.Results[1].Error; step.conflict != (e != nil && e.Code == "conflict" && e.Field == api.IdempotencyHeader) {
					t.Errorf("batch %s: %s", step.name, body)
				}
			}
		})
		t.Logf("%d requests", c.cases)
	})
}

// batchBody is a batch of the valid turn and the turn in, as a JSON array or
// NDJSON, with the document's verdict on the second turn.
func (c *confServer) batchBody(t *testing.T, format, pointer string, valid, in []byte) ([]byte, verdict, http.Header) {
	t.Helper()
	if format == "json" {
		body := []byte("[" + string(valid) + "," + string(in) + "]")
		v := judge(t, pointer, body)
		if !v.item(0).valid {
			t.Fatalf("the valid turn is %v", v.item(0))
		}
		return body, v.item(1), nil
	}
	return []byte(string(valid) + "\n" + string(in) + "\n"), judge(t, pointer+"/items", in),
		http.Header{"Content-Type": {"application/x-ndjson"}}
}

// expectBatch requires the answer to a batch of a valid turn and one the
// verdict is on: 200 with both recorded when it is valid, else 207 with the
// first recorded and the second refused naming a field the verdict names.
func (c *confServer) expectBatch(t *testing.T, v verdict, res *http.Response, b []byte) {
	t.Helper()
	var out api.BatchAnswer
	if err := json.Unmarshal(b, &out); err != nil || len(out.Results) != 2 {
		t.Fatalf("%d: not two results: %s", res.StatusCode, short(b))
	}
	if r := out.Results[0]; r.Error != nil || r.ID == "" {
		t.Errorf("the valid turn was not recorded: %+v", r)
	}
	r := out.Results[1]
	switch {
	case v.valid && (res.StatusCode != http.StatusOK || r.Error != nil):
		t.Errorf("the schema says valid, the server answered %d: %s", res.StatusCode, short(b))
	case !v.valid && (res.StatusCode != http.StatusMultiStatus || r.Error == nil):
		t.Errorf("the schema says %v, the server answered %d: %s", v, res.StatusCode, short(b))
	case !v.valid && (r.Error.Code != "invalid" || !turnNames(v, r.Error.Field)):
		t.Errorf("the schema says %v, the server's error names field %q (code %s): %s", v, r.Error.Field, r.Error.Code, r.Error.Message)
	}
}

// known checks a pinned disagreement: the document's verdict and the
// server's answer must both be as recorded.
func (c *confServer) known(t *testing.T, path, template string, v verdict, body []byte, h http.Header, k knownCase) {
	t.Helper()
	if v.valid != k.schemaValid {
		t.Errorf("the schema says %v, want valid=%v (%s): update the known case", v, k.schemaValid, k.why)
	}
	res, b := c.post(t, path, template, body, h)
	field := ""
	switch {
	case res.StatusCode == http.StatusBadRequest:
		field = errorOf(t, b).Field
	case res.StatusCode == http.StatusMultiStatus:
		var out api.BatchAnswer
		if json.Unmarshal(b, &out) == nil && len(out.Results) == 2 && out.Results[1].Error != nil {
			field = out.Results[1].Error.Field
		}
	}
	got := res.StatusCode
	if got == http.StatusCreated {
		got = http.StatusOK
	}
	if got != k.status || field != k.field {
		t.Errorf("known disagreement changed: the server answered %d naming %q, was %d naming %q (%s); "+
			"if the server was fixed, update the document and this case: %s", res.StatusCode, field, k.status, k.field, k.why, short(b))
	}
}

// queryParam is a documented parameter of an operation.
type queryParam struct {
	node    map[string]any
	pointer string
}

// queryParams are the documented query parameters of the operation.
func queryParams(t *testing.T, doc map[string]any, method, template string) map[string]queryParam {
	t.Helper()
	out := map[string]queryParam{}
	itemPointer := "/paths/" + pointerEscape(template)
	for _, at := range []string{itemPointer, itemPointer + "/" + strings.ToLower(method)} {
		list, _ := resolve(doc, at+"/parameters").([]any)
		for i, p := range list {
			p, ptr := deref(doc, p, fmt.Sprintf("%s/parameters/%d", at, i))
			if p["in"] == "query" {
				out[p["name"].(string)] = queryParam{p, ptr}
			}
		}
	}
	return out
}

// judgeQuery is the document's verdict on a query string: each documented
// parameter present must be valid for its schema (an empty value counts as
// absent where allowEmptyValue says so), each required one present.
func judgeQuery(t *testing.T, doc map[string]any, params map[string]queryParam, query string) verdict {
	t.Helper()
	q, err := url.ParseQuery(query)
	if err != nil {
		t.Fatal(err)
	}
	v := verdict{valid: true}
	for _, name := range slices.Sorted(maps.Keys(params)) {
		p := params[name]
		value, present := q.Get(name), q.Has(name)
		if present && value == "" && p.node["allowEmptyValue"] == true {
			present = false
		}
		ok := true
		if !present {
			ok = p.node["required"] != true
		} else {
			ok = judgeValue(t, p.pointer+"/schema", paramValue(doc, p.pointer, value)).valid
		}
		if !ok {
			v.valid = false
			v.fields = append(v.fields, []string{name})
		}
	}
	return v
}

func TestConformanceQueries(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		c := &confServer{apiServer: start(t, cfg), doc: confDoc(t), g: &gen{}}
		for _, v := range []string{"va", "vb"} {
			c.postTurn(turn("conv-"+v, "q", "prompt_version", v))
		}
		limits := []string{"limit=", "limit=0", "limit=1", "limit=50", "limit=1000", "limit=1001", "limit=x", "limit=-1",
			"limit=1.5", "limit=1e2", "limit=01", "limit=%2B5", "limit=%201", "limit=1%20", "limit=99999999999999999999",
			"limit=0x10", "limit=%EF%BC%91"}
		queries := map[string][]string{
			"/sessions": append(slices.Clone(limits), "", "offset=", "offset=0", "offset=-1", "offset=7", "offset=2147483647",
				"offset=2147483648", "offset=x", "offset=-0", "tester_id=", "tester_id=meg", "tester_id=%C3%A9",
				"limit=&offset=", "limit=5&offset=x", "limit=x&offset=5", "unknown=1"),
			"/llm-calls":       append(slices.Clone(limits), "", "purpose=chat", "cause_id=x", "purpose=&cause_id=", "unknown=1"),
			"/metrics/compare": {"a=va&b=vb", "a=va", "b=vb", "", "a=&b=vb", "a=va&b=", "a=&b=", "a=vb&b=va&c=1", "A=va&B=vb"},
			// The suggestion routes refuse parameters they do not document,
			// which judgeQuery does not judge: none is sent here.
			"/suggestions": append(slices.Clone(limits), "", "server=local", "server=", "session=a", "version=v1", "model=gpt-4o",
				"match_type=exact", "match_type=none", "match_type=", "match_type=bogus", "match_type=EXACT", "since=24h", "since=7d",
				"since=90m", "since=1h30m", "since=1.5h", "since=0", "since=36500d", "since=36501d", "since=-1h", "since=2026-01-10",
				"since=2026-01-10T15:04:05Z", "since=2026-01-10T15:04:05.123%2B02:00", "since=2026-13-01", "since=2026-01-10T25:00:00Z",
				"since=", "since=yesterday", "until=2026-01-11", "until=x", "since=2026-01-10&until=2026-01-11",
				"server="+strings.Repeat("%C3%A9", 200), "server="+strings.Repeat("%C3%A9", 201), "session="+strings.Repeat("a", 201)),
			"/suggestions/stats": {"", "server=local", "version=v1", "version=", "since=24h", "since=7d", "since=x", "until=2026-01-10",
				"until=", "until=7", "server=" + strings.Repeat("%C3%A9", 201)},
			"/suggestions/export": {"format=sft", "format=ranking", "format=dpo", "format=", "format=csv", "format=SFT", "",
				"format=sft&accepted=true", "format=sft&accepted=false", "format=sft&accepted=", "format=sft&accepted=yes",
				"format=dpo&session=a&match_type=exact", "format=ranking&since=7d", "format=sft&since=x", "format=sft&match_type=bogus",
				"format=sft&model=" + strings.Repeat("m", 201)},
		}
		for _, template := range slices.Sorted(maps.Keys(queries)) {
			params := queryParams(t, c.doc, "GET", template)
			if len(params) == 0 {
				t.Fatalf("GET %s documents no query parameters", template)
			}
			for _, query := range queries[template] {
				t.Run(template+"?"+query, func(t *testing.T) {
					s := *c.apiServer
					s.t = t
					c.cases++
					v := judgeQuery(t, c.doc, params, query)
					res, b := s.call("GET", template+"?"+query, "")
					if res.StatusCode >= 500 {
						t.Errorf("%d: %s", res.StatusCode, b)
					}
					checkAnswer(t, c.doc, "GET", template, res, b)
					expect(t, v, res, b)
				})
			}
		}
		t.Run("compare an unknown version", func(t *testing.T) {
			s := *c.apiServer
			s.t = t
			query := "a=va&b=nosuch"
			if v := judgeQuery(t, c.doc, queryParams(t, c.doc, "GET", "/metrics/compare"), query); !v.valid {
				t.Errorf("the schema says %v", v)
			}
			res, b := s.call("GET", "/metrics/compare?"+query, "")
			checkAnswer(t, c.doc, "GET", "/metrics/compare", res, b)
			if res.StatusCode != http.StatusNotFound {
				t.Errorf("%d: %s", res.StatusCode, b)
			}
		})
		t.Logf("%d requests", c.cases)
	})
}

// TestConformanceMethods sends every documented path the methods it does
// not document: each must be 405 with the documented body and an Allow
// header listing exactly the documented methods (and HEAD with GET).
func TestConformanceMethods(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		s := start(t, cfg)
		doc := confDoc(t)
		paths := doc["paths"].(map[string]any)
		for template, item := range paths {
			var documented []string
			for m := range item.(map[string]any) {
				if slices.Contains(methods, m) {
					documented = append(documented, strings.ToUpper(m))
				}
			}
			path := strings.ReplaceAll(template, "{id}", "x")
			// A path such as /workshops/x/draft-rubric-items/suggest-groups
			// is also one of /workshops/{id}/draft-rubric-items/{item_id}:
			// it takes the methods of every template it matches.
			var allow []string
			for other, item := range paths {
				if !templateRegexp(other).MatchString(path) {
					continue
				}
				for m := range item.(map[string]any) {
					if slices.Contains(methods, m) && !slices.Contains(allow, strings.ToUpper(m)) {
						allow = append(allow, strings.ToUpper(m))
					}
				}
			}
			if slices.Contains(allow, "GET") {
				allow = append(allow, "HEAD")
			}
			slices.Sort(allow)
			for _, m := range []string{"GET", "POST", "PUT", "PATCH", "DELETE"} {
				if slices.Contains(allow, m) {
					continue
				}
				res, b := s.call(m, path, "")
				got := strings.Split(res.Header.Get("Allow"), ", ")
				slices.Sort(got)
				if res.StatusCode != http.StatusMethodNotAllowed || !slices.Equal(got, allow) {
					t.Errorf("%s %s: %d, Allow %q, want 405 and %q: %s", m, path, res.StatusCode, res.Header.Get("Allow"), allow, b)
				}
				for _, d := range documented {
					checkAnswer(t, doc, d, template, res, b)
				}
			}
		}
	})
}

// templateRegexp matches the paths of an OpenAPI path template.
func templateRegexp(template string) *regexp.Regexp {
	parts := strings.Split(template, "/")
	for i, p := range parts {
		if strings.HasPrefix(p, "{") && strings.HasSuffix(p, "}") {
			parts[i] = "[^/]+"
		} else {
			parts[i] = regexp.QuoteMeta(p)
		}
	}
	return regexp.MustCompile("^" + strings.Join(parts, "/") + "$")
}

// notFoundBodies are valid bodies of the routes that read theirs before
// they look the workshop (or the turn, or the learning) up, so that the
// answer is its 404.
var notFoundBodies = map[route]string{
	{"PATCH", "/workshops/{id}"}:                                `{"name":"x"}`,
	{"POST", "/workshops/{id}/members"}:                         `{"name":"Alice"}`,
	{"POST", "/workshops/{id}/traces"}:                          `[{"input":"q","output":"a"}]`,
	{"POST", "/workshops/{id}/traces/from-sessions"}:            `{"session_id":"s"}`,
	{"POST", "/workshops/{id}/phase"}:                           `{"phase":"discovery"}`,
	{"POST", "/workshops/{id}/begin-discovery"}:                 `{}`,
	{"POST", "/workshops/{id}/discovery-feedback"}:              `{"trace_id":"t1","feedback_label":"good","comment":"c"}`,
	{"POST", "/workshops/{id}/generate-followup-question"}:      `{"trace_id":"t1","question_number":1}`,
	{"POST", "/workshops/{id}/submit-followup-answer"}:          `{"trace_id":"t1","answer":"a"}`,
	{"POST", "/workshops/{id}/analyze-discovery"}:               `{}`,
	{"POST", "/workshops/{id}/analysis-templates"}:              `{"name":"n","title":"t","instruction":"i"}`,
	{"POST", "/workshops/{id}/draft-rubric-items"}:              `{"text":"x"}`,
	{"PUT", "/workshops/{id}/draft-rubric-items/{item_id}"}:     `{"text":"x"}`,
	{"POST", "/workshops/{id}/draft-rubric-items/apply-groups"}: `{"groups":[]}`,
	{"PUT", "/workshops/{id}/draft-rubric-groups/{group_id}"}:   `{"name":"x"}`,
	{"POST", "/turns/{id}/feedback"}:                            `{"tester_id":"meg","rating":"up"}`,
	{"PATCH", "/learnings/{id}"}:                                `{"pattern":"x"}`,
	{"POST", "/alerts/{id}/feedback"}:                           `{"tester_id":"meg","reaction":"up"}`,
}

// TestConformanceNotFound asks each path with an id for one that does not
// exist: 404, as documented.
func TestConformanceNotFound(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		s := start(t, cfg)
		doc := confDoc(t)
		for _, r := range routes() {
			if !strings.Contains(r.path, "{id}") {
				continue
			}
			body, ok := notFoundBodies[r]
			if !ok && r.method == "POST" {
				body = `{"scores":{"empathy":4}}`
			}
			// An id with a NUL or a byte that is not UTF-8 names nothing
			// either, on PostgreSQL too.
			for _, id := range []string{"nosuch00", "nul%00", "bad%FF"} {
				res, b := s.call(r.method, strings.ReplaceAll(r.path, "{id}", id), body)
				if res.StatusCode != http.StatusNotFound || errorOf(t, b).Code != "not_found" {
					t.Errorf("%s %s with id %s: %d %s", r.method, r.path, id, res.StatusCode, b)
				}
				checkAnswer(t, doc, r.method, r.path, res, b)
			}
		}
	})
}

// TestConformanceUnauthorized calls every route without the token hone
// runs with: 401 with WWW-Authenticate, as documented, except the open
// GET /openapi.json.
func TestConformanceUnauthorized(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		cfg.APIToken = "s3cret"
		s := start(t, cfg)
		// A wrong token on every route, on purpose: no guessing limit here.
		s.app.Auth.Attempts.SetLimits(0, 0)
		doc := confDoc(t)
		for _, r := range routes() {
			body := ""
			if r.method == "POST" {
				body = "{}"
			}
			res, b := s.send(r.method, strings.ReplaceAll(r.path, "{id}", "x"), body, http.Header{"Authorization": {"Bearer wrong"}})
			want := http.StatusUnauthorized
			if r.path == "/openapi.json" {
				want = http.StatusOK
			}
			if res.StatusCode != want {
				t.Errorf("%s %s: %d, want %d: %.200s", r.method, r.path, res.StatusCode, want, b)
			}
			checkAnswer(t, doc, r.method, r.path, res, b)
		}
	})
}

// TestConformanceSlowBody sends each endpoint with a body part of it and
// then nothing: the answer must be the documented 408.
func TestConformanceSlowBody(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		cfg.ReadTimeout = 300 * time.Millisecond
		s := start(t, cfg)
		doc := confDoc(t)
		u, err := url.Parse(s.base)
		if err != nil {
			t.Fatal(err)
		}
		// A workshop's routes look the workshop up before they read an
		// import file: they get a real one.
		var ws struct {
			ID          string `json:"id"`
			Facilitator struct {
				ID string `json:"id"`
			} `json:"facilitator"`
		}
		s.json("POST", "/workshops", `{"name":"slow","facilitator":{"name":"Fay"}}`, http.StatusCreated, "WorkshopCreated", &ws)
		for _, r := range routes() {
			if !slices.Contains([]string{"POST", "PUT", "PATCH"}, r.method) || noBody[r] {
				continue
			}
			t.Run(r.method+" "+r.path, func(t *testing.T) {
				conn, err := net.Dial("tcp", u.Host)
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close()
				id := "x"
				if strings.HasPrefix(r.path, "/workshops/") {
					id = ws.ID
				}
				path := api.Prefix + strings.NewReplacer("{id}", id, "{member_id}", ws.Facilitator.ID).Replace(r.path)
				fmt.Fprintf(conn, "%s %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n[{\"conversation_id\":", r.method, path, u.Host)
				_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
				res, err := http.ReadResponse(bufio.NewReader(conn), nil)
				if err != nil {
					t.Fatalf("no answer: %v", err)
				}
				defer res.Body.Close()
				var b bytes.Buffer
				_, _ = b.ReadFrom(res.Body)
				if res.StatusCode != http.StatusRequestTimeout || !res.Close {
					t.Errorf("%d (close %v), want 408 and the connection closed: %s", res.StatusCode, res.Close, b.Bytes())
				}
				checkAnswer(t, doc, r.method, r.path, res, b.Bytes())
			})
		}
	})
}

// TestConformanceUnavailable runs hone with a database that never answers
// in time: every answer must be documented, the database's endpoints 503
// with Retry-After, and POST /score, which reads no database, still 200.
func TestConformanceUnavailable(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		cfg.DBTimeout = time.Nanosecond
		s := start(t, cfg)
		doc := confDoc(t)
		turnBody := `{"conversation_id":"c","tester_id":"meg","user_message":"q","response":"r"}`
		for _, r := range []struct {
			method, path, template, body string
			status                       int
		}{
			{"POST", "/turns", "/turns", turnBody, http.StatusServiceUnavailable},
			{"POST", "/turns/batch", "/turns/batch", "[" + turnBody + "]", http.StatusServiceUnavailable},
			{"POST", "/messages", "/messages", `{"conversation_id":"c","tester_id":"meg","text":"!session"}`, http.StatusServiceUnavailable},
			{"POST", "/messages", "/messages", `{"conversation_id":"c","tester_id":"meg","text":"!improve tone: warmer"}`, http.StatusServiceUnavailable},
			{"GET", "/sessions", "/sessions", "", http.StatusServiceUnavailable},
			{"GET", "/sessions/x", "/sessions/{id}", "", http.StatusServiceUnavailable},
			{"GET", "/sessions/x/export.csv", "/sessions/{id}/export.csv", "", http.StatusServiceUnavailable},
			{"GET", "/sessions/x/export.json", "/sessions/{id}/export.json", "", http.StatusServiceUnavailable},
			{"GET", "/llm-calls", "/llm-calls", "", http.StatusServiceUnavailable},
			{"POST", "/turns/x/scores", "/turns/{id}/scores", `{"scores":{"empathy":4}}`, http.StatusServiceUnavailable},
			{"GET", "/metrics/sessions/x", "/metrics/sessions/{id}", "", http.StatusServiceUnavailable},
			{"GET", "/metrics/compare?a=x&b=y", "/metrics/compare", "", 0},
			{"GET", "/metrics/regressions", "/metrics/regressions", "", 0},
			{"POST", "/suggestions", "/suggestions", `{"ts":1704067200,"suggestions":[],"actual_input":"x"}`, http.StatusServiceUnavailable},
			// The record reads (the list and the export) are not bounded by
			// HONE_DB_TIMEOUT (storage's SuggestionStore.Each takes no
			// limit): any documented answer, 503 once they are.
			{"GET", "/suggestions", "/suggestions", "", 0},
			{"DELETE", "/suggestions?session=x", "/suggestions", "", http.StatusServiceUnavailable},
			{"GET", "/suggestions/stats", "/suggestions/stats", "", http.StatusServiceUnavailable},
			{"GET", "/suggestions/export?format=ranking", "/suggestions/export", "", 0},
			{"POST", "/score", "/score", `{"response":"Got it."}`, http.StatusOK},
			{"GET", "/openapi.json", "/openapi.json", "", http.StatusOK},
		} {
			t.Run(r.method+" "+r.path, func(t *testing.T) {
				s := *s
				s.t = t
				res, b := s.call(r.method, r.path, r.body)
				if r.status != 0 && res.StatusCode != r.status {
					t.Errorf("%d, want %d: %s", res.StatusCode, r.status, b)
				}
				switch {
				case res.StatusCode == http.StatusServiceUnavailable:
					if got := res.Header.Get("Retry-After"); got != strconv.Itoa(server.RetryAfter) {
						t.Errorf("Retry-After %q", got)
					}
				case res.StatusCode >= 500:
					t.Errorf("%d: %s", res.StatusCode, b)
				}
				checkAnswer(t, doc, r.method, r.template, res, b)
			})
		}
	})
}
