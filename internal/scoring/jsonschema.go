package scoring

import (
	invopop "github.com/invopop/jsonschema"

	"github.com/honehq/hone/internal/jsonschema"
)

// composite is a composite score's range.
var composite = jsonschema.Range(0, 1)

// JSONSchemaExtend states turns are numbered from 1 and the composites'
// range.
func (TurnScores) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "turn_number", jsonschema.Minimum(1))
	for _, name := range []string{"objective_quality_score", "subjective_quality_score", "overall_quality_score"} {
		jsonschema.Set(s, name, composite)
	}
}

// JSONSchemaExtend states a mean's range.
func (Stat) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "n", jsonschema.Minimum(0))
	jsonschema.Set(s, "mean", composite)
}

// JSONSchemaExtend states the count of turns.
func (SessionReport) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "turns", jsonschema.Minimum(0))
}

// JSONSchemaExtend states the counts, the means' range and the p-value's.
func (Diff) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "n_a", jsonschema.Minimum(0))
	jsonschema.Set(s, "n_b", jsonschema.Minimum(0))
	jsonschema.Set(s, "mean_a", composite)
	jsonschema.Set(s, "mean_b", composite)
	jsonschema.Set(s, "p_value", jsonschema.Range(0, 1))
}
