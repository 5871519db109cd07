package quality

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// caseFlagOff finds inline flag groups that switch case-insensitivity off,
// such as (?-i) or (?s-i:...).
var caseFlagOff = regexp.MustCompile(`\(\?[a-zA-Z]*-[a-zA-Z]*i`)

// pattern is one compiled rule pattern. Patterns are RE2 expressions matched
// case-insensitively. When the expression does not switch case-insensitivity
// off, it is rewritten to lower case and matched against the lower-cased text,
// which keeps Go's literal-prefix search fast; a top-level alternation is split
// into one expression per alternative for the same reason.
//
// Two prefilters keep patterns without a literal prefix cheap: an alternative
// is skipped when a literal every match must contain is absent from the text,
// and an alternative that starts with a small ASCII class (such as \d) is
// tried, anchored, only where such a byte occurs.
type pattern struct {
	src     string
	alts    []alternative
	lowered bool
}

// alternative is one top-level alternative of a pattern with its prefilters.
type alternative struct {
	re       *regexp.Regexp
	literal  bool
	required []string
	first    string
	anchored *regexp.Regexp
}

// compilePattern compiles src, reporting syntax errors as
// `invalid regex "src": reason`.
func compilePattern(src string) (*pattern, error) {
	if caseFlagOff.MatchString(src) {
		re, err := regexp.Compile("(?i)" + src)
		if err != nil {
			return nil, regexError(src, err)
		}
		return &pattern{src: src, alts: []alternative{{re: re}}}, nil
	}
	tree, err := syntax.Parse(src, syntax.Perl|syntax.FoldCase)
	if err != nil {
		return nil, regexError(src, err)
	}
	prepare(tree)
	alts := []*syntax.Regexp{tree}
	if tree.Op == syntax.OpAlternate {
		alts = tree.Sub
	}
	p := &pattern{src: src, lowered: true}
	for _, alt := range alts {
		re, err := regexp.Compile(alt.String())
		if err != nil {
			return nil, regexError(src, err)
		}
		a := alternative{re: re}
		prefix, complete := re.LiteralPrefix()
		a.literal = complete
		if prefix != "" {
			a.required = append(a.required, prefix)
		}
		if !complete {
			for _, lit := range requiredLiterals(alt, nil) {
				if !strings.Contains(prefix, lit) {
					a.required = append(a.required, lit)
				}
			}
		}
		if prefix == "" {
			if first := firstBytes(alt); first != "" {
				if a.anchored, err = regexp.Compile(`^(?:` + alt.String() + `)`); err == nil {
					a.first = first
				}
			}
		}
		p.alts = append(p.alts, a)
	}
	return p, nil
}

// requiredLiterals appends to out the literals that every match of re
// contains.
func requiredLiterals(re *syntax.Regexp, out []string) []string {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase == 0 {
			out = append(out, string(re.Rune))
		}
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			out = requiredLiterals(sub, out)
		}
	case syntax.OpCapture, syntax.OpPlus:
		out = requiredLiterals(re.Sub[0], out)
	case syntax.OpRepeat:
		if re.Min >= 1 {
			out = requiredLiterals(re.Sub[0], out)
		}
	}
	return out
}

// maxFirstBytes is the largest first-byte set worth a prefilter.
const maxFirstBytes = 16

// firstBytes returns the bytes a match of re must start with, when re starts
// with a small ASCII character class, or "".
func firstBytes(re *syntax.Regexp) string {
	for {
		switch re.Op {
		case syntax.OpConcat, syntax.OpCapture, syntax.OpPlus:
			re = re.Sub[0]
			continue
		case syntax.OpRepeat:
			if re.Min < 1 {
				return ""
			}
			re = re.Sub[0]
			continue
		case syntax.OpCharClass:
			var b []byte
			for i := 0; i+1 < len(re.Rune); i += 2 {
				if re.Rune[i+1] >= utf8.RuneSelf || int(re.Rune[i+1]-re.Rune[i])+1+len(b) > maxFirstBytes {
					return ""
				}
				for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
					b = append(b, byte(r))
				}
			}
			return string(b)
		}
		return ""
	}
}

// match reports whether a matches t; lowered selects the form of t.
func (a *alternative) match(t *text, lowered bool) bool {
	if !a.present(t, lowered) {
		return false
	}
	if a.literal {
		return true
	}
	s := t.form(lowered)
	if a.anchored == nil {
		return a.re.MatchString(s)
	}
	for i := 0; ; i++ {
		j := strings.IndexAny(s[i:], a.first)
		if j < 0 {
			return false
		}
		i += j
		if a.anchored.MatchString(s[i:]) {
			return true
		}
	}
}

