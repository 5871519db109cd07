package api_test

import (
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/honehq/hone/internal/config"
	"github.com/honehq/hone/internal/workshop"
)

// The workshop conformance test holds the request schemas of the workshop
// endpoints and the server to each other, as TestConformanceBodies does for
// the older ones: each body, made from a valid one by changing one property
// (nested ones too), is judged by the document and sent to a real server,
// which must accept it exactly when the schema says it is valid, and
// otherwise refuse it with 400 naming a field the schema finds wrong.
//
// Some properties name things the server looks up (a trace, a member, an
// analysis, a draft item), or depend on the workshop's state (a phase, the
// next question); the schema cannot know which exist. For those, refs say
// what the server answers a value the schema accepts but that names nothing
// (or what the state does not allow), as the operation documents it.

// wsRef is the documented answer to a value that names nothing.
type wsRef struct {
	status      int
	code, field string
}

// wsCase is the state one request needs: its path, the caller's token and
// the valid body.
type wsCase struct {
	path, token string
	body        map[string]any
}

// wsKnown is an input on which the schema and the server disagree, for a
// reason the document states, with what each says.
type wsKnown struct {
	name        string
	edit        func(m map[string]any) any
	schemaValid bool
	status      int // 200 stands for any 2xx
	field       string
	why         string
}

// wsEndpoint is a workshop operation taking a JSON object body.
type wsEndpoint struct {
	method, template string
	// fresh makes the state of one request.
	fresh func(t *testing.T) wsCase
	// refs are keyed by the property's path, dotted (groups.0.item_ids).
	refs map[string]wsRef
	// specific are values of particular properties, by path, besides the
	// generic ones and those of the property's name (wsValues).
	specific map[string][]value
	known    []wsKnown
}

func (ep wsEndpoint) name() string { return ep.method + " " + ep.template }

func (ep wsEndpoint) pointer() string {
	return "/paths/" + pointerEscape(ep.template) + "/" + strings.ToLower(ep.method) + "/requestBody/content/application~1json/schema"
}

// wsVariant is one body made from the valid one.
type wsVariant struct {
	name string
	// path is the property changed, "" for the body as a whole or an
	// unknown property.
	path string
	edit func(body map[string]any) any
}

// twice stands for the valid list of ids with its first id given twice.
type twiceValue struct{}

var twice any = twiceValue{}

