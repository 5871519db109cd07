// Package jsonschema gives the domain packages short rules to state, next to
// the validation that enforces them, the JSON Schema constraints of their
// request and answer types: the bounds, patterns and enumerations that the
// API's OpenAPI document (internal/api/openapi) reflects with
// github.com/invopop/jsonschema. A type states them in a JSONSchemaExtend
// method (invopop calls it while reflecting the type), with Set:
//
//	func (TurnInput) JSONSchemaExtend(s *invopop.Schema) {
//		s.Required = []string{"conversation_id", "user_message", "response"}
//		jsonschema.Set(s, "conversation_id", jsonschema.NotBlank, jsonschema.MaxLength(MaxNameLength))
//	}
//
// The patterns spell out in JSON Schema what hone's Go checks do to text:
// strings.TrimSpace (Space, Trimmed, NotBlank) and strings.ToLower
// (Folded).
package jsonschema

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	invopop "github.com/invopop/jsonschema"
)

// Rule is one constraint on a schema.
type Rule func(s *invopop.Schema)

// Set applies rules to the schema of a property of s; a dotted path
// ("llm_request.model") names a property of a property. It panics when s
// has no such property, so that a rule naming a field that is gone fails
// the document's generation instead of being dropped.
func Set(s *invopop.Schema, path string, rules ...Rule) {
	p := Property(s, path)
	for _, r := range rules {
		r(p)
	}
}

// Property returns the schema of a property of s, by dotted path; it panics
// when there is none.
func Property(s *invopop.Schema, path string) *invopop.Schema {
	cur := s
	for name := range strings.SplitSeq(path, ".") {
		var p *invopop.Schema
		if cur.Properties != nil {
			p, _ = cur.Properties.Get(name)
		}
		if p == nil {
			panic(fmt.Sprintf("jsonschema: no property %q (of %q)", name, path))
		}
		cur = p
	}
	return cur
}

// Apply applies rules to s itself.
func Apply(s *invopop.Schema, rules ...Rule) {
	for _, r := range rules {
		r(s)
	}
}

// All is the rules as one.
func All(rules ...Rule) Rule {
	return func(s *invopop.Schema) { Apply(s, rules...) }
}

// Schema is a new schema with rules applied.
func Schema(rules ...Rule) *invopop.Schema {
	s := &invopop.Schema{}
	Apply(s, rules...)
	return s
}

// Type sets the JSON type ("string", "integer", "object", …).
func Type(t string) Rule { return func(s *invopop.Schema) { s.Type = t } }

// MaxLength bounds a string's length in characters.
func MaxLength(n int) Rule { return func(s *invopop.Schema) { s.MaxLength = count(n) } }

// MinLength is a string's least length in characters.
func MinLength(n int) Rule { return func(s *invopop.Schema) { s.MinLength = count(n) } }

// Pattern is a regular expression the string must match (anywhere: anchor
// it with ^ and $ to match all of it).
func Pattern(re string) Rule { return func(s *invopop.Schema) { s.Pattern = re } }

// Format names the string's format, such as date-time.
func Format(f string) Rule { return func(s *invopop.Schema) { s.Format = f } }

// Number is a bound of a number.
type Number interface {
	~int | ~int32 | ~int64 | ~float64
}

// Minimum is the least value of a number.
func Minimum[T Number](x T) Rule { return func(s *invopop.Schema) { s.Minimum = number(x) } }

// Maximum is the greatest value of a number.
func Maximum[T Number](x T) Rule { return func(s *invopop.Schema) { s.Maximum = number(x) } }

// ExclusiveMinimum is a bound a number must be greater than.
func ExclusiveMinimum[T Number](x T) Rule {
	return func(s *invopop.Schema) { s.ExclusiveMinimum = number(x) }
}

// Range bounds a number from both sides.
func Range[T Number](lo, hi T) Rule { return All(Minimum(lo), Maximum(hi)) }

// Enum lists the values the property may have.
func Enum[T any](values ...T) Rule {
	return func(s *invopop.Schema) {
		s.Enum = nil
		for _, v := range values {
			s.Enum = append(s.Enum, v)
		}
	}
}

// Const is the one value the property may have.
func Const(v any) Rule { return func(s *invopop.Schema) { s.Const = v } }

// Default is the value a left-out parameter has.
func Default(v any) Rule { return func(s *invopop.Schema) { s.Default = v } }

// MinItems is the least number of an array's items.
func MinItems(n int) Rule { return func(s *invopop.Schema) { s.MinItems = count(n) } }

// MaxItems bounds the number of an array's items.
func MaxItems(n int) Rule { return func(s *invopop.Schema) { s.MaxItems = count(n) } }

// UniqueItems refuses an array with an item twice.
func UniqueItems(s *invopop.Schema) { s.UniqueItems = true }

// MinProperties is the least number of an object's properties.
func MinProperties(n int) Rule { return func(s *invopop.Schema) { s.MinProperties = count(n) } }

// Items applies rules to the schema of an array's items.
func Items(rules ...Rule) Rule {
	return func(s *invopop.Schema) {
		if s.Items == nil {
			s.Items = &invopop.Schema{}
		}
		Apply(s.Items, rules...)
	}
}

