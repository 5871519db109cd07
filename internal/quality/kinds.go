package quality

import (
	"fmt"
	"slices"
	"strings"
)

// scorer computes one metric; ok is false when the metric is N/A.
type scorer interface {
	score(c *evalContext) (v float64, ok bool)
}

// compileScorer builds the scorer for a metric whose kind is known.
func compileScorer(ms *metricSpec) (scorer, error) {
	switch ms.Kind {
	case KindPatternAny:
		ps, err := requiredPatterns("patterns", ms.Patterns)
		return &patternAny{ps}, err
	case KindStructure:
		return compileStructure(ms)
	case KindWordRange:
		return compileWordRange(ms)
	case KindBelow:
		if err := checkInput(ms.Input); err != nil {
			return nil, err
		}
		if ms.Threshold == nil {
			return nil, fieldErr("threshold", "required")
		}
		return &below{input: ms.Input, threshold: *ms.Threshold}, nil
	case KindClarifying:
		return compileClarifying(ms)
	case KindNotBoth:
		first, err := requiredPatterns("first_patterns", ms.FirstPatterns)
		if err != nil {
			return nil, err
		}
		second, err := requiredPatterns("second_patterns", ms.SecondPatterns)
		return &notBoth{first, second}, err
	case KindCitationSimilarity:
		ps, err := requiredPatterns("citation_patterns", ms.CitationPatterns)
		return &citationSimilarity{ps}, err
	case KindInputValue:
		if err := checkInput(ms.Input); err != nil {
			return nil, err
		}
		return &inputValue{ms.Input}, nil
	case KindStructured:
		return compileStructured(ms)
	case KindCitesContext:
		ps, err := requiredPatterns("citation_patterns", ms.CitationPatterns)
		return &citesContext{ps}, err
	}
	return nil, fieldErr("kind", "unknown kind %q", ms.Kind)
}

// requiredPatterns compiles a non-empty pattern list.
func requiredPatterns(field string, srcs []string) (patterns, error) {
	if len(srcs) == 0 {
		return nil, fieldErr(field, "at least one pattern is required")
	}
	return optionalPatterns(field, srcs)
}

// optionalPatterns compiles a pattern list that may be empty.
func optionalPatterns(field string, srcs []string) (patterns, error) {
	ps := make(patterns, 0, len(srcs))
	for i, src := range srcs {
		p, err := compilePattern(src)
		if err != nil {
			return nil, fieldErr(fmt.Sprintf("%s[%d]", field, i), "%v", err)
		}
		ps = append(ps, p)
	}
	return ps, nil
}

// checkInput validates the input of a below or input_value metric.
func checkInput(in string) error {
	if in == "" {
		return fieldErr("input", "required (one of %s)", strings.Join(inputs, ", "))
	}
	if !slices.Contains(inputs, in) {
		return fieldErr("input", "unknown input %q (one of %s)", in, strings.Join(inputs, ", "))
	}
	return nil
}

// boolScore converts b to 1 or 0.
func boolScore(b bool) (float64, bool) {
	if b {
		return 1, true
	}
	return 0, true
}

// patternAny is the pattern_any kind.
type patternAny struct {
	patterns patterns
}

func (k *patternAny) score(c *evalContext) (float64, bool) {
	return boolScore(k.patterns.any(c.response))
}

// structure is the structure kind.
type structure struct {
	ack        patterns
	ackWithin  int
	longerThan int
	nextSteps  patterns
}

// compileStructure builds a structure scorer.
func compileStructure(ms *metricSpec) (scorer, error) {
	k := &structure{ackWithin: 100}
	var err error
	if k.ack, err = requiredPatterns("ack_patterns", ms.AckPatterns); err != nil {
		return nil, err
	}
	if k.nextSteps, err = requiredPatterns("next_step_patterns", ms.NextStepPatterns); err != nil {
		return nil, err
	}
	if ms.AckWithin != nil {
		if *ms.AckWithin <= 0 {
			return nil, fieldErr("ack_within", "must be positive, got %d", *ms.AckWithin)
		}
		k.ackWithin = *ms.AckWithin
	}
	if ms.LongerThan != nil {
		if *ms.LongerThan < 0 {
			return nil, fieldErr("longer_than", "must not be negative, got %d", *ms.LongerThan)
		}
		k.longerThan = *ms.LongerThan
	}
	return k, nil
}

