package openapi

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The prose file is YAML. Its sections lay prose over the generated
// document; every key must land on a part of the document, so prose for a
// schema, property, parameter or answer that is gone fails the generation.
//
//	info:            {summary, description}
//	tags:            {<tag>: description}
//	securitySchemes: {<scheme>: description}
//	schemas:         {<schema>: {description, properties: {<property>: …}}}
//	parameters:      {<shared parameter>: {description, example}}
//	headers:         {<shared header>: description}
//	responses:       {<shared answer>: {description, <media type>: {example | examples}, headers: {…}}}
//	operations:      {<operationId>: {summary, description,
//	                   parameters: {<own parameter's name>: {description, example}},
//	                   body: {description, <media type>: {example | examples, schema: description}},
//	                   responses: {<status>: {description, <media type>: {…}, headers: {<name>: description}}}}}
//
// Within a section the keys follow the document's own (properties, items,
// oneOf by index …); a string stands for {description: string}; the keys
// description and summary take text, example and examples any value; a
// media type stands for content.<media type>.

// proseKeys are the keys that set prose, not reach into the document.
var proseKeys = []string{"description", "summary", "example", "examples"}

// applyProse lays the prose file over doc.
func applyProse(doc *Object, prose []byte) error {
	var root yaml.Node
	if err := yaml.Unmarshal(prose, &root); err != nil {
		return fmt.Errorf("openapi: the prose file: %w", err)
	}
	if len(root.Content) == 0 {
		return nil
	}
	top := root.Content[0]
	if top.Kind != yaml.MappingNode {
		return fmt.Errorf("openapi: the prose file is not a mapping")
	}
	components := doc.Obj("components")
	for i := 0; i+1 < len(top.Content); i += 2 {
		key, val := top.Content[i].Value, top.Content[i+1]
		var err error
		switch key {
		case "info":
			err = overlay(doc.Obj("info"), val, "info")
		case "tags":
			err = eachKey(val, "tags", func(name string, v *yaml.Node) error {
				tags, _ := doc.Get("tags").([]any)
				for _, t := range tags {
					if t := t.(*Object); t.Str("name") == name {
						return overlay(t, v, "tags."+name)
					}
				}
				return fmt.Errorf("no tag %q", name)
			})
		case "securitySchemes", "schemas", "parameters", "headers", "responses":
			err = names(components.Obj(key), val, key)
		case "operations":
			ops := operations(doc)
			err = eachKey(val, "operations", func(id string, v *yaml.Node) error {
				op := ops[id]
				if op == nil {
					return fmt.Errorf("no operation %q", id)
				}
				return overlay(op, v, id)
			})
		default:
			err = fmt.Errorf("unknown section %q", key)
		}
		if err != nil {
			return fmt.Errorf("openapi: the prose file: %w", err)
		}
	}
	return nil
}

// operations are the operations of doc by operationId.
func operations(doc *Object) map[string]*Object {
	out := map[string]*Object{}
	paths := doc.Obj("paths")
	for _, p := range paths.Keys() {
		item := paths.Obj(p)
		for _, m := range item.Keys() {
			if op := item.Obj(m); op != nil {
				out[op.Str("operationId")] = op
			}
		}
	}
	return out
}

func eachKey(n *yaml.Node, at string, fn func(key string, v *yaml.Node) error) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("%s: want a mapping", at)
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i].Value; seen[k] {
			return fmt.Errorf("%s: %q is there twice", at, k)
		}
		seen[n.Content[i].Value] = true
		if err := fn(n.Content[i].Value, n.Content[i+1]); err != nil {
			return fmt.Errorf("%s: %w", at, err)
		}
	}
	return nil
}

// nameKeys are the keys whose objects are keyed by names (of properties,
// headers, media types, statuses), not by keywords.
var nameKeys = []string{"properties", "patternProperties", "headers", "content", "responses"}

