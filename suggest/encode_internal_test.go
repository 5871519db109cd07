package suggest

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// stdLine is a record's line as encoding/json writes it.
func stdLine(t *testing.T, r *Record) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// randomText has the characters encoding/json escapes: quotes,
// backslashes, control characters, HTML characters, U+2028, bytes that are
// not UTF-8, emoji.
func randomText(rng *rand.Rand) string {
	parts := []string{"a", "Z", " ", `"`, `\`, "\n", "\r", "\t", "\b", "\f", "\x00", "\x01", "\x1f", "\x7f", "<", ">", "&",
		"\u2028", "\u2029", "é", "😀", "\xff", "\xc3", "\xe2\x80", "{}", "[1]", "\u00a0", "\ufffd"}
	var b strings.Builder
	for range rng.IntN(12) {
		b.WriteString(parts[rng.IntN(len(parts))])
	}
	return b.String()
}

func randomValue(rng *rand.Rand, depth int) any {
	switch n := rng.IntN(11); {
	case n == 0:
		return nil
	case n == 1:
		return rng.IntN(2) == 0
	case n == 2:
		return []float64{0, -0.0, 1, -1.5, 1e-7, 1.5e-7, 1e21, 123456789012345678, 0.1, 1e20, 3.4e38, 5e-324, 1e-6, math.MaxFloat64}[rng.IntN(14)]
	case n == 3:
		return rng.IntN(1000) - 500
	case n == 4:
		return int64(rng.Uint64() >> 1)
	case n == 5 && depth < 3:
		m := map[string]any{}
		for range rng.IntN(5) {
			m[randomText(rng)] = randomValue(rng, depth+1)
		}
		return m
	case n == 6 && depth < 3:
		var l []any
		if rng.IntN(5) > 0 {
			l = []any{}
		}
		for range rng.IntN(4) {
			l = append(l, randomValue(rng, depth+1))
		}
		return l
	case n == 7:
		return []string{randomText(rng), randomText(rng)}
	case n == 8:
		return map[string]string{randomText(rng): randomText(rng)}
	case n == 9:
		return struct {
			A string `json:"a"`
			B []int  `json:"b"`
		}{randomText(rng), []int{1, 2}}
	}
	return randomText(rng)
}

// The fast encoder writes exactly what encoding/json writes.
func TestAppendRecordMatchesEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for i := range 5000 {
		r := &Record{ID: randomText(rng), TS: rng.Float64() * 2e9, Session: randomText(rng), Server: randomText(rng),
			TriggerBlock: rng.IntN(100) - 1, Suggestions: []string{randomText(rng), randomText(rng)}, Version: randomText(rng),
			CycleCount: rng.IntN(9), DisplayedIndexAtSubmit: rng.IntN(3) - 1, ActualInput: randomText(rng), MatchType: MatchExact,
			TimeToActionMS: rng.Float64() * 1e4, FetchLatencyMS: []float64{0, 1e-9, 2.5e21}[rng.IntN(3)], ContextBlockCount: rng.IntN(5)}
		if rng.IntN(2) == 0 {
			k := rng.IntN(3)
			r.AcceptedIndex, r.ResultBlock = &k, &k
			r.ViewedIndices = []int{0, 1, 0}
		}
		if rng.IntN(4) > 0 {
			r.Context = map[string]any{"blocks": randomValue(rng, 0), randomText(rng): randomValue(rng, 0)}
			r.LLMRequest = map[string]any{"messages": []any{map[string]any{"role": "user", "content": randomText(rng)}}, "temperature": 0.7}
			r.LLMResponse = map[string]any{"x": randomValue(rng, 0)}
		}
		got, err := appendRecord(nil, r, nil)
		if err != nil {
			t.Fatal(err)
		}
		if want := stdLine(t, r); !bytes.Equal(got, want) {
			t.Fatalf("record %d:\n got %s\nwant %s", i, got, want)
		}
	}
	if _, err := appendRecord(nil, &Record{TimeToActionMS: math.NaN()}, nil); err == nil {
		t.Error("NaN was written")
	}
	if _, err := appendRecord(nil, &Record{Context: map[string]any{"x": math.Inf(1)}}, nil); err == nil {
		t.Error("an infinity was written")
	}
}

// The encoder redacts as Redactor.Record does: its line is encoding/json's
// line of the redacted record, whatever the types of the values.
func TestAppendRecordRedactsAsRecord(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 17))
	secrets := []string{"sk-proj-abcdefghijklmnopqrstuvwx", "AKIAABCDEFGHIJKLMNOP", "token=hunter22", "Bearer abcdefghijklmnopqrstu",
		"meg@example.com", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"}
	text := func() string {
		if rng.IntN(3) == 0 {
			return randomText(rng) + secrets[rng.IntN(len(secrets))] + randomText(rng)
		}
		return randomText(rng)
	}
	value := func() any {
		switch rng.IntN(5) {
		case 0:
			return text()
		case 1:
			return []any{text(), 1, map[string]any{"k": text()}}
		case 2:
			return map[string]string{"env": text()}
		case 3:
			return []map[string]any{{"content": text()}}
		}
		return randomValue(rng, 0)
	}
	red := NewRedactor(append(append([]Redaction{}, APIKeys...), Emails...)...)
	changed := 0
	for i := range 3000 {
		r := &Record{ID: text(), Session: text(), Suggestions: []string{text(), text()}, ActualInput: text(), MatchType: MatchNone,
			Context: map[string]any{"blocks": value(), text(): value()}, LLMRequest: map[string]any{"messages": value()}}
		if rng.IntN(2) == 0 {
			r.LLMResponse = map[string]any{"raw": value(), "n": 3}
		}
		got, err := appendRecord(nil, r, red)
		if err != nil {
			t.Fatal(err)
		}
		redacted := red.Record(r)
		if want := stdLine(t, redacted); !bytes.Equal(got, want) {
			t.Fatalf("record %d:\n got %s\nwant %s", i, got, want)
		}
		if redacted != r {
			changed++
		}
	}
	if changed < 1000 {
		t.Errorf("only %d records held a secret", changed)
	}
}
