package suggest

import (
	"encoding/json"
	"regexp"
)

// Redaction is one pattern whose matches are replaced before a record
// leaves the process.
type Redaction struct {
	Name    string
	Pattern *regexp.Regexp
	// Replace is what stands for a match ("[REDACTED:<name>]" when empty).
	Replace string
}

// APIKeys are the default redactions: secrets that must never reach a log
// (OpenAI, Anthropic, AWS, GitHub, Slack and Google keys, Bearer tokens,
// and key=value pairs named like secrets).
var APIKeys = []Redaction{
	{Name: "openai_key", Pattern: regexp.MustCompile(`\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{16,}`)},
	{Name: "aws_key", Pattern: regexp.MustCompile(`\b(?:AKIA|ASIA)[A-Z0-9]{16}\b`)},
	{Name: "github_token", Pattern: regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})`)},
	{Name: "slack_token", Pattern: regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{10,}`)},
	{Name: "google_key", Pattern: regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}\b`)},
	{Name: "bearer", Pattern: regexp.MustCompile(`(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{16,}`)},
	{Name: "secret_assignment", Pattern: regexp.MustCompile(`(?i)\b((?:api[_-]?key|secret|password|passwd|token|access[_-]?key)\s*[=:]\s*)("[^"]{4,}"|'[^']{4,}'|[^\s"']{4,})`),
		Replace: "${1}[REDACTED:secret_assignment]"},
}

// DefaultRedactor is what the sinks apply unless told otherwise: the API
// keys. E-mail addresses are kept unless Emails is added.
func DefaultRedactor() *Redactor { return defaultRedactor }

var defaultRedactor = NewRedactor(APIKeys...)

// Emails redacts e-mail addresses; not on by default (see Redactor).
var Emails = []Redaction{
	{Name: "email", Pattern: regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}`)},
}

// Redactor applies redactions to every text of a record: the context, the
// LLM request and response, the suggestions and the input.
type Redactor struct {
	list []Redaction
	any  *regexp.Regexp
}

// NewRedactor returns a Redactor applying the redactions in order. The
// default of an application is NewRedactor(APIKeys...); add Emails to
// redact addresses too.
func NewRedactor(list ...Redaction) *Redactor {
	r := &Redactor{list: list}
	if len(list) > 0 {
		src := ""
		for i, x := range list {
			if i > 0 {
				src += "|"
			}
			src += "(?:" + x.Pattern.String() + ")"
		}
		r.any = regexp.MustCompile(src)
	}
	return r
}

// Text returns s with every match replaced.
func (r *Redactor) Text(s string) string {
	if r == nil || r.any == nil || !r.any.MatchString(s) {
		return s
	}
	for _, x := range r.list {
		repl := x.Replace
		if repl == "" {
			repl = "[REDACTED:" + x.Name + "]"
		}
		s = x.Pattern.ReplaceAllString(s, repl)
	}
	return s
}

// Record returns a copy of rec with its texts redacted; rec itself, which
// the caller may still read, is not changed. Without redactions it is rec.
func (r *Redactor) Record(rec *Record) *Record {
	if r == nil || r.any == nil {
		return rec
	}
	out := *rec
	out.Context = r.value(rec.Context).(map[string]any)
	if rec.LLMRequest != nil {
		out.LLMRequest = r.value(rec.LLMRequest).(map[string]any)
	}
	if rec.LLMResponse != nil {
		out.LLMResponse = r.value(rec.LLMResponse).(map[string]any)
	}
	out.Suggestions = make([]string, len(rec.Suggestions))
	for i, s := range rec.Suggestions {
		out.Suggestions[i] = r.Text(s)
	}
	out.ActualInput = r.Text(rec.ActualInput)
	return &out
}

// value returns a redacted copy of a JSON-like value.
func (r *Redactor) value(v any) any {
	switch v := v.(type) {
	case string:
		return r.Text(v)
	case map[string]any:
		if v == nil {
			return v
		}
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = r.value(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = r.value(x)
		}
		return out
	case []string:
		out := make([]string, len(v))
		for i, x := range v {
			out[i] = r.Text(x)
		}
		return out
	case []map[string]any:
		out := make([]map[string]any, len(v))
		for i, x := range v {
			out[i] = r.value(x).(map[string]any)
		}
		return out
	case nil, bool, float64, float32, int, int64, int32, uint, uint64, uint32, json.Number:
		return v
	}
	// Any other value (map[string]string, structs, []byte …) is redacted
	// in its JSON form, which is what would be written.
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var generic any
	if json.Unmarshal(b, &generic) != nil {
		return v
	}
	return r.value(generic)
}