// present reports whether t holds every literal a match of a needs.
func (a *alternative) present(t *text, lowered bool) bool {
	for _, lit := range a.required {
		if !t.contains(lowered, lit) {
			return false
		}
	}
	return true
}

// findAll returns the indexes of the matches of a in the selected form of t.
func (a *alternative) findAll(t *text, lowered bool) [][]int {
	if !a.present(t, lowered) {
		return nil
	}
	return a.re.FindAllStringIndex(t.form(lowered), -1)
}

// regexError formats a compile error of src without Go's "error parsing
// regexp" prefix.
func regexError(src string, err error) error {
	var se *syntax.Error
	if errors.As(err, &se) {
		return fmt.Errorf("invalid regex %q: %s", src, se.Code)
	}
	return fmt.Errorf("invalid regex %q: %v", src, err)
}

// prepare rewrites case-folded literals in re to lower case and makes every
// repetition non-greedy: whether a pattern matches does not depend on
// greediness, and the backtracker finds a match sooner when repetitions stop
// as early as they can. Citation extents are therefore the shortest matches.
func prepare(re *syntax.Regexp) {
	if re.Op == syntax.OpLiteral && re.Flags&syntax.FoldCase != 0 {
		for i, r := range re.Rune {
			re.Rune[i] = unicode.ToLower(r)
		}
		re.Flags &^= syntax.FoldCase
	}
	switch re.Op {
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		re.Flags |= syntax.NonGreedy
	}
	for _, sub := range re.Sub {
		prepare(sub)
	}
}

// on returns the form of t that p is matched against.
func (p *pattern) on(t *text) string {
	return t.form(p.lowered)
}

// match reports whether p matches t.
func (p *pattern) match(t *text) bool {
	for i := range p.alts {
		if p.alts[i].match(t, p.lowered) {
			return true
		}
	}
	return false
}

// patterns is a list of patterns of which any may match.
type patterns []*pattern

// any reports whether one of ps matches t.
func (ps patterns) any(t *text) bool {
	for _, p := range ps {
		if p.match(t) {
			return true
		}
	}
	return false
}

// text is a string with its lower-cased form, computed once per evaluation,
// and the literals found in either form so far.
type text struct {
	orig  string
	lower string
	runes int
	words int
	found [2]map[string]bool
}

// form returns the lower-cased form of t when lowered is set, else the
// original.
func (t *text) form(lowered bool) string {
	if lowered {
		return t.lower
	}
	return t.orig
}

// contains reports whether the selected form of t contains lit, searching for
// each literal once.
func (t *text) contains(lowered bool, lit string) bool {
	i := 0
	if lowered {
		i = 1
	}
	if v, ok := t.found[i][lit]; ok {
		return v
	}
	if t.found[i] == nil {
		t.found[i] = make(map[string]bool, 32)
	}
	v := strings.Contains(t.form(lowered), lit)
	t.found[i][lit] = v
	return v
}

// newText returns s with its lower-cased form, counting its characters and
// white-space separated words in the same pass.
func newText(s string) *text {
	t := &text{orig: s, lower: s}
	var b []byte
	inWord := false
	for i := 0; i < len(s); {
		c := s[i]
		var space bool
		if c < utf8.RuneSelf {
			space = asciiSpace[c]
			if 'A' <= c && c <= 'Z' && b == nil {
				b = make([]byte, i, len(s)+8)
				copy(b, s[:i])
			}
			if b != nil {
				if 'A' <= c && c <= 'Z' {
					c += 'a' - 'A'
				}
				b = append(b, c)
			}
			i++
		} else {
			r, n := utf8.DecodeRuneInString(s[i:])
			space = unicode.IsSpace(r)
			lr := unicode.ToLower(r)
			if lr != r && b == nil {
				b = make([]byte, i, len(s)+8)
				copy(b, s[:i])
			}
			if b != nil {
				if r == utf8.RuneError && n == 1 {
					b = append(b, c)
				} else {
					b = utf8.AppendRune(b, lr)
				}
			}
			i += n
		}
		t.runes++
		if space {
			inWord = false
		} else if !inWord {
			inWord = true
			t.words++
		}
	}
	if b != nil {
		t.lower = string(b)
	}
	return t
}

// asciiSpace marks the ASCII white-space bytes, as unicode.IsSpace does.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// prefix returns the first n runes of t, after leading white space, as a text.
func (t *text) prefix(n int) *text {
	return &text{orig: firstRunes(strings.TrimLeftFunc(t.orig, unicode.IsSpace), n), lower: firstRunes(strings.TrimLeftFunc(t.lower, unicode.IsSpace), n)}
}

// firstRunes returns the first n runes of s.
func firstRunes(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}
