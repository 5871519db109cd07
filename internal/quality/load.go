package quality

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/honehq/hone"
	"go.yaml.in/yaml/v3"
)

// fileSpec is the top level of a metric set file.
type fileSpec struct {
	Name       string            `json:"name"`
	Composite  *compositeSpec    `json:"composite"`
	Subjective []string          `json:"subjective"`
	Metrics    []json.RawMessage `json:"metrics"`
}

// compositeSpec is the composite section of a metric set file.
type compositeSpec struct {
	ObjectiveWeight  *float64 `json:"objective_weight"`
	SubjectiveWeight *float64 `json:"subjective_weight"`
}

// metricSpec is one metric of a metric set file; which fields apply depends
// on Kind (see kindFields).
type metricSpec struct {
	Name              string   `json:"name"`
	Kind              string   `json:"kind"`
	Weight            *float64 `json:"weight"`
	Description       string   `json:"description"`
	Patterns          []string `json:"patterns"`
	AckPatterns       []string `json:"ack_patterns"`
	AckWithin         *int     `json:"ack_within"`
	LongerThan        *int     `json:"longer_than"`
	NextStepPatterns  []string `json:"next_step_patterns"`
	MinWords          *int     `json:"min_words"`
	MaxWords          *int     `json:"max_words"`
	Input             string   `json:"input"`
	Threshold         *float64 `json:"threshold"`
	ActivePatterns    []string `json:"active_patterns"`
	FirstResponseOnly bool     `json:"first_response_only"`
	QuestionPatterns  []string `json:"question_patterns"`
	GuidancePatterns  []string `json:"guidance_patterns"`
	FirstPatterns     []string `json:"first_patterns"`
	SecondPatterns    []string `json:"second_patterns"`
	CitationPatterns  []string `json:"citation_patterns"`
}

// topFields are the fields allowed at the top level of a metric set file.
var topFields = []string{"name", "composite", "subjective", "metrics"}

// commonFields are the fields every metric may have.
var commonFields = []string{"name", "kind", "weight", "description"}

// kindFields lists, per kind, the fields a metric of that kind may have
// besides commonFields.
var kindFields = map[string][]string{
	KindPatternAny:         {"patterns"},
	KindStructure:          {"ack_patterns", "ack_within", "longer_than", "next_step_patterns"},
	KindWordRange:          {"min_words", "max_words"},
	KindBelow:              {"input", "threshold"},
	KindClarifying:         {"active_patterns", "first_response_only", "question_patterns", "guidance_patterns"},
	KindNotBoth:            {"first_patterns", "second_patterns"},
	KindCitationSimilarity: {"citation_patterns"},
	KindInputValue:         {"input"},
	KindStructured:         {"min_words", "patterns"},
	KindCitesContext:       {"citation_patterns"},
}

// inputs lists the inputs below and input_value metrics may read.
var inputs = []string{InputProcessingTimeMS, InputRAGSimilarity, InputWordCount}

// reservedNames are result keys that metrics may not use.
var reservedNames = []string{"objective_quality_score", "subjective_quality_score", "overall_quality_score"}

// identifier is the form of metric and subjective score names.
var identifier = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// Default weights of the objective and subjective scores in the overall score.
const (
	DefaultObjectiveWeight  = 0.4
	DefaultSubjectiveWeight = 0.6
)

// DefaultSubjective are the human scores a set accepts when its file names none.
var DefaultSubjective = []string{"professionalism", "empathy", "clarity", "actionability", "compliance"}

// Load reads and validates a metric set file; the format follows the
// extension: .yaml, .yml or .json.
func Load(path string) (*Set, error) {
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	if format != "yaml" && format != "yml" && format != "json" {
		return nil, hone.FieldError("path", "metric set %s: unsupported extension %q (want .yaml, .yml or .json)", path, filepath.Ext(path))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("metrics: load: %w", err)
	}
	s, err := Parse(data, format)
	if err != nil {
		var he *hone.Error
		if errors.As(err, &he) {
			return nil, &hone.Error{Code: he.Code, Field: he.Field, Message: path + ": " + he.Message}
		}
		return nil, err
	}
	return s, nil
}

