package api_test

import (
	"maps"
	"reflect"
	"slices"
	"testing"

	"github.com/honehq/hone/internal/api"
	"github.com/honehq/hone/internal/score"
)

// The score schemas of openapi.json are the Go types' fields, with the
// domain's enumerations and limits.
func TestOpenAPIScoreSchemasMatchGoTypes(t *testing.T) {
	d := parseDocument(t, openAPIFile(t))
	for _, c := range []struct {
		schema   string
		fields   map[string]bool
		response bool
	}{
		{"NewScore", jsonFields(reflect.TypeFor[score.Input]()), false},
		{"Score", jsonFields(reflect.TypeFor[score.Score]()), true},
		{"ScoreConfigInput", jsonFields(reflect.TypeFor[score.ConfigInput]()), false},
		{"ScoreConfigUpdate", jsonFields(reflect.TypeFor[score.ConfigUpdate]()), false},
		{"ScoreCategory", jsonFields(reflect.TypeFor[score.Category]()), true},
		{"ScoreConfig", jsonFields(reflect.TypeFor[score.Config]()), true},
		{"ScoreConfigList", jsonFields(reflect.TypeFor[api.ScoreConfigList]()), true},
		{"ScorePage", jsonFields(reflect.TypeFor[score.Page]()), true},
		{"RecordedScore", jsonFields(reflect.TypeFor[api.RecordedScore]()), true},
		{"ScoreBatchAnswer", jsonFields(reflect.TypeFor[api.ScoreBatchAnswer]()), true},
		{"ScoreExportRow", jsonFields(reflect.TypeFor[score.ExportRow]()), true},
	} {
		t.Run(c.schema, func(t *testing.T) {
			s, ok := d.Components.Schemas[c.schema]
			if !ok {
				t.Fatalf("openapi.json has no schema %s", c.schema)
			}
			if got, want := slices.Sorted(maps.Keys(s.Properties)), slices.Sorted(maps.Keys(c.fields)); !slices.Equal(got, want) {
				t.Errorf("properties %v, the Go type has %v", got, want)
			}
			if s.AdditionalProperties == nil || *s.AdditionalProperties {
				t.Error("additionalProperties is not false")
			}
			if !c.response {
				return
			}
			var always []string
			for name, omitempty := range c.fields {
				if !omitempty {
					always = append(always, name)
				}
			}
			if got, want := slices.Sorted(slices.Values(s.Required)), slices.Sorted(slices.Values(always)); !slices.Equal(got, want) {
				t.Errorf("required %v, but the server always sends %v", got, want)
			}
		})
	}
	doc := confDoc(t)
	strs := func(pointer string) []string {
		t.Helper()
		list, ok := resolve(doc, pointer).([]any)
		if !ok {
			t.Fatalf("openapi.json has no list at %s", pointer)
		}
		var out []string
		for _, v := range list {
			if s, ok := v.(string); ok && s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	schemas := "/components/schemas/"
	for _, e := range []struct {
		pointer string
		want    []string
	}{
		{schemas + "ScoreConfig/properties/data_type/enum", score.DataTypes},
		{schemas + "ScoreConfigInput/properties/data_type/enum", score.DataTypes},
		{schemas + "Score/properties/source/enum", score.Sources},
		{schemas + "NewScore/properties/source/enum", score.Sources},
		{schemas + "ScoreExportRow/required", score.ExportColumns},
		{"/paths/~1scores/get/parameters/4/schema/enum", score.Sources},
		{"/paths/~1scores~1export/get/parameters/0/schema/enum", score.Formats},
	} {
		if got := strs(e.pointer); !slices.Equal(got, e.want) {
			t.Errorf("%s: %q, the domain has %q", e.pointer, got, e.want)
		}
	}
	for _, c := range []struct {
		pointer string
		want    any
	}{
		{schemas + "NewScore/properties/id/maxLength", float64(score.MaxIDLength)},
		{schemas + "NewScore/properties/id/pattern", "^$|" + score.IDPattern},
		{schemas + "NewScore/properties/turn_id/maxLength", float64(score.MaxTargetLength)},
		{schemas + "NewScore/properties/config/maxLength", float64(score.MaxTargetLength)},
		{schemas + "NewScore/properties/author/maxLength", float64(score.MaxAuthorLength)},
		{schemas + "NewScore/properties/comment/maxLength", float64(score.MaxTextLength)},
		{schemas + "ScoreConfigInput/properties/name/maxLength", float64(score.MaxNameLength)},
		{schemas + "ScoreConfigInput/properties/name/pattern", score.NamePattern},
		{schemas + "ScoreConfigInput/properties/description/maxLength", float64(score.MaxDescriptionLength)},
		{schemas + "ScoreConfigInput/properties/categories/maxItems", float64(score.MaxCategories)},
		{schemas + "ScoreConfigInput/properties/max/maximum", score.MaxNumber},
		{schemas + "ScoreCategory/properties/label/maxLength", float64(score.MaxLabelLength)},
		{"/paths/~1scores/get/parameters/9/schema/maximum", float64(score.MaxLimit)},
		{"/paths/~1scores/get/parameters/9/schema/default", float64(score.DefaultLimit)},
	} {
		if got := resolve(doc, c.pointer); got != c.want {
			t.Errorf("%s is %v, the domain has %v", c.pointer, got, c.want)
		}
	}
}
