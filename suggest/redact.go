package suggest

import (
	"bytes"
	"encoding/json"
	"maps"
	"regexp"
	"slices"
)

// Redaction is one pattern whose matches are replaced before a record
// leaves the process.
type Redaction struct {
	Name    string
	Pattern *regexp.Regexp
	// Replace is what stands for a match ("[REDACTED:<name>]" when empty).
	Replace string
	// Keywords make redaction cheap on text that holds no secret: every
	// match of Pattern must hold one of them, and text that holds none is
	// not searched with Pattern. They are compared as written, or without
	// regard to case when any part of Pattern is ((?i)). Without Keywords
	// (or with one that is empty or not ASCII), all text is searched.
	Keywords []string
}

// APIKeys are the default redactions: secrets that must never reach a log
// (OpenAI, Anthropic, AWS, GitHub, Slack and Google keys, Bearer tokens,
// and key=value pairs named like secrets).
var APIKeys = []Redaction{
	{Name: "openai_key", Pattern: regexp.MustCompile(`\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{16,}`), Keywords: []string{"sk-"}},
	{Name: "aws_key", Pattern: regexp.MustCompile(`\b(?:AKIA|ASIA)[A-Z0-9]{16}\b`), Keywords: []string{"AKIA", "ASIA"}},
	{Name: "github_token", Pattern: regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})`),
		Keywords: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}},
	{Name: "slack_token", Pattern: regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{10,}`), Keywords: []string{"xox"}},
	{Name: "google_key", Pattern: regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}\b`), Keywords: []string{"AIza"}},
	{Name: "bearer", Pattern: regexp.MustCompile(`(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{16,}`), Keywords: []string{"bearer"}},
	{Name: "secret_assignment", Pattern: regexp.MustCompile(`(?i)\b((?:api[_-]?key|secret|password|passwd|token|access[_-]?key)\s*[=:]\s*)("[^"]{4,}"|'[^']{4,}'|[^\s"']{4,})`),
		Replace:  "${1}[REDACTED:secret_assignment]",
		Keywords: []string{"apikey", "api_key", "api-key", "secret", "password", "passwd", "token", "accesskey", "access_key", "access-key"}},
}

// DefaultRedactor is what the sinks apply unless told otherwise: the API
// keys. E-mail addresses are kept unless Emails is added.
func DefaultRedactor() *Redactor { return defaultRedactor }

var defaultRedactor = NewRedactor(APIKeys...)

// Emails redacts e-mail addresses; not on by default (see Redactor).
var Emails = []Redaction{
	{Name: "email", Pattern: regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}`), Keywords: []string{"@"}},
}

// Redactor applies redactions to every text of a record: the context, the
// LLM request and response, the suggestions and the input. It is safe for
// concurrent use.
type Redactor struct {
	list []Redaction
	kw   keywords
}

// NewRedactor returns a Redactor applying the redactions in order. The
// default of an application is NewRedactor(APIKeys...); add Emails to
// redact addresses too.
func NewRedactor(list ...Redaction) *Redactor {
	r := &Redactor{list: slices.Clone(list)}
	r.kw = newKeywords(r.list)
	return r
}

// active reports whether r redacts anything.
func (r *Redactor) active() bool { return r != nil && len(r.list) > 0 }

// Text returns s with every match replaced.
func (r *Redactor) Text(s string) string {
	s, _ = r.text(s)
	return s
}

// text returns s with every match replaced, and whether any was. Each
// redaction runs on the text the ones before it left, as long as that
// text holds one of its keywords.
func (r *Redactor) text(s string) (string, bool) {
	if r == nil || len(r.list) == 0 {
		return s, false
	}
	found := r.kw.find(s)
	if found == 0 {
		return s, false
	}
	changed := false
	for i, x := range r.list {
		if found&r.kw.bit(i) == 0 {
			continue
		}
		repl := x.Replace
		if repl == "" {
			repl = "[REDACTED:" + x.Name + "]"
		}
		if t := x.Pattern.ReplaceAllString(s, repl); t != s {
			s, changed = t, true
			found = r.kw.find(s)
		}
	}
	return s, changed
}

// Record returns rec with its texts redacted: a copy when any text
// changed (rec itself, which the caller may still read, is never
// changed), else rec. The copy shares with rec what redaction left as it
// was.
func (r *Redactor) Record(rec *Record) *Record {
	if r == nil || len(r.list) == 0 {
		return rec
	}
	out := rec
	edit := func() {
		if out == rec {
			c := *rec
			out = &c
		}
	}
	if v, ok := r.object(rec.Context); ok {
		edit()
		out.Context = v
	}
	if v, ok := r.object(rec.LLMRequest); ok {
		edit()
		out.LLMRequest = v
	}
	if v, ok := r.object(rec.LLMResponse); ok {
		edit()
		out.LLMResponse = v
	}
	if v, ok := r.texts(rec.Suggestions); ok {
		edit()
		out.Suggestions = v
	}
	if v, ok := r.text(rec.ActualInput); ok {
		edit()
		out.ActualInput = v
	}
	return out
}

// value returns v with its texts redacted, and whether any was: a copy of
// what changed, v itself when nothing did.
func (r *Redactor) value(v any) (any, bool) {
	switch x := v.(type) {
	case string:
		if t, ok := r.text(x); ok {
			return t, true
		}
	case map[string]any:
		if out, ok := r.object(x); ok {
			return out, true
		}
	case []any:
		if out, ok := r.array(x); ok {
			return out, true
		}
	case []string:
		if out, ok := r.texts(x); ok {
			return out, true
		}
	case []map[string]any:
		var out []map[string]any
		for i, m := range x {
			if y, ok := r.object(m); ok {
				if out == nil {
					out = slices.Clone(x)
				}
				out[i] = y
			}
		}
		if out != nil {
			return out, true
		}
	case nil, bool, float64, float32, int, int64, int32, uint, uint64, uint32, json.Number:
	default:
		// Any other value (map[string]string, structs, []byte …) is
		// redacted in its JSON form, which is what would be written.
		b, err := json.Marshal(v)
		if err != nil {
			return v, false
		}
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		var generic any
		if d.Decode(&generic) != nil {
			return v, false
		}
		if out, ok := r.value(generic); ok {
			return out, true
		}
	}
	return v, false
}

// object is value for a JSON object.
func (r *Redactor) object(m map[string]any) (map[string]any, bool) {
	var out map[string]any
	for k, x := range m {
		if y, ok := r.value(x); ok {
			if out == nil {
				out = maps.Clone(m)
			}
			out[k] = y
		}
	}
	return out, out != nil
}

// array is value for a JSON array.
func (r *Redactor) array(l []any) ([]any, bool) { return redactEach(l, r.value) }

// texts is value for a list of texts.
func (r *Redactor) texts(l []string) ([]string, bool) { return redactEach(l, r.text) }

// redactEach applies redact to every element of l, copying l at the first
// element it changes; ok is false, and l not copied, when none changed.
func redactEach[T any](l []T, redact func(T) (T, bool)) ([]T, bool) {
	var out []T
	for i, x := range l {
		if y, ok := redact(x); ok {
			if out == nil {
				out = slices.Clone(l)
			}
			out[i] = y
		}
	}
	return out, out != nil
}
