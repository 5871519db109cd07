package quality

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// citationSimilarity is the citation_similarity kind. It scores how much of
// the text the response cites is found in the best-matching retrieved chunk:
//
//   - N/A when there are no search results with text;
//   - 0 when there are results but the response cites nothing;
//   - otherwise the maximum over the chunks of the token containment of the
//     cited text in the chunk.
//
// The cited text is the union of
//
//   - every quoted passage of three or more words ("…" or “…”);
//   - for every match of a citation pattern that ends with a colon (such as
//     "Policy:"), the rest of that line;
//   - for every other match, the sentence containing it, without the match
//     itself (so "Per our No Call No Show policy," is framing, not content).
//
// Token containment is |C ∩ K| / |C|, where C is the set of distinct content
// words of the cited text and K the words of the chunk. Words are maximal runs
// of letters and digits, lower-cased, with apostrophes dropped; a short list
// of English stop words is ignored. Containment rather than cosine or Jaccard
// similarity is used because a citation is much shorter than the chunk it
// comes from: a verbatim quote scores 1, a paraphrase scores the share of its
// words taken from the policy, and unrelated text scores near 0.
type citationSimilarity struct {
	patterns patterns
}

func (k *citationSimilarity) score(c *evalContext) (float64, bool) {
	results := c.searchResults()
	withText := false
	for _, r := range results {
		if strings.TrimSpace(r.text) != "" {
			withText = true
			break
		}
	}
	if !withText {
		return 0, false
	}
	cited := k.citedWords(c.response)
	if len(cited) == 0 {
		return 0, true
	}
	var firsts [256]bool
	for w := range cited {
		firsts[w[0]] = true
	}
	seen := make([]bool, len(cited))
	best := 0.0
	for _, r := range results {
		clear(seen)
		found := 0
		eachWord(r.text, func(w []byte) {
			if !firsts[w[0]] {
				return
			}
			if i, ok := cited[string(w)]; ok && !seen[i] {
				seen[i] = true
				found++
			}
		})
		best = max(best, float64(found)/float64(len(cited)))
	}
	return best, true
}

// citedWords returns the distinct content words of the text the response
// cites, each mapped to an index.
func (k *citationSimilarity) citedWords(t *text) map[string]int {
	words := map[string]int{}
	add := func(span string) {
		eachWord(span, func(w []byte) {
			if _, ok := words[string(w)]; !ok && !stopWords[string(w)] {
				words[string(w)] = len(words)
			}
		})
	}
	for _, q := range quotedPassages(t.lower) {
		add(q)
	}
	for _, p := range k.patterns {
		s := p.on(t)
		for i := range p.alts {
			for _, m := range p.alts[i].findAll(t, p.lowered) {
				if strings.HasSuffix(strings.TrimSpace(s[m[0]:m[1]]), ":") {
					end := strings.IndexByte(s[m[1]:], '\n')
					if end < 0 {
						end = len(s) - m[1]
					}
					add(s[m[1] : m[1]+end])
					continue
				}
				start := strings.LastIndexAny(s[:m[0]], ".!?\n") + 1
				end := strings.IndexAny(s[m[1]:], ".!?\n")
				if end < 0 {
					end = len(s) - m[1]
				}
				add(s[start:m[0]])
				add(s[m[1] : m[1]+end])
			}
		}
	}
	return words
}

// quotedPassages returns the passages of s inside straight or curly double
// quotes that hold at least three words.
func quotedPassages(s string) []string {
	var out []string
	keep := func(q string) {
		if len(strings.Fields(q)) >= 3 {
			out = append(out, q)
		}
	}
	for rest := s; ; {
		i := strings.IndexByte(rest, '"')
		if i < 0 {
			break
		}
		j := strings.IndexByte(rest[i+1:], '"')
		if j < 0 {
			break
		}
		keep(rest[i+1 : i+1+j])
		rest = rest[i+j+2:]
	}
	for rest := s; ; {
		i := strings.Index(rest, "“")
		if i < 0 {
			break
		}
		rest = rest[i+len("“"):]
		j := strings.Index(rest, "”")
		if j < 0 {
			break
		}
		keep(rest[:j])
		rest = rest[j+len("”"):]
	}
	return out
}

// eachWord calls f with every word of s, lower-cased, with apostrophes
// dropped. The slice passed to f is reused between calls.
func eachWord(s string, f func(w []byte)) {
	buf := make([]byte, 0, 32)
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			i++
			switch {
			case 'a' <= b && b <= 'z' || '0' <= b && b <= '9':
				buf = append(buf, b)
			case 'A' <= b && b <= 'Z':
				buf = append(buf, b+'a'-'A')
			case b == '\'':
			case len(buf) > 0:
				f(buf)
				buf = buf[:0]
			}
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			buf = utf8.AppendRune(buf, unicode.ToLower(r))
		case r == '\'' || r == '’':
		default:
			if len(buf) > 0 {
				f(buf)
				buf = buf[:0]
			}
		}
	}
	if len(buf) > 0 {
		f(buf)
	}
}

// stopWords are ignored when comparing citations with chunks.
var stopWords = map[string]bool{
	"a": true, "an": true, "and": true, "are": true, "as": true, "at": true,
	"be": true, "by": true, "for": true, "from": true, "has": true, "have": true,
	"in": true, "is": true, "it": true, "its": true, "of": true, "on": true,
	"or": true, "our": true, "that": true, "the": true, "their": true,
	"this": true, "to": true, "was": true, "were": true, "will": true,
	"with": true, "who": true, "you": true, "your": true, "we": true,
	"they": true, "them": true, "if": true, "not": true,
}
