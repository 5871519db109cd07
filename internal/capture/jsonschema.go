package capture

import (
	"math"

	invopop "github.com/invopop/jsonschema"

	"github.com/honehq/hone/internal/jsonschema"
)

// TesterRules are the rules Tester.Validate checks, by property.
var TesterRules = map[string]jsonschema.Rule{
	"conversation_id": jsonschema.All(jsonschema.MaxLength(MaxIDLength), jsonschema.NotBlank),
	"tester_id":       jsonschema.All(jsonschema.MaxLength(MaxIDLength), jsonschema.NotBlank),
	"tester_email":    jsonschema.All(jsonschema.MaxLength(MaxIDLength), jsonschema.Pattern("^$|"+jsonschema.Spaces(EmailPattern))),
}

// JSONSchemaExtend states the rules TurnInput.Validate checks.
func (TurnInput) JSONSchemaExtend(s *invopop.Schema) {
	s.Required = []string{"conversation_id", "tester_id", "user_message", "response"}
	jsonschema.Set(s, "id", jsonschema.MaxLength(MaxTurnIDLength), jsonschema.Pattern("^$|"+TurnIDPattern))
	for name, rule := range TesterRules {
		jsonschema.Set(s, name, rule)
	}
	jsonschema.Set(s, "user_message", jsonschema.MaxLength(MaxTextLength), jsonschema.NotBlank)
	jsonschema.Set(s, "response", jsonschema.MaxLength(MaxTextLength), jsonschema.NotBlank)
	jsonschema.Set(s, "prompt_version", jsonschema.MaxLength(MaxIDLength))
	jsonschema.Set(s, "branch", jsonschema.MaxLength(MaxIDLength))
	jsonschema.Set(s, "avg_similarity", jsonschema.Range(0, 1))
	jsonschema.Set(s, "processing_time_ms", jsonschema.Range(0, math.MaxFloat64))
	jsonschema.Set(s, "metadata", jsonschema.Type("object"))
}

// JSONSchemaExtend states a session's counts and metadata.
func (Session) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "total_turns", jsonschema.Minimum(0))
	jsonschema.Set(s, "total_improvements", jsonschema.Minimum(0))
	jsonschema.Set(s, "metadata", jsonschema.Type("object"))
}

// JSONSchemaExtend states a turn's number, metadata and score bounds.
func (Turn) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "turn_number", jsonschema.Minimum(1))
	jsonschema.Set(s, "metadata", jsonschema.Type("object"))
	for _, name := range []string{"objective_quality_score", "subjective_quality_score", "overall_quality_score"} {
		jsonschema.Set(s, name, jsonschema.Range(0, 1))
	}
}
