package workshop

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/honehq/hone"
	"github.com/theory/jsonpath"
	"github.com/theory/jsonpath/spec"
)

// Bounds of a JSONPath extraction of one value (a trace's input or output),
// so that a short path cannot turn a small trace into a large text: the
// work is proportional to the value's size and checked as it goes, before
// anything large is made. A trace whose extraction goes past a bound is an
// invalid trace, whose error names the bound.
const (
	// MaxExtractSteps bounds the steps of one extraction: each JSON value a
	// selector looks at, each value a descendant segment (..) visits, and
	// each test of a filter, weighed by the filter's length, is one step.
	MaxExtractSteps = 10_000_000
	// ExtractStepsBase and ExtractStepsPerByte give the steps an extraction
	// of a value of n bytes may take: ExtractStepsBase +
	// ExtractStepsPerByte*n, at most MaxExtractSteps.
	ExtractStepsBase    = 1024
	ExtractStepsPerByte = 2
	// ExtractNodesBase gives the values each segment of a query may select
	// from a value of n bytes: ExtractNodesBase + n (a path that takes each
	// value once selects fewer).
	ExtractNodesBase = 1024
	// ExtractTextBase and ExtractTextPerByte give the characters of the
	// text extracted from a value of n bytes: ExtractTextBase +
	// ExtractTextPerByte*n, never more than MaxTextLength (a path that takes
	// each part of the value once gives no more than the value itself).
	ExtractTextBase    = 256
	ExtractTextPerByte = 2
)

// ValidateJSONPath reports whether path, given as field, is a JSONPath
// query (RFC 9535, such as $.messages[-1].content) that hone extracts with;
// "" is no extraction. Filters may compare a value with a literal and test
// whether a value exists ([?@.role == 'assistant'], [?@.content]), which
// costs little per value; function calls, comparisons of two of the
// trace's values and tests of queries that select several values are
// refused, as their cost per value is not bounded by the query.
func ValidateJSONPath(field, path string) error {
	_, err := newExtractor(field, path)
	return err
}

// Extract returns the text of a trace's input or output raw, as the
// workshop setting field (input_jsonpath or output_jsonpath) with JSONPath
// query path extracts it: the values it selects (strings as they are,
// other values as compact JSON, several joined by newlines); without a
// query, or when it selects nothing, the value itself, a string as it is
// and anything else as compact JSON. An error names the bound an
// extraction went past, or the query's fault.
func Extract(raw json.RawMessage, field, path string) (string, error) {
	x, err := newExtractor(field, path)
	if err != nil {
		return "", err
	}
	return x.extract(raw)
}

// extractor is a workshop's extraction of one of a trace's values, its
// query parsed once for a whole import.
type extractor struct {
	field string
	query *spec.PathQuery
	// weight is the steps one test of each filter costs.
	weight map[*spec.FilterSelector]int
}

// newExtractor parses and checks path, given as field; a nil query is no
// extraction.
func newExtractor(field, path string) (*extractor, error) {
	x := &extractor{field: field}
	if path == "" {
		return x, nil
	}
	if hone.Chars(path) > MaxNameLength {
		return nil, hone.FieldError(field, "%s is longer than %d characters", field, MaxNameLength)
	}
	p, err := jsonpath.Parse(path)
	if err != nil {
		return nil, hone.FieldError(field, "%s is not a JSONPath query (RFC 9535, such as $.messages[-1].content): %v", field, err)
	}
	x.query, x.weight = p.Query(), map[*spec.FilterSelector]int{}
	for _, seg := range x.query.Segments() {
		for _, sel := range seg.Selectors() {
			f, ok := sel.(*spec.FilterSelector)
			if !ok {
				continue
			}
			if err := checkFilter(f.LogicalOr); err != nil {
				return nil, hone.FieldError(field, "%s has a filter hone does not evaluate: %v", field, err)
			}
			x.weight[f] = 1 + len(f.String())/16
		}
	}
	return x, nil
}

// checkFilter refuses the filter expressions whose cost per value is not
// bounded by the expression itself: function calls (length, count, match,
// search, value) and tests of queries that select several values.
func checkFilter(or spec.LogicalOr) error {
	for _, and := range or {
		for _, e := range and {
			switch e := e.(type) {
			case *spec.ExistExpr:
				if e.PathQuery.Singular() == nil {
					return fmt.Errorf("%s selects several values; test one, such as @.content", e)
				}
			case *spec.NonExistExpr:
				if e.PathQuery.Singular() == nil {
					return fmt.Errorf("!%s selects several values; test one, such as @.content", e.PathQuery)
				}
			case *spec.ParenExpr:
				if err := checkFilter(e.LogicalOr); err != nil {
					return err
				}
			case *spec.NotParenExpr:
				if err := checkFilter(e.LogicalOr); err != nil {
					return err
				}
			default:
				s := fmt.Sprint(e)
				calls, queries := scanFilter(s)
				switch {
				case calls:
					return fmt.Errorf("%s calls a function; compare a value with a literal instead, such as @.role == 'assistant'", s)
				case queries > 1:
					return fmt.Errorf("%s compares two values of the trace; compare one with a literal, such as @.role == 'assistant'", s)
				}
			}
		}
	}
	return nil
}

// scanFilter reads a filter expression as the jsonpath package writes it
// (names and string literals double-quoted) and reports whether it calls a
// function and how many queries (@ or $) it holds, outside quotes.
func scanFilter(s string) (calls bool, queries int) {
	quoted, escaped := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quoted && escaped:
			escaped = false
		case quoted && c == '\\':
			escaped = true
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == '@' || c == '$':
			queries++
		case c == '(' && i > 0 && (s[i-1] >= 'a' && s[i-1] <= 'z' || s[i-1] >= 'A' && s[i-1] <= 'Z' || s[i-1] == '_'):
			calls = true
		}
	}
	return calls, queries
}

