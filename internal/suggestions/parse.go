package suggestions

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/suggest"
)

// Limits of a record.
const (
	MaxIDLength   = 128
	MaxNameLength = 200
	// MaxRecord bounds a record's JSON, in bytes: an NDJSON line longer
	// than this is refused whole.
	MaxRecord = 1 << 20
	// MaxTS bounds ts, in Unix seconds: the year 5138, past any real
	// record and far from where a time.Time overflows.
	MaxTS = 1e11
	// MaxTimeToActionMS bounds time_to_action_ms: 1e11 ms, about three
	// years, far past any real decision and far from where the
	// statistics' arithmetic could overflow.
	MaxTimeToActionMS = 1e11
)

// LineError is a record that was refused: its line (from 1; its position
// in an array), the field at fault when there is one, and why.
type LineError struct {
	Line    int    `json:"line"`
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
}

// wire is a record as sent: pointers tell a field left out from a zero.
type wire struct {
	ID                     *string       `json:"id"`
	TS                     *float64      `json:"ts"`
	Session                *string       `json:"session"`
	Server                 *string       `json:"server"`
	TriggerBlock           *int          `json:"trigger_block"`
	ResultBlock            *int          `json:"result_block"`
	Context                *contextShape `json:"context"`
	LLMRequest             *llmRequest   `json:"llm_request"`
	LLMResponse            *llmResponse  `json:"llm_response"`
	Suggestions            []*string     `json:"suggestions"`
	Version                *string       `json:"suggestion_node_version"`
	ViewedIndices          []*int        `json:"viewed_indices"`
	CycleCount             *int          `json:"cycle_count"`
	DisplayedIndexAtSubmit *int          `json:"displayed_index_at_submit"`
	AcceptedIndex          *int          `json:"accepted_index"`
	ActualInput            *string       `json:"actual_input"`
	MatchType              *string       `json:"match_type"`
	TimeToActionMS         *float64      `json:"time_to_action_ms"`
	ContextBlockCount      *int          `json:"context_block_count"`
	FetchStartTS           *float64      `json:"fetch_start_ts"`
	FetchEndTS             *float64      `json:"fetch_end_ts"`
	SubmitTS               *float64      `json:"submit_ts"`
	FetchLatencyMS         *float64      `json:"fetch_latency_ms"`
}

// contextShape is the part of the context hone counts by.
type contextShape struct {
	Blocks []json.RawMessage `json:"blocks"`
}

// llmRequest and llmResponse are the parts of the LLM call hone counts by;
// the rest of them is kept in the record's Raw.
type llmRequest struct {
	Model       *string  `json:"model"`
	Temperature *float64 `json:"temperature"`
}

type llmResponse struct {
	Model *string `json:"model"`
	Usage *struct {
		PromptTokens     *int `json:"prompt_tokens"`
		CompletionTokens *int `json:"completion_tokens"`
		TotalTokens      *int `json:"total_tokens"`
	} `json:"usage"`
}

