package api_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/honehq/hone/internal/api"
	"github.com/honehq/hone/internal/config"
	"github.com/honehq/hone/internal/score"
)

// The score conformance tests hold the request schemas of the score
// endpoints (POST /score-configs, PATCH /score-configs/{id}, POST /scores
// with one score, a JSON array and NDJSON) and the server to each other, as
// the workshop conformance test does: each body, made from a valid one by
// changing one property (nested ones too, and those the valid body leaves
// out), is judged by the document and sent to a real server, which must
// accept it exactly when the schema says it is valid, and otherwise refuse
// it with 400 naming a field the schema finds wrong. A property that names
// something the schema cannot know (a turn, a trace, a config, a value the
// config does not take) has a ref: the documented answer to a value the
// schema accepts and the server does not.

// scEndpoint is a score operation taking a JSON object body.
type scEndpoint struct {
	name, method, template string
	// object is the pointer of the object schema whose properties the
	// variants change.
	object string
	// fresh makes the path and the valid body of one request.
	fresh func(t *testing.T) (string, map[string]any)
	// after runs after each answer (to archive a config made, freeing its
	// name).
	after    func(t *testing.T, res *http.Response, b []byte)
	refs     map[string]wsRef
	specific map[string][]value
	known    []wsKnown
}

func (ep scEndpoint) request() string {
	return "/paths/" + pointerEscape(ep.template) + "/" + strings.ToLower(ep.method) + "/requestBody/content/application~1json/schema"
}

// scVariants are the bodies made from base by changing one property at a
// time, for every property of the object schema at pointer (nested ones
// too), plus unknown properties and the body as a whole replaced.
func scVariants(doc map[string]any, g *gen, pointer string, specific map[string][]value) []wsVariant {
	schema, _ := deref(doc, resolve(doc, pointer), pointer)
	var out []wsVariant
	var walk func(schema map[string]any, path []string, at func(body map[string]any) map[string]any)
	walk = func(schema map[string]any, path []string, at func(body map[string]any) map[string]any) {
		props, _ := schema["properties"].(map[string]any)
		for _, field := range slices.Sorted(maps.Keys(props)) {
			prop, _ := deref(doc, props[field], "")
			docMax := 0
			if m, ok := prop["maxLength"].(float64); ok {
				docMax = int(m)
			}
			key := strings.Join(append(slices.Clone(path), field), ".")
			values := slices.Clone(generic)
			if key == "id" {
				values = slices.DeleteFunc(values, func(v value) bool {
					s, ok := v.make().(string)
					return ok && turnID.MatchString(s)
				})
				values = append(values, g.specific("id", docMax)...)
			} else {
				values = append(values, wsValues(g, field, docMax)...)
			}
			for _, v := range append(values, specific[key]...) {
				out = append(out, wsVariant{key + ": " + v.name, key, func(body map[string]any) any {
					m := at(body)
					if x := v.make(); x == absent {
						delete(m, field)
					} else {
						m[field] = x
					}
					return body
				}})
			}
			if items, _ := deref(doc, prop["items"], ""); items != nil && items["properties"] != nil {
				walk(items, append(slices.Clone(path), field, "0"), func(body map[string]any) map[string]any {
					list, _ := at(body)[field].([]any)
					if len(list) == 0 {
						return map[string]any{}
					}
					m, _ := list[0].(map[string]any)
					return m
				})
			}
		}
	}
	walk(schema, nil, func(body map[string]any) map[string]any { return body })
	for _, extra := range []struct {
		name string
		v    any
	}{{"colour", "blue"}, {"colour", nil}, {"Colour", 1}} {
		out = append(out, wsVariant{fmt.Sprintf("unknown property %s: %v", extra.name, extra.v), "", func(body map[string]any) any {
			body[extra.name] = extra.v
			return body
		}})
	}
	for _, whole := range []string{"null", "1", `"x"`, "true", "{}"} {
		out = append(out, wsVariant{"body " + whole, "", func(map[string]any) any { return raw(whole) }})
	}
	return out
}

// scoreValues are values of a score's value besides the generic ones.
var scoreValues = []value{val("4.0", raw("4.0")), val("4e0", raw("4e0")), val("5", 5), val("6", 6), val(`"4"`, "4"),
	val("1e400", raw("1e400")), val("-0", raw("-0")), val("GOOD", "GOOD"), val("good", "good"), val("object", map[string]any{"v": 4})}