// extract is Extract with the query parsed.
func (x *extractor) extract(raw json.RawMessage) (string, error) {
	if len(raw) == 0 {
		return "", nil
	}
	if x.query != nil {
		var doc any
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if dec.Decode(&doc) == nil {
			nodes, err := x.selectNodes(doc, len(raw))
			if err != nil {
				return "", err
			}
			if len(nodes) > 0 {
				return x.join(nodes, len(raw))
			}
		}
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) == nil {
		return b.String(), nil
	}
	return string(raw), nil
}

// what names the value an extractor reads, for messages.
func (x *extractor) what() string {
	what, _ := strings.CutSuffix(x.field, "_jsonpath")
	return what
}

// selectNodes evaluates the query on doc, a value of size bytes, segment
// by segment, within the steps and the values its size allows.
func (x *extractor) selectNodes(doc any, size int) ([]any, error) {
	e := &evaluation{x: x, root: doc, steps: min(MaxExtractSteps, ExtractStepsBase+ExtractStepsPerByte*size),
		maxNodes: ExtractNodesBase + size}
	steps := e.steps
	nodes := []any{doc}
	for _, seg := range x.query.Segments() {
		var next []any
		for _, v := range nodes {
			var err error
			if seg.IsDescendant() {
				next, err = e.descend(seg.Selectors(), v, next)
			} else {
				next, err = e.child(seg.Selectors(), v, next)
			}
			switch err {
			case errSteps:
				return nil, hone.FieldError(x.field, "%s goes through more than %d JSON values of this trace's %s, the bound for a value of %d bytes "+
					"(%d and %d per byte, at most %d); use a narrower path, such as $.messages[-1].content",
					x.field, steps, x.what(), size, ExtractStepsBase, ExtractStepsPerByte, MaxExtractSteps)
			case errNodes:
				return nil, hone.FieldError(x.field, "%s selects more than %d JSON values of this trace's %s, the bound for a value of %d bytes "+
					"(%d and 1 per byte); use a narrower path, such as $.messages[-1].content",
					x.field, e.maxNodes, x.what(), size, ExtractNodesBase)
			}
		}
		nodes = next
	}
	return nodes, nil
}

// join is the text of the nodes selected from a value of size bytes,
// refused as soon as it goes past the bound its size allows.
func (x *extractor) join(nodes []any, size int) (string, error) {
	bound := min(MaxTextLength, ExtractTextBase+ExtractTextPerByte*size)
	var b strings.Builder
	chars := 0
	for i, n := range nodes {
		s := text(n)
		chars += utf8.RuneCountInString(s)
		if i > 0 {
			chars++
		}
		if chars > bound {
			return "", hone.FieldError(x.field, "%s extracts more than %d characters from this trace's %s, the bound for a value of %d bytes "+
				"(%d and %d per byte, at most %d); use a narrower path, such as $.messages[-1].content",
				x.field, bound, x.what(), size, ExtractTextBase, ExtractTextPerByte, MaxTextLength)
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(s)
	}
	return b.String(), nil
}

// evaluation is one query's evaluation on a document, counting its steps
// and the values each segment selects.
type evaluation struct {
	x        *extractor
	root     any
	steps    int
	maxNodes int
}

// The bounds an evaluation stops at.
var (
	errSteps = errors.New("too many steps")
	errNodes = errors.New("too many values selected")
)

// spend takes n steps, failing when there are not as many left.
func (e *evaluation) spend(n int) error {
	if e.steps -= n; e.steps < 0 {
		return errSteps
	}
	return nil
}

// child appends to out the values the selectors select from v, paying
// before each selector for what it looks at.
func (e *evaluation) child(sels []spec.Selector, v any, out []any) ([]any, error) {
	for _, sel := range sels {
		cost := 1
		switch sel := sel.(type) {
		case spec.Name, spec.Index:
		case *spec.FilterSelector:
			cost = children(v) * e.x.weight[sel]
		default:
			cost = children(v)
		}
		if err := e.spend(cost); err != nil {
			return out, err
		}
		if _, ok := sel.(spec.WildcardSelector); ok {
			if len(out)+children(v) > e.maxNodes {
				return out, errNodes
			}
			out = appendChildren(out, v)
			continue
		}
		got := sel.Select(v, e.root)
		if len(out)+len(got) > e.maxNodes {
			return out, errNodes
		}
		out = append(out, got...)
	}
	return out, nil
}

// descend appends to out what the selectors select from v and from every
// value inside it, in document order (object members by name), paying one
// step for each value visited.
func (e *evaluation) descend(sels []spec.Selector, v any, out []any) ([]any, error) {
	if err := e.spend(1); err != nil {
		return out, err
	}
	out, err := e.child(sels, v, out)
	if err != nil {
		return out, err
	}
	switch v := v.(type) {
	case []any:
		for _, c := range v {
			if out, err = e.descend(sels, c, out); err != nil {
				return out, err
			}
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if out, err = e.descend(sels, v[k], out); err != nil {
				return out, err
			}
		}
	}
	return out, nil
}

// children is the number of values directly inside v.
func children(v any) int {
	switch v := v.(type) {
	case []any:
		return len(v)
	case map[string]any:
		return len(v)
	}
	return 0
}

// appendChildren appends the values directly inside v, object members by
// name, so that the same trace always gives the same text.
func appendChildren(out []any, v any) []any {
	switch v := v.(type) {
	case []any:
		return append(out, v...)
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			out = append(out, v[k])
		}
	}
	return out
}

// text is a selected JSON value as text: a string as it is, anything else
// as compact JSON, HTML characters as they are.
func text(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return ""
	}
	return strings.TrimSuffix(b.String(), "\n")
}
