package quality

import (
	"encoding/json"
	"math"
)

// Input is what one bot turn offers for scoring.
type Input struct {
	// Query is the user's message.
	Query string
	// Response is the bot's reply.
	Response string
	// SearchResults is the bot's retrieval output as arbitrary JSON: an array
	// of strings, or of objects with chunk_text, text or content and
	// similarity or score; see parseSearchResults.
	SearchResults json.RawMessage
	// AvgSimilarity is the bot's average retrieval similarity, if it gave one.
	AvgSimilarity *float64
	// ProcessingTimeMS is how long the bot took, if known.
	ProcessingTimeMS *float64
	// IsFirstResponse reports whether this is the bot's first reply in the
	// conversation.
	IsFirstResponse bool
}

// evalContext holds an Input and what is derived from it, each computed at
// most once per evaluation.
type evalContext struct {
	in       Input
	response *text
	query    *text

	results []searchResult
	parsed  bool
}

// Evaluate scores in with every metric of the set, in the set's order, and
// computes the objective quality score: the weight-averaged mean of the
// metrics that apply (N/A metrics and weight-0 metrics are left out; the score
// is N/A when no metric applies).
func (s *Set) Evaluate(in Input) Result {
	c := &evalContext{in: in, response: newText(in.Response), query: newText(in.Query)}
	r := Result{Metrics: make([]Value, len(s.metrics))}
	for i, m := range s.metrics {
		r.Metrics[i].Name = m.Name
		if v, ok := m.score.score(c); ok && !math.IsNaN(v) {
			r.Metrics[i].Score = &v
		}
	}
	r.Objective = s.objective(r.Metrics)
	return r
}

// EvaluateTurn scores in as a later response of its conversation, whatever
// in.IsFirstResponse says, and returns first, its scoring as a first
// response, only when some metric scores a first response differently (nil
// otherwise). The text is analysed once for both.
func (s *Set) EvaluateTurn(in Input) (later Result, first *Result) {
	in.IsFirstResponse = false
	c := &evalContext{in: in, response: newText(in.Response), query: newText(in.Query)}
	later = Result{Metrics: make([]Value, len(s.metrics))}
	for i, m := range s.metrics {
		later.Metrics[i].Name = m.Name
		if v, ok := m.score.score(c); ok && !math.IsNaN(v) {
			later.Metrics[i].Score = &v
		}
	}
	later.Objective = s.objective(later.Metrics)
	c.in.IsFirstResponse = true
	for i, m := range s.metrics {
		if d, ok := m.score.(firstDependent); !ok || !d.dependsOnFirst() {
			continue
		}
		var p *float64
		if v, ok := m.score.score(c); ok && !math.IsNaN(v) {
			p = &v
		}
		if sameScore(p, later.Metrics[i].Score) {
			continue
		}
		if first == nil {
			first = &Result{Metrics: append([]Value(nil), later.Metrics...)}
		}
		first.Metrics[i].Score = p
	}
	if first != nil {
		first.Objective = s.objective(first.Metrics)
	}
	return later, first
}

// firstDependent is a scorer whose score may depend on Input.IsFirstResponse.
type firstDependent interface {
	dependsOnFirst() bool
}

func sameScore(a, b *float64) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

// objective is the weight-averaged mean of the values that apply, nil when
// none does.
func (s *Set) objective(vs []Value) *float64 {
	var sum, weights float64
	for i, v := range vs {
		if v.Score == nil {
			continue
		}
		sum += s.metrics[i].Weight * *v.Score
		weights += s.metrics[i].Weight
	}
	if weights > 0 {
		obj := sum / weights
		return &obj
	}
	return nil
}

// wordCount returns the number of white-space separated words in the response.
func (c *evalContext) wordCount() int {
	return c.response.words
}

// runeCount returns the number of characters in the response.
func (c *evalContext) runeCount() int {
	return c.response.runes
}

// searchResults returns the parsed search results.
func (c *evalContext) searchResults() []searchResult {
	if !c.parsed {
		c.parsed = true
		c.results = parseSearchResults(c.in.SearchResults)
	}
	return c.results
}

// input returns the named input value, or false when it was not given.
func (c *evalContext) input(name string) (float64, bool) {
	switch name {
	case InputProcessingTimeMS:
		if p := c.in.ProcessingTimeMS; p != nil && !math.IsNaN(*p) {
			return *p, true
		}
	case InputRAGSimilarity:
		if p := c.in.AvgSimilarity; p != nil && !math.IsNaN(*p) {
			return *p, true
		}
		var sum float64
		var n int
		for _, r := range c.searchResults() {
			if r.hasSimilarity {
				sum += r.similarity
				n++
			}
		}
		if n > 0 {
			return sum / float64(n), true
		}
	case InputWordCount:
		return float64(c.wordCount()), true
	}
	return 0, false
}
