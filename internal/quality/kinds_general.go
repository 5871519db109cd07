package quality

import "strings"

// structuredKind is the structured kind: N/A for a response shorter than
// minWords words, else 1 when any of its patterns (a list, steps,
// headings, a paragraph break) matches.
type structuredKind struct {
	minWords int
	patterns patterns
}

func compileStructured(ms *metricSpec) (scorer, error) {
	if ms.MinWords == nil || *ms.MinWords < 0 {
		return nil, fieldErr("min_words", "required: a whole number of words from 0, below which the metric is N/A")
	}
	ps, err := requiredPatterns("patterns", ms.Patterns)
	return &structuredKind{minWords: *ms.MinWords, patterns: ps}, err
}

func (k *structuredKind) score(c *evalContext) (float64, bool) {
	if c.wordCount() < k.minWords {
		return 0, false
	}
	return boolScore(k.patterns.any(c.response))
}

// citesContext is the cites_context kind: N/A when the turn came without
// retrieved context (no search result with text), else 1 when any of its
// citation patterns matches the response.
type citesContext struct {
	patterns patterns
}

func (k *citesContext) score(c *evalContext) (float64, bool) {
	for _, r := range c.searchResults() {
		if strings.TrimSpace(r.text) != "" {
			return boolScore(k.patterns.any(c.response))
		}
	}
	return 0, false
}
