package capture

import (
	"slices"
	"strings"

	"github.com/honehq/hone"
)

// Sources of a turn: how it reached hone.
const (
	// SourceAPI is a turn an application sent to the API; the API's default.
	SourceAPI = "api"
	// SourceChat is a turn of hone's own chat (hone chat, the web chat).
	SourceChat = "chat"
	// SourceProxy is a turn recorded by a proxy in front of a model.
	SourceProxy = "proxy"
	// SourceOTLP is a turn made from OpenTelemetry spans.
	SourceOTLP = "otlp"
	// SourceImport is a turn imported from elsewhere.
	SourceImport = "import"
)

// Sources lists every source a turn may have.
var Sources = []string{SourceAPI, SourceChat, SourceProxy, SourceOTLP, SourceImport}

// Lengths of W3C trace context ids in hexadecimal characters.
const (
	TraceIDLength = 32
	SpanIDLength  = 16
)

// AnonymousTester is the tester of a turn sent without a tester_id.
const AnonymousTester = "anonymous"

// validTraceID reports whether s is a W3C/OpenTelemetry id of n lowercase
// hexadecimal characters, not all zero.
func validTraceID(s string, n int) bool {
	if len(s) != n {
		return false
	}
	zero := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '0':
		case c >= '1' && c <= '9', c >= 'a' && c <= 'f':
			zero = false
		default:
			return false
		}
	}
	return !zero
}

// validateTrace checks the turn's source and trace context.
func (in *TurnInput) validateTrace() error {
	switch {
	case in.Source != "" && !slices.Contains(Sources, in.Source):
		return hone.FieldError("source", "source must be one of %s, not %q", strings.Join(Sources, ", "), in.Source)
	case in.TraceID != "" && !validTraceID(in.TraceID, TraceIDLength):
		return hone.FieldError("trace_id", "trace_id must be %d lowercase hexadecimal characters, not all zero (a W3C trace id)", TraceIDLength)
	case in.SpanID != "" && !validTraceID(in.SpanID, SpanIDLength):
		return hone.FieldError("span_id", "span_id must be %d lowercase hexadecimal characters, not all zero (a W3C span id)", SpanIDLength)
	case in.ParentID != "" && !validTraceID(in.ParentID, SpanIDLength):
		return hone.FieldError("parent_id", "parent_id must be %d lowercase hexadecimal characters, not all zero (the parent's span id)", SpanIDLength)
	case in.SpanID != "" && in.TraceID == "":
		return hone.FieldError("trace_id", "trace_id is required with span_id")
	case in.ParentID != "" && in.TraceID == "":
		return hone.FieldError("trace_id", "trace_id is required with parent_id")
	}
	return nil
}
