package jsonschema

import (
	"encoding/json"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	invopop "github.com/invopop/jsonschema"
)

func TestSpaceIsUnicodeSpace(t *testing.T) {
	re := regexp.MustCompile("^" + Space + "$")
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		if got := re.MatchString(string(r)); got != unicode.IsSpace(r) {
			t.Fatalf("Space matches %U: %v, unicode.IsSpace: %v", r, got, unicode.IsSpace(r))
		}
	}
}

func TestNotBlankIsTrimSpace(t *testing.T) {
	s := Schema(NotBlank)
	re := regexp.MustCompile(s.Pattern)
	for _, v := range []string{"", " ", "\t\n", "\u3000\u0085", "a", " a ", "\u00a0x", "👍"} {
		if got, want := len(v) >= int(*s.MinLength) && re.MatchString(v), strings.TrimSpace(v) != ""; got != want {
			t.Errorf("NotBlank on %q: %v, strings.TrimSpace leaves something: %v", v, got, want)
		}
	}
}

// TestFoldedIsToLower holds Folded to strings.ToLower: each spelling made
// by replacing one character of a word by a rune is matched exactly when
// strings.ToLower gives the word back.
func TestFoldedIsToLower(t *testing.T) {
	words := []string{"intake", "ack", "thumbs_up", "+1", "-1", "👍", "professionalism", "rubric_creation"}
	re := regexp.MustCompile(Trimmed(Folded(words...)))
	var candidates []rune
	for r := rune(0); r <= 0x2200; r++ {
		candidates = append(candidates, r)
	}
	candidates = append(candidates, 0x212A, 0x212B, 0x1E9E, 0xFF41)
	for _, w := range words {
		for i := range []rune(w) {
			for _, r := range candidates {
				runes := []rune(w)
				runes[i] = r
				s := string(runes)
				want := slices.Contains(words, strings.ToLower(strings.TrimSpace(s)))
				for _, v := range []string{s, " \t" + s + "\u3000"} {
					if got := re.MatchString(v); got != want {
						t.Fatalf("Folded(%q) matches %q: %v, strings.ToLower: %v", w, v, got, want)
					}
				}
			}
		}
	}
	if re.MatchString("intakes") || re.MatchString("ac") || re.MatchString("i ntake") {
		t.Error("Folded matches more than the words")
	}
}

func TestUpTo(t *testing.T) {
	for _, n := range []int{0, 1, 5, 9, 10, 19, 20, 99, 100, 101, 3650, 36500, 100000} {
		re := regexp.MustCompile("^0*" + UpTo(n) + "$")
		for k := 0; k <= n+120; k++ {
			for _, s := range []string{strconv.Itoa(k), "00" + strconv.Itoa(k)} {
				if got := re.MatchString(s); got != (k <= n) {
					t.Fatalf("UpTo(%d) on %q: %v", n, s, got)
				}
			}
		}
		if re.MatchString("") || re.MatchString("-1") || re.MatchString("1a") {
			t.Errorf("UpTo(%d) matches what is no number", n)
		}
	}
}

func TestInClass(t *testing.T) {
	chars := `_-.:^]\[`
	re := regexp.MustCompile("^[a" + InClass(chars) + "]$")
	for r := rune(0); r < 128; r++ {
		if got, want := re.MatchString(string(r)), r == 'a' || strings.ContainsRune(chars, r); got != want {
			t.Errorf("the class matches %q: %v", r, got)
		}
	}
}

func TestSpaces(t *testing.T) {
	re := regexp.MustCompile(Spaces(`^[^@\s]+@[^@\s]+$|^\s*x\.\s$`))
	for s, want := range map[string]bool{"a@b": true, "a @b": false, "a@b\u3000": false, "a@b@c": false,
		"\u2028x. ": true, "x.\u00a0": true, "x.a": false} {
		if got := re.MatchString(s); got != want {
			t.Errorf("Spaces: %q matches %v, want %v", s, got, want)
		}
	}
}

func TestRules(t *testing.T) {
	s := &invopop.Schema{Type: "object", Properties: invopop.NewProperties()}
	s.Properties.Set("n", &invopop.Schema{Type: "number"})
	s.Properties.Set("e", &invopop.Schema{Type: "string"})
	s.Properties.Set("r", &invopop.Schema{Type: "object"})
	Set(s, "n", Range(-1, math.MaxFloat64), Nullable)
	Set(s, "e", Enum("a", "b"), Nullable)
	Set(s, "r", Ref("Thing"), Nullable)
	Apply(s, Prop("added", Type("integer"), Maximum(1e11)))
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"properties":{"n":{"maximum":1.7976931348623157e+308,"minimum":-1,"type":["number","null"]},` +
		`"e":{"enum":["a","b",null],"type":["string","null"]},` +
		`"r":{"anyOf":[{"$ref":"#/components/schemas/Thing"},{"type":"null"}]},` +
		`"added":{"type":"integer","maximum":100000000000}},"type":"object"}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	defer func() {
		if p := recover(); p == nil || !strings.Contains(p.(string), `"gone"`) {
			t.Errorf("Set of a property that is not there: %v, want a panic naming it", p)
		}
	}()
	Set(s, "gone", MaxLength(1))
}
