package cli

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/llm"
	"github.com/honehq/hone/internal/tuning"
)

// hostile is text a tester could send that would act on a terminal printed
// raw: escape sequences, carriage returns, C0 and C1 controls, bidi
// overrides and isolates, invalid UTF-8, mixed with runes of every length.
var hostile = []string{
	"meg\x1b]0;pwned\x07",
	"ok\x1b[2J\r\u202egnp.exe",
	"v1\x1b[31m",
	"copy \x1b]52;c;cHduZWQ=\x07 done",
	"\x1b[1A\x1b[2K\rreplaced line",
	"C1 CSI \u009b2J and NEL \u0085",
	"isolate \u2066evil\u2069 embed \u202aL\u202c",
	"nul \x00 del \x7f bs \b ff \f vt \v",
	"bad \xff\xfe utf8 \xc3 and cut \xe2\x82",
	"😀 日本語 é – \uFFFD \u202egnp.exe\x1b",
	"tab\tnewline\nend",
	strings.Repeat("日😀\x1b[0m\u202e", 40),
}

// escapeSeq matches an escape TerminalText writes for an unsafe rune.
var escapeSeq = regexp.MustCompile(`\\u[0-9a-f]{4}`)

// assertTerminalSafe fails when s could act on a terminal: invalid UTF-8,
// or a rune unsafeRune rejects.
func assertTerminalSafe(t *testing.T, what, s string) {
	t.Helper()
	if !utf8.ValidString(s) {
		t.Errorf("%s is not valid UTF-8: %q", what, s)
	}
	for i, r := range s {
		if unsafeRune(r) {
			t.Errorf("%s holds raw %U at byte %d: %q", what, r, i, s)
			return
		}
	}
}

func TestUnsafeRune(t *testing.T) {
	for r := rune(0); r < 0x3000; r++ {
		want := r < 0x20 && r != '\t' && r != '\n' || r == 0x7f || r >= 0x80 && r <= 0x9f ||
			r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
		if got := unsafeRune(r); got != want {
			t.Errorf("unsafeRune(%U) = %v, want %v", r, got, want)
		}
	}
	for _, r := range []rune{'a', 'é', '日', '😀', utf8.RuneError, 0x10ffff} {
		if unsafeRune(r) {
			t.Errorf("unsafeRune(%U) = true, want false", r)
		}
	}
}

