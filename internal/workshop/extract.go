package workshop

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/honehq/hone"
	"github.com/theory/jsonpath"
)

// ValidateJSONPath reports whether path, given as field, is an RFC 9535
// JSONPath query such as $.messages[-1].content; "" is no extraction.
func ValidateJSONPath(field, path string) error {
	if path == "" {
		return nil
	}
	if hone.Chars(path) > MaxNameLength {
		return hone.FieldError(field, "%s is longer than %d characters", field, MaxNameLength)
	}
	if _, err := jsonpath.Parse(path); err != nil {
		return hone.FieldError(field, "%s is not a JSONPath query (RFC 9535, such as $.messages[-1].content): %v", field, err)
	}
	return nil
}

// Extract returns the text of a trace's input or output: with a JSONPath
// query, the values it selects (strings as they are, other values as
// compact JSON, several joined by newlines); without one, or when it selects
// nothing, the value itself, a string as it is and anything else as
// compact JSON.
func Extract(raw json.RawMessage, path string) string {
	if len(raw) == 0 {
		return ""
	}
	if path != "" {
		if p, err := jsonpath.Parse(path); err == nil {
			var doc any
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.UseNumber()
			if dec.Decode(&doc) == nil {
				if nodes := p.Select(doc); len(nodes) > 0 {
					parts := make([]string, 0, len(nodes))
					for _, n := range nodes {
						parts = append(parts, text(n))
					}
					return strings.Join(parts, "\n")
				}
			}
		}
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) == nil {
		return b.String()
	}
	return string(raw)
}

// text is a selected JSON value as text.
func text(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}
