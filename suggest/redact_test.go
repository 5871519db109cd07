package suggest_test

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/honehq/hone/suggest"
)

// reference redacts as the Redactor did before its keywords: the
// redactions in order on any text one of them matches, every text searched
// with every pattern.
type reference struct {
	list []suggest.Redaction
	any  *regexp.Regexp
}

func newReference(list []suggest.Redaction) *reference {
	var src []string
	for _, x := range list {
		src = append(src, "(?:"+x.Pattern.String()+")")
	}
	return &reference{list: list, any: regexp.MustCompile(strings.Join(src, "|"))}
}

func (r *reference) Text(s string) string {
	if !r.any.MatchString(s) {
		return s
	}
	for _, x := range r.list {
		repl := x.Replace
		if repl == "" {
			repl = "[REDACTED:" + x.Name + "]"
		}
		s = x.Pattern.ReplaceAllString(s, repl)
	}
	return s
}

// secretPieces make texts that come near the redactions' patterns: their
// keywords in every case, with the runes Go's regexp folds to ASCII
// letters (ſ for s, K for k), the characters around them, and keys.
var secretPieces = []string{
	"sk-", "proj-", "ant-", "AKIA", "ASIA", "akia", "AIza", "aiza", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "gh", "p_", "github_pat_",
	"xoxb-", "xoxp-", "xox", "Bearer ", "bearer\t", "BEARER  ", "bEaReR\n", "api_key", "API-KEY", "apikey", "ApiKey", "secret", "SECRET",
	"\u017fecret", "\u017f", "\u212a", "K", "to\u212aen", "api\u212aey", "acce\u017f\u017f_\u212aey", "token", "TOKEN", "password", "PassWord", "pa\u017f\u017fword", "passwd", "access_key", "AccessKey", "access-key",
	"=", ":", " = ", ": ", "\"", "'", "@", "meg@example.com", ".", "-", "_",
	"abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOP", "0123456789", "hunter22", "x", " ", "\n", "é", "…", "\u2028",
}

// secretText is a text of a few pieces.
func secretText(rng *rand.Rand) string {
	var b strings.Builder
	for range 1 + rng.IntN(8) {
		b.WriteString(secretPieces[rng.IntN(len(secretPieces))])
	}
	return b.String()
}

// The keywords never let through a secret the patterns alone would have
// redacted: over many texts made to come near them, the Redactor redacts
// exactly as the patterns do.
func TestRedactionMatchesThePatterns(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 29))
	custom := []suggest.Redaction{{Name: "ticket", Pattern: regexp.MustCompile(`(?i)ticket-\d+`), Keywords: []string{"TICKET-"}},
		{Name: "no_keywords", Pattern: regexp.MustCompile(`\d{6}`)}}
	for _, list := range [][]suggest.Redaction{suggest.APIKeys, append(append([]suggest.Redaction{}, suggest.APIKeys...), suggest.Emails...), custom} {
		red, ref := suggest.NewRedactor(list...), newReference(list)
		redacted := 0
		for range 100000 {
			s := secretText(rng)
			got, want := red.Text(s), ref.Text(s)
			if got != want {
				t.Fatalf("%q: redacted %q, the patterns %q", s, got, want)
			}
			if got != s {
				redacted++
			}
		}
		t.Logf("%d texts of 100000 redacted", redacted)
		if redacted < 1000 {
			t.Errorf("only %d texts of 100000 held a secret: the test does not come near the patterns", redacted)
		}
	}
	ticket := suggest.NewRedactor(custom...)
	if got := ticket.Text("see TİCKET-12 and tiCKet-7 and 1234567"); got != "see TİCKET-12 and [REDACTED:ticket] and [REDACTED:no_keywords]7" {
		t.Errorf("custom: %q", got)
	}
}

// FuzzRedaction compares the Redactor with the patterns alone on any
// text.
func FuzzRedaction(f *testing.F) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 50 {
		f.Add(secretText(rng))
	}
	red := suggest.NewRedactor(append(append([]suggest.Redaction{}, suggest.APIKeys...), suggest.Emails...)...)
	ref := newReference(append(append([]suggest.Redaction{}, suggest.APIKeys...), suggest.Emails...))
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := red.Text(s), ref.Text(s); got != want {
			t.Fatalf("%q: redacted %q, the patterns %q", s, got, want)
		}
	})
}

// The runes other than ASCII letters that Go's regexp takes for ASCII
// letters without regard to case are ſ and K only, the two the keywords
// allow for.
func TestFoldsToASCII(t *testing.T) {
	var got []rune
	for r := rune(0x80); r <= unicode.MaxRune; r++ {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if f < 0x80 {
				got = append(got, r)
				break
			}
		}
	}
	if string(got) != "\u017f\u212a" {
		t.Errorf("runes that fold to ASCII: %q", string(got))
	}
}

// Text without a keyword is not copied, nor is a record without a secret.
func TestRedactionLeavesCleanRecordsAlone(t *testing.T) {
	tr := suggest.NewTracker(suggest.Options{Session: "s"})
	r := round(t, tr, "@bash cat logs.txt | tail")
	if got := suggest.DefaultRedactor().Record(r); got != r {
		t.Error("a record without a secret was copied")
	}
	r.LLMRequest["api"] = map[string]any{"headers": []any{"Authorization: Bearer abcdefghijklmnopqrstuvwxyz123456"}}
	got := suggest.DefaultRedactor().Record(r)
	if got == r || got.Context["cwd"] != r.Context["cwd"] ||
		got.LLMRequest["api"].(map[string]any)["headers"].([]any)[0] != "Authorization: [REDACTED:bearer]" ||
		r.LLMRequest["api"].(map[string]any)["headers"].([]any)[0] != "Authorization: Bearer abcdefghijklmnopqrstuvwxyz123456" {
		t.Errorf("redacted %+v from %+v", got.LLMRequest, r.LLMRequest)
	}
}
