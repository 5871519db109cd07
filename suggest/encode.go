package suggest

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// appendRecord appends the JSON line of red.Record(r): byte for byte what
// encoding/json writes of it with SetEscapeHTML(false) (a test holds the
// two together), but without reflection for the JSON-like values of the
// context and the LLM call, which makes the writer about twice as fast,
// and redacting each text as it is written, without a copy of the record.
// Values of other types go through encoding/json. A nil red redacts
// nothing.
func appendRecord(b []byte, r *Record, red *Redactor) ([]byte, error) {
	var err error
	b = append(b, `{"id":`...)
	b = appendString(b, r.ID)
	b = append(b, `,"ts":`...)
	if b, err = appendFloat(b, r.TS); err != nil {
		return b, err
	}
	b = append(b, `,"session":`...)
	b = appendString(b, r.Session)
	b = append(b, `,"server":`...)
	b = appendString(b, r.Server)
	b = append(b, `,"trigger_block":`...)
	b = strconv.AppendInt(b, int64(r.TriggerBlock), 10)
	b = append(b, `,"result_block":`...)
	b = appendIntPtr(b, r.ResultBlock)
	for _, m := range []struct {
		key string
		v   map[string]any
	}{{`,"context":`, r.Context}, {`,"llm_request":`, r.LLMRequest}, {`,"llm_response":`, r.LLMResponse}} {
		b = append(b, m.key...)
		if m.v == nil {
			b = append(b, "null"...)
		} else if b, err = appendMap(b, m.v, red); err != nil {
			return b, err
		}
	}
	b = append(b, `,"suggestions":`...)
	b = appendStrings(b, r.Suggestions, red)
	b = append(b, `,"suggestion_node_version":`...)
	b = appendString(b, r.Version)
	b = append(b, `,"viewed_indices":`...)
	if r.ViewedIndices == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, v := range r.ViewedIndices {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(v), 10)
		}
		b = append(b, ']')
	}
	b = append(b, `,"cycle_count":`...)
	b = strconv.AppendInt(b, int64(r.CycleCount), 10)
	b = append(b, `,"displayed_index_at_submit":`...)
	b = strconv.AppendInt(b, int64(r.DisplayedIndexAtSubmit), 10)
	b = append(b, `,"accepted_index":`...)
	b = appendIntPtr(b, r.AcceptedIndex)
	b = append(b, `,"actual_input":`...)
	b = appendString(b, red.Text(r.ActualInput))
	b = append(b, `,"match_type":`...)
	b = appendString(b, r.MatchType)
	for _, f := range []struct {
		key string
		v   float64
	}{{`,"fetch_start_ts":`, r.FetchStartTS}, {`,"fetch_end_ts":`, r.FetchEndTS}, {`,"submit_ts":`, r.SubmitTS},
		{`,"time_to_action_ms":`, r.TimeToActionMS}, {`,"fetch_latency_ms":`, r.FetchLatencyMS}} {
		b = append(b, f.key...)
		if b, err = appendFloat(b, f.v); err != nil {
			return b, err
		}
	}
	b = append(b, `,"context_block_count":`...)
	b = strconv.AppendInt(b, int64(r.ContextBlockCount), 10)
	return append(b, '}', '\n'), nil
}

func appendIntPtr(b []byte, p *int) []byte {
	if p == nil {
		return append(b, "null"...)
	}
	return strconv.AppendInt(b, int64(*p), 10)
}

func appendStrings(b []byte, list []string, red *Redactor) []byte {
	if list == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, red.Text(s))
	}
	return append(b, ']')
}

// appendMap writes a map with its keys sorted, as encoding/json does.
func appendMap(b []byte, m map[string]any, red *Redactor) ([]byte, error) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	var err error
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, ':')
		if b, err = appendValue(b, m[k], red); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

// appendValue writes a JSON-like value, its texts redacted; any other goes
// through encoding/json (redacted as Redactor.Record redacts it).
func appendValue(b []byte, v any, red *Redactor) ([]byte, error) {
	var err error
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case string:
		return appendString(b, red.Text(v)), nil
	case bool:
		return strconv.AppendBool(b, v), nil
	case float64:
		return appendFloat(b, v)
	case int:
		return strconv.AppendInt(b, int64(v), 10), nil
	case int64:
		return strconv.AppendInt(b, v, 10), nil
	case map[string]any:
		if v == nil {
			return append(b, "null"...), nil
		}
		return appendMap(b, v, red)
	case []any:
		if v == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '[')
		for i, x := range v {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = appendValue(b, x, red); err != nil {
				return b, err
			}
		}
		return append(b, ']'), nil
	case []string:
		return appendStrings(b, v, red), nil
	}
	if red.active() {
		if redacted, ok := red.value(v); ok {
			return appendValue(b, redacted, nil)
		}
	}
	enc, err := json.Marshal(v)
	if err != nil {
		return b, err
	}
	return appendCompact(b, enc), nil
}

// appendCompact appends what json.Marshal wrote, with the HTML characters
// it escapes written back as themselves, as SetEscapeHTML(false) writes
// them.
func appendCompact(b, enc []byte) []byte {
	for i := 0; i < len(enc); i++ {
		if enc[i] == '\\' && i+5 < len(enc) && enc[i+1] == 'u' && enc[i+2] == '0' && enc[i+3] == '0' {
			switch string(enc[i+4 : i+6]) {
			case "3c":
				b, i = append(b, '<'), i+5
				continue
			case "3e":
				b, i = append(b, '>'), i+5
				continue
			case "26":
				b, i = append(b, '&'), i+5
				continue
			}
		}
		if enc[i] == '\\' && i+1 < len(enc) {
			b = append(b, enc[i], enc[i+1])
			i++
			continue
		}
		b = append(b, enc[i])
	}
	return b
}

// appendFloat writes a float64 as encoding/json does; NaN and infinities
// are an error, as there.
func appendFloat(b []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, &json.UnsupportedValueError{Str: strconv.FormatFloat(f, 'g', -1, 64)}
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}

const hexDigits = "0123456789abcdef"

// appendString writes a JSON string as encoding/json does without HTML
// escaping: ", \ and control characters escaped, bytes that are not UTF-8
// as \ufffd, U+2028 and U+2029 escaped.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