func TestScoreConformanceBodies(t *testing.T) {
	eachDatabaseParallel(t, func(t *testing.T, cfg config.Config) {
		s := start(t, cfg)
		doc := confDoc(t)
		g := &gen{}
		anyone := s.as(t, doc, "")
		turnID := s.postTurn(turn("scored-"+g.next(), "q")).ID
		w := anyone.createWorkshop("scores")
		anyone.importJSON(w.ID, map[string]any{"id": "t1", "input": "q", "output": "a"})

		// archive frees the name of a config an answer made.
		archive := func(t *testing.T, res *http.Response, b []byte) {
			if res.StatusCode >= 300 {
				return
			}
			var c score.Config
			if err := json.Unmarshal(b, &c); err != nil || c.ID == "" {
				t.Fatalf("not a config: %s", b)
			}
			if !c.Archived {
				anyone.json("PATCH", "/score-configs/"+c.ID, `{"archived":true}`, http.StatusOK, "ScoreConfig", nil)
			}
		}
		newConfig := func(t *testing.T) score.Config {
			var c score.Config
			anyone.json("POST", "/score-configs", fmt.Sprintf(`{"name":"c%s","data_type":"numeric","min":0,"max":10}`, g.next()),
				http.StatusCreated, "ScoreConfig", &c)
			return c
		}
		dataTypes := []value{val("numeric", "numeric"), val("categorical", "categorical"), val("boolean", "boolean"), val("text", "text"),
			val("upper case", "NUMERIC"), val("white space around", " numeric ")}
		names := []value{val("digit first", "1st"), val("upper case", "Helpful"+g.next()), val("colon", "a:b"), val("dot and hyphen", "a.b-c"+g.next()),
			val("underscore first", "_a")}
		caseFold := wsKnown{name: "a property name in other case", schemaValid: false, status: http.StatusOK,
			why: "Go's encoding/json matches property names without regard to case (info.description says so)"}
		scoreRefs := map[string]wsRef{"config": {http.StatusBadRequest, "invalid", "config"}, "value": {http.StatusBadRequest, "invalid", "value"}}
		turnRefs := maps.Clone(scoreRefs)
		turnRefs["turn_id"] = wsRef{http.StatusNotFound, "not_found", "turn_id"}
		traceRefs := maps.Clone(scoreRefs)
		traceRefs["trace_id"] = wsRef{http.StatusNotFound, "not_found", "trace_id"}
		traceRefs["workshop_id"] = wsRef{http.StatusNotFound, "not_found", "trace_id"}
		sources := []value{val("API", "API")}
		for _, src := range score.Sources {
			sources = append(sources, val(src, src))
		}
		scoreSpecific := map[string][]value{"value": scoreValues, "source": sources,
			"author": append(lengths([]int{score.MaxAuthorLength}, false, g.text), val("white space around", " meg\u3000"))}
		turnScore := func(*testing.T) (string, map[string]any) {
			return "/scores", map[string]any{"id": g.id(12), "turn_id": turnID, "config": "empathy", "value": 4, "comment": "warm",
				"source": "chat", "author": "meg"}
		}
		endpoints := []scEndpoint{
			{name: "numeric config", method: "POST", template: "/score-configs", object: "/components/schemas/ScoreConfigInput",
				fresh: func(*testing.T) (string, map[string]any) {
					return "/score-configs", map[string]any{"name": "n" + g.next(), "data_type": "numeric", "max": 10, "step": 0.5, "description": "d"}
				},
				after: archive, specific: map[string][]value{"data_type": dataTypes, "name": names},
				known: []wsKnown{{name: "max not greater than min", edit: func(m map[string]any) any { m["min"] = 10; return m },
					status: http.StatusBadRequest, field: "max", schemaValid: true, why: "JSON Schema cannot compare two properties (ScoreConfigInput says so)"}}},
			{name: "categorical config", method: "POST", template: "/score-configs", object: "/components/schemas/ScoreConfigInput",
				fresh: func(*testing.T) (string, map[string]any) {
					return "/score-configs", map[string]any{"name": "c" + g.next(), "data_type": "categorical", "description": "d",
						"categories": []any{map[string]any{"label": "GOOD", "value": 1}, map[string]any{"label": "BAD", "value": nil}}}
				},
				after: archive, specific: map[string][]value{"data_type": dataTypes},
				known: []wsKnown{{name: "a label twice in other case", edit: func(m map[string]any) any {
					m["categories"] = []any{map[string]any{"label": "GOOD"}, map[string]any{"label": "good"}}
					return m
				}, status: http.StatusBadRequest, field: "categories.1.label", schemaValid: true,
					why: "JSON Schema cannot say that labels differ whatever their case (ScoreConfigInput.categories says so)"}}},
			{name: "config change", method: "PATCH", template: "/score-configs/{id}", object: "/components/schemas/ScoreConfigUpdate",
				fresh: func(t *testing.T) (string, map[string]any) {
					c := newConfig(t)
					return "/score-configs/" + c.ID, map[string]any{"name": "r" + g.next(), "description": "d", "min": 0, "max": 10, "step": 0.5,
						"archived": false}
				},
				after: archive, specific: map[string][]value{"name": names},
				refs: map[string]wsRef{"categories": {http.StatusBadRequest, "invalid", "categories"}, "max": {http.StatusBadRequest, "invalid", "max"}}},
			{name: "a turn's score", method: "POST", template: "/scores", object: "/components/schemas/NewScore",
				fresh: turnScore, refs: turnRefs, specific: scoreSpecific},
			{name: "a trace's score", method: "POST", template: "/scores", object: "/components/schemas/NewScore",
				fresh: func(*testing.T) (string, map[string]any) {
					return "/scores", map[string]any{"workshop_id": w.ID, "trace_id": "t1", "config": "workshop_label", "value": "BAD",
						"comment": "vague", "source": "workshop", "author": w.Facilitator.ID}
				}, refs: traceRefs, specific: scoreSpecific},
		}
		cases := 0
		for _, ep := range endpoints {
			t.Run(ep.name, func(t *testing.T) {
				_, base := ep.fresh(t)
				if v := judge(t, ep.request(), marshal(t, base)); !v.valid {
					t.Fatalf("the valid body is %v", v)
				}
				first := slices.Sorted(maps.Keys(base))[0]
				fold := caseFold
				fold.edit = func(m map[string]any) any {
					m[strings.ToUpper(first)] = m[first]
					delete(m, first)
					return m
				}
				for _, in := range scVariants(doc, g, ep.object, ep.specific) {
					t.Run(in.name, func(t *testing.T) {
						path, body := ep.fresh(t)
						b := marshal(t, in.edit(body))
						v := judge(t, ep.request(), b)
						cases++
						res, answer := anyone.run(t, ep.method, path, b)
						checkAnswer(t, doc, ep.method, ep.template, res, answer)
						var ref *wsRef
						if r, ok := ep.refs[in.path]; ok {
							ref = &r
						}
						wsExpect(t, v, ref, res, answer)
						if ep.after != nil {
							ep.after(t, res, answer)
						}
					})
				}
				for _, k := range append(slices.Clone(ep.known), fold) {
					t.Run("known: "+k.name, func(t *testing.T) {
						path, body := ep.fresh(t)
						b := marshal(t, k.edit(body))
						if v := judge(t, ep.request(), b); v.valid != k.schemaValid {
							t.Errorf("the schema says %v, want valid=%v (%s): update the known case", v, k.schemaValid, k.why)
						}
						cases++
						res, answer := anyone.run(t, ep.method, path, b)
						got, field := res.StatusCode, ""
						if got >= 200 && got < 300 {
							got = http.StatusOK
						} else if got == http.StatusBadRequest {
							field = errorOf(t, answer).Field
						}
						if got != k.status || field != k.field {
							t.Errorf("known disagreement changed: the server answered %d naming %q, was %d naming %q (%s): %s",
								res.StatusCode, field, k.status, k.field, k.why, short(answer))
						}
						if ep.after != nil {
							ep.after(t, res, answer)
						}
					})
				}
			})
		}

		// Each score of a batch, after a valid one, as a JSON array and as
		// NDJSON: the item's result holds what a single score's answer
		// would.
		turns := endpoints[3]
		itemPointer := "/components/schemas/NewScore"
		for _, format := range []string{"json", "ndjson"} {
			t.Run("batch "+format, func(t *testing.T) {
				for _, in := range scVariants(doc, g, itemPointer, turns.specific) {
					if strings.HasPrefix(in.name, "body ") {
						continue
					}
					t.Run(in.name, func(t *testing.T) {
						_, good := turns.fresh(t)
						_, body := turns.fresh(t)
						item := marshal(t, in.edit(body))
						v := judge(t, itemPointer, item)
						var b []byte
						h := http.Header{"Content-Type": {"application/json"}}
						if format == "json" {
							b = []byte("[" + string(marshal(t, good)) + "," + string(item) + "]")
						} else {
							b = []byte(string(marshal(t, good)) + "\n" + string(item) + "\n")
							h.Set("Content-Type", "application/x-ndjson")
						}
						cases++
						res, answer := anyone.send("POST", "/scores", string(b), h)
						checkAnswer(t, doc, "POST", "/scores", res, answer)
						var out api.ScoreBatchAnswer
						if err := json.Unmarshal(answer, &out); err != nil || len(out.Results) != 2 || out.Results[0].Error != nil {
							t.Fatalf("%d: %s", res.StatusCode, short(answer))
						}
						r := out.Results[1]
						var ref *wsRef
						if x, ok := turns.refs[in.path]; ok {
							ref = &x
						}
						switch {
						case v.valid && r.Error == nil && res.StatusCode == http.StatusOK:
						case v.valid && ref != nil && r.Error != nil && r.Error.Code == ref.code && r.Error.Field == ref.field:
						case v.valid:
							t.Errorf("the schema says valid, the server answered %d: %s", res.StatusCode, short(answer))
						case r.Error == nil || res.StatusCode != http.StatusMultiStatus:
							t.Errorf("the schema says %v, the server answered %d: %s", v, res.StatusCode, short(answer))
						case r.Error.Code != "invalid" || !wsNames(v, r.Error.Field):
							t.Errorf("the schema says %v, the server's error names field %q (code %s): %s", v, r.Error.Field, r.Error.Code, r.Error.Message)
						}
					})
				}
			})
		}
		t.Logf("%d requests", cases)
	})
}

