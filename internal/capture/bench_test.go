package capture

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"
)

// benchBodies are a turn of today's shape and the same turn as the richer
// record, as JSON.
func benchBodies(i int) (today, rich []byte) {
	user := fmt.Sprint("My employee didn't show up for 3 days, case ", i)
	response := "Got it — that's definitely something we need to address right away. Per our attendance policy, call first."
	today = fmt.Appendf(nil, `{"conversation_id":"bench-1","tester_id":"tester-bench-1","tester_email":"meg@example.com",`+
		`"user_message":%q,"response":%q,"prompt_version":"fc26922","processing_time_ms":812.5,"avg_similarity":0.82}`, user, response)
	rich = fmt.Appendf(nil, `{"conversation_id":"bench-1","tester_id":"tester-bench-1","tester_email":"meg@example.com",`+
		`"messages":[{"role":"system","content":"You are ERA, the HR assistant of Acme. Answer from the attendance policy, briefly and kindly."},`+
		`{"role":"user","content":%q},{"role":"assistant","content":%q}],"prompt_version":"fc26922","processing_time_ms":812.5,`+
		`"avg_similarity":0.82,"model":"gpt-4o-mini","latency_ms":640.5,"source":"proxy",`+
		`"usage":{"prompt_tokens":412,"completion_tokens":38,"total_tokens":450},"trace_id":"%032x","span_id":"%016x","parent_id":"%016x"}`, user, response, i+1, i+1, i+1<<32)
	return today, rich
}

// nullStore records nothing.
type nullStore struct{ Store }

func (nullStore) RecordTurns(_ context.Context, recs []TurnRecord) ([]TurnResult, error) {
	return make([]TurnResult, len(recs)), nil
}

// BenchmarkPrepare decodes a turn as the API does and prepares it for the
// store (clean, validate, derive, encode): today's shape and the richer
// record.
func BenchmarkPrepare(b *testing.B) {
	today, rich := benchBodies(7)
	r := NewRecorder(nullStore{}, nil)
	for _, c := range []struct {
		name string
		body []byte
	}{{"today", today}, {"rich", rich}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.body)))
			for b.Loop() {
				var in TurnInput
				dec := json.NewDecoder(bytes.NewReader(c.body))
				dec.DisallowUnknownFields()
				if err := dec.Decode(&in); err != nil {
					b.Fatal(err)
				}
				if _, err := r.prepare(in, ""); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
