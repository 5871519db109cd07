package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"golang.org/x/term"
)

// isTerminal reports whether v is a terminal.
func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// unsafeRune reports whether r would act on a terminal rather than show:
// control characters other than tab and newline (ESC starts the escape
// sequences that move the cursor, rewrite the title or the clipboard; CR
// overwrites a line), DEL, the C1 controls and the bidirectional overrides
// that make text read differently from what it holds.
func unsafeRune(r rune) bool {
	switch {
	case r == '\t' || r == '\n':
		return false
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// escapeRune is how TerminalText shows an unsafe rune: as a JSON escape,
// so that JSON printed to a terminal stays JSON.
func escapeRune(r rune) string { return fmt.Sprintf(`\u%04x`, r) }

// TerminalText returns s safe to print to a terminal: what testers wrote
// cannot send it escape sequences. Unsafe characters (see unsafeRune) are
// shown escaped, such as \u001b, and invalid UTF-8 as \xff.
func TerminalText(s string) string {
	clean := true
	for i, r := range s {
		if unsafeRune(r) || r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD") {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unsafeRune(r):
			b.WriteString(escapeRune(r))
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// terminalWriter escapes what is written to a terminal with TerminalText,
// keeping a UTF-8 sequence split across writes whole.
type terminalWriter struct {
	w    io.Writer
	tail []byte
}

func (t *terminalWriter) Write(p []byte) (int, error) {
	buf := append(t.tail, p...)
	cut := len(buf)
	if i := lastStart(buf); i < len(buf) && !utf8.FullRune(buf[i:]) {
		cut = i
	}
	t.tail = append([]byte(nil), buf[cut:]...)
	if _, err := io.WriteString(t.w, TerminalText(string(buf[:cut]))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// lastStart is the index of the start of the last, possibly incomplete, rune
// of b, or len(b) when none of its last bytes starts one.
func lastStart(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			return i
		}
	}
	return len(b)
}

// Flush writes a trailing incomplete sequence as it is, escaped.
func (t *terminalWriter) Flush() error {
	if len(t.tail) == 0 {
		return nil
	}
	_, err := io.WriteString(t.w, TerminalText(string(t.tail)))
	t.tail = nil
	return err
}

// termOut returns w, escaped with TerminalText when it is a terminal.
func termOut(w io.Writer) io.Writer {
	if isTerminal(w) {
		return &terminalWriter{w: w}
	}
	return w
}