func (k *structure) score(c *evalContext) (float64, bool) {
	ok := c.runeCount() > k.longerThan &&
		k.ack.any(c.response.prefix(k.ackWithin)) &&
		k.nextSteps.any(c.response)
	return boolScore(ok)
}

// wordRange is the word_range kind.
type wordRange struct {
	min, max int
}

// compileWordRange builds a word_range scorer; a missing max means no upper
// bound.
func compileWordRange(ms *metricSpec) (scorer, error) {
	if ms.MinWords == nil && ms.MaxWords == nil {
		return nil, fieldErr("min_words", "min_words or max_words is required")
	}
	k := &wordRange{max: -1}
	if ms.MinWords != nil {
		if *ms.MinWords < 0 {
			return nil, fieldErr("min_words", "must not be negative, got %d", *ms.MinWords)
		}
		k.min = *ms.MinWords
	}
	if ms.MaxWords != nil {
		if *ms.MaxWords < 0 {
			return nil, fieldErr("max_words", "must not be negative, got %d", *ms.MaxWords)
		}
		if *ms.MaxWords < k.min {
			return nil, fieldErr("max_words", "must not be less than min_words (%d), got %d", k.min, *ms.MaxWords)
		}
		k.max = *ms.MaxWords
	}
	return k, nil
}

func (k *wordRange) score(c *evalContext) (float64, bool) {
	n := c.wordCount()
	return boolScore(n >= k.min && (k.max < 0 || n <= k.max))
}

// below is the below kind.
type below struct {
	input     string
	threshold float64
}

func (k *below) score(c *evalContext) (float64, bool) {
	v, ok := c.input(k.input)
	if !ok {
		return 0, false
	}
	return boolScore(v < k.threshold)
}

// clarifying is the clarifying kind.
type clarifying struct {
	active            patterns
	firstResponseOnly bool
	questions         patterns
	guidance          patterns
}

// compileClarifying builds a clarifying scorer.
func compileClarifying(ms *metricSpec) (scorer, error) {
	k := &clarifying{firstResponseOnly: ms.FirstResponseOnly}
	var err error
	if k.active, err = optionalPatterns("active_patterns", ms.ActivePatterns); err != nil {
		return nil, err
	}
	if k.questions, err = requiredPatterns("question_patterns", ms.QuestionPatterns); err != nil {
		return nil, err
	}
	if k.guidance, err = optionalPatterns("guidance_patterns", ms.GuidancePatterns); err != nil {
		return nil, err
	}
	return k, nil
}

func (k *clarifying) dependsOnFirst() bool { return k.firstResponseOnly }

func (k *clarifying) score(c *evalContext) (float64, bool) {
	if len(k.active) > 0 && !k.active.any(c.query) {
		return 0, false
	}
	if k.firstResponseOnly && !c.in.IsFirstResponse {
		return 0, false
	}
	return boolScore(k.questions.any(c.response) && !k.guidance.any(c.response))
}

// notBoth is the not_both kind.
type notBoth struct {
	first, second patterns
}

func (k *notBoth) score(c *evalContext) (float64, bool) {
	return boolScore(!(k.first.any(c.response) && k.second.any(c.response)))
}

// inputValue is the input_value kind.
type inputValue struct {
	input string
}

func (k *inputValue) score(c *evalContext) (float64, bool) {
	v, ok := c.input(k.input)
	if !ok {
		return 0, false
	}
	return min(max(v, 0), 1), true
}