// TestScoreConformanceQueries holds the query parameters of the score
// endpoints and the server to each other: a query is answered 2xx exactly
// when the document's parameters accept it, else 400 naming the parameter.
func TestScoreConformanceQueries(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		s := start(t, cfg)
		doc := confDoc(t)
		turnID := s.postTurn(turn("c", "q", "prompt_version", "v1")).ID
		s.json("POST", "/scores", fmt.Sprintf(`{"turn_id":%q,"config":"empathy","value":4}`, turnID), http.StatusCreated, "Score", nil)
		limits := []string{"limit=", "limit=0", "limit=1", "limit=1000", "limit=1001", "limit=x", "limit=-1", "limit=1.5", "limit=%2B5",
			"offset=", "offset=0", "offset=-1", "offset=2147483647", "offset=2147483648", "offset=x"}
		filters := []string{"", "turn_id=" + turnID, "turn_id=nosuch", "turn_id=a%00b", "workshop_id=w&trace_id=t", "config=empathy",
			"config=EMPATHY", "config=builtin-empathy", "config=nosuch", "config=", "source=api", "source=API", "source=", "source=slack",
			"author=meg", "prompt_version=v1", "since=24h", "since=7d", "since=90m", "since=1h30m", "since=0", "since=36500d", "since=36501d",
			"since=-1h", "since=2026-01-10", "since=2026-01-10T15:04:05Z", "since=2026-13-01", "since=yesterday", "since=", "until=2999-01-01",
			"until=x", "since=2026-01-10&until=2026-01-11", "unknown=1"}
		cases := 0
		for _, c := range []struct {
			template string
			queries  []string
		}{
			{"/scores", append(slices.Clone(filters), limits...)},
			{"/scores/export", append(slices.Clone(filters), "format=jsonl", "format=csv", "format=", "format=xml", "format=CSV",
				"format=csv&config=thumbs")},
			{"/score-configs", []string{"", "archived=true", "archived=false", "archived=", "archived=yes", "archived=TRUE", "archived=1"}},
		} {
			params := queryParams(t, doc, "GET", c.template)
			for _, query := range c.queries {
				t.Run(c.template+"?"+query, func(t *testing.T) {
					s := *s
					s.t = t
					cases++
					v := judgeQuery(t, doc, params, query)
					res, b := s.call("GET", c.template+"?"+query, "")
					if res.StatusCode >= 500 {
						t.Errorf("%d: %s", res.StatusCode, b)
					}
					checkAnswer(t, doc, "GET", c.template, res, b)
					if strings.HasPrefix(query, "config=") && query != "config=" && v.valid && res.StatusCode == http.StatusBadRequest {
						if e := errorOf(t, b); e.Field == "config" && (strings.Contains(query, "nosuch")) {
							return // a config no config has: the document says so
						}
					}
					expect(t, v, res, b)
				})
			}
		}
		t.Logf("%d requests", cases)
	})
}
