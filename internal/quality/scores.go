package quality

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/honehq/hone"
)

// ScoreSuffix may end a subjective score's name: professionalism_score is
// professionalism.
const ScoreSuffix = "_score"

// ParseScores parses the arguments of a !score command with the default set's
// score names; see Set.ParseScores.
func ParseScores(args string) (map[string]int, error) {
	return Default().ParseScores(args)
}

// ParseScores parses the arguments of a !score command, such as
// "professionalism:4 empathy:5". Scores are separated by spaces or commas;
// each is name:value or name=value, where the name is one of the set's
// subjective names, case-insensitive and optionally with the "_score" suffix
// (professionalism_score), and the value an integer from 1 to 5. Any subset
// of the names may be given, each at most once. The returned map is keyed by
// the short names. Errors are hone EINVALID errors whose message lists the
// valid names and the range.
func (s *Set) ParseScores(args string) (map[string]int, error) {
	fields := strings.FieldsFunc(args, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r' })
	if len(fields) == 0 {
		return nil, s.scoreError("no scores given")
	}
	out := make(map[string]int, len(fields))
	for _, f := range fields {
		i := strings.IndexAny(f, ":=")
		if i < 0 {
			return nil, s.scoreError("%q is not name:value", f)
		}
		name, ok := s.scoreName(f[:i])
		if !ok {
			return nil, s.scoreError("unknown score %q", f[:i])
		}
		if _, dup := out[name]; dup {
			return nil, s.scoreError("%s is given twice", name)
		}
		v, err := strconv.Atoi(strings.TrimSpace(f[i+1:]))
		if err != nil || v < ScoreMin || v > ScoreMax {
			return nil, s.scoreError("%s: %q is not a whole number from %d to %d", name, f[i+1:], ScoreMin, ScoreMax)
		}
		out[name] = v
	}
	return out, nil
}

// ValidateScores checks human scores given through the API: every name must
// be one of the set's subjective names (case-insensitive, "_score" suffix
// optional, each name once) and every value an integer from 1 to 5.
func (s *Set) ValidateScores(scores map[string]int) error {
	if len(scores) == 0 {
		return s.scoreError("no scores given")
	}
	seen := make(map[string]bool, len(scores))
	for _, k := range sortedKeys(scores) {
		name, ok := s.scoreName(k)
		if !ok {
			return s.scoreError("unknown score %q", k)
		}
		if seen[name] {
			return s.scoreError("%s is given twice", name)
		}
		seen[name] = true
		if v := scores[k]; v < ScoreMin || v > ScoreMax {
			return s.scoreError("%s: %d is not from %d to %d", name, v, ScoreMin, ScoreMax)
		}
	}
	return nil
}

// scoreName returns the short subjective name for name, if it is one.
func (s *Set) scoreName(name string) (string, bool) {
	n := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(name)), ScoreSuffix)
	return n, slices.Contains(s.subjective, n)
}

// scoreError returns an EINVALID error explaining the score syntax.
func (s *Set) scoreError(format string, args ...any) error {
	return hone.FieldError("scores", "%s. Valid scores: %s; each a whole number from %d to %d, e.g. %s:4.",
		fmt.Sprintf(format, args...), strings.Join(s.subjective, ", "), ScoreMin, ScoreMax, s.subjective[0])
}
