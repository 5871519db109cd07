package score

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/honehq/hone"
)

// MaxTextLength bounds a text score and a comment, in characters.
const MaxTextLength = 1 << 20

// Number is the JSON of a numeric value, for Input.Value.
func Number(v float64) json.RawMessage { return json.RawMessage(strconv.FormatFloat(v, 'g', -1, 64)) }

// Bool is the JSON of a boolean value, for Input.Value.
func Bool(v bool) json.RawMessage { return json.RawMessage(strconv.FormatBool(v)) }

// Label is the JSON of a category label or a text value, for Input.Value.
func Label(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// value is a checked value as kept: the typed value the API shows, the
// number it stands for (a numeric value, a boolean as 1 or 0, a category's
// number) and its text (a category's label, a text value).
type value struct {
	typed  any
	number *float64
	text   *string
}

// Check reports whether raw is a value c takes: nil, or an error naming
// field value that says what c takes.
func (c *Config) Check(raw json.RawMessage) error {
	_, err := c.check(raw)
	return err
}

// check reads raw as a value of c, or returns an error naming field value
// that says what c takes.
func (c *Config) check(raw json.RawMessage) (value, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return value{}, hone.FieldError("value", "value is required: %s, as config %s takes", c.Take(), c.Name)
	}
	wrong := func() error {
		return hone.FieldError("value", "value must be %s for config %s, not %s", c.Take(), c.Name, shortJSON(raw))
	}
	switch c.DataType {
	case Numeric:
		if raw[0] != '-' && (raw[0] < '0' || raw[0] > '9') {
			return value{}, wrong()
		}
		v, err := strconv.ParseFloat(string(raw), 64)
		if err != nil || math.IsInf(v, 0) || math.Abs(v) > MaxNumber {
			return value{}, hone.FieldError("value", "value %s is beyond ±1e15, the largest size of a number config %s takes", shortJSON(raw), c.Name)
		}
		if v == 0 {
			v = 0 // -0 is 0
		}
		if c.Min != nil && v < *c.Min || c.Max != nil && v > *c.Max || !c.onStep(v) {
			return value{}, hone.FieldError("value", "value %s is not %s, as config %s takes", strconv.FormatFloat(v, 'g', -1, 64), c.Take(), c.Name)
		}
		return value{typed: v, number: &v}, nil
	case Boolean:
		var b bool
		if string(raw) != "true" && string(raw) != "false" {
			return value{}, wrong()
		}
		b = string(raw) == "true"
		n := 0.0
		if b {
			n = 1
		}
		return value{typed: b, number: &n}, nil
	}
	if raw[0] != '"' {
		return value{}, wrong()
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return value{}, wrong()
	}
	s = hone.CleanText(s)
	if c.DataType == Text {
		switch {
		case strings.TrimSpace(s) == "":
			return value{}, hone.FieldError("value", "value must be text that is not empty for config %s", c.Name)
		case hone.Chars(s) > MaxTextLength:
			return value{}, hone.FieldError("value", "value is longer than %d characters", MaxTextLength)
		}
		return value{typed: s, text: &s}, nil
	}
	cat, ok := c.category(s)
	if !ok {
		return value{}, hone.FieldError("value", "value %q is not a category of config %s: %s", s, c.Name, c.Take())
	}
	label := cat.Label
	return value{typed: label, number: cat.Value, text: &label}, nil
}

// category finds the category labelled s: exactly, or else in other case.
func (c *Config) category(s string) (Category, bool) {
	for _, cat := range c.Categories {
		if cat.Label == s {
			return cat, true
		}
	}
	t := strings.TrimSpace(s)
	for _, cat := range c.Categories {
		if strings.EqualFold(cat.Label, t) {
			return cat, true
		}
	}
	return Category{}, false
}

// onStep reports whether v is a whole number of steps from the config's
// minimum (from 0 without one).
func (c *Config) onStep(v float64) bool {
	if c.Step == nil {
		return true
	}
	base := 0.0
	if c.Min != nil {
		base = *c.Min
	}
	k := (v - base) / *c.Step
	return math.Abs(k-math.Round(k)) <= 1e-9*math.Max(1, math.Abs(k))
}

// typedValue rebuilds the value the API shows from what is kept.
func typedValue(dataType string, number *float64, text *string) any {
	switch dataType {
	case Numeric:
		if number != nil {
			return *number
		}
	case Boolean:
		if number != nil {
			return *number != 0
		}
	default:
		if text != nil {
			return *text
		}
	}
	return nil
}

// shortJSON is raw for a message, cut when long.
func shortJSON(raw []byte) string {
	if r := []rune(hone.CleanText(string(raw))); len(r) > 40 {
		return string(r[:37]) + "…"
	}
	return hone.CleanText(string(raw))
}
