package metrics

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
	var sum, weights float64
	for i, m := range s.metrics {
		r.Metrics[i].Name = m.Name
		v, ok := m.score.score(c)
		if !ok || math.IsNaN(v) {
			continue
		}
		r.Metrics[i].Score = &v
		sum += m.Weight * v
		weights += m.Weight
	}
	if weights > 0 {
		obj := sum / weights
		r.Objective = &obj
	}
	return r
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
