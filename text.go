package hone

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// Replacement is the character that stands in for text hone cannot store as
// given: a NUL character or a byte sequence that is not valid UTF-8.
// PostgreSQL refuses both in text and JSON columns while SQLite would keep
// them, so hone replaces them on the way in, the same on both databases,
// and every export is valid UTF-8.
const Replacement = "\uFFFD"

// CleanText returns s with each NUL character and each byte that is not
// part of valid UTF-8 replaced by U+FFFD, as encoding/json does with the
// strings it decodes. A string that needs no change is returned as is,
// without copying.
func CleanText(s string) string {
	if utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == 0 || r == utf8.RuneError && n == 1 {
			b.WriteString(Replacement)
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// Chars is the length of s in characters (Unicode code points), the unit of
// every length limit hone documents.
func Chars(s string) int { return utf8.RuneCountInString(s) }

// CleanJSON returns the JSON text b with what CleanText replaces in text also
// replaced inside its strings: bytes that are not UTF-8, the escape \u0000,
// and escapes of lone UTF-16 surrogates, which PostgreSQL's jsonb refuses. b
// must be valid JSON apart from its encoding (a raw NUL cannot occur in it).
// JSON that needs no change is returned as is.
func CleanJSON(b []byte) []byte {
	if !utf8.Valid(b) {
		b = []byte(CleanText(string(b)))
	}
	if !bytes.Contains(b, []byte(`\u`)) {
		return b
	}
	var out []byte
	inString := false
	last := 0
	for i := 0; i < len(b); i++ {
		c := b[i]
		if !inString {
			if c == '"' {
				inString = true
			}
			continue
		}
		switch c {
		case '"':
			inString = false
			continue
		case '\\':
		default:
			continue
		}
		if i+1 >= len(b) {
			break
		}
		if b[i+1] != 'u' {
			i++
			continue
		}
		r, ok := hex4(b, i+2)
		if !ok {
			i++
			continue
		}
		n := 6
		keep := true
		switch {
		case r == 0:
			keep = false
		case r >= 0xDC00 && r <= 0xDFFF:
			keep = false
		case r >= 0xD800 && r <= 0xDBFF:
			if i+7 < len(b) && b[i+6] == '\\' && b[i+7] == 'u' {
				if low, ok := hex4(b, i+8); ok && low >= 0xDC00 && low <= 0xDFFF {
					n = 12
					break
				}
			}
			keep = false
		}
		if !keep {
			out = append(out, b[last:i]...)
			out = append(out, `\ufffd`...)
			last = i + n
		}
		i += n - 1
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

// hex4 reads four hexadecimal digits of b at i.
func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c-'a') + 10
		case c >= 'A' && c <= 'F':
			r |= rune(c-'A') + 10
		default:
			return 0, false
		}
	}
	return r, true
}
