package scoring

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/score"
)

// parseScores parses the arguments of !score, such as
// "professionalism:4 empathy:5": scores separated by spaces or commas, each
// name:value or name=value, where the name is a numeric score config that
// is not archived (in any case, optionally with the suffix _score) and the
// value a number it takes. Any of them may be given, each once.
func (s *Service) parseScores(ctx context.Context, args string) ([]named, error) {
	if s.Scores == nil {
		return nil, hone.Errorf(hone.EUNAVAILABLE, "human scores are not available: hone runs without its score capability")
	}
	all, err := s.Scores.Configs(ctx, false)
	if err != nil {
		return nil, err
	}
	numeric := slices.DeleteFunc(all, func(c *score.Config) bool { return c.DataType != score.Numeric })
	fields := strings.FieldsFunc(args, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r' })
	if len(fields) == 0 {
		return nil, s.scoreError(numeric, "no scores given")
	}
	out := make([]named, 0, len(fields))
	for _, f := range fields {
		i := strings.IndexAny(f, ":=")
		if i < 0 {
			return nil, s.scoreError(numeric, "%q is not name:value", f)
		}
		c := findNumeric(numeric, f[:i])
		if c == nil {
			return nil, s.scoreError(numeric, "unknown score %q", f[:i])
		}
		if slices.ContainsFunc(out, func(n named) bool { return n.name == c.Name }) {
			return nil, s.scoreError(numeric, "%s is given twice", c.Name)
		}
		raw := strings.TrimSpace(f[i+1:])
		v, err := strconv.ParseFloat(raw, 64)
		if err != nil || math.IsInf(v, 0) || math.IsNaN(v) || c.Check(score.Number(v)) != nil {
			return nil, s.scoreError(numeric, "%s: %q is not %s", c.Name, raw, c.Take())
		}
		out = append(out, named{name: c.Name, value: score.Number(v)})
	}
	return out, nil
}

// findNumeric returns the config of name among list: by the name as given,
// or without its suffix _score.
func findNumeric(list []*score.Config, name string) *score.Config {
	name = strings.ToLower(strings.TrimSpace(name))
	for _, n := range []string{name, strings.TrimSuffix(name, "_score")} {
		for _, c := range list {
			if c.Name == n {
				return c
			}
		}
	}
	return nil
}

// scoreError is an error of !score explaining the valid scores: the set's
// dimensions first, then the other numeric configs, each with what it
// takes.
func (s *Service) scoreError(numeric []*score.Config, format string, args ...any) error {
	var order []*score.Config
	for _, n := range s.Set.SubjectiveNames() {
		if c := findNumeric(numeric, n); c != nil && c.Name == n {
			order = append(order, c)
		}
	}
	for _, c := range numeric {
		if !slices.Contains(order, c) {
			order = append(order, c)
		}
	}
	if len(order) == 0 {
		return hone.FieldError("scores", "%s. No numeric score config takes scores: add one with hone scores configs add NAME --type numeric.",
			fmt.Sprintf(format, args...))
	}
	var groups []string
	for i := 0; i < len(order); {
		j := i + 1
		for j < len(order) && order[j].Take() == order[i].Take() {
			j++
		}
		names := make([]string, 0, j-i)
		for _, c := range order[i:j] {
			names = append(names, c.Name)
		}
		each := ""
		if j-i > 1 {
			each = "each "
		}
		groups = append(groups, strings.Join(names, ", ")+", "+each+order[i].Take())
		i = j
	}
	return hone.FieldError("scores", "%s. Valid scores: %s. E.g. %s:%s.", fmt.Sprintf(format, args...),
		strings.Join(groups, "; "), order[0].Name, example(order[0]))
}

// example is a value c takes, for messages.
func example(c *score.Config) string {
	for _, v := range []float64{4, 1, 0} {
		if c.Check(score.Number(v)) == nil {
			return strconv.FormatFloat(v, 'g', -1, 64)
		}
	}
	if c.Min != nil {
		return strconv.FormatFloat(*c.Min, 'g', -1, 64)
	}
	return "1"
}