// Parse validates and compiles a metric set from data in format "yaml",
// "yml" or "json". Every error is a hone EINVALID error whose message names
// the metric and the field at fault, such as
// `metric "has_policy_citation": patterns[2]: invalid regex "(": missing closing )`.
//
// Patterns are RE2 expressions (Go regexp syntax), matched case-insensitively;
// an expression starting with (?-i) is case-sensitive. Regexes are compiled
// here, so a bad one fails the load, never scoring. Unknown fields, fields of
// another kind, unknown kinds, duplicate names, negative weights and
// min_words > max_words are rejected. Weights default to 1. The composite
// weights default to 0.4 and 0.6 and may not be negative; when only one is
// given it must be at most 1 and the other is 1 minus it, and when both are
// given they are normalised to sum to 1 (2 and 3 mean 0.4 and 0.6).
func Parse(data []byte, format string) (*Set, error) {
	raw, err := toJSON(data, strings.TrimPrefix(strings.ToLower(format), "."))
	if err != nil {
		return nil, err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, hone.Errorf(hone.EINVALID, "metric set: the top level must be a mapping with %s", strings.Join(topFields, ", "))
	}
	for _, k := range sortedKeys(top) {
		if !slices.Contains(topFields, k) {
			return nil, hone.FieldError(k, "metric set: unknown field %q (allowed: %s)", k, strings.Join(topFields, ", "))
		}
	}
	var f fileSpec
	if err := strictDecode(raw, &f); err != nil {
		return nil, hone.FieldError(typeErrorField(err), "metric set: %s", describeDecodeError(err))
	}
	s := &Set{name: f.Name, index: map[string]int{}}
	if err := s.setComposite(f.Composite); err != nil {
		return nil, err
	}
	if err := s.setSubjective(f.Subjective); err != nil {
		return nil, err
	}
	if len(f.Metrics) == 0 {
		return nil, hone.FieldError("metrics", "metric set: metrics: at least one metric is required")
	}
	for i, rm := range f.Metrics {
		m, err := compileMetric(i, rm)
		if err != nil {
			return nil, err
		}
		if _, dup := s.index[m.Name]; dup {
			return nil, hone.FieldError(fmt.Sprintf("metrics[%d].name", i), "metric %q: name: duplicate metric name", m.Name)
		}
		s.index[m.Name] = len(s.metrics)
		s.metrics = append(s.metrics, m)
	}
	return s, nil
}

// toJSON converts data in format to JSON, so both formats share one decoder.
func toJSON(data []byte, format string) ([]byte, error) {
	switch format {
	case "json":
		return data, nil
	case "yaml", "yml":
		var v any
		if err := yaml.Unmarshal(data, &v); err != nil {
			return nil, hone.Errorf(hone.EINVALID, "metric set: %v", err)
		}
		out, err := json.Marshal(jsonable(v))
		if err != nil {
			return nil, hone.Errorf(hone.EINVALID, "metric set: %v", err)
		}
		return out, nil
	}
	return nil, hone.FieldError("format", "metric set: unsupported format %q (want yaml, yml or json)", format)
}

// jsonable converts YAML-decoded v to values encoding/json can marshal.
func jsonable(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = jsonable(e)
		}
		return v
	case map[any]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[fmt.Sprint(k)] = jsonable(e)
		}
		return m
	case []any:
		for i, e := range v {
			v[i] = jsonable(e)
		}
		return v
	}
	return v
}

// strictDecode decodes JSON data into v, rejecting unknown fields.
func strictDecode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// setComposite validates and normalises the composite weights.
func (s *Set) setComposite(c *compositeSpec) error {
	s.objW, s.subjW = DefaultObjectiveWeight, DefaultSubjectiveWeight
	if c == nil {
		return nil
	}
	alone := (c.ObjectiveWeight == nil) != (c.SubjectiveWeight == nil)
	for _, w := range []struct {
		name string
		v    *float64
	}{{"objective_weight", c.ObjectiveWeight}, {"subjective_weight", c.SubjectiveWeight}} {
		switch {
		case w.v == nil:
		case *w.v < 0 || math.IsNaN(*w.v) || math.IsInf(*w.v, 0):
			return hone.FieldError("composite."+w.name, "composite: %s: must not be negative, got %v", w.name, *w.v)
		case alone && *w.v > 1:
			return hone.FieldError("composite."+w.name, "composite: %s: must be between 0 and 1 when given alone, got %v", w.name, *w.v)
		}
	}
	switch {
	case c.ObjectiveWeight != nil && c.SubjectiveWeight != nil:
		sum := *c.ObjectiveWeight + *c.SubjectiveWeight
		if sum == 0 {
			return hone.FieldError("composite", "composite: objective_weight and subjective_weight are both 0")
		}
		s.objW, s.subjW = *c.ObjectiveWeight/sum, *c.SubjectiveWeight/sum
	case c.ObjectiveWeight != nil:
		s.objW, s.subjW = *c.ObjectiveWeight, 1-*c.ObjectiveWeight
	case c.SubjectiveWeight != nil:
		s.objW, s.subjW = 1-*c.SubjectiveWeight, *c.SubjectiveWeight
	}
	return nil
}

