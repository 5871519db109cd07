package learning

import (
	"context"
	"fmt"
	"strings"

	"github.com/honehq/hone/internal/llm"
)

// Markers of the protected lines of a base prompt.
const (
	ProtectedStart = "<!-- hone:protected -->"
	ProtectedEnd   = "<!-- /hone:protected -->"
)

// ProtectedRules returns the lines of a base prompt between the protected
// markers (every such block, in order); "" when it has none. An opening
// marker without its end protects the rest of the prompt.
func ProtectedRules(base string) string {
	var out []string
	rest := base
	for {
		i := strings.Index(rest, ProtectedStart)
		if i < 0 {
			break
		}
		rest = rest[i+len(ProtectedStart):]
		j := strings.Index(rest, ProtectedEnd)
		if j < 0 {
			out = append(out, strings.TrimSpace(rest))
			break
		}
		out = append(out, strings.TrimSpace(rest[:j]))
		rest = rest[j+len(ProtectedEnd):]
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

// protected returns the protected rules: the --protected file, else the
// base prompt's marked lines.
func (s *Service) protected() (string, error) {
	if s.opts.Protected != nil {
		text, err := s.opts.Protected()
		return strings.TrimSpace(text), err
	}
	if s.opts.Base == nil {
		return "", nil
	}
	base, err := s.opts.Base()
	if err != nil {
		return "", err
	}
	return ProtectedRules(base), nil
}

// nearDuplicate reports whether two prompt adjustments say the same thing:
// the same words once case, punctuation and common words are set aside, or
// word sets that overlap by 80% or more (Jaccard).
func nearDuplicate(a, b string) bool {
	wa, wb := keyWords(a), keyWords(b)
	if len(wa) == 0 || len(wb) == 0 {
		return strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b))
	}
	inter := 0
	for w := range wa {
		if wb[w] {
			inter++
		}
	}
	union := len(wa) + len(wb) - inter
	return float64(inter)/float64(union) >= 0.8
}

// keyWords are the words of text that carry its meaning.
func keyWords(text string) map[string]bool {
	m := map[string]bool{}
	for _, w := range wordsOf(text) {
		if !stopWords[w] {
			m[strings.TrimSuffix(w, "s")] = true
		}
	}
	return m
}

// stopWords carry no meaning of their own in a prompt adjustment.
var stopWords = setOf("a", "an", "the", "and", "or", "to", "of", "in", "on", "for", "with", "is", "are", "be",
	"it", "its", "as", "at", "by", "this", "that", "when", "user", "user's", "users", "i", "me", "my", "you", "your")

// verdict is the check of one candidate learning.
type verdict struct {
	// Candidate is the candidate's number, as listed.
	Candidate int `json:"candidate"`
	// ContradictsRules is set when following the candidate would weaken or
	// break a protected rule.
	ContradictsRules bool   `json:"contradicts_rules"`
	RulesReason      string `json:"rules_reason"`
	// ConflictsWith is the id of an existing learning the candidate
	// contradicts, "" for none.
	ConflictsWith  string `json:"conflicts_with"`
	ConflictReason string `json:"conflict_reason"`
}

// review is the typed answer of the safety check.
type review struct {
	Verdicts []verdict `json:"verdicts"`
}

const reviewSystem = `You check new learning statements before they are added to an assistant's system prompt. For each candidate, decide:
1. contradicts_rules: would following it weaken, bypass or contradict any of the PROTECTED RULES? (A preference about style that the rules do not address does not contradict them.) Give rules_reason.
2. conflicts_with: the id of an EXISTING LEARNING that it contradicts (asks for the opposite, or for something incompatible), or "" when none. Saying the same thing in other words is not a contradiction. Give conflict_reason.
Reply with JSON: {"verdicts": [{"candidate": <number>, "contradicts_rules": true|false, "rules_reason": "...", "conflicts_with": "<id or empty>", "conflict_reason": "..."}]}, one verdict per candidate.`

// check asks the LLM for the verdict on each candidate against the
// protected rules and the existing learnings; verdicts are by candidate
// index. Without rules and existing learnings there is nothing to check.
func (s *Service) check(ctx context.Context, runID, rules string, existing, candidates []*Learning) (map[int]verdict, error) {
	out := map[int]verdict{}
	if len(candidates) == 0 || rules == "" && len(existing) == 0 {
		return out, nil
	}
	var b strings.Builder
	b.WriteString("PROTECTED RULES:\n")
	if rules == "" {
		b.WriteString("(none)\n")
	} else {
		b.WriteString(rules + "\n")
	}
	b.WriteString("\nEXISTING LEARNINGS:\n")
	if len(existing) == 0 {
		b.WriteString("(none)\n")
	}
	for _, e := range existing {
		fmt.Fprintf(&b, "- id %s: %s\n", e.ID, e.PromptAdjustment)
	}
	b.WriteString("\nCANDIDATES:\n")
	for i, c := range candidates {
		fmt.Fprintf(&b, "%d. %s (pattern: %s)\n", i+1, c.PromptAdjustment, c.Pattern)
	}
	rv, _, err := llm.Generate[review](ctx, s.opts.LLM, llm.Request{Purpose: llm.PurposeLearning, CauseType: "learning_run",
		CauseID: runID, Messages: []llm.Message{{Role: llm.RoleSystem, Content: reviewSystem}, {Role: llm.RoleUser, Content: b.String()}}})
	if err != nil {
		return nil, err
	}
	known := map[string]bool{}
	for _, e := range existing {
		known[e.ID] = true
	}
	for _, v := range rv.Verdicts {
		i := v.Candidate - 1
		if i < 0 || i >= len(candidates) {
			continue
		}
		v.ConflictsWith = strings.TrimSpace(v.ConflictsWith)
		if !known[v.ConflictsWith] {
			v.ConflictsWith = ""
		}
		out[i] = v
	}
	return out, nil
}