func TestTerminalText(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{"empty", "", ""},
		{"ascii", "hello, world", "hello, world"},
		{"tab and newline kept", "a\tb\nc\n", "a\tb\nc\n"},
		{"emoji and CJK kept", "👍🏽 日本語 한국어 ✓ é", "👍🏽 日本語 한국어 ✓ é"},
		{"replacement character kept", "a\uFFFDb", "a\uFFFDb"},
		{"backslash kept", `C:\u001b\x1b`, `C:\u001b\x1b`},
		{"lone ESC", "\x1b", `\u001b`},
		{"CSI clear screen", "ok\x1b[2J", `ok\u001b[2J`},
		{"CSI cursor up and erase", "\x1b[1A\x1b[2K", `\u001b[1A\u001b[2K`},
		{"SGR colour", "v1\x1b[31mred\x1b[0m", `v1\u001b[31mred\u001b[0m`},
		{"OSC 0 title with BEL", "meg\x1b]0;pwned\x07", `meg\u001b]0;pwned\u0007`},
		{"OSC 52 clipboard with ST", "\x1b]52;c;cHduZWQ=\x1b\\", `\u001b]52;c;cHduZWQ=\u001b\`},
		{"BEL", "ding\a", `ding\u0007`},
		{"CR", "good\rbad", `good\u000dbad`},
		{"CRLF", "a\r\nb", "a\\u000d\nb"},
		{"NUL", "a\x00b", `a\u0000b`},
		{"backspace", "ab\bc", `ab\u0008c`},
		{"DEL", "a\x7fb", `a\u007fb`},
		{"C1 CSI as a rune", "\u009b2J", `\u009b2J`},
		{"C1 NEL and OSC", "\u0085\u009d", `\u0085\u009d`},
		{"C1 CSI as a raw byte", "\x9b2J", `\x9b2J`},
		{"RLO U+202E", "ok\u202egnp.exe", `ok\u202egnp.exe`},
		{"LRE to PDF U+202A–U+202C", "\u202aa\u202bb\u202c", `\u202aa\u202bb\u202c`},
		{"LRI U+2066 and PDI U+2069", "\u2066x\u2067y\u2068z\u2069", `\u2066x\u2067y\u2068z\u2069`},
		{"invalid byte", "a\xffb", `a\xffb`},
		{"invalid bytes", "\xfe\xff", `\xfe\xff`},
		{"lone continuation byte", "\x80", `\x80`},
		{"truncated 3-byte rune", "a\xe2\x82", `a\xe2\x82`},
		{"truncated 4-byte rune then ASCII", "\xf0\x9f\x98x", `\xf0\x9f\x98x`},
		{"surrogate half", "\xed\xa0\x80", `\xed\xa0\x80`},
		{"overlong slash", "\xc0\xaf", `\xc0\xaf`},
		{"everything", "ok\x1b[2J\r\u202egnp.exe 😀\xff\n", "ok\\u001b[2J\\u000d\\u202egnp.exe 😀\\xff\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := TerminalText(tt.in)
			if got != tt.want {
				t.Errorf("TerminalText(%q) = %q, want %q", tt.in, got, tt.want)
			}
			assertTerminalSafe(t, "TerminalText output", got)
			if again := TerminalText(got); again != got {
				t.Errorf("TerminalText is not idempotent: %q → %q", got, again)
			}
		})
	}
}

func TestTerminalTextCleanUnchanged(t *testing.T) {
	for _, s := range []string{"", "plain", "tab\tand\nnewline", "日本語 😀 \uFFFD é", strings.Repeat("clean ", 1000)} {
		got := TerminalText(s)
		if got != s {
			t.Errorf("TerminalText(%q) = %q, want it unchanged", s, got)
		}
		if allocs := testing.AllocsPerRun(10, func() { got = TerminalText(s) }); allocs != 0 {
			t.Errorf("TerminalText(%q) allocated %v times; a clean string should be returned as is", s, allocs)
		}
	}
}

func TestTerminalTextHostile(t *testing.T) {
	for _, s := range hostile {
		got := TerminalText(s)
		assertTerminalSafe(t, fmt.Sprintf("TerminalText(%q)", s), got)
		for _, raw := range []string{"\x1b", "\a", "\r", "\x00", "\x7f", "\u009b", "\u202e", "\u2066"} {
			if strings.Contains(got, raw) {
				t.Errorf("TerminalText(%q) = %q still holds %q", s, got, raw)
			}
		}
	}
}

func FuzzTerminalText(f *testing.F) {
	for _, s := range hostile {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := TerminalText(s)
		assertTerminalSafe(t, "TerminalText output", got)
		if TerminalText(got) != got {
			t.Errorf("TerminalText(%q) = %q is not a fixed point", s, got)
		}
		clean := utf8.ValidString(s) && strings.IndexFunc(s, unsafeRune) < 0
		if clean != (got == s) {
			t.Errorf("TerminalText(%q) = %q: input clean %v", s, got, clean)
		}
		// Splitting the input anywhere, through a terminalWriter, gives the same.
		var out bytes.Buffer
		tw := &terminalWriter{w: &out}
		for i := 0; i < len(s); i += 3 {
			tw.Write([]byte(s[i:min(i+3, len(s))]))
		}
		tw.Flush()
		if out.String() != got {
			t.Errorf("terminalWriter(%q) = %q, want %q", s, out.String(), got)
		}
	})
}

// recordWriter keeps each write apart, to see what a single Write sent.
type recordWriter struct{ writes []string }

func (r *recordWriter) Write(p []byte) (int, error) {
	r.writes = append(r.writes, string(p))
	return len(p), nil
}

func TestTerminalWriterChunks(t *testing.T) {
	inputs := append([]string{
		"",
		"日",
		"😀",
		"é😀日\x1b",
		"\xf0\x9f\x98",       // incomplete at the end: flushed escaped
		"\xe2\x82 then text", // incomplete in the middle
		"\xff\xfe\xfd\xfc\xfb",
		"\x80\x80\x80\x80\x80😀",
	}, hostile...)
	for _, in := range inputs {
		want := TerminalText(in)
		for _, size := range []int{1, 2, 3, 4, 5, 7, 11, 64, len(in) + 1} {
			rec := &recordWriter{}
			tw := &terminalWriter{w: rec}
			for i := 0; i < len(in); i += size {
				chunk := []byte(in[i:min(i+size, len(in))])
				n, err := tw.Write(chunk)
				if n != len(chunk) || err != nil {
					t.Fatalf("Write(%q) = %d, %v; want %d, nil", chunk, n, err, len(chunk))
				}
			}
			if err := tw.Flush(); err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(rec.writes, ""); got != want {
				t.Errorf("%q in chunks of %d: got %q, want %q", in, size, got, want)
			}
			// No single write may hold part of a rune or an unsafe rune: each
			// must be safe on its own, a terminal sees them one by one.
			for _, w := range rec.writes {
				assertTerminalSafe(t, fmt.Sprintf("write of %q in chunks of %d", in, size), w)
			}
		}
	}
}

func TestTerminalWriterKeepsSplitRunesWhole(t *testing.T) {
	for _, r := range []string{"é", "日", "😀", "\u202e", "\u009b"} {
		var out bytes.Buffer
		tw := &terminalWriter{w: &out}
		b := []byte("x" + r + "y")
		for i := range b {
			tw.Write(b[i : i+1])
		}
		tw.Flush()
		if want := TerminalText("x" + r + "y"); out.String() != want {
			t.Errorf("%q byte by byte: %q, want %q", r, out.String(), want)
		}
		if strings.Contains(out.String(), `\x`) {
			t.Errorf("%q byte by byte was taken for invalid UTF-8: %q", r, out.String())
		}
	}
	// A rune split across writes is held back until it is whole.
	var out bytes.Buffer
	tw := &terminalWriter{w: &out}
	tw.Write([]byte("a\xf0\x9f"))
	if out.String() != "a" {
		t.Errorf("after a\\xf0\\x9f: %q, want %q", out.String(), "a")
	}
	tw.Write([]byte("\x98"))
	if out.String() != "a" {
		t.Errorf("after \\x98: %q, want %q", out.String(), "a")
	}
	tw.Write([]byte("\x80"))
	if out.String() != "a😀" {
		t.Errorf("after \\x80: %q, want %q", out.String(), "a😀")
	}
	// Flush writes what is left of an incomplete rune escaped, once.
	tw.Write([]byte("\xe2\x82"))
	if err := tw.Flush(); err != nil {
		t.Fatal(err)
	}
	tw.Flush()
	if want := `a😀\xe2\x82`; out.String() != want {
		t.Errorf("after Flush: %q, want %q", out.String(), want)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestTerminalWriterError(t *testing.T) {
	tw := &terminalWriter{w: failingWriter{}}
	if _, err := tw.Write([]byte("x")); err == nil {
		t.Error("Write to a failing writer succeeded")
	}
	tw = &terminalWriter{w: failingWriter{}}
	tw.Write([]byte("\xe2"))
	if err := tw.Flush(); err == nil {
		t.Error("Flush to a failing writer succeeded")
	}
}

func TestTermOutLeavesFilesAndPipesExact(t *testing.T) {
	var buf bytes.Buffer
	if w := termOut(&buf); w != &buf {
		t.Errorf("termOut(*bytes.Buffer) = %T, want the buffer itself", w)
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if w := termOut(f); w != f {
		t.Errorf("termOut(regular file) = %T, want the file itself", w)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if out := termOut(w); out != w {
		t.Errorf("termOut(pipe) = %T, want the pipe itself", out)
	}
	if isTerminal(nil) || isTerminal(&buf) || isTerminal(f) || isTerminal(w) {
		t.Error("isTerminal is true for something that is not a terminal")
	}
}

func TestCellTerminalSafe(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"meg\x1b]0;pwned\x07", "meg ]0;pwned"},
		{"ok\x1b[2J\r\u202egnp.exe", `ok [2J \u202egnp.exe`},
		{"v1\x1b[31m", "v1 [31m"},
		{"a\u009b2Jb", "a 2Jb"},
		{"a\x7fb", "a b"},
		{"\u2066evil\u2069", `\u2066evil\u2069`},
		{"bad\xffbyte", "bad\uFFFDbyte"},
		{"日本語 😀", "日本語 😀"},
		{"line 1\r\nline 2", "line 1 line 2"},
		{strings.Repeat("\u202e", 61), strings.Repeat(`\u202e`, 60) + "…"},
		{strings.Repeat("日", 60) + "\x1b", strings.Repeat("日", 60)},
	} {
		got := cell(tt.in)
		if got != tt.want {
			t.Errorf("cell(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	for _, s := range hostile {
		got := cell(s)
		assertTerminalSafe(t, fmt.Sprintf("cell(%q)", s), got)
		if strings.ContainsAny(got, "\t\n") {
			t.Errorf("cell(%q) = %q is not one table cell", s, got)
		}
		// An escape such as \u202e stands for one character of the cut.
		if n := utf8.RuneCountInString(escapeSeq.ReplaceAllString(got, "?")); n > answerWidth+1 {
			t.Errorf("cell(%q) = %q is %d characters, more than %d and an ellipsis", s, got, n, answerWidth)
		}
	}
}

// runFile runs the command line with a regular file as its standard output
// and returns the exit code, the file's content and standard error.
func runFile(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	f, err := os.Create(filepath.Join(t.TempDir(), "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var errOut bytes.Buffer
	code := Execute(context.Background(), args, strings.NewReader(""), f, &errOut)
	b, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	return code, string(b), errOut.String()
}

// What testers could send to move the cursor, clear the screen, set the
// title, write the clipboard, overwrite a line or make text read backwards.
const (
	evilTester   = "meg\x1b]0;pwned\x07"
	evilConv     = "conv\x1b[H"
	evilVersion  = "v1\x1b[31m"
	evilVersion2 = "v2\u2066\u202e"
	evilMessage  = "hi\x1b]52;c;cHduZWQ=\x07 \u009b2J there"
	evilResponse = "ok\x1b[2J\r\u202egnp.exe"
	evilNote     = "warmer\x1b[1A\x1b[2K\rall good\u2069"
	evilModel    = "gpt\x1b]0;x\x07"
	evilError    = "boom\x1b[2K\rfine"
)

// seedHostile records a turn, a note and two LLM calls full of escape
// sequences and returns the session's id.
func seedHostile(t *testing.T, dir string) string {
	t.Helper()
	ctx := context.Background()
	db := openDataDir(t, dir)
	rec := capture.NewRecorder(db.Capture(), nil)
	turn, _, err := rec.Record(ctx, capture.TurnInput{ConversationID: evilConv, TesterID: evilTester,
		UserMessage: evilMessage, Response: evilResponse, PromptVersion: evilVersion}, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Tuning().AddImprovement(ctx, evilConv, "tone", evilNote); err != nil {
		t.Fatal(err)
	}
	if _, _, err := rec.Record(ctx, capture.TurnInput{ConversationID: evilConv + "2", TesterID: evilTester,
		UserMessage: evilMessage, Response: evilResponse, PromptVersion: evilVersion2}, ""); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2025, 10, 24, 10, 0, 0, 0, time.UTC)
	for _, c := range []*llm.Call{
		{ID: "okcall", Purpose: llm.PurposeChat, CauseType: "conversation", CauseID: evilConv, CreatedAt: at,
			Request:  llm.CallRequest{Messages: []llm.Message{{Role: llm.RoleUser, Content: evilMessage}}, Model: evilModel},
			Response: &llm.CallResponse{RawContent: evilResponse, Model: evilModel + "-2", FinishReason: "stop\x07", LatencyMS: 12}},
		{ID: "errcall", Purpose: llm.PurposeChat, CauseType: "conversation", CauseID: evilConv, CreatedAt: at.Add(time.Minute),
			Request: llm.CallRequest{Model: evilModel}, Error: evilError},
	} {
		if err := db.LLMCalls().RecordCall(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	return turn.SessionID
}

// exportDoc is a JSON export read back.
type exportDoc struct {
	Session capture.Session
	Turns   []tuning.Turn
}

func checkExportDoc(t *testing.T, what, out string) {
	t.Helper()
	var doc exportDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%s is not JSON: %v\n%q", what, err, out)
	}
	if doc.Session.TesterID != evilTester || doc.Session.PromptVersion != evilVersion || doc.Session.ConversationID != evilConv ||
		len(doc.Turns) != 1 || doc.Turns[0].UserMessage != evilMessage || doc.Turns[0].Response != evilResponse ||
		len(doc.Turns[0].Improvements) != 1 || doc.Turns[0].Improvements[0].Note != evilNote {
		t.Errorf("%s does not read back as what was recorded: %+v", what, doc)
	}
}

func checkCSV(t *testing.T, what, out string) {
	t.Helper()
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatalf("%s is not CSV: %v\n%q", what, err, out)
	}
	if len(rows) != 2 {
		t.Fatalf("%s: %d rows, want 2: %q", what, len(rows), rows)
	}
	if r := rows[1]; r[1] != evilMessage || r[2] != evilResponse || r[3] != evilNote || r[4] != "tone" {
		t.Errorf("%s does not read back as what was recorded: %q", what, r)
	}
}

func checkLLMJSON(t *testing.T, what, out string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("%s: %d lines, want 2: %q", what, len(lines), out)
	}
	var errCall, okCall llm.Call
	if err := json.Unmarshal([]byte(lines[0]), &errCall); err != nil {
		t.Fatalf("%s: %v: %q", what, err, lines[0])
	}
	if err := json.Unmarshal([]byte(lines[1]), &okCall); err != nil {
		t.Fatalf("%s: %v: %q", what, err, lines[1])
	}
	if errCall.Error != evilError || errCall.Request.Model != evilModel || errCall.CauseID != evilConv ||
		okCall.Response == nil || okCall.Response.RawContent != evilResponse || okCall.Response.FinishReason != "stop\x07" ||
		len(okCall.Request.Messages) != 1 || okCall.Request.Messages[0].Content != evilMessage {
		t.Errorf("%s does not read back as what was recorded:\n%+v\n%+v", what, errCall, okCall)
	}
}

// TestCommandsWriteExactlyWhenNotATerminal checks that the same commands
// writing to a file or a buffer, not a terminal, leave the export exact.
func TestCommandsWriteExactlyWhenNotATerminal(t *testing.T) {
	dir := t.TempDir()
	session := seedHostile(t, dir)
	base := []string{"--data-dir", dir, "--log-level", "error"}
	runners := map[string]func(*testing.T, ...string) (int, string, string){"buffer": run, "file": runFile}
	for name, runner := range runners {
		t.Run(name, func(t *testing.T) {
			code, out, errOut := runner(t, append(base, "export", "--session", session)...)
			if code != 0 {
				t.Fatalf("export csv: exit %d, stderr %q", code, errOut)
			}
			checkCSV(t, "the CSV export to a "+name, out)
			if !strings.Contains(out, `"`+evilResponse+`"`) {
				t.Errorf("the CSV export to a %s is not exact: %q", name, out)
			}

			code, out, errOut = runner(t, append(base, "export", "--session", session, "--format", "json")...)
			if code != 0 {
				t.Fatalf("export json: exit %d, stderr %q", code, errOut)
			}
			checkExportDoc(t, "the JSON export to a "+name, out)
			if !strings.Contains(out, "\u202egnp.exe") || strings.Contains(out, `\u202e`) {
				t.Errorf("the JSON export to a %s was escaped: %q", name, out)
			}

			code, out, errOut = runner(t, append(base, "llm", "calls", "--json")...)
			if code != 0 {
				t.Fatalf("llm calls --json: exit %d, stderr %q", code, errOut)
			}
			checkLLMJSON(t, "llm calls --json to a "+name, out)
			if !strings.Contains(out, "\u202egnp.exe") {
				t.Errorf("llm calls --json to a %s was escaped: %q", name, out)
			}

			code, out, errOut = runner(t, append(base, "metrics", "session", session)...)
			if code != 0 || !strings.Contains(out, "prompt version "+evilVersion+",") {
				t.Errorf("metrics session to a %s: exit %d, stderr %q, stdout %q", name, code, errOut, out)
			}
		})
	}
	// The exported file is exact too.
	file := filepath.Join(t.TempDir(), "session.csv")
	if code, _, errOut := run(t, append(base, "export", "--session", session, "--output", file)...); code != 0 {
		t.Fatalf("export --output: exit %d, stderr %q", code, errOut)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	checkCSV(t, "the exported file", string(b))
	_, out, _ := run(t, append(base, "export", "--session", session)...)
	if string(b) != out {
		t.Errorf("the exported file differs from the export to standard output:\n%q\n%q", b, out)
	}
}
