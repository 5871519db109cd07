package score

import (
	"slices"

	invopop "github.com/invopop/jsonschema"

	"github.com/honehq/hone/internal/jsonschema"
)

// valueTypes are the JSON types of a score's value, by its config's data
// type.
var valueTypes = map[string]string{Numeric: "number", Categorical: "string", Boolean: "boolean", Text: "string"}

// anyValue is a value of any data type: a number, text or true/false.
func anyValue(s *invopop.Schema) {
	var types []string
	for _, dt := range DataTypes {
		if t := valueTypes[dt]; !slices.Contains(types, t) {
			types = append(types, t)
		}
	}
	*s = invopop.Schema{Extras: map[string]any{"type": types}}
}

// valueByDataType states that an answer's value is of the JSON type of its
// data_type.
func valueByDataType(s *invopop.Schema) {
	var branches []*invopop.Schema
	for _, dt := range DataTypes {
		branches = append(branches, jsonschema.Schema(jsonschema.Title(dt),
			jsonschema.Prop("data_type", jsonschema.Const(dt)), jsonschema.Prop("value", jsonschema.Type(valueTypes[dt]))))
	}
	jsonschema.Apply(s, jsonschema.OneOf(branches...))
}

// number is a number a score or a config may hold.
var number = jsonschema.Range(-MaxNumber, MaxNumber)

// nameRule is a config name as cleanName takes it.
var nameRule = jsonschema.All(jsonschema.MinLength(1), jsonschema.MaxLength(MaxNameLength), jsonschema.Pattern(NamePattern))

// boundsRules are the rules of a config's bounds and categories, which a
// new config and a change give alike.
func boundsRules(s *invopop.Schema) {
	jsonschema.Set(s, "min", number)
	jsonschema.Set(s, "max", number)
	jsonschema.Set(s, "step", jsonschema.ExclusiveMinimum(0), jsonschema.Maximum(MaxNumber))
	jsonschema.Set(s, "categories", jsonschema.MinItems(1), jsonschema.MaxItems(MaxCategories))
	jsonschema.Set(s, "description", jsonschema.MaxLength(MaxDescriptionLength))
}

// notSpace is a character that is not white space.
var notSpace = "[^" + jsonschema.SpaceChars + "]"

// JSONSchemaExtend states the rules validate checks of a category: a
// label without white space around it, and a number within MaxNumber.
func (Category) JSONSchemaExtend(s *invopop.Schema) {
	s.Required = []string{"label"}
	jsonschema.Set(s, "label", jsonschema.MinLength(1), jsonschema.MaxLength(MaxLabelLength),
		jsonschema.Pattern("^"+notSpace+`(?:[\s\S]*`+notSpace+")?$"))
	jsonschema.Set(s, "value", number)
}

// JSONSchemaExtend states the rules validate checks of a new config: its
// name and data type, the bounds of a numeric one and the categories of a
// categorical one, and nothing of another type's.
func (ConfigInput) JSONSchemaExtend(s *invopop.Schema) {
	s.Required = []string{"name", "data_type"}
	jsonschema.Set(s, "name", nameRule)
	jsonschema.Set(s, "data_type", jsonschema.Enum(DataTypes...))
	boundsRules(s)
	dataTypeIs := func(dt string) jsonschema.Rule {
		return jsonschema.If(jsonschema.Require("data_type"), jsonschema.Prop("data_type", jsonschema.Const(dt)))
	}
	null := jsonschema.Type("null")
	jsonschema.Apply(s, jsonschema.AllOf(
		jsonschema.Schema(dataTypeIs(Categorical),
			jsonschema.Then(jsonschema.Require("categories"), jsonschema.Prop("categories", jsonschema.Type("array"))),
			jsonschema.Else(jsonschema.Prop("categories", null))),
		jsonschema.Schema(dataTypeIs(Numeric),
			jsonschema.Else(jsonschema.Prop("min", null), jsonschema.Prop("max", null), jsonschema.Prop("step", null))),
	))
}

// JSONSchemaExtend states the rules apply checks of a change.
func (ConfigUpdate) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "name", nameRule)
	boundsRules(s)
}

// JSONSchemaExtend lists the data types, and states versions count from 1.
func (Config) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "data_type", jsonschema.Enum(DataTypes...))
	jsonschema.Set(s, "version", jsonschema.Minimum(1))
}

// JSONSchemaExtend states the rules clean checks of a score a client
// gives (the value's, which depend on its config, prepare checks): its id,
// what it judges (a turn, or a workshop's trace), its config, and the
// lengths and source.
func (Input) JSONSchemaExtend(s *invopop.Schema) {
	s.Required = []string{"config", "value"}
	jsonschema.Set(s, "id", jsonschema.MaxLength(MaxIDLength), jsonschema.Pattern("^$|"+IDPattern))
	for _, name := range []string{"turn_id", "workshop_id", "trace_id"} {
		jsonschema.Set(s, name, jsonschema.MaxLength(MaxTargetLength))
	}
	jsonschema.Set(s, "config", jsonschema.MinLength(1), jsonschema.MaxLength(MaxTargetLength))
	jsonschema.Set(s, "value", anyValue)
	jsonschema.Set(s, "comment", jsonschema.MaxLength(MaxTextLength))
	jsonschema.Set(s, "source", jsonschema.Enum(append(slices.Clone(Sources), "")...))
	jsonschema.Set(s, "author", jsonschema.MaxLength(MaxAuthorLength))
	given := jsonschema.All(jsonschema.Type("string"), jsonschema.MinLength(1))
	empty := jsonschema.MaxLength(0)
	jsonschema.Apply(s, jsonschema.OneOf(
		jsonschema.Schema(jsonschema.Title("judges a turn"), jsonschema.Require("turn_id"),
			jsonschema.Prop("turn_id", given), jsonschema.Prop("workshop_id", empty), jsonschema.Prop("trace_id", empty)),
		jsonschema.Schema(jsonschema.Title("judges a trace"), jsonschema.Require("workshop_id", "trace_id"),
			jsonschema.Prop("turn_id", empty), jsonschema.Prop("workshop_id", given), jsonschema.Prop("trace_id", given)),
	))
}

// JSONSchemaExtend lists the data types and sources, and states the value
// is of its data type's JSON type.
func (Score) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "data_type", jsonschema.Enum(DataTypes...))
	jsonschema.Set(s, "value", anyValue)
	jsonschema.Set(s, "source", jsonschema.Enum(Sources...))
	valueByDataType(s)
}

// JSONSchemaExtend states the next offset follows a full page.
func (Page) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "next_offset", jsonschema.Minimum(1))
}

// JSONSchemaExtend lists the targets, data types and sources, and states
// the value is of its data type's JSON type.
func (ExportRow) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "target", jsonschema.Enum(Targets...))
	jsonschema.Set(s, "data_type", jsonschema.Enum(DataTypes...))
	jsonschema.Set(s, "value", anyValue)
	jsonschema.Set(s, "source", jsonschema.Enum(Sources...))
	valueByDataType(s)
}