// Parse reads one record from its JSON, checks every field and derives
// what hone counts by. A record without an id gets one from its content, so
// that importing it twice stores it once.
func Parse(raw []byte) (*Record, error) {
	if len(raw) > MaxRecord {
		return nil, hone.FieldError("", "the record is over %d bytes", MaxRecord)
	}
	var w wire
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, jsonError(err, "")
	}
	// Bytes that are not UTF-8, \u0000 and lone surrogates are kept as
	// U+FFFD, as in every text hone keeps, so that every store and every
	// export is valid UTF-8.
	r := &Record{Raw: json.RawMessage(hone.CleanJSON(bytes.TrimSpace(raw)))}
	if w.ID != nil {
		r.ID = strings.TrimSpace(hone.CleanText(*w.ID))
		if r.ID == "" {
			return nil, hone.FieldError("id", "id is empty: leave it out for hone to make one")
		}
		if hone.Chars(r.ID) > MaxIDLength {
			return nil, hone.FieldError("id", "id is longer than %d characters", MaxIDLength)
		}
	} else {
		sum := sha256.Sum256(r.Raw)
		r.ID = "h" + hex.EncodeToString(sum[:16])
	}
	if w.TS == nil || math.IsNaN(*w.TS) || *w.TS <= 0 || *w.TS > MaxTS {
		return nil, hone.FieldError("ts", "ts is required: when the input was submitted, in Unix seconds")
	}
	sec, frac := math.Modf(*w.TS)
	r.TS = time.Unix(int64(sec), int64(frac*1e9)).UTC().Truncate(time.Microsecond)
	for _, f := range []struct {
		name string
		v    *string
		into *string
	}{{"session", w.Session, &r.Session}, {"server", w.Server, &r.Server}, {"suggestion_node_version", w.Version, &r.Version}} {
		if f.v == nil {
			continue
		}
		*f.into = strings.TrimSpace(hone.CleanText(*f.v))
		if hone.Chars(*f.into) > MaxNameLength {
			return nil, hone.FieldError(f.name, "%s is longer than %d characters", f.name, MaxNameLength)
		}
	}
	if w.Suggestions == nil {
		return nil, hone.FieldError("suggestions", "suggestions is required: the list the model returned (it may be empty)")
	}
	n := len(w.Suggestions)
	r.Suggestions = n
	shown := make([]string, n)
	for i, s := range w.Suggestions {
		if s == nil {
			return nil, hone.FieldError("suggestions", "suggestions[%d] is null: each suggestion must be a string", i)
		}
		shown[i] = *s
	}
	viewed := make([]int, len(w.ViewedIndices))
	for i, v := range w.ViewedIndices {
		if v == nil {
			return nil, hone.FieldError("viewed_indices", "viewed_indices[%d] is null: each must be the position of one of the suggestions", i)
		}
		viewed[i] = *v
	}
	if w.ActualInput == nil {
		return nil, hone.FieldError("actual_input", "actual_input is required: what the person submitted")
	}
	inRange := func(field string, i, low int) error {
		if i < low || i >= n {
			return hone.FieldError(field, "%s %d is not the position of one of the %d suggestions", field, i, n)
		}
		return nil
	}
	if w.AcceptedIndex != nil {
		if err := inRange("accepted_index", *w.AcceptedIndex, 0); err != nil {
			return nil, err
		}
	}
	for _, i := range viewed {
		if err := inRange("viewed_indices", i, 0); err != nil {
			return nil, err
		}
	}
	if w.DisplayedIndexAtSubmit != nil && *w.DisplayedIndexAtSubmit != -1 {
		if err := inRange("displayed_index_at_submit", *w.DisplayedIndexAtSubmit, 0); err != nil {
			return nil, err
		}
	}
	switch {
	case w.MatchType == nil:
		r.MatchType, r.AcceptedIndex = suggest.Classify(*w.ActualInput, shown)
	case !validMatch(*w.MatchType):
		return nil, hone.FieldError("match_type", "match_type must be exact, partial, prefix or none, not %q", *w.MatchType)
	default:
		r.MatchType, r.AcceptedIndex = *w.MatchType, w.AcceptedIndex
		if (r.MatchType == suggest.MatchNone) != (r.AcceptedIndex == nil) {
			return nil, hone.FieldError("accepted_index", "accepted_index must be set for a match_type of exact, partial or prefix, and null for none")
		}
	}
	for _, f := range []struct {
		name string
		v    *int
		into *int
	}{{"cycle_count", w.CycleCount, &r.CycleCount}, {"context_block_count", w.ContextBlockCount, &r.ContextBlockCount},
		{"trigger_block", w.TriggerBlock, nil}} {
		if f.v == nil {
			continue
		}
		if *f.v < 0 && f.name != "trigger_block" || *f.v < -1 {
			return nil, hone.FieldError(f.name, "%s must not be negative", f.name)
		}
		if f.into != nil {
			*f.into = *f.v
		}
	}
	if w.ResultBlock != nil && *w.ResultBlock < 0 {
		return nil, hone.FieldError("result_block", "result_block must not be negative")
	}
	for _, f := range []struct {
		name string
		v    *float64
	}{{"time_to_action_ms", w.TimeToActionMS}, {"fetch_start_ts", w.FetchStartTS}, {"fetch_end_ts", w.FetchEndTS},
		{"submit_ts", w.SubmitTS}, {"fetch_latency_ms", w.FetchLatencyMS}} {
		if f.v != nil && (*f.v < 0 || math.IsInf(*f.v, 0)) {
			return nil, hone.FieldError(f.name, "%s must not be negative", f.name)
		}
	}
	if w.TimeToActionMS != nil && *w.TimeToActionMS > MaxTimeToActionMS {
		return nil, hone.FieldError("time_to_action_ms", "time_to_action_ms must be at most %.0f (milliseconds, about three years), not %g",
			MaxTimeToActionMS, *w.TimeToActionMS)
	}
	if w.TimeToActionMS != nil {
		r.TimeToActionMS = *w.TimeToActionMS
	}
	if w.ContextBlockCount == nil && w.Context != nil {
		r.ContextBlockCount = len(w.Context.Blocks)
	}
	if q := w.LLMRequest; q != nil {
		if q.Model != nil {
			r.Model = strings.TrimSpace(hone.CleanText(*q.Model))
		}
		r.Temperature = q.Temperature
	}
	if p := w.LLMResponse; p != nil {
		if r.Model == "" && p.Model != nil {
			r.Model = strings.TrimSpace(hone.CleanText(*p.Model))
		}
		if u := p.Usage; u != nil {
			switch {
			case u.TotalTokens != nil:
				r.TotalTokens = *u.TotalTokens
			case u.PromptTokens != nil && u.CompletionTokens != nil:
				r.TotalTokens = *u.PromptTokens + *u.CompletionTokens
			}
		}
	}
	if hone.Chars(r.Model) > MaxNameLength {
		r.Model = string([]rune(r.Model)[:MaxNameLength])
	}
	seen := uint64(0)
	var seenMap map[int]bool
	for _, i := range viewed {
		if r.AcceptedIndex == nil || i != *r.AcceptedIndex {
			r.ViewedButRejected = true
		}
		if i < 64 {
			if seen&(1<<i) != 0 {
				r.CycledBack = true
			}
			seen |= 1 << i
		} else {
			if seenMap == nil {
				seenMap = map[int]bool{}
			}
			if seenMap[i] {
				r.CycledBack = true
			}
			seenMap[i] = true
		}
	}
	return r, nil
}

