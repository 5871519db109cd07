package api_test

import (
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/honehq/hone/internal/capture"
)

// The turn's richer record in the conformance tests: its top-level fields
// get values of their own (turnSpecific), and every property inside
// messages and usage is varied too (nestedVariants), in each message of a
// chat that has every kind of message.

// addRichRecord gives a valid turn body every field of the richer record.
func addRichRecord(m map[string]any) map[string]any {
	m["messages"] = []any{
		map[string]any{"role": "system", "content": "Answer as the HR assistant."},
		map[string]any{"role": "user", "name": "meg", "content": []any{
			map[string]any{"type": "text", "text": "My employee didn't show up"},
			map[string]any{"type": "image_url", "image_url": map[string]any{"url": "https://example.com/rota.png"}},
		}},
		map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"id": "call_1", "type": "function",
			"function": map[string]any{"name": "policy", "arguments": `{"topic":"attendance"}`}}}},
		map[string]any{"role": "tool", "tool_call_id": "call_1", "content": "Call the employee first."},
		map[string]any{"role": "assistant", "content": "Got it."},
	}
	m["model"], m["latency_ms"], m["source"] = "gpt-4o-mini", 640.5, "proxy"
	m["usage"] = map[string]any{"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150}
	m["trace_id"], m["span_id"], m["parent_id"] = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7", "53995c3f42cd8ad8"
	return m
}

func hexID(n int) []value {
	return []value{val("valid", strings.Repeat("ab", n/2)), val("upper case", strings.Repeat("AB", n/2)),
		val("all zero", strings.Repeat("0", n)), val("zero but one", strings.Repeat("0", n-1)+"1"),
		val("one short", strings.Repeat("a", n-1)), val("one long", strings.Repeat("a", n+1)),
		val("not hex", strings.Repeat("a", n-1)+"g"), val("white space around", " "+strings.Repeat("a", n)+" "),
		val("of the other length", strings.Repeat("a", 48-n))}
}

var tokenCounts = []value{val("0", 0), val("largest exact", raw("9007199254740991")), val("past the largest exact", raw("9007199254740992")),
	val("1.0", raw("1.0")), val("1e3", raw("1e3")), val("-1", -1), val("0.5", 0.5), val("string", "5"), val("huge", raw("1e400")),
	val("beyond int64", raw("99999999999999999999"))}

// turnSpecific are the values particular to a top-level property of the
// richer record.
func (g *gen) turnSpecific(field string, docMax int) []value {
	limits := []int{capture.MaxIDLength}
	if docMax > 0 {
		limits = append(limits, docMax)
	}
	switch field {
	case "model":
		return append(lengths(limits, false, repeat), val("white space around", " m "))
	case "latency_ms":
		return []value{val("0", 0), val("-0", raw("-0")), val("small negative", -0.001), val("large", 1e308),
			val("beyond a double", raw("1e309")), val("string", "5"), val("1e3", raw("1e3"))}
	case "source":
		out := []value{val("upper case", "API"), val("white space around", " api "), val("web", "web"), val("unknown", "otel")}
		for _, s := range capture.Sources {
			out = append(out, val(s, s))
		}
		return out
	case "trace_id":
		return hexID(capture.TraceIDLength)
	case "span_id", "parent_id":
		return hexID(capture.SpanIDLength)
	case "usage":
		return []value{val("without total", map[string]any{"prompt_tokens": 1, "completion_tokens": 2}),
			val("only prompt", map[string]any{"prompt_tokens": 1}), val("total null", map[string]any{"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": nil}),
			val("OTel names", map[string]any{"input_tokens": 1, "output_tokens": 2})}
	case "messages":
		return []value{
			val("user and assistant", []any{map[string]any{"role": "user", "content": "q"}, map[string]any{"role": "assistant", "content": "a"}}),
			val("request only", []any{map[string]any{"role": "system", "content": "s"}, map[string]any{"role": "user", "content": "q"}}),
			val("an element null", []any{map[string]any{"role": "user", "content": "q"}, nil}),
			val("an element a string", []any{"q"}),
			val("an element an array", []any{[]any{}}),
			{"1000 messages", func() any { return longChat(capture.MaxMessages) }},
			{"1001 messages", func() any { return longChat(capture.MaxMessages + 1) }},
		}
	}
	return nil
}

