package capture

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"

	"github.com/honehq/hone"
)

// MaxTokens is the largest token count a turn's usage may give: the largest
// whole number a JSON number keeps exactly (2^53 − 1).
const MaxTokens = 1<<53 - 1

// Usage is the tokens the model used for a turn, under OpenAI's names.
type Usage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	// TotalTokens is PromptTokens + CompletionTokens when not given.
	TotalTokens int64 `json:"total_tokens"`
}

// UnmarshalJSON decodes usage, refusing other fields and counts that are
// not whole numbers from 0 to MaxTokens; total_tokens, when left out, is
// the sum of the other two.
func (u *Usage) UnmarshalJSON(b []byte) error {
	if len(b) == 0 || b[0] != '{' {
		return hone.FieldError("usage", "usage must be an object with prompt_tokens and completion_tokens")
	}
	var v struct {
		PromptTokens     json.RawMessage `json:"prompt_tokens"`
		CompletionTokens json.RawMessage `json:"completion_tokens"`
		TotalTokens      json.RawMessage `json:"total_tokens"`
	}
	err := json.Unmarshal(b, &v)
	if err == nil && members(b) > countSet(v.PromptTokens, v.CompletionTokens, v.TotalTokens) {
		err = errors.New("unknown field")
	}
	if err != nil {
		var named struct {
			PromptTokens     *float64 `json:"prompt_tokens"`
			CompletionTokens *float64 `json:"completion_tokens"`
			TotalTokens      *float64 `json:"total_tokens"`
		}
		if e := strictDecode(b, &named, "usage"); e != nil {
			return e
		}
	}
	if u.PromptTokens, err = tokens("usage.prompt_tokens", v.PromptTokens, true); err != nil {
		return err
	}
	if u.CompletionTokens, err = tokens("usage.completion_tokens", v.CompletionTokens, true); err != nil {
		return err
	}
	if u.TotalTokens, err = tokens("usage.total_tokens", v.TotalTokens, false); err != nil {
		return err
	}
	if len(v.TotalTokens) == 0 || string(v.TotalTokens) == "null" {
		u.TotalTokens = u.PromptTokens + u.CompletionTokens
	}
	return nil
}

// countSet counts the values that were given.
func countSet(values ...json.RawMessage) int {
	n := 0
	for _, v := range values {
		if len(v) > 0 {
			n++
		}
	}
	return n
}

// members counts the members of the JSON object b.
func members(b []byte) int {
	n, depth, inString := 0, 0, false
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case inString && c == '\\':
			i++
		case inString:
			inString = c != '"'
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
		case c == ':' && depth == 1:
			n++
		}
	}
	return n
}

// tokens is the token count v, the JSON value of field, checked.
func tokens(field string, v json.RawMessage, required bool) (int64, error) {
	if len(v) == 0 || string(v) == "null" {
		if required {
			return 0, hone.FieldError(field, "%s is required", field)
		}
		return 0, nil
	}
	n, err := strconv.ParseFloat(string(v), 64)
	if c := v[0]; err != nil || c != '-' && (c < '0' || c > '9') || n < 0 || n > MaxTokens || n != math.Trunc(n) {
		return 0, hone.FieldError(field, "%s must be a whole number from 0 to %d, not %s", field, int64(MaxTokens), v)
	}
	return int64(n), nil
}

// validate checks usage made in Go rather than decoded.
func (u *Usage) validate() error {
	for _, c := range []struct {
		field string
		n     int64
	}{{"usage.prompt_tokens", u.PromptTokens}, {"usage.completion_tokens", u.CompletionTokens}, {"usage.total_tokens", u.TotalTokens}} {
		if c.n < 0 || c.n > MaxTokens {
			return hone.FieldError(c.field, "%s must be a whole number from 0 to %d, got %d", c.field, int64(MaxTokens), c.n)
		}
	}
	return nil
}