func validMatch(m string) bool {
	switch m {
	case suggest.MatchExact, suggest.MatchPartial, suggest.MatchPrefix, suggest.MatchNone:
		return true
	}
	return false
}

// jsonError names the field a decoding error is about.
func jsonError(err error, prefix string) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field == "" && prefix == "" {
		return hone.FieldError("", "a record must be a JSON object, not %s", te.Value)
	}
	if errors.As(err, &te) {
		field := prefix + te.Field
		return hone.FieldError(field, "%s must be %s, not %s", field, jsonType(te.Type.Kind().String()), te.Value)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return hone.FieldError("", "not valid JSON: %v", err)
	}
	return hone.FieldError("", "not a suggestion record: %v", err)
}

func jsonType(kind string) string {
	switch kind {
	case "int", "int64", "float64":
		return "a number"
	case "string":
		return "a string"
	case "slice":
		return "an array"
	case "struct", "map":
		return "an object"
	case "bool":
		return "true or false"
	case "ptr":
		return "of another type"
	}
	return kind
}

// String is the error as one line.
func (e LineError) String() string {
	if e.Field != "" {
		return fmt.Sprintf("line %d: %s: %s", e.Line, e.Field, e.Message)
	}
	return fmt.Sprintf("line %d: %s", e.Line, e.Message)
}
