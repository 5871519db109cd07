package llm

import (
	"bytes"
	"encoding/json"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/honehq/hone"
	invopop "github.com/invopop/jsonschema"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schema is the JSON schema of a Go type, shaped for OpenAI strict mode, with
// its compiled validator.
type schema struct {
	name     string
	doc      map[string]any
	text     string
	strict   bool
	compiled *jsonschema.Schema
}

var schemas sync.Map

var nonName = regexp.MustCompile(`[^a-zA-Z0-9_-]+`)

// Schema returns the JSON schema that Generate sends for T: every property
// required, additionalProperties false, and no $ref unless T is recursive.
func Schema[T any]() (string, error) {
	s, err := schemaFor(reflect.TypeFor[T]())
	if err != nil {
		return "", err
	}
	return s.text, nil
}

func schemaFor(t reflect.Type) (*schema, error) {
	if s, ok := schemas.Load(t); ok {
		return s.(*schema), nil
	}
	s, err := newSchema(t)
	if err != nil {
		return nil, err
	}
	actual, _ := schemas.LoadOrStore(t, s)
	return actual.(*schema), nil
}

func newSchema(t reflect.Type) (*schema, error) {
	base := t
	for base.Kind() == reflect.Pointer {
		base = base.Elem()
	}
	if base.Kind() != reflect.Struct {
		return nil, hone.Errorf(hone.EINTERNAL, "llm.Generate needs a struct type, not %s.", t)
	}
	rec := recursive(base, map[reflect.Type]bool{})
	r := invopop.Reflector{DoNotReference: !rec, ExpandedStruct: !rec}
	raw, err := json.Marshal(r.ReflectFromType(t))
	if err != nil {
		return nil, hone.Errorf(hone.EINTERNAL, "JSON schema of %s: %v", t, err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, hone.Errorf(hone.EINTERNAL, "JSON schema of %s: %v", t, err)
	}
	delete(doc, "$schema")
	delete(doc, "$id")
	inlineRoot(doc)
	strict := strictify(doc)
	text, err := json.Marshal(doc)
	if err != nil {
		return nil, hone.Errorf(hone.EINTERNAL, "JSON schema of %s: %v", t, err)
	}
	compiled, err := compile(text)
	if err != nil {
		return nil, hone.Errorf(hone.EINTERNAL, "JSON schema of %s: %v", t, err)
	}
	name := strings.Trim(nonName.ReplaceAllString(base.Name(), "_"), "_")
	if name == "" {
		name = "output"
	}
	return &schema{name: truncate(name, 64), doc: doc, text: string(text), strict: strict, compiled: compiled}, nil
}

// inlineRoot replaces a root {"$ref": "#/$defs/X"} by a copy of X, since
// OpenAI wants an object at the root.
func inlineRoot(doc map[string]any) {
	ref, _ := doc["$ref"].(string)
	defs, _ := doc["$defs"].(map[string]any)
	root, _ := defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
	if root == nil {
		return
	}
	delete(doc, "$ref")
	for k, v := range root {
		doc[k] = v
	}
}

// recursive reports whether t refers to itself, which needs $ref.
func recursive(t reflect.Type, seen map[reflect.Type]bool) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		return recursive(t.Elem(), seen)
	case reflect.Struct:
		if seen[t] {
			return true
		}
		seen[t] = true
		defer delete(seen, t)
		for i := range t.NumField() {
			if recursive(t.Field(i).Type, seen) {
				return true
			}
		}
	}
	return false
}

func compile(text []byte) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(text))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("hone:schema.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("hone:schema.json")
}

// strictify makes every object require all its properties and forbid others,
// as OpenAI strict mode requires. It reports whether the schema fits strict
// mode, which has no room for free-form objects such as maps.
func strictify(node any) bool {
	ok := true
	switch n := node.(type) {
	case map[string]any:
		if props, isObj := n["properties"].(map[string]any); isObj {
			keys := make([]string, 0, len(props))
			for k, p := range props {
				keys = append(keys, k)
				ok = strictify(p) && ok
			}
			slices.Sort(keys)
			n["required"] = keys
			n["additionalProperties"] = false
		} else if n["type"] == "object" {
			ok = false
		}
		if defs, has := n["$defs"].(map[string]any); has {
			for _, d := range defs {
				ok = strictify(d) && ok
			}
		}
		for _, k := range []string{"items", "additionalProperties", "anyOf", "oneOf", "allOf", "prefixItems"} {
			if v, has := n[k]; has {
				if _, isBool := v.(bool); !isBool {
					ok = strictify(v) && ok
				}
			}
		}
	case []any:
		for _, v := range n {
			ok = strictify(v) && ok
		}
	}
	return ok
}

// validate checks content against the schema and returns the JSON to decode,
// or a description of what is wrong.
func (s *schema) validate(content string) (string, string) {
	text := extractJSON(content)
	if text == "" {
		return "", "the answer is empty; expected a JSON object"
	}
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
	if err != nil {
		return "", "the answer is not valid JSON: " + err.Error()
	}
	if err := s.compiled.Validate(v); err != nil {
		return "", "the JSON does not match the schema: " + strings.TrimSpace(err.Error())
	}
	return text, ""
}

// extractJSON strips Markdown code fences and text around a JSON object,
// which models in JSON mode sometimes add.
func extractJSON(s string) string {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "```") {
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[i+1:]
		}
		s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "```"))
	}
	if s != "" && s[0] != '{' {
		i, j := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}')
		if i >= 0 && j > i {
			s = s[i : j+1]
		}
	}
	return s
}
