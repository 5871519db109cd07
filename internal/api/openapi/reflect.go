package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	invopop "github.com/invopop/jsonschema"

	"github.com/honehq/hone/internal/jsonschema"
)

// Component is one schema of the document's components: a Go type
// reflected with github.com/invopop/jsonschema.
//
// The schema's structure is the type's: its properties are the fields as
// encoding/json writes them (embedded structs flattened), a nested struct
// is a nested object, a slice an array, a map an object of values,
// time.Time a date-time string, json.RawMessage and any anything; a field
// whose type is another component's is a $ref to it. Every object refuses
// properties it does not list (additionalProperties false) unless a rule
// says otherwise. What the Go type cannot say, its package says in a
// JSONSchemaExtend method (or, for a type of its own, a JSONSchema method),
// with the rules of internal/jsonschema and the constants its validation
// uses; Extend says it here instead for a type that cannot carry the
// method.
//
// A request's schema (what a client sends, decoded by server.DecodeJSON)
// requires nothing unless its rules say so, and each property it does not
// require may also be null, which the decoder reads as left out. An
// answer's schema requires every field encoding/json always writes (those
// without omitempty or omitzero), and a field may be null where the Go
// field is a pointer written without omitempty, unless its rules say the
// answer always sets it (jsonschema.NotNull).
type Component struct {
	Name string
	// Type is the Go type the schema is reflected from. A field of a named
	// type refers to its component; a component of a type without a name
	// (a map) is referred to only where a rule says so (Ref).
	Type reflect.Type
	// Request marks the schema of what clients send.
	Request bool
	// Extend, when set, adjusts the reflected schema after the type's own
	// rules: the rules of a type that cannot carry a JSONSchemaExtend
	// method (one the LLM layer also reflects for the shape of a model's
	// answer, whose rules would then reach the model; a map), of one of
	// two components of the same type (the variants of a request), and
	// what a property holds where its Go type does not say (a
	// json.RawMessage holding another component).
	Extend func(s *invopop.Schema)
}

// Of lists Go type T as the component schema name; extend, at most one,
// is its Extend.
func Of[T any](name string, request bool, extend ...func(*invopop.Schema)) Component {
	c := Component{Name: name, Type: reflect.TypeFor[T](), Request: request}
	for _, e := range extend {
		c.Extend = e
	}
	return c
}

// SchemaRef is the $ref of a component schema.
func SchemaRef(name string) string { return "#/components/schemas/" + name }

// components are the schemas by name, with the name of each Go type.
type components struct {
	list  []Component
	names map[direction]string
}

type direction struct {
	t       reflect.Type
	request bool
}

func newComponents(list []Component) (*components, error) {
	cs := &components{list: list, names: map[direction]string{}}
	seen := map[string]bool{}
	for _, c := range list {
		if seen[c.Name] {
			return nil, fmt.Errorf("openapi: component %s is listed twice", c.Name)
		}
		seen[c.Name] = true
		if c.Type.Kind() == reflect.Pointer {
			return nil, fmt.Errorf("openapi: component %s: list the type %s, not a pointer to it", c.Name, c.Type.Elem())
		}
		d := direction{c.Type, c.Request}
		if _, ok := cs.names[d]; !ok {
			cs.names[d] = c.Name
		}
	}
	return cs, nil
}

// name is the component a field of named type t refers to from a
// request's or an answer's schema: one of the same kind, else any.
func (cs *components) name(t reflect.Type, request bool) (string, bool) {
	if n, ok := cs.names[direction{t, request}]; ok {
		return n, true
	}
	n, ok := cs.names[direction{t, !request}]
	return n, ok
}

// reflect builds the schema of c.
func (cs *components) reflect(c Component) (obj *Object, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("openapi: schema %s: %v", c.Name, p)
		}
	}()
	r := &invopop.Reflector{
		Anonymous:      true,
		DoNotReference: true,
		ExpandedStruct: true,
		// A request requires only what its rules say.
		RequiredFromJSONSchemaTags: c.Request,
		// Lookup, which invopop asks before it reflects a field's type (and
		// before a JSONSchemaAlias replaces it), makes the field of another
		// component's named type a $ref to it.
		Lookup: func(t reflect.Type) invopop.ID {
			if t.Name() == "" {
				return invopop.EmptyID
			}
			if name, ok := cs.name(t, c.Request); ok {
				return invopop.ID(SchemaRef(name))
			}
			return invopop.EmptyID
		},
	}
	s := r.ReflectFromType(c.Type)
	if c.Extend != nil {
		c.Extend(s)
	}
	s.Version, s.ID = "", ""
	if s.Ref != "" {
		return nil, fmt.Errorf("openapi: schema %s is only a $ref to %s", c.Name, s.Ref)
	}
	v, err := Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("openapi: schema %s: %w", c.Name, err)
	}
	v = emptySchemas(v)
	obj, ok := v.(*Object)
	if !ok {
		return nil, fmt.Errorf("openapi: schema %s is not an object", c.Name)
	}
	nullable(c.Type, obj, c.Request)
	if strings.Contains(jsonText(obj), `"`+jsonschema.NeverNull+`":`) {
		return nil, fmt.Errorf("openapi: schema %s: NotNull on what is no property of a Go struct", c.Name)
	}
	return obj, nil
}

