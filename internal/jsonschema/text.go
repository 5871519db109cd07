package jsonschema

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"
)

// SpaceChars are the characters of white space as strings.TrimSpace sees
// them (unicode.IsSpace), spelled as themselves for a character class.
var SpaceChars = spaceChars()

// Space is the character class of white space.
var Space = "[" + SpaceChars + "]"

// NotBlank requires a string with a character that is not white space:
// what strings.TrimSpace(s) != "" checks.
var NotBlank Rule = All(MinLength(1), Pattern("[^"+SpaceChars+"]"))

// Spaces spells the \s of a Go regular expression as the white space
// unicode.IsSpace sees, which is more than Go's \s and than JSON Schema's.
func Spaces(re string) string {
	var b strings.Builder
	class := false
	for i := 0; i < len(re); i++ {
		switch c := re[i]; {
		case c == '\\' && i+1 < len(re) && re[i+1] == 's':
			if class {
				b.WriteString(SpaceChars)
			} else {
				b.WriteString(Space)
			}
			i++
		case c == '\\' && i+1 < len(re):
			b.WriteString(re[i : i+2])
			i++
		default:
			if c == '[' {
				class = true
			} else if c == ']' {
				class = false
			}
			b.WriteByte(c)
		}
	}
	return b.String()
}

// Blank is the pattern of an empty string or one of white space only.
var Blank = "^" + Space + "*$"

// Trimmed is the pattern of a string that matches re, all of it, once
// strings.TrimSpace has taken the white space around it.
func Trimmed(re string) string { return "^" + Space + "*" + re + Space + "*$" }

// Words is the pattern of exactly one of words, as they are.
func Words(words ...string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = regexp.QuoteMeta(w)
	}
	return "(?:" + strings.Join(quoted, "|") + ")"
}

// Folded is the pattern of every spelling of one of words (written in lower
// case) that strings.ToLower turns into it: "Ack", "ACK", and with the
// Kelvin sign too, for "ack"; "İ" (U+0130) counts as "i".
func Folded(words ...string) string {
	spelled := make([]string, len(words))
	for i, w := range words {
		var b strings.Builder
		for _, r := range w {
			upper := loweringTo()[r]
			if len(upper) == 0 {
				b.WriteString(regexp.QuoteMeta(string(r)))
				continue
			}
			b.WriteByte('[')
			b.WriteRune(r)
			for _, u := range upper {
				b.WriteRune(u)
			}
			b.WriteByte(']')
		}
		spelled[i] = b.String()
	}
	return "(?:" + strings.Join(spelled, "|") + ")"
}

// loweringTo maps a rune to the other runes unicode.ToLower turns into it.
var loweringTo = sync.OnceValue(func() map[rune][]rune {
	m := map[rune][]rune{}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if l := unicode.ToLower(r); l != r {
			m[l] = append(m[l], r)
		}
	}
	return m
})

// spaceChars are the runes unicode.IsSpace reports, as the body of a
// character class (runs of three or more as ranges).
func spaceChars() string {
	var b strings.Builder
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if !unicode.IsSpace(r) {
			continue
		}
		end := r
		for end+1 <= unicode.MaxRune && unicode.IsSpace(end+1) {
			end++
		}
		switch {
		case end-r >= 2 && r > ' ':
			b.WriteRune(r)
			b.WriteByte('-')
			b.WriteRune(end)
		default:
			for c := r; c <= end; c++ {
				b.WriteRune(c)
			}
		}
		r = end
	}
	return b.String()
}

// InClass escapes chars to stand in a character class as themselves.
func InClass(chars string) string {
	var b strings.Builder
	for _, r := range chars {
		if strings.ContainsRune(`\]^-[`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// UpTo is the pattern of the whole numbers from 0 to n, written without
// leading zeros (and with, when they have fewer digits than n).
func UpTo(n int) string {
	d := strconv.Itoa(n)
	var parts []string
	if len(d) > 1 {
		parts = append(parts, "[0-9]{1,"+strconv.Itoa(len(d)-1)+"}")
	}
	for i := range len(d) {
		if d[i] == '0' {
			continue
		}
		part := d[:i]
		if d[i] == '1' {
			part += "0"
		} else {
			part += "[0-" + string(d[i]-1) + "]"
		}
		switch rest := len(d) - i - 1; rest {
		case 0:
		case 1:
			part += "[0-9]"
		default:
			part += "[0-9]{" + strconv.Itoa(rest) + "}"
		}
		parts = append(parts, part)
	}
	return "(?:" + strings.Join(append(parts, d), "|") + ")"
}