// setSubjective validates the subjective score names; "_score" suffixes are
// dropped.
func (s *Set) setSubjective(names []string) error {
	if names == nil {
		s.subjective = slices.Clone(DefaultSubjective)
		return nil
	}
	if len(names) == 0 {
		return hone.FieldError("subjective", "subjective: at least one score name is required")
	}
	for i, n := range names {
		n = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(n)), ScoreSuffix)
		field := fmt.Sprintf("subjective[%d]", i)
		if !identifier.MatchString(n) {
			return hone.FieldError(field, "%s: invalid score name %q (want lower-case letters, digits and _)", field, names[i])
		}
		if slices.Contains(s.subjective, n) {
			return hone.FieldError(field, "%s: duplicate score name %q", field, n)
		}
		s.subjective = append(s.subjective, n)
	}
	return nil
}

// specError is an error in one field of a metric.
type specError struct {
	field string
	msg   string
}

// Error implements the error interface.
func (e *specError) Error() string { return e.field + ": " + e.msg }

// fieldErr returns a specError for field.
func fieldErr(field, format string, args ...any) *specError {
	return &specError{field: field, msg: fmt.Sprintf(format, args...)}
}

// compileMetric validates and compiles metric i of a file.
func compileMetric(i int, raw json.RawMessage) (metric, error) {
	label := fmt.Sprintf("#%d", i)
	fail := func(e *specError) (metric, error) {
		return metric{}, hone.FieldError(fmt.Sprintf("metrics[%d].%s", i, e.field), "metric %s: %s: %s", label, e.field, e.msg)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return metric{}, hone.FieldError(fmt.Sprintf("metrics[%d]", i), "metric %s: must be a mapping", label)
	}
	var name, kind string
	if v, ok := fields["name"]; ok && json.Unmarshal(v, &name) == nil && name != "" {
		label = fmt.Sprintf("%q", name)
	}
	if v, ok := fields["kind"]; ok {
		_ = json.Unmarshal(v, &kind)
	}
	allowed, known := kindFields[kind]
	for _, k := range sortedKeys(fields) {
		switch {
		case slices.Contains(commonFields, k):
		case !known:
		case slices.Contains(allowed, k):
		case isKindField(k):
			return fail(fieldErr(k, "field does not apply to kind %q (allowed: %s)", kind, strings.Join(append(slices.Clone(commonFields), allowed...), ", ")))
		default:
			return fail(fieldErr(k, "unknown field"))
		}
	}
	var ms metricSpec
	if err := strictDecode(raw, &ms); err != nil {
		return fail(fieldErr(typeErrorField(err), "%s", describeDecodeError(err)))
	}
	if ms.Name == "" {
		return fail(fieldErr("name", "required"))
	}
	if !identifier.MatchString(ms.Name) {
		return fail(fieldErr("name", "invalid name (want lower-case letters, digits and _)"))
	}
	if slices.Contains(reservedNames, ms.Name) {
		return fail(fieldErr("name", "reserved for the composite scores"))
	}
	if ms.Kind == "" {
		return fail(fieldErr("kind", "required (one of %s)", strings.Join(kindNames(), ", ")))
	}
	if !known {
		return fail(fieldErr("kind", "unknown kind %q (one of %s)", ms.Kind, strings.Join(kindNames(), ", ")))
	}
	weight := 1.0
	if ms.Weight != nil {
		weight = *ms.Weight
		if weight < 0 || math.IsNaN(weight) || math.IsInf(weight, 0) {
			return fail(fieldErr("weight", "must be a non-negative number, got %v", weight))
		}
	}
	sc, err := compileScorer(&ms)
	if err != nil {
		var se *specError
		if errors.As(err, &se) {
			return fail(se)
		}
		return fail(fieldErr("kind", "%v", err))
	}
	return metric{MetricInfo: MetricInfo{Name: ms.Name, Kind: ms.Kind, Weight: weight, Description: ms.Description}, score: sc}, nil
}

// isKindField reports whether k is a field of some kind.
func isKindField(k string) bool {
	for _, fs := range kindFields {
		if slices.Contains(fs, k) {
			return true
		}
	}
	return false
}

// kindNames returns the known kinds, sorted.
func kindNames() []string {
	return sortedKeys(kindFields)
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// typeErrorField returns the field a decode error is about, or "".
func typeErrorField(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return te.Field
	}
	return ""
}

// describeDecodeError turns a decode error into a short message.
func describeDecodeError(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("want %s, got %s", describeType(te.Type), te.Value)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("invalid JSON at offset %d: %v", se.Offset, se)
	}
	return err.Error()
}

// describeType names t for error messages.
func describeType(t reflect.Type) string {
	if t == reflect.TypeFor[json.RawMessage]() {
		return "a mapping"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int:
		return "an integer"
	case reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice:
		return "a list of " + strings.TrimPrefix(strings.TrimPrefix(describeType(t.Elem()), "an "), "a ") + "s"
	case reflect.Struct, reflect.Map:
		return "a mapping"
	}
	return t.String()
}
