package quality

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// ObjectiveKey is the JSON key of the objective quality score in a Result.
const ObjectiveKey = "objective_quality_score"

// Value is one metric's score: a number in [0, 1], or nil for N/A.
type Value struct {
	Name  string
	Score *float64
}

// Result is the outcome of Set.Evaluate: the metric values in the set's order
// and the objective quality score (nil when no metric applied).
//
// It marshals to a JSON object keyed by metric name, in order, with N/A as
// null, followed by "objective_quality_score".
type Result struct {
	Metrics   []Value
	Objective *float64
}

// Get returns the score of the named metric; found is false when the result
// has no such metric, and score is nil when the metric was N/A.
func (r Result) Get(name string) (score *float64, found bool) {
	for _, v := range r.Metrics {
		if v.Name == name {
			return v.Score, true
		}
	}
	return nil, false
}

// MarshalJSON implements json.Marshaler.
func (r Result) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.Grow(40 * (len(r.Metrics) + 1))
	b.WriteByte('{')
	for _, v := range r.Metrics {
		writeKey(&b, v.Name)
		b.WriteByte(':')
		writeNumber(&b, v.Score)
		b.WriteByte(',')
	}
	b.WriteString(`"` + ObjectiveKey + `":`)
	writeNumber(&b, r.Objective)
	b.WriteByte('}')
	return b.Bytes(), nil
}

// writeKey writes name as a JSON string: as is between quotes when it needs
// no escaping, as metric names never do, else through encoding/json.
func writeKey(b *bytes.Buffer, name string) {
	for i := 0; i < len(name); i++ {
		if c := name[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 || c == '<' || c == '>' || c == '&' {
			key, _ := json.Marshal(name)
			b.Write(key)
			return
		}
	}
	b.WriteByte('"')
	b.WriteString(name)
	b.WriteByte('"')
}

// writeNumber writes p as a JSON number, or null when p is nil or not finite.
func writeNumber(b *bytes.Buffer, p *float64) {
	if p == nil || math.IsNaN(*p) || math.IsInf(*p, 0) {
		b.WriteString("null")
		return
	}
	b.Write(strconv.AppendFloat(b.AvailableBuffer(), *p, 'g', -1, 64))
}

// UnmarshalJSON implements json.Unmarshaler, keeping the order of the keys.
// Keys other than objective_quality_score are read as metrics; booleans are
// read as 1 and 0.
func (r *Result) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		*r = Result{}
		return nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("metrics: result must be a JSON object")
	}
	out := Result{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key := tok.(string)
		if tok, err = dec.Token(); err != nil {
			return err
		}
		var score *float64
		switch v := tok.(type) {
		case nil:
		case bool:
			f := 0.0
			if v {
				f = 1
			}
			score = &f
		case json.Number:
			f, err := v.Float64()
			if err != nil {
				return fmt.Errorf("metrics: result %q: %w", key, err)
			}
			score = &f
		default:
			return fmt.Errorf("metrics: result %q: want a number, true, false or null", key)
		}
		if key == ObjectiveKey {
			out.Objective = score
		} else {
			out.Metrics = append(out.Metrics, Value{Name: key, Score: score})
		}
	}
	if _, err := dec.Token(); err != nil {
		return err
	}
	*r = out
	return nil
}