// wsValues are the values of a workshop property by its name.
func wsValues(g *gen, field string, docMax int) []value {
	limits := func(goLimit int) []int {
		if docMax > 0 && docMax != goLimit {
			return []int{goLimit, docMax}
		}
		return []int{goLimit}
	}
	switch field {
	case "name", "title", "group_name", "model":
		return append(lengths(limits(workshop.MaxNameLength), false, g.text), val("white space around", " é "))
	case "description", "comment", "answer", "text":
		return lengths(limits(workshop.MaxTextLength), true, g.text)
	case "instruction", "followup_system_prompt", "followup_user_prompt":
		return lengths(limits(workshop.MaxPromptLength), false, g.text)
	case "email":
		out := []value{val("valid", "meg@example.com"), val("white space around", " meg@example.com\u3000"), val("shortest", "a@b"),
			val("non-ASCII", "é@é.fr"), val("no @", "meg"), val("nothing before @", "@example.com"), val("nothing after @", "meg@"),
			val("two @", "a@b@c"), val("space inside", "m eg@example.com"), val("no-break space inside", "meg\u00a0@example.com"),
			val("zero width space (not white space)", "meg\u200b@example.com"), val("NUL", "meg@ex\x00ample.com"), val("only @", "@")}
		return append(out, lengths(limits(workshop.MaxNameLength), false, func(c string, n int) string { return strings.Repeat(c, n-2) + "@x" })...)
	case "role":
		return []value{val("participant", "participant"), val("facilitator", "facilitator"), val("upper case", "FACILITATOR"),
			val("white space around", " Participant\u3000"), val("dotted capital I", "facil\u0130tator"), val("dotless i", "facil\u0131tator"),
			val("admin", "admin"), val("NUL after", "participant\x00"), val("inner space", "partici pant")}
	case "feedback_label":
		return []value{val("good", "good"), val("bad", "bad"), val("GOOD", "GOOD"), val("Bad", "Bad"), val("white space around", "\u00a0good\n"),
			val("ok", "ok"), val("goodd", "goodd"), val("both", "good bad"), val("NUL after", "bad\x00")}
	case "source_type":
		return []value{val("finding", "finding"), val("Finding", "Finding"), val("DISAGREEMENT", " DISAGREEMENT "), val("feedback", "feedback"),
			val("manual", "manual"), val("dotted capital I", "f\u0130nding"), val("dotless i", "f\u0131nding"), val("other", "other")}
	case "phase":
		out := []value{val("upper case", "DISCOVERY"), val("white space around", "\tdiscovery\u2028"), val("hyphen", "judge-tuning"),
			val("dotted capital I", "d\u0130scovery"), val("unknown", "review")}
		for _, p := range workshop.Phases {
			out = append(out, val(p, p))
		}
		return out
	case "input_jsonpath", "output_jsonpath":
		return append([]value{val("root", "$"), val("member", "$.messages[-1].content"), val("bracket", "$['a b']"),
			val("white space around", " $.a\n"), val("no $", "a.b"), val("white space inside", "$ .a")},
			lengths(limits(workshop.MaxNameLength), false, func(c string, n int) string { return "$." + strings.Repeat(c, n-2) })...)
	case "template":
		return []value{val("evaluation_criteria", "evaluation_criteria"), val("themes_patterns", "themes_patterns"),
			val("white space around", " themes_patterns\u3000"), val("upper case", "THEMES_PATTERNS"), val("unknown", "nosuch")}
	case "question_number":
		return []value{val("1", 1), val("2", 2), val("3", 3), val("4", 4), val("string", "1"), val("huge", raw("1e400")),
			val("beyond int64", raw("99999999999999999999"))}
	case "trace_limit":
		return []value{val("1", 1), val("10", 10), val("100000", 100000), val("100001", 100001), val("string", "5"),
			val("beyond int64", raw("99999999999999999999"))}
	case "token_budget":
		return []value{val("999", 999), val("1000", 1000), val("10000000", 10000000), val("10000001", 10000001), val("string", "2000"),
			val("beyond int64", raw("99999999999999999999"))}
	case "randomize":
		return []value{val("string", "true")}
	case "source_trace_ids", "item_ids":
		return []value{val("an id twice", twice), val("number", []any{1}), val("null", []any{nil}), val("unknown", []any{"nosuch"})}
	case "group_id":
		return []value{val("new", "g-new"), val("white space around", "  g-new\t"), val("long", strings.Repeat("g", 1000))}
	}
	return nil
}

