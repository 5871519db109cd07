package tuning

import (
	invopop "github.com/invopop/jsonschema"

	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/jsonschema"
)

// ExportedSession is the session as the JSON export writes it: the session
// with its duration.
type ExportedSession = jsonSession

// SessionExport is the shape of the JSON export WriteJSON streams: the
// session, then every turn in order.
type SessionExport struct {
	Session ExportedSession `json:"session"`
	Turns   []Turn          `json:"turns"`
}

// JSONSchemaExtend lists the categories; "" is a note filed under none.
func (Improvement) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "category", jsonschema.Enum(append([]string{""}, Categories...)...))
}

// JSONSchemaExtend states the session's rules (the embedded pointer's
// method would run on nil).
func (jsonSession) JSONSchemaExtend(s *invopop.Schema) { capture.Session{}.JSONSchemaExtend(s) }
