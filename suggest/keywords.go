package suggest

import (
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"
)

// keywords tell, in one pass over a text, which redactions may match it:
// those whose keywords it holds, and those without keywords. Each keyword
// is looked for at its rarest byte (its anchor), so that the pass stops
// at few bytes of ordinary text.
type keywords struct {
	// always are the bits of the redactions searched whatever the text;
	// all the bits of every redaction.
	always, all uint64
	// anchor is, for each byte, 1 + the index in anchored of the keywords
	// it may be the anchor of, or 0.
	anchor   [256]uint8
	anchored [][]anchoredKeyword
}

// anchoredKeyword is a keyword split at its anchor: what comes before the
// anchor, and the anchor and what follows.
type anchoredKeyword struct {
	before, from string
	// prev and next are the ASCII bytes right before and after the
	// anchor, when a text must hold them there as they are (0 when not):
	// a first check that spares most calls of at.
	prev, next byte
	// fold compares without regard to case (in lowercase), as Go's regexp
	// does with (?i).
	fold bool
	bit  uint64
}

// Runes other than ASCII letters that Go's regexp, with (?i), takes for
// the ASCII letters s and k (unicode.SimpleFold); a test holds the list
// complete.
const (
	longS  = "\u017f" // ſ, for s
	kelvin = "\u212a" // K, for k
)

func newKeywords(list []Redaction) keywords {
	var k keywords
	for i, x := range list {
		bit := k.bit(i)
		k.all |= bit
		if len(x.Keywords) == 0 || i >= 63 || slices.ContainsFunc(x.Keywords, func(w string) bool { return w == "" || notASCII(w) }) {
			k.always |= bit
			continue
		}
		fold := ignoresCase(x.Pattern.String())
		for _, w := range x.Keywords {
			if fold {
				w = strings.ToLower(w)
			}
			p := anchorOf(w, fold)
			kw := anchoredKeyword{before: w[:p], from: w[p:], fold: fold, bit: bit}
			// ſ and K stand for s and k in more than one byte.
			plain := func(c byte) byte {
				if fold && (c == 's' || c == 'k') {
					return 0
				}
				return c
			}
			if p > 0 {
				kw.prev = plain(w[p-1])
			}
			if p+1 < len(w) {
				kw.next = plain(w[p+1])
			}
			for _, c := range gateBytes(w[p], fold) {
				if k.anchor[c] == 0 {
					k.anchored = append(k.anchored, nil)
					k.anchor[c] = uint8(len(k.anchored))
				}
				g := &k.anchored[k.anchor[c]-1]
				if !slices.Contains(*g, kw) {
					*g = append(*g, kw)
				}
			}
		}
	}
	return k
}

// ignoresCase reports whether any part of a pattern is matched without
// regard to case; a pattern that cannot be read is taken to.
func ignoresCase(pattern string) bool {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return true
	}
	var walk func(*syntax.Regexp) bool
	walk = func(re *syntax.Regexp) bool {
		return re.Flags&syntax.FoldCase != 0 || slices.ContainsFunc(re.Sub, walk)
	}
	return walk(re)
}

// gateBytes are the bytes at which a text may hold the anchor c.
func gateBytes(c byte, fold bool) []byte {
	if !fold {
		return []byte{c}
	}
	out := []byte{c}
	if u := upper(c); u != c {
		out = append(out, u)
	}
	switch c {
	case 's':
		out = append(out, longS[0])
	case 'k':
		out = append(out, kelvin[0])
	}
	return out
}

// anchorOf is the position of w's rarest byte in ordinary text.
func anchorOf(w string, fold bool) int {
	best, score := 0, -1.0
	for i := 0; i < len(w); i++ {
		f := 0.0
		for _, c := range gateBytes(w[i], fold) {
			f += byteFrequency(c)
		}
		if score < 0 || f < score {
			best, score = i, f
		}
	}
	return best
}

// byteFrequency is roughly how often a byte occurs in English text and
// code, per thousand bytes.
func byteFrequency(c byte) float64 {
	const letters = "etaoinshrdlcumwfgypbvkjxqz"
	freq := []float64{100, 70, 65, 60, 55, 55, 50, 45, 45, 35, 32, 22, 22, 20, 18, 18, 16, 16, 15, 12, 8, 6, 1.2, 1.2, 1, 0.6}
	switch {
	case c == ' ':
		return 150
	case 'a' <= c && c <= 'z':
		return freq[strings.IndexByte(letters, c)]
	case 'A' <= c && c <= 'Z':
		return freq[strings.IndexByte(letters, lower(c))] / 10
	case '0' <= c && c <= '9':
		return 5
	case c == '.', c == ',', c == '\n', c == '"', c == '/', c == '(', c == ')':
		return 8
	}
	return 1
}

// bit is the bit of the i-th redaction; the 64th and later share one,
// and are always searched.
func (k *keywords) bit(i int) uint64 { return 1 << min(i, 63) }

// find returns the bits of the redactions that may match s.
func (k *keywords) find(s string) uint64 {
	found := k.always
	for i := 0; i < len(s); i++ {
		c := s[i]
		a := k.anchor[c]
		if a == 0 {
			continue
		}
		for _, w := range k.anchored[a-1] {
			switch {
			case found&w.bit != 0:
			case w.prev != 0 && (i == 0 || w.norm(s[i-1]) != w.prev):
			case w.next != 0 && c < utf8.RuneSelf && (i+1 == len(s) || w.norm(s[i+1]) != w.next):
			case w.at(s, i):
				if found |= w.bit; found == k.all {
					return found
				}
			}
		}
	}
	return found
}

// norm is c as the keyword is compared: in lowercase when it folds.
func (w *anchoredKeyword) norm(c byte) byte {
	if w.fold {
		return lower(c)
	}
	return c
}

// at reports whether s holds the keyword with its anchor at byte i.
func (w *anchoredKeyword) at(s string, i int) bool {
	if !w.fold {
		return strings.HasPrefix(s[i:], w.from) && strings.HasSuffix(s[:i], w.before)
	}
	return hasFoldPrefix(s[i:], w.from) && hasFoldSuffix(s[:i], w.before)
}

// hasFoldPrefix reports whether s begins with the lowercase ASCII w,
// without regard to case as Go's regexp sees it.
func hasFoldPrefix(s, w string) bool {
	j := 0
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch {
		case j < len(s) && lower(s[j]) == c:
			j++
		case c == 's' && strings.HasPrefix(s[j:], longS):
			j += len(longS)
		case c == 'k' && strings.HasPrefix(s[j:], kelvin):
			j += len(kelvin)
		default:
			return false
		}
	}
	return true
}

// hasFoldSuffix reports whether s ends with the lowercase ASCII w, without
// regard to case as Go's regexp sees it.
func hasFoldSuffix(s, w string) bool {
	j := len(s)
	for i := len(w) - 1; i >= 0; i-- {
		c := w[i]
		switch {
		case j > 0 && lower(s[j-1]) == c:
			j--
		case c == 's' && strings.HasSuffix(s[:j], longS):
			j -= len(longS)
		case c == 'k' && strings.HasSuffix(s[:j], kelvin):
			j -= len(kelvin)
		default:
			return false
		}
	}
	return true
}

func notASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}