// Values applies rules to the schema of the values of an object used as a
// map (additionalProperties).
func Values(rules ...Rule) Rule {
	return func(s *invopop.Schema) {
		if s.AdditionalProperties == nil || s.AdditionalProperties == invopop.FalseSchema || s.AdditionalProperties == invopop.TrueSchema {
			s.AdditionalProperties = &invopop.Schema{}
		}
		Apply(s.AdditionalProperties, rules...)
	}
}

// Keys applies rules to the names of an object's properties
// (propertyNames).
func Keys(rules ...Rule) Rule {
	return func(s *invopop.Schema) {
		if s.PropertyNames == nil {
			s.PropertyNames = &invopop.Schema{}
		}
		Apply(s.PropertyNames, rules...)
	}
}

// Open keeps the properties an object schema does not list
// (additionalProperties true).
func Open(s *invopop.Schema) { s.AdditionalProperties = invopop.TrueSchema }

// Any removes every constraint: the property may be any JSON value.
func Any(s *invopop.Schema) { *s = invopop.Schema{} }

// Nullable lets the property be null as well.
func Nullable(s *invopop.Schema) {
	if s.Ref != "" {
		s.AnyOf = []*invopop.Schema{{Ref: s.Ref}, {Type: "null"}}
		s.Ref = ""
		return
	}
	if s.Type != "" {
		if s.Extras == nil {
			s.Extras = map[string]any{}
		}
		s.Extras["type"] = []string{s.Type, "null"}
		s.Type = ""
	}
	if s.Enum != nil {
		s.Enum = append(s.Enum, nil)
	}
}

// NeverNull is the keyword NotNull marks a property with, which the API
// document's generator reads and removes.
const NeverNull = "x-never-null"

// NotNull says a property of an answer is never null although its Go field
// is a pointer without omitempty: the answer always sets it.
func NotNull(s *invopop.Schema) {
	if s.Extras == nil {
		s.Extras = map[string]any{}
	}
	s.Extras[NeverNull] = true
}

// Description sets the schema's description, for a schema a hook makes
// itself; the descriptions of reflected types and their properties are kept
// in the API's prose file.
func Description(d string) Rule { return func(s *invopop.Schema) { s.Description = d } }

func count(n int) *uint64 {
	if n < 0 {
		panic(fmt.Sprintf("jsonschema: negative count %d", n))
	}
	u := uint64(n)
	return &u
}

func number[T Number](x T) json.Number {
	v := reflect.ValueOf(x)
	if v.CanInt() {
		return json.Number(strconv.FormatInt(v.Int(), 10))
	}
	f := v.Float()
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return json.Number(strconv.FormatInt(int64(f), 10))
	}
	return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
}

// Ref refers to a schema of the API document's components by name, for a
// property whose Go type does not say what it holds (a json.RawMessage, a
// map, a list of raw records).
func Ref(component string) Rule {
	return func(s *invopop.Schema) { *s = invopop.Schema{Ref: "#/components/schemas/" + component} }
}

// Require lists the properties an object must have.
func Require(names ...string) Rule { return func(s *invopop.Schema) { s.Required = names } }

// Prop applies rules to the schema of property name, adding it when the
// object has none: for the objects of a conditional, and for a property a
// record keeps as sent without reading it.
func Prop(name string, rules ...Rule) Rule {
	return func(s *invopop.Schema) {
		if s.Properties == nil {
			s.Properties = invopop.NewProperties()
		}
		p, ok := s.Properties.Get(name)
		if !ok || p == nil {
			p = &invopop.Schema{}
			s.Properties.Set(name, p)
		}
		Apply(p, rules...)
	}
}

// If, Then and Else make a conditional: when the value matches If, it must
// match Then, else Else.
func If(rules ...Rule) Rule { return func(s *invopop.Schema) { s.If = Schema(rules...) } }

// Then is the schema of a conditional's value when it matches If.
func Then(rules ...Rule) Rule { return func(s *invopop.Schema) { s.Then = Schema(rules...) } }

// Else is the schema of a conditional's value when it does not match If.
func Else(rules ...Rule) Rule { return func(s *invopop.Schema) { s.Else = Schema(rules...) } }

// Not refuses what matches rules.
func Not(rules ...Rule) Rule { return func(s *invopop.Schema) { s.Not = Schema(rules...) } }

// OneOf requires exactly one of the schemas to match.
func OneOf(schemas ...*invopop.Schema) Rule { return func(s *invopop.Schema) { s.OneOf = schemas } }

// AnyOf requires one of the schemas or more to match.
func AnyOf(schemas ...*invopop.Schema) Rule { return func(s *invopop.Schema) { s.AnyOf = schemas } }

// AllOf requires every schema to match.
func AllOf(schemas ...*invopop.Schema) Rule { return func(s *invopop.Schema) { s.AllOf = schemas } }

// Title names a schema among others (the branches of a OneOf).
func Title(t string) Rule { return func(s *invopop.Schema) { s.Title = t } }
