package llm

import (
	invopop "github.com/invopop/jsonschema"

	"github.com/honehq/hone/internal/jsonschema"
)

// Roles are the roles of a message, in the order the API lists them.
var Roles = []string{RoleSystem, RoleDeveloper, RoleUser, RoleAssistant}

// JSONSchemaAlias gives the shape MarshalJSON writes: the named fields, and
// the other parameters as sent beside them.
func (CallRequest) JSONSchemaAlias() any { return callRequestJSON{} }

// JSONSchemaExtend keeps the other parameters sent.
func (callRequestJSON) JSONSchemaExtend(s *invopop.Schema) { jsonschema.Open(s) }

// JSONSchemaExtend lists the roles.
func (Message) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "role", jsonschema.Enum(Roles...))
}

// JSONSchemaExtend states the counts are not negative.
func (Usage) JSONSchemaExtend(s *invopop.Schema) {
	for _, p := range []string{"prompt_tokens", "completion_tokens", "total_tokens"} {
		jsonschema.Set(s, p, jsonschema.Minimum(0))
	}
}

// JSONSchemaExtend states the latency is not negative.
func (CallResponse) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "latency_ms", jsonschema.Minimum(0))
}