// longChat is n short messages, user and assistant in turn.
func longChat(n int) []any {
	out := make([]any, n)
	for i := range out {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		out[i] = map[string]any{"role": role, "content": "m" + strconv.Itoa(i)}
	}
	return out
}

// nestedValues are the values particular to a property inside messages or
// usage, by its name.
func (g *gen) nestedValues(name string, docMax int) []value {
	limits := func(goLimit int) []int {
		if docMax > 0 && docMax != goLimit {
			return []int{goLimit, docMax}
		}
		return []int{goLimit}
	}
	switch name {
	case "role":
		out := []value{val("upper case", "User"), val("white space around", " user "), val("bot", "bot"), val("function", "function")}
		for _, r := range capture.Roles {
			out = append(out, val(r, r))
		}
		return out
	case "content":
		return append(lengths(limits(capture.MaxTextLength), true, repeat),
			val("a text part", []any{map[string]any{"type": "text", "text": "x"}}),
			val("a part without type", []any{map[string]any{"text": "x"}}),
			val("a string part", []any{"x"}),
			val("an audio part", []any{map[string]any{"type": "input_audio", "input_audio": map[string]any{"data": "AAA=", "format": "wav"}}}),
			val("a text part without text", []any{map[string]any{"type": "text"}}),
			value{"1001 parts", func() any {
				parts := make([]any, capture.MaxParts+1)
				for i := range parts {
					parts[i] = map[string]any{"type": "text", "text": "p"}
				}
				return parts
			}})
	case "text", "arguments":
		return lengths(limits(capture.MaxTextLength), true, repeat)
	case "name", "tool_call_id", "id":
		return append(lengths(limits(capture.MaxIDLength), false, repeat), val("white space around", " x "))
	case "type":
		return append(lengths(limits(capture.MaxIDLength), false, repeat), val("function", "function"), val("Function", "Function"),
			val("text", "text"), val("image_url", "image_url"), val("custom", "custom"))
	case "tool_calls":
		call := func(id string) map[string]any {
			return map[string]any{"id": id, "type": "function", "function": map[string]any{"name": "f", "arguments": "{}"}}
		}
		return []value{val("one call", []any{call("c1")}), val("two calls", []any{call("c1"), call("c2")}),
			val("a call null", []any{nil}), {"129 calls", func() any {
				calls := make([]any, capture.MaxToolCalls+1)
				for i := range calls {
					calls[i] = call("c" + strconv.Itoa(i))
				}
				return calls
			}}}
	case "function":
		return []value{val("without arguments", map[string]any{"name": "f"}), val("arguments an object", map[string]any{"name": "f", "arguments": map[string]any{}}),
			val("without name", map[string]any{"arguments": "{}"})}
	case "prompt_tokens", "completion_tokens", "total_tokens":
		return tokenCounts
	}
	return nil
}