// names lays the prose n over node, an object keyed by names: each key of
// n names an entry of node.
func names(node *Object, n *yaml.Node, at string) error {
	return eachKey(n, at, func(key string, v *yaml.Node) error {
		if !node.Has(key) {
			return fmt.Errorf("%s: the document has no %q", at, key)
		}
		return overlay(node.Get(key), v, at+"."+key)
	})
}

// overlay lays the prose n over the node of the document.
func overlay(node any, n *yaml.Node, at string) error {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" {
		o, ok := node.(*Object)
		if !ok {
			return fmt.Errorf("%s: not an object to describe", at)
		}
		setProse(o, "description", n.Value)
		return nil
	}
	return eachKey(n, at, func(key string, v *yaml.Node) error {
		path := at + "." + key
		if list, ok := node.([]any); ok {
			i, err := strconv.Atoi(key)
			if err != nil || i < 0 || i >= len(list) {
				return fmt.Errorf("%s: no item %s", at, key)
			}
			return overlay(list[i], v, path)
		}
		o, ok := node.(*Object)
		if !ok {
			return fmt.Errorf("%s: nothing to describe", path)
		}
		switch {
		case slices.Contains(proseKeys, key):
			val, err := value(v)
			if err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			if s, ok := val.(string); (key == "description" || key == "summary") && (!ok || s == "") {
				return fmt.Errorf("%s: want text", path)
			}
			setProse(o, key, val)
			return nil
		case key == "body" && o.Has("requestBody"):
			return overlay(o.Get("requestBody"), v, path)
		case key == "parameters" && isList(o.Get("parameters")):
			return eachKey(v, path, func(name string, pv *yaml.Node) error {
				for _, p := range o.Get("parameters").([]any) {
					if p := p.(*Object); p.Str("name") == name {
						return overlay(p, pv, path+"."+name)
					}
				}
				return fmt.Errorf("no parameter %q of its own", name)
			})
		case strings.Contains(key, "/") && o.Has("content"):
			c := o.Obj("content").Get(key)
			if c == nil {
				return fmt.Errorf("%s: no media type %s", at, key)
			}
			return overlay(c, v, path)
		case slices.Contains(nameKeys, key) && o.Obj(key) != nil:
			return names(o.Obj(key), v, path)
		case o.Has(key):
			return overlay(o.Get(key), v, path)
		}
		return fmt.Errorf("%s: the document has nothing there", path)
	})
}

func isList(v any) bool { _, ok := v.([]any); return ok }

// setProse sets key of o to v, placing a summary or description after the
// keys that name what o is (name, in, operationId, $ref, type …) and
// before the rest, and an example last.
func setProse(o *Object, key string, v any) {
	if o.Has(key) || key == "example" || key == "examples" {
		o.Set(key, v)
		return
	}
	lead := []string{"tags", "operationId", "summary", "name", "in", "$ref", "title", "type", "format"}
	i := 0
	for i < len(o.keys) && slices.Contains(lead, o.keys[i]) {
		i++
	}
	o.keys = slices.Insert(o.keys, i, key)
	if o.vals == nil {
		o.vals = map[string]any{}
	}
	o.vals[key] = v
}

// value converts YAML to the values of an Object.
func value(n *yaml.Node) (any, error) {
	switch n.Kind {
	case yaml.DocumentNode:
		return value(n.Content[0])
	case yaml.MappingNode:
		o := &Object{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			v, err := value(n.Content[i+1])
			if err != nil {
				return nil, err
			}
			o.Set(n.Content[i].Value, v)
		}
		return o, nil
	case yaml.SequenceNode:
		list := []any{}
		for _, e := range n.Content {
			v, err := value(e)
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		return list, nil
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			return nil, nil
		case "!!bool":
			return n.Value == "true", nil
		case "!!int", "!!float":
			if !json.Valid([]byte(n.Value)) {
				return nil, fmt.Errorf("line %d: %q is not a JSON number", n.Line, n.Value)
			}
			return json.Number(n.Value), nil
		}
		return n.Value, nil
	}
	return nil, fmt.Errorf("line %d: an alias", n.Line)
}
