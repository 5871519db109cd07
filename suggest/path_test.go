package suggest_test

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/honehq/hone"
	"github.com/honehq/hone/suggest"
)

func TestPathPart(t *testing.T) {
	long := strings.Repeat("é", 150)
	for _, c := range []struct{ name, want string }{
		{"my-project", "my-project"}, {"local", "local"}, {"v1.0", "v1.0"}, {"a_b", "a_b"}, {"a/b", "a%2Fb"},
		{"", "%"}, {" ", "%"}, {"_", "_"}, {".", "%2E"}, {"..", "%2E%2E"}, {"...", "%2E.%2E"}, {".env", "%2Eenv"},
		{"My Project", "!my%20!project"}, {"a%2Fb", "a%252!fb"}, {"!x", "%21x"}, {"é", "%C3%A9"}, {"a\\b", "a%5Cb"},
		{"con", "%63on"}, {"CON.txt", "%43!o!n.txt"}, {"com1", "%63om1"}, {"console", "console"}, {" x ", "x"}, {"a\x00", "a%EF%BF%BD"},
	} {
		if got := suggest.PathPart(c.name); got != c.want {
			t.Errorf("PathPart(%q) = %q, want %q", c.name, got, c.want)
		}
	}
	if got := suggest.PathPart(long); len(got) > 200 || !strings.Contains(got, "~") || got == suggest.PathPart(long+"é") {
		t.Errorf("PathPart of 150 é: %q", got)
	}
}

// unescape reads a folder name PathPart made back into its name.
func unescape(t *testing.T, s string) string {
	t.Helper()
	if s == "%" {
		return ""
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '%':
			n, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
			if err != nil {
				t.Fatalf("%q: %v", s, err)
			}
			b.WriteByte(byte(n))
			i += 2
		case '!':
			b.WriteByte(s[i+1] - 'a' + 'A')
			i++
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// Two names hone tells apart never share a folder, even where file names
// are compared without regard to case: a folder name reads back as its
// name.
func TestPathPartIsInjective(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	pieces := []string{"a", "A", "z", "Z", "_", "-", ".", "..", "/", "\\", "%", "%2F", "!", "!a", " ", "é", "É", "😀", ":", "*", "?",
		"\x00", "\xff", "con", "NUL", "com1", "~", "0", "\t"}
	seen := map[string]string{}
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(8) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		name := strings.TrimSpace(hone.CleanText(b.String()))
		part := suggest.PathPart(name)
		if back := unescape(t, part); back != name {
			t.Fatalf("PathPart(%q) = %q reads back as %q", name, part, back)
		}
		if strings.ContainsAny(part, "/\\:*?\"<>| ") || part == "." || part == ".." || strings.HasSuffix(part, ".") {
			t.Fatalf("PathPart(%q) = %q is no safe folder name", name, part)
		}
		key := strings.ToLower(part)
		if other, ok := seen[key]; ok && other != name {
			t.Fatalf("%q and %q share the folder %q", other, name, part)
		}
		seen[key] = name
	}
}

// The JSONL sink writes below its root only: a link out of it is not
// followed.
func TestJSONLDoesNotFollowLinksOut(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	if err := os.Symlink(outside, filepath.Join(root, "local")); err != nil {
		t.Fatal(err)
	}
	var errs []error
	sink, err := suggest.NewJSONL(suggest.JSONLOptions{Root: root, OnError: func(err error) { errs = append(errs, err) }})
	if err != nil {
		t.Fatal(err)
	}
	tr := suggest.NewTracker(suggest.Options{Server: "local", Session: "s", Sink: sink})
	round(t, tr, "x")
	if err := sink.Close(); err == nil || sink.Failed() != 1 || len(errs) != 1 {
		t.Errorf("close: %v, failed %d, errors %v", err, sink.Failed(), errs)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("the sink wrote outside its root: %v", entries)
	}
}
