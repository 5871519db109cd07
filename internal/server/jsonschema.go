package server

import (
	invopop "github.com/invopop/jsonschema"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/jsonschema"
)

// JSONSchemaExtend lists the error codes and bounds the count of errors
// left out.
func (ErrorDetail) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "code", jsonschema.Enum(hone.Codes...))
	jsonschema.Set(s, "errors_not_listed", jsonschema.Minimum(1))
}
