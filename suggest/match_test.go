package suggest_test

import (
	"testing"

	"github.com/honehq/hone/suggest"
)

func TestClassify(t *testing.T) {
	three := []string{"@claude explain this error", "@bash cat logs.txt", "@python debug.py"}
	for _, c := range []struct {
		name        string
		input       string
		suggestions []string
		match       string
		index       int // -1 for none
	}{
		{"exact", "@bash cat logs.txt", three, suggest.MatchExact, 1},
		{"partial: a suggestion extended", "@bash cat logs.txt | tail", three, suggest.MatchPartial, 1},
		{"prefix: the start of a suggestion", "@python deb", three, suggest.MatchPrefix, 2},
		{"none", "@bash ls", three, suggest.MatchNone, -1},
		{"none without suggestions", "@bash ls", nil, suggest.MatchNone, -1},
		{"an empty input matches nothing", "", three, suggest.MatchNone, -1},
		{"case counts", "@BASH cat logs.txt", three, suggest.MatchNone, -1},
		// The suggestions are taken in order and the first match decides,
		// whatever its kind.
		{"extends the first, begins the second: partial", "git st", []string{"git", "git status"}, suggest.MatchPartial, 0},
		{"begins the first, extends the second: prefix", "git st", []string{"git status", "git"}, suggest.MatchPrefix, 0},
		{"begins the first, equals the second: prefix", "git status", []string{"git status --short", "git status"}, suggest.MatchPrefix, 0},
		{"equals the first, begins the second: exact", "git", []string{"git", "git status"}, suggest.MatchExact, 0},
		{"an empty suggestion is extended by any input", "ls", []string{"", "ls"}, suggest.MatchPartial, 0},
		{"a duplicate suggestion: the first", "ls", []string{"ls -l", "ls", "ls"}, suggest.MatchPrefix, 0},
		{"multibyte text", "héllo wö", []string{"héllo wörld"}, suggest.MatchPrefix, 0},
	} {
		match, index := suggest.Classify(c.input, c.suggestions)
		got := -1
		if index != nil {
			got = *index
		}
		if match != c.match || got != c.index {
			t.Errorf("%s: Classify(%q) = %s %d, want %s %d", c.name, c.input, match, got, c.match, c.index)
		}
	}
}
