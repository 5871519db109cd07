// Package quality measures the quality of bot responses: objective metrics computed from the
// response text and the bot's retrieval data, human (subjective) scores, the
// composites that combine them, and the statistics used to compare prompt
// versions. The rules are data: a metric set is loaded from a YAML or JSON
// file, and hone's default set reproduces the ERA response metrics spec.
//
// A metric value is a *float64 in [0, 1]; nil means N/A (not applicable). N/A
// values are never counted as 0: they are left out of every average.
//
// A metric set file (YAML or JSON) has an optional name, an optional
// composite section (objective_weight, subjective_weight), an optional list
// of subjective score names and a list of metrics, each with a name, a kind
// (one of the Kind constants), the fields of that kind, an optional weight
// (default 1) and an optional description. default.yaml is the reference.
package quality

// Kinds of metric a set may hold.
const (
	// KindPatternAny scores 1 when any of its patterns matches the response.
	KindPatternAny = "pattern_any"
	// KindStructure scores 1 when the response opens with an acknowledgement
	// (ack_patterns within the first ack_within characters), is longer than
	// longer_than characters and contains a next step (next_step_patterns).
	KindStructure = "structure"
	// KindWordRange scores 1 when the response's word count lies within
	// [min_words, max_words].
	KindWordRange = "word_range"
	// KindBelow scores 1 when an input value is below threshold; N/A when the
	// input was not given.
	KindBelow = "below"
	// KindClarifying scores whether the response asks a question without
	// giving guidance yet; N/A when the query matches none of
	// active_patterns or, with first_response_only, for later responses.
	KindClarifying = "clarifying"
	// KindNotBoth scores 0 when both first_patterns and second_patterns
	// match the response, else 1.
	KindNotBoth = "not_both"
	// KindCitationSimilarity scores how closely the text the response cites
	// matches the retrieved chunks; see citationSimilarity.
	KindCitationSimilarity = "citation_similarity"
	// KindInputValue reports an input value clamped to [0, 1]; N/A when the
	// input was not given.
	KindInputValue = "input_value"
	// KindStructured scores 1 when any of its patterns (a list, steps,
	// headings, a paragraph break) matches a response of min_words words or
	// more; N/A for a shorter one.
	KindStructured = "structured"
	// KindCitesContext scores 1 when any of citation_patterns matches a
	// response given retrieved context (search results with text); N/A
	// without context.
	KindCitesContext = "cites_context"
)

// Inputs that below and input_value metrics may read.
const (
	// InputProcessingTimeMS is Input.ProcessingTimeMS.
	InputProcessingTimeMS = "processing_time_ms"
	// InputRAGSimilarity is Input.AvgSimilarity, or else the mean similarity
	// of the search results.
	InputRAGSimilarity = "rag_similarity"
	// InputWordCount is the number of words in the response.
	InputWordCount = "word_count"
)

// Subjective scores range from ScoreMin to ScoreMax.
const (
	ScoreMin = 1
	ScoreMax = 5
)

// Set is a validated, compiled metric set. It is immutable and safe for
// concurrent use.
type Set struct {
	name       string
	metrics    []metric
	index      map[string]int
	objW       float64
	subjW      float64
	subjective []string
}

// MetricInfo describes one metric of a set.
type MetricInfo struct {
	Name        string
	Kind        string
	Weight      float64
	Description string
}

// metric is one compiled metric.
type metric struct {
	MetricInfo
	score scorer
}

// Name returns the set's name from its file, or "".
func (s *Set) Name() string { return s.name }

// Metrics describes the set's objective metrics in order.
func (s *Set) Metrics() []MetricInfo {
	out := make([]MetricInfo, len(s.metrics))
	for i, m := range s.metrics {
		out[i] = m.MetricInfo
	}
	return out
}

// MetricNames returns the names of the set's objective metrics in order.
func (s *Set) MetricNames() []string {
	out := make([]string, len(s.metrics))
	for i, m := range s.metrics {
		out[i] = m.Name
	}
	return out
}

// SubjectiveNames returns the names of the human scores the set accepts, in
// order, without the "_score" suffix.
func (s *Set) SubjectiveNames() []string {
	return append([]string(nil), s.subjective...)
}

// CompositeWeights returns the weights of the objective and the subjective
// score in the overall score; they sum to 1.
func (s *Set) CompositeWeights() (objective, subjective float64) {
	return s.objW, s.subjW
}
