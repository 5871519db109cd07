package quality

import (
	invopop "github.com/invopop/jsonschema"

	"github.com/honehq/hone/internal/jsonschema"
)

// humanScore is a human score's range.
var humanScore = jsonschema.All(jsonschema.Type("integer"), jsonschema.Range(ScoreMin, ScoreMax))

// JSONSchema is the shape MarshalJSON writes: each metric's score, 0 to 1
// or null for N/A, by name, and the objective quality score.
func (Result) JSONSchema() *invopop.Schema {
	value := jsonschema.Schema(jsonschema.Type("number"), jsonschema.Nullable, jsonschema.Range(0, 1))
	return &invopop.Schema{Type: "object", Required: []string{ObjectiveKey},
		PatternProperties: map[string]*invopop.Schema{"^.+$": value}, AdditionalProperties: invopop.FalseSchema}
}

// HumanScoresSchema states the rules ValidateScores checks of the scores a
// client sends, with the default set's names: at least one, each name in
// any case, with ScoreSuffix or without, white space around it ignored,
// and each value a whole number from ScoreMin to ScoreMax.
func HumanScoresSchema(s *invopop.Schema) {
	name := jsonschema.Trimmed(jsonschema.Folded(DefaultSubjective...) + jsonschema.Folded(ScoreSuffix) + "?")
	*s = invopop.Schema{Type: "object", PatternProperties: map[string]*invopop.Schema{name: jsonschema.Schema(humanScore)},
		AdditionalProperties: invopop.FalseSchema}
	jsonschema.Apply(s, jsonschema.MinProperties(1))
}

// ScoresSchema states a turn's human scores: by short name (as stored),
// each a whole number from ScoreMin to ScoreMax.
func ScoresSchema(s *invopop.Schema) {
	*s = invopop.Schema{Type: "object", PatternProperties: map[string]*invopop.Schema{`^[A-Za-z0-9_]+$`: jsonschema.Schema(humanScore)},
		AdditionalProperties: invopop.FalseSchema}
}