// wsVariants are the bodies of ep made from base by changing one property
// at a time, nested ones too, for every property the schema documents,
// plus unknown properties and the body as a whole replaced.
func wsVariants(t *testing.T, doc map[string]any, g *gen, ep wsEndpoint, base map[string]any) []wsVariant {
	schema, _ := deref(doc, resolve(doc, ep.pointer()), ep.pointer())
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
			values := append(append(slices.Clone(generic), wsValues(g, field, docMax)...), ep.specific[key]...)
			for _, v := range values {
				out = append(out, wsVariant{key + ": " + v.name, key, func(body map[string]any) any {
					m := at(body)
					switch x := v.make(); x {
					case absent:
						delete(m, field)
					case twice:
						list, _ := m[field].([]any)
						if len(list) == 0 {
							list = []any{"x"}
						}
						m[field] = []any{list[0], list[0]}
					default:
						m[field] = x
					}
					return body
				}})
			}
			inner := func(body map[string]any) map[string]any {
				m, _ := at(body)[field].(map[string]any)
				return m
			}
			if _, ok := prop["properties"]; ok {
				walk(prop, append(slices.Clone(path), field), inner)
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
	for _, whole := range []string{"null", "[]", "1", `"x"`, "true", "[{}]", "{}"} {
		out = append(out, wsVariant{"body " + whole, "", func(map[string]any) any { return raw(whole) }})
	}
	return out
}

var indexed = regexp.MustCompile(`\[(\d+)\]`)

// wsNames reports whether the server's error field names a place the verdict
// finds wrong: the same, one that holds it or one inside it. The server
// names an array element groups[0].name, or groups.name for a value of the
// wrong JSON type, where the verdict has groups/0/name, and an unknown
// property inside an object by its name alone.
func wsNames(v verdict, field string) bool {
	field = indexed.ReplaceAllString(field, ".$1")
	if v.names(field) {
		return true
	}
	sp := strings.Split(field, ".")
	for _, f := range v.fields {
		// An unknown property inside an object is named alone.
		if len(sp) == 1 && len(f) > 1 && f[len(f)-1] == field {
			return true
		}
		withoutIndex := slices.DeleteFunc(slices.Clone(f), func(s string) bool { _, err := strconv.Atoi(s); return err == nil })
		for _, path := range [][]string{f, withoutIndex} {
			if field != "" && len(path) > 0 && len(path) <= len(sp) && slices.Equal(path, sp[:len(path)]) {
				return true
			}
		}
	}
	return false
}

// run sends one body of ep and returns the answer.
func (c wsCaller) run(t *testing.T, method, path string, body []byte) (*http.Response, []byte) {
	t.Helper()
	res, b := c.send(method, path, string(body), nil)
	if res.StatusCode >= 500 {
		t.Errorf("%s %s answered %d: %s", method, path, res.StatusCode, short(b))
	}
	return res, b
}

// wsExpect requires the answer the verdict calls for: 2xx when valid (or,
// for a ref that names nothing, the ref's answer), else 400 naming a field
// the verdict names.
func wsExpect(t *testing.T, v verdict, ref *wsRef, res *http.Response, b []byte) {
	t.Helper()
	ok := res.StatusCode >= 200 && res.StatusCode < 300
	switch {
	case v.valid && ok:
	case v.valid && ref != nil && res.StatusCode == ref.status:
		if e := errorOf(t, b); e.Code != ref.code || e.Field != ref.field {
			t.Errorf("the schema says valid; the server answered %d with code %s naming %q, the document %s naming %q: %s",
				res.StatusCode, e.Code, e.Field, ref.code, ref.field, e.Message)
		}
	case v.valid:
		t.Errorf("the schema says valid, the server answered %d: %s", res.StatusCode, short(b))
	case res.StatusCode != http.StatusBadRequest:
		t.Errorf("the schema says %v, the server answered %d: %s", v, res.StatusCode, short(b))
	default:
		if e := errorOf(t, b); e.Code != "invalid" || !wsNames(v, e.Field) {
			t.Errorf("the schema says %v, the server's error names field %q (code %s): %s", v, e.Field, e.Code, e.Message)
		}
	}
}

func TestWorkshopConformanceBodies(t *testing.T) {
	eachDatabaseParallel(t, func(t *testing.T, cfg config.Config) {
		s := start(t, cfg)
		doc := confDoc(t)
		g := &gen{}
		cases := 0

		// newWorkshop makes a workshop (in intake) and returns it with its
		// facilitator's caller.
		newWorkshop := func(t *testing.T) (workshop.Created, wsCaller) {
			t.Helper()
			w := s.as(t, doc, "").createWorkshop("w" + g.next())
			return w, s.as(t, doc, w.Facilitator.Token)
		}

		// The shared workshop: 400 traces in discovery, Alice with feedback
		// on t2 and its first question asked, an analysis, and items in
		// two groups.
		shared, fac := newWorkshop(t)
		id := shared.ID
		alice := fac.addMember(id, "Alice", "participant")
		var traces []map[string]any
		for i := 1; i <= 400; i++ {
			traces = append(traces, map[string]any{"id": "t" + strconv.Itoa(i), "input": "question " + strconv.Itoa(i), "output": "answer"})
		}
		fac.importJSON(id, traces...)
		fac.json("POST", "/workshops/"+id+"/begin-discovery?trace_limit=400", "", http.StatusOK, "Workshop", nil)
		aliceC := s.as(t, doc, alice.Token)
		aliceC.feedback(id, "t2", "good", "fine")
		aliceC.json("POST", "/workshops/"+id+"/generate-followup-question", `{"trace_id":"t2","question_number":1}`, http.StatusOK, "Question", nil)
		var started workshop.Started
		fac.json("POST", "/workshops/"+id+"/analyze-discovery", "", http.StatusAccepted, "AnalysisStarted", &started)
		promote := func(body string) workshop.DraftItem {
			var it workshop.DraftItem
			fac.json("POST", "/workshops/"+id+"/draft-rubric-items", body, http.StatusCreated, "DraftItem", &it)
			return it
		}
		tone1 := promote(`{"text":"Warm.","group_name":"Tone"}`)
		tone2 := promote(`{"text":"Polite.","group_name":"Tone"}`)
		promote(`{"text":"Polite too.","group_id":"` + tone1.GroupID + `"}`)
		steps := promote(`{"text":"Name the contact.","group_name":"Next steps"}`)
		seeded := []string{tone1.ID, tone2.ID, steps.ID}
		for _, it := range fac.draftItems(id) {
			seeded = append(seeded, it.ID)
		}
		nextTrace := 2
		bob := fac.addMember(id, "Bob", "participant")
		// Values of user_id besides the generic ones: the caller's own id
		// with white space around it, and another member's.
		userValues := func(own string) map[string][]value {
			return map[string][]value{"user_id": {val("own id with white space", " "+own+"\u00a0"), val("another member", bob.ID)}}
		}

		userRef := &wsRef{http.StatusForbidden, "forbidden", "user_id"}
		traceRef := &wsRef{http.StatusNotFound, "not_found", ""}
		endpoints := []wsEndpoint{
			{method: "POST", template: "/workshops",
				fresh: func(*testing.T) wsCase {
					return wsCase{"/workshops", "", map[string]any{"name": "Review " + g.next(), "description": "HR answers",
						"input_jsonpath": "$.messages[-1].content", "output_jsonpath": "", "model": "gpt-4o",
						"facilitator": map[string]any{"name": "Fay", "email": "fay@example.com", "role": "anything"}}}
				},
				known: []wsKnown{{name: "a JSONPath that does not parse", edit: func(m map[string]any) any { m["input_jsonpath"] = "$["; return m },
					schemaValid: true, status: http.StatusBadRequest, field: "input_jsonpath",
					why: "the JSONPath grammar (RFC 9535) is beyond a pattern: the schema checks only the leading $, the description says the rest"},
					{name: "a JSONPath filter that calls a function", edit: func(m map[string]any) any { m["output_jsonpath"] = "$[?count(@.*) > 0]"; return m },
						schemaValid: true, status: http.StatusBadRequest, field: "output_jsonpath",
						why: "the filters hone evaluates (no function calls, no queries of several values) are beyond a pattern; the description says which"},
					{name: "an unknown property of the facilitator", edit: func(m map[string]any) any { m["facilitator"].(map[string]any)["colour"] = 1; return m },
						schemaValid: false, status: http.StatusBadRequest, field: "colour",
						why: "Go's decoder names an unknown property inside an object by its name alone (ErrorDetail.field says so)"}}},
			{method: "PATCH", template: "/workshops/{id}",
				fresh: func(*testing.T) wsCase {
					return wsCase{"/workshops/" + id, fac.token, map[string]any{"name": "Shared", "description": "d", "input_jsonpath": "",
						"output_jsonpath": "$.text", "model": "", "followup_system_prompt": "Ask.", "followup_user_prompt": "{trace.input}", "token_budget": 12000}}
				},
				known: []wsKnown{{name: "token_budget with a fraction", edit: func(m map[string]any) any { m["token_budget"] = raw("2000.0"); return m },
					schemaValid: true, status: http.StatusBadRequest, field: "token_budget",
					why: "Go reads whole numbers only without a fraction or exponent (info.description says so); JSON Schema cannot tell 2000.0 from 2000"}}},
			{method: "POST", template: "/workshops/{id}/members",
				fresh: func(*testing.T) wsCase {
					return wsCase{"/workshops/" + id + "/members", fac.token, map[string]any{"name": "Member " + g.next(), "email": "m@example.com", "role": "participant"}}
				}},
			{method: "POST", template: "/workshops/{id}/phase", specific: map[string][]value{"user_id": {val("another member", bob.ID)}},
				fresh: func(t *testing.T) wsCase {
					w, _ := newWorkshop(t)
					return wsCase{"/workshops/" + w.ID + "/phase", w.Facilitator.Token, map[string]any{"phase": "discovery", "user_id": w.Facilitator.ID}}
				},
				refs: map[string]wsRef{"user_id": *userRef, "phase": {http.StatusConflict, "conflict", ""}}},
			{method: "POST", template: "/workshops/{id}/begin-discovery", specific: map[string][]value{"user_id": {val("another member", bob.ID)}},
				fresh: func(t *testing.T) wsCase {
					w, f := newWorkshop(t)
					f.importJSON(w.ID, map[string]any{"input": "q", "output": "a"}, map[string]any{"input": "q", "output": "a"})
					return wsCase{"/workshops/" + w.ID + "/begin-discovery", w.Facilitator.Token, map[string]any{"trace_limit": 2, "randomize": true, "user_id": w.Facilitator.ID}}
				},
				refs: map[string]wsRef{"user_id": *userRef},
				known: []wsKnown{{name: "trace_limit with an exponent", edit: func(m map[string]any) any { m["trace_limit"] = raw("2e0"); return m },
					schemaValid: true, status: http.StatusBadRequest, field: "trace_limit",
					why: "Go reads whole numbers only without a fraction or exponent (info.description says so)"}}},
			{method: "POST", template: "/workshops/{id}/discovery-feedback", specific: userValues(alice.ID),
				fresh: func(*testing.T) wsCase {
					return wsCase{"/workshops/" + id + "/discovery-feedback", alice.Token, map[string]any{"trace_id": "t1", "user_id": alice.ID,
						"feedback_label": "good", "comment": "Clear."}}
				},
				refs: map[string]wsRef{"user_id": *userRef, "trace_id": *traceRef}},
			{method: "POST", template: "/workshops/{id}/generate-followup-question", specific: userValues(alice.ID),
				fresh: func(*testing.T) wsCase {
					return wsCase{"/workshops/" + id + "/generate-followup-question", alice.Token, map[string]any{"trace_id": "t2", "user_id": alice.ID, "question_number": 1}}
				},
				refs: map[string]wsRef{"user_id": *userRef, "trace_id": *traceRef, "question_number": {http.StatusConflict, "conflict", ""}},
				known: []wsKnown{{name: "question_number with a fraction", edit: func(m map[string]any) any { m["question_number"] = raw("1.0"); return m },
					schemaValid: true, status: http.StatusBadRequest, field: "question_number",
					why: "Go reads whole numbers only without a fraction or exponent (info.description says so)"}}},
			{method: "POST", template: "/workshops/{id}/submit-followup-answer", specific: userValues(alice.ID),
				fresh: func(t *testing.T) wsCase {
					nextTrace++
					trace := "t" + strconv.Itoa(nextTrace)
					a := s.as(t, doc, alice.Token)
					a.feedback(id, trace, "bad", "Vague.")
					var q workshop.Question
					a.json("POST", "/workshops/"+id+"/generate-followup-question", `{"trace_id":"`+trace+`","question_number":1}`, http.StatusOK, "Question", &q)
					return wsCase{"/workshops/" + id + "/submit-followup-answer", alice.Token, map[string]any{"trace_id": trace, "user_id": alice.ID,
						"question": q.Question, "answer": "Because."}}
				},
				refs: map[string]wsRef{"user_id": *userRef, "trace_id": *traceRef, "question": {http.StatusConflict, "conflict", ""}}},
			{method: "POST", template: "/workshops/{id}/analyze-discovery", specific: userValues(shared.Facilitator.ID),
				fresh: func(*testing.T) wsCase {
					return wsCase{"/workshops/" + id + "/analyze-discovery", fac.token, map[string]any{"template": "evaluation_criteria", "model": "m1", "user_id": shared.Facilitator.ID}}
				},
				refs: map[string]wsRef{"user_id": *userRef, "template": {http.StatusBadRequest, "invalid", "template"}}},
			{method: "POST", template: "/workshops/{id}/analysis-templates",
				fresh: func(t *testing.T) wsCase {
					w, _ := newWorkshop(t)
					return wsCase{"/workshops/" + w.ID + "/analysis-templates", w.Facilitator.Token, map[string]any{"name": "tone", "title": "Tone", "instruction": "Look at the tone."}}
				},
				specific: map[string][]value{"name": {val("60 characters", strings.Repeat("a", 60)), val("61 characters", strings.Repeat("a", 61)),
					val("digit first", "1st"), val("upper case", "Tone"), val("hyphen first", "-tone"), val("inner space", "to ne"),
					val("preset", "evaluation_criteria"), val("preset with white space", " themes_patterns\n"), val("preset prefix", "themes_patterns2")}}},
			{method: "POST", template: "/workshops/{id}/draft-rubric-items",
				fresh: func(t *testing.T) wsCase {
					// An exact duplicate is refused: the items of earlier
					// cases go, the four of the shared workshop stay.
					for _, it := range fac.draftItems(id) {
						if !slices.Contains(seeded, it.ID) {
							if res, b := fac.send("DELETE", "/workshops/"+id+"/draft-rubric-items/"+it.ID, "", nil); res.StatusCode != http.StatusNoContent {
								t.Fatalf("delete the draft item of an earlier case: %d %s", res.StatusCode, b)
							}
						}
					}
					return wsCase{"/workshops/" + id + "/draft-rubric-items", fac.token, map[string]any{"text": "Name the HR contact.", "source_type": "finding",
						"source_analysis_id": started.ID, "source_trace_ids": []any{"t1"}, "group_id": steps.GroupID, "group_name": "Next steps"}}
				},
				specific: map[string][]value{"source_analysis_id": {val("unknown", "nosuch")}},
				refs: map[string]wsRef{"source_analysis_id": {http.StatusBadRequest, "invalid", "source_analysis_id"},
					"source_trace_ids": {http.StatusBadRequest, "invalid", "source_trace_ids"}}},
			{method: "PUT", template: "/workshops/{id}/draft-rubric-items/{item_id}",
				fresh: func(*testing.T) wsCase {
					return wsCase{"/workshops/" + id + "/draft-rubric-items/" + tone2.ID, fac.token, map[string]any{"text": "Polite.", "group_id": tone1.GroupID, "group_name": "Tone"}}
				},
				refs: map[string]wsRef{"group_id": {http.StatusBadRequest, "invalid", "group_id"}}},
			{method: "PUT", template: "/workshops/{id}/draft-rubric-groups/{group_id}",
				fresh: func(*testing.T) wsCase {
					return wsCase{"/workshops/" + id + "/draft-rubric-groups/" + steps.GroupID, fac.token, map[string]any{"name": "Next steps"}}
				}},
			{method: "POST", template: "/workshops/{id}/draft-rubric-items/apply-groups",
				fresh: func(*testing.T) wsCase {
					return wsCase{"/workshops/" + id + "/draft-rubric-items/apply-groups", fac.token, map[string]any{"groups": []any{
						map[string]any{"name": "Tone", "item_ids": []any{tone1.ID, tone2.ID}, "rationale": "Both about tone."}}}}
				},
				refs: map[string]wsRef{"groups.0.item_ids": {http.StatusBadRequest, "invalid", "groups[0].item_ids"}},
				known: []wsKnown{{name: "an item in two groups", edit: func(m map[string]any) any {
					m["groups"] = append(m["groups"].([]any), map[string]any{"name": "Again", "item_ids": []any{tone1.ID}})
					return m
				}, schemaValid: true, status: http.StatusBadRequest, field: "groups[1].item_ids",
					why: "JSON Schema cannot say that an id is in at most one of the groups (GroupInput.item_ids says so)"},
					{name: "an unknown property of a group", edit: func(m map[string]any) any {
						m["groups"].([]any)[0].(map[string]any)["colour"] = 1
						return m
					}, schemaValid: false, status: http.StatusBadRequest, field: "colour",
						why: "Go's decoder names an unknown property inside an object by its name alone (ErrorDetail.field says so)"}}},
		}
		for _, ep := range endpoints {
			t.Run(ep.name(), func(t *testing.T) {
				base := ep.fresh(t)
				if v := judge(t, ep.pointer(), marshal(t, base.body)); !v.valid {
					t.Fatalf("the valid body is %v", v)
				}
				// A property that is its own name of a case-folded other: Go's
				// decoder matches names without regard to case.
				first := slices.Sorted(maps.Keys(base.body))[0]
				known := append(slices.Clone(ep.known), wsKnown{name: "a property name in other case", edit: func(m map[string]any) any {
					m[strings.ToUpper(first)] = m[first]
					delete(m, first)
					return m
				}, schemaValid: false, status: http.StatusOK, why: "Go's encoding/json matches property names without regard to case (info.description says so)"})
				for _, in := range wsVariants(t, doc, g, ep, base.body) {
					t.Run(in.name, func(t *testing.T) {
						c := ep.fresh(t)
						body := marshal(t, in.edit(c.body))
						v := judge(t, ep.pointer(), body)
						cases++
						res, b := s.as(t, doc, c.token).run(t, ep.method, c.path, body)
						var ref *wsRef
						if r, ok := ep.refs[in.path]; ok {
							ref = &r
						}
						wsExpect(t, v, ref, res, b)
					})
				}
				for _, k := range known {
					t.Run("known: "+k.name, func(t *testing.T) {
						c := ep.fresh(t)
						body := marshal(t, k.edit(c.body))
						v := judge(t, ep.pointer(), body)
						if v.valid != k.schemaValid {
							t.Errorf("the schema says %v, want valid=%v (%s): update the known case", v, k.schemaValid, k.why)
						}
						cases++
						res, b := s.as(t, doc, c.token).run(t, ep.method, c.path, body)
						got, field := res.StatusCode, ""
						if got >= 200 && got < 300 {
							got = http.StatusOK
						} else if got == http.StatusBadRequest {
							field = errorOf(t, b).Field
						}
						if got != k.status || field != k.field {
							t.Errorf("known disagreement changed: the server answered %d naming %q, was %d naming %q (%s); "+
								"if the server was fixed, update the document and this case: %s", res.StatusCode, field, k.status, k.field, k.why, short(b))
						}
					})
				}
			})
		}
		t.Logf("%d requests", cases)
	})
}

// TestWorkshopConformanceQueries holds the query parameters of the workshop
// endpoints and the server to each other: a query is answered 2xx exactly
// when the document's parameters accept it, else 400 naming the parameter.
func TestWorkshopConformanceQueries(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		s := start(t, cfg)
		doc := confDoc(t)
		g := &gen{}
		anyone := s.as(t, doc, "")
		shared := anyone.createWorkshop("queries")
		alice := anyone.addMember(shared.ID, "Alice", "participant")
		anyone.importJSON(shared.ID, map[string]any{"id": "t1", "input": "q", "output": "a"})
		anyone.json("POST", "/workshops/"+shared.ID+"/begin-discovery", "", http.StatusOK, "Workshop", nil)
		s.as(t, doc, alice.Token).feedback(shared.ID, "t1", "good", "fine")
		bools := []string{"", "true", "false", "1", "0", "t", "F", "TRUE", "True", "tRUE", "yes", "2", "%20true", "true%20"}
		cases := 0
		for _, c := range []struct {
			method, template string
			// fresh returns the path (with the workshop's id), the caller's
			// token and the body of one request.
			fresh   func(t *testing.T) (string, string, string)
			queries []string
			// state is what the server answers a valid query the state
			// does not allow, by query.
			state map[string]int
		}{
			{"POST", "/workshops/{id}/begin-discovery", func(t *testing.T) (string, string, string) {
				w := s.as(t, doc, "").createWorkshop("begin " + g.next())
				s.as(t, doc, "").importJSON(w.ID, map[string]any{"input": "q", "output": "a"}, map[string]any{"input": "q", "output": "a"})
				return "/workshops/" + w.ID + "/begin-discovery", w.Facilitator.Token, ""
			}, append([]string{"", "trace_limit=", "trace_limit=0", "trace_limit=1", "trace_limit=100000", "trace_limit=100001", "trace_limit=-1",
				"trace_limit=x", "trace_limit=1.5", "trace_limit=1e2", "trace_limit=%2B2", "trace_limit=01", "trace_limit=%201",
				"trace_limit=99999999999999999999", "trace_limit=2&randomize=true", "trace_limit=x&randomize=true"},
				prefixed("randomize=", bools)...), nil},
			{"POST", "/workshops/{id}/generate-followup-question", func(*testing.T) (string, string, string) {
				return "/workshops/" + shared.ID + "/generate-followup-question", alice.Token, ""
			}, prefixed("trace_id=t1&question_number=", []string{"1", "2", "3", "4", "0", "-1", "x", "1.0", "%2B1", "01", "99999999999999999999"}),
				map[string]int{"trace_id=t1&question_number=2": http.StatusConflict, "trace_id=t1&question_number=3": http.StatusConflict}},
			{"POST", "/workshops/{id}/traces", func(*testing.T) (string, string, string) {
				return "/workshops/" + shared.ID + "/traces", shared.Facilitator.Token, `[{"input":"q","output":"a"}]`
			}, prefixed("skip_invalid=", bools), nil},
			{"GET", "/workshops/{id}/export", func(*testing.T) (string, string, string) {
				return "/workshops/" + shared.ID + "/export", shared.Facilitator.Token, ""
			}, append([]string{""}, prefixed("format=", []string{"", "jsonl", "JSONL", "csv", "Csv", "md", "MD", "xml", "json", "%20csv", "csv%20", "md%00"})...), nil},
			{"GET", "/workshops/{id}/discovery-analysis", func(*testing.T) (string, string, string) {
				return "/workshops/" + shared.ID + "/discovery-analysis", shared.Facilitator.Token, ""
			}, prefixed("template=", []string{"", "evaluation_criteria", "nosuch", "%20x"}), nil},
		} {
			params := queryParams(t, doc, c.method, c.template)
			if len(params) == 0 {
				t.Fatalf("%s %s documents no query parameters", c.method, c.template)
			}
			for _, query := range c.queries {
				t.Run(c.method+" "+c.template+"?"+query, func(t *testing.T) {
					path, token, body := c.fresh(t)
					v := judgeQuery(t, doc, params, query)
					cases++
					res, b := s.as(t, doc, token).run(t, c.method, path+"?"+query, []byte(body))
					if want, ok := c.state[query]; ok && v.valid {
						if res.StatusCode != want {
							t.Errorf("%d, want %d: %s", res.StatusCode, want, short(b))
						}
						return
					}
					expect(t, v, res, b)
				})
			}
		}
		t.Logf("%d requests", cases)
	})
}

func prefixed(prefix string, values []string) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = prefix + v
	}
	return out
}