// nestedVariants are the bodies made from base by changing one property
// inside messages or usage at a time: every property the schema documents,
// in every message of the base (and every tool call and content part of
// it), plus an unknown property in each object.
func (g *gen) nestedVariants(t *testing.T, doc map[string]any, pointer string, base func() map[string]any) []caseInput {
	schema, _ := deref(doc, resolve(doc, pointer), pointer)
	var out []caseInput
	var walk func(schema map[string]any, path []string, at func(body map[string]any) map[string]any)
	walk = func(schema map[string]any, path []string, at func(body map[string]any) map[string]any) {
		props, _ := schema["properties"].(map[string]any)
		sample := at(base())
		for _, field := range slices.Sorted(maps.Keys(props)) {
			prop, _ := deref(doc, props[field], "")
			docMax := 0
			if m, ok := prop["maxLength"].(float64); ok {
				docMax = int(m)
			}
			key := strings.Join(append(slices.Clone(path), field), ".")
			for _, v := range append(slices.Clone(generic), g.nestedValues(field, docMax)...) {
				out = append(out, caseInput{key + ": " + v.name, func() any {
					body := base()
					m := at(body)
					if x := v.make(); x == absent {
						delete(m, field)
					} else {
						m[field] = x
					}
					return body
				}()})
			}
			if variant := oneOfObject(doc, prop); variant != nil {
				if _, ok := sample[field].(map[string]any); ok {
					walk(variant, append(slices.Clone(path), field), func(body map[string]any) map[string]any {
						return at(body)[field].(map[string]any)
					})
				}
			}
			items, _ := deref(doc, prop["items"], "")
			list, _ := sample[field].([]any)
			if items == nil || items["properties"] == nil {
				continue
			}
			for i := range list {
				if _, ok := list[i].(map[string]any); !ok {
					continue
				}
				walk(items, append(slices.Clone(path), field, strconv.Itoa(i)), func(body map[string]any) map[string]any {
					return at(body)[field].([]any)[i].(map[string]any)
				})
			}
		}
		if len(path) > 0 {
			key := strings.Join(path, ".")
			out = append(out, caseInput{key + ": unknown property colour", func() any {
				body := base()
				at(body)["colour"] = "blue"
				return body
			}()})
		}
	}
	props, _ := schema["properties"].(map[string]any)
	for _, field := range []string{"messages", "usage"} {
		prop, _ := deref(doc, props[field], "")
		if field == "usage" {
			walk(oneOfObject(doc, prop), []string{field}, func(body map[string]any) map[string]any { return body[field].(map[string]any) })
			continue
		}
		items, _ := deref(doc, prop["items"], "")
		for i := range base()[field].([]any) {
			walk(items, []string{field, strconv.Itoa(i)}, func(body map[string]any) map[string]any {
				return body[field].([]any)[i].(map[string]any)
			})
		}
	}
	if len(out) == 0 {
		t.Fatal("no nested variants")
	}
	return out
}

// oneOfObject is the object schema of a property, itself or the one of its
// oneOf variants that is an object; nil when it has none.
func oneOfObject(doc map[string]any, prop map[string]any) map[string]any {
	if prop["properties"] != nil {
		return prop
	}
	variants, _ := prop["oneOf"].([]any)
	for _, v := range variants {
		if m, _ := deref(doc, v, ""); m != nil && m["properties"] != nil {
			return m
		}
	}
	return nil
}

// turnNames reports whether the server's error field names a place the
// verdict finds wrong: the server names messages[2].role where the verdict
// has messages/2/role, and may name a place inside the one the verdict
// finds wrong (messages[1].role for a message that is null).
func turnNames(v verdict, field string) bool {
	field = indexed.ReplaceAllString(field, ".$1")
	if v.names(field) {
		return true
	}
	sp := strings.Split(field, ".")
	for _, f := range v.fields {
		if field != "" && len(f) > 0 && len(f) <= len(sp) && slices.Equal(f, sp[:len(f)]) {
			return true
		}
	}
	return false
}

// turnKnown are the inputs of a turn where the server and the document part
// ways for a reason the document states; status is the answer to a turn
// refused alone (400).
func turnKnown(status int) []knownCase {
	return []knownCase{
		{name: "metadata over 64 KiB", edit: func(m map[string]any) any {
			m["metadata"] = map[string]any{"k": strings.Repeat("x", capture.MaxMetadataBytes)}
			return m
		}, schemaValid: true, status: status, field: "metadata", why: "JSON Schema cannot bound an object's size in bytes (metadata's description says so)"},
		{name: "no answer after the last user message", edit: func(m map[string]any) any {
			delete(m, "response")
			m["messages"] = append(m["messages"].([]any), map[string]any{"role": "user", "content": "And then?"})
			return m
		}, schemaValid: true, status: status, field: "messages", why: "JSON Schema cannot say that the answer comes after the last user message (response's description says so)"},
		{name: "a token count a hair over a whole number", edit: func(m map[string]any) any {
			m["usage"] = map[string]any{"prompt_tokens": raw("1.00000000000000001"), "completion_tokens": 1}
			return m
		}, schemaValid: false, status: http.StatusOK, why: "the number rounds to the double 1 (info.description says so)"},
	}
}

// batchKnown is k for a turn of a batch: refused in its own result (207).
func batchKnown(ks []knownCase) []knownCase {
	out := slices.Clone(ks)
	for i := range out {
		if out[i].status == http.StatusBadRequest {
			out[i].status = http.StatusMultiStatus
		}
	}
	return out
}
