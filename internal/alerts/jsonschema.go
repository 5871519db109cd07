package alerts

import (
	"maps"
	"slices"

	invopop "github.com/invopop/jsonschema"

	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/jsonschema"
)

// Reactions are the reactions an alert may get, in the order the API lists
// them.
var Reactions = []string{ReactionUp, ReactionAck, ReactionDown}

// typePattern is an alert type as cleanPermit takes it: one word of
// letters, digits and typePunctuation, with white space around it.
var typePattern = jsonschema.Trimmed(`[\p{L}\p{Nd}` + jsonschema.InClass(typePunctuation) + `]+`)

// TypeRule is the rule of an alert type a client gives.
var TypeRule = jsonschema.All(jsonschema.MaxLength(capture.MaxIDLength), jsonschema.Pattern(typePattern))

// JSONSchemaExtend states the rules cleanPermit checks.
func (PermitInput) JSONSchemaExtend(s *invopop.Schema) {
	s.Required = []string{"conversation_id", "type"}
	jsonschema.Set(s, "conversation_id", jsonschema.MaxLength(capture.MaxIDLength), jsonschema.NotBlank)
	jsonschema.Set(s, "type", TypeRule)
}

// JSONSchemaExtend states the rules AlertInput.clean checks.
func (AlertInput) JSONSchemaExtend(s *invopop.Schema) {
	PermitInput{}.JSONSchemaExtend(s)
	jsonschema.Set(s, "id", jsonschema.MaxLength(capture.MaxIDLength))
	jsonschema.Set(s, "text", jsonschema.MaxLength(MaxAlertText))
	jsonschema.Set(s, "tester_id", jsonschema.MaxLength(capture.MaxIDLength))
}

// JSONSchemaExtend states the rules ReactionInput.clean checks: a reaction
// or one of its other spellings, in any case.
func (ReactionInput) JSONSchemaExtend(s *invopop.Schema) {
	s.Required = []string{"tester_id", "reaction"}
	jsonschema.Set(s, "tester_id", jsonschema.MaxLength(capture.MaxIDLength), jsonschema.NotBlank)
	words := append(slices.Clone(Reactions), slices.Sorted(maps.Keys(reactionSpellings))...)
	jsonschema.Set(s, "reaction", jsonschema.Pattern(jsonschema.Trimmed(jsonschema.Folded(words...))))
}

// JSONSchemaExtend states the bounds of a permit.
func (Permit) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "alert_quality_score", jsonschema.Range(DownValue, UpValue))
	jsonschema.Set(s, "scored_alerts", jsonschema.Range(0, DefaultScoreWindow))
	jsonschema.Set(s, "budget", jsonschema.Minimum(1))
	jsonschema.Set(s, "sent", jsonschema.Minimum(0))
	jsonschema.Set(s, "remaining", jsonschema.Minimum(0))
}

// JSONSchemaExtend lists the reactions.
func (AlertReaction) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "reaction", jsonschema.Enum(Reactions...))
}

// JSONSchemaExtend states the reaction is always there.
func (Reacted) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "reaction", jsonschema.NotNull)
}

// JSONSchemaExtend states the counts are not negative.
func (AlertType) JSONSchemaExtend(s *invopop.Schema) {
	for _, p := range []string{"sent", "up", "ack", "down"} {
		jsonschema.Set(s, p, jsonschema.Minimum(0))
	}
}
