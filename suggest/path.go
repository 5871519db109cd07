package suggest

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/honehq/hone"
)

// maxPathPart bounds the bytes of a folder name PathPart makes, below the
// 255 of common file systems.
const maxPathPart = 200

// PathPart is the folder of a server or session name in the history tree,
// <root>/<server>/<session>/. Names are taken as hone takes them (white
// space around them trimmed, bytes that are not UTF-8 and NUL as U+FFFD),
// and two names that differ get folders that differ, even on file systems
// that ignore case:
//
//   - lowercase ASCII letters, digits, '-', '_' and a '.' that neither
//     starts nor ends the name are kept;
//   - an uppercase ASCII letter is '!' and the letter in lowercase;
//   - every other byte is '%' and its two hexadecimal digits (uppercase),
//     and so is the first character of a name Windows reserves (con, nul,
//     com1 …);
//   - the empty name is "%";
//   - a name longer than 200 bytes so escaped is its first 160 and '~'
//     and a SHA-256 of the name (128 bits, in lowercase hexadecimal).
//
// Names of lowercase letters, digits, '-', '_' and inner dots keep their
// own text as their folder.
func PathPart(name string) string {
	name = strings.TrimSpace(hone.CleanText(name))
	if name == "" {
		return "%"
	}
	reserved := windowsReserved(name)
	var b strings.Builder
	b.Grow(len(name) + 8)
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case i == 0 && reserved:
			escapeByte(&b, c)
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '-', c == '_':
			b.WriteByte(c)
		case c == '.' && i > 0 && i < len(name)-1:
			b.WriteByte(c)
		case 'A' <= c && c <= 'Z':
			b.WriteByte('!')
			b.WriteByte(c + 'a' - 'A')
		default:
			escapeByte(&b, c)
		}
	}
	s := b.String()
	if len(s) > maxPathPart {
		sum := sha256.Sum256([]byte(name))
		cut := 160
		for cut > 0 && (s[cut-1] == '%' || s[cut-1] == '!' || cut > 1 && s[cut-2] == '%') {
			cut-- // an escape is kept whole
		}
		s = s[:cut] + "~" + hex.EncodeToString(sum[:16])
	}
	return s
}

func escapeByte(b *strings.Builder, c byte) {
	const digits = "0123456789ABCDEF"
	b.WriteByte('%')
	b.WriteByte(digits[c>>4])
	b.WriteByte(digits[c&15])
}

// windowsReserved reports whether Windows reserves name as a device (con,
// prn, aux, nul, com0–com9, lpt0–lpt9, alone or before a dot, in any case).
func windowsReserved(name string) bool {
	base, _, _ := strings.Cut(strings.ToLower(name), ".")
	switch base {
	case "con", "prn", "aux", "nul":
		return true
	}
	return len(base) == 4 && (strings.HasPrefix(base, "com") || strings.HasPrefix(base, "lpt")) && '0' <= base[3] && base[3] <= '9'
}