// jsonText is v as compact JSON.
func jsonText(v any) string {
	var b bytes.Buffer
	_ = write(&b, v, "", "")
	return b.String()
}

// The keywords whose values are schemas: one, a list, or one by name.
var (
	subschema  = []string{"items", "not", "if", "then", "else", "propertyNames", "contains", "additionalProperties"}
	subschemas = []string{"allOf", "anyOf", "oneOf", "prefixItems"}
	named      = []string{"properties", "patternProperties", "$defs"}
)

// schemaOrder is the order of a schema's first keywords: what it is, then
// what an object must have.
var schemaOrder = []string{"$ref", "title", "type", "format", "required", "properties", "additionalProperties"}

// emptySchemas writes the schema v, and those in it, that takes anything
// as {}, not true (invopop's spelling), the way the rest of the document
// spells it (additionalProperties true stays), and puts each schema's
// keywords in schemaOrder.
func emptySchemas(v any) any {
	if v == true {
		return &Object{}
	}
	o, ok := v.(*Object)
	if !ok {
		return v
	}
	o.Order(schemaOrder...)
	for _, k := range o.keys {
		switch {
		case k == "additionalProperties" && o.vals[k] == true:
		case slices.Contains(subschema, k):
			o.vals[k] = emptySchemas(o.vals[k])
		case slices.Contains(subschemas, k):
			if list, ok := o.vals[k].([]any); ok {
				for i := range list {
					list[i] = emptySchemas(list[i])
				}
			}
		case slices.Contains(named, k):
			if m, ok := o.vals[k].(*Object); ok {
				for _, n := range m.keys {
					m.vals[n] = emptySchemas(m.vals[n])
				}
			}
		}
	}
	return o
}

var (
	timeType    = reflect.TypeFor[time.Time]()
	rawType     = reflect.TypeFor[json.RawMessage]()
	customType  = reflect.TypeFor[interface{ JSONSchema() *invopop.Schema }]()
	aliasedType = reflect.TypeFor[interface{ JSONSchemaAlias() any }]()
)

// nullable lets the properties of s that may be null be null: in a
// request, those it does not require; in an answer, those of pointer
// fields written without omitempty; neither where a rule said NotNull. It
// walks the Go type t beside its schema s.
func nullable(t reflect.Type, s *Object, request bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if s == nil || s.Has("$ref") || t.Implements(customType) || reflect.PointerTo(t).Implements(customType) ||
		t.Implements(aliasedType) || t == timeType || t == rawType {
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		props := s.Obj("properties")
		required := map[string]bool{}
		if list, ok := s.Get("required").([]any); ok {
			for _, r := range list {
				required[r.(string)] = true
			}
		}
		for name, f := range jsonFields(t) {
			p := props.Obj(name)
			if p == nil {
				continue
			}
			if p.Has(jsonschema.NeverNull) {
				p.Delete(jsonschema.NeverNull)
			} else if request && !required[name] || !request && f.Type.Kind() == reflect.Pointer && !omitted(f) {
				makeNullable(p, props, name)
			}
			nullable(f.Type, props.Obj(name), request)
		}
	case reflect.Slice, reflect.Array:
		nullable(t.Elem(), s.Obj("items"), request)
	case reflect.Map:
		nullable(t.Elem(), s.Obj("additionalProperties"), request)
	}
}

// makeNullable lets the schema of property name of props be null.
func makeNullable(p *Object, props *Object, name string) {
	if ref := p.Str("$ref"); ref != "" {
		props.Set(name, NewObject("anyOf", []any{NewObject("$ref", ref), NewObject("type", "null")}))
		return
	}
	switch t := p.Get("type").(type) {
	case string:
		p.Set("type", []any{t, "null"})
	case []any:
		for _, e := range t {
			if e == "null" {
				return
			}
		}
		p.Set("type", append(t, "null"))
	default:
		return
	}
	if enum, ok := p.Get("enum").([]any); ok {
		p.Set("enum", append(enum, nil))
	}
}

// omitted reports whether encoding/json leaves the field out when it is
// empty (omitempty, omitzero).
func omitted(f reflect.StructField) bool {
	_, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
	for o := range strings.SplitSeq(opts, ",") {
		if o == "omitempty" || o == "omitzero" {
			return true
		}
	}
	return false
}

// jsonFields are the fields encoding/json writes of struct type t, by
// name, embedded structs' flattened.
func jsonFields(t reflect.Type) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	for f := range t.Fields() {
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			et := f.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				for n, ef := range jsonFields(et) {
					if _, ok := out[n]; !ok {
						out[n] = ef
					}
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f
	}
	return out
}
