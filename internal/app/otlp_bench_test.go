package app_test

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/honehq/hone/internal/api"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
)

// benchSpans is an OTLP export (protobuf) of the turns richBenchTurn makes
// for conversation c's turns from i, as chat spans under the current GenAI
// semantic conventions, the same content the batch path is sent.
func benchSpans(b *testing.B, conversation func(j int) string, from, n int) []byte {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "era")
	ss := rs.ScopeSpans().AppendEmpty()
	now := time.Now()
	for j := range n {
		t := richBenchTurn(conversation(j), from+j)
		msgs := t["messages"].([]map[string]any)
		s := ss.Spans().AppendEmpty()
		var tid pcommon.TraceID
		var sid pcommon.SpanID
		copy(tid[:], fmt.Sprintf("%016x", from+j+1))
		tid[0] = 'o'
		copy(sid[:], fmt.Sprintf("%08x", from+j+1))
		s.SetTraceID(tid)
		s.SetSpanID(sid)
		s.SetName("chat gpt-4o-mini")
		s.SetStartTimestamp(pcommon.NewTimestampFromTime(now))
		s.SetEndTimestamp(pcommon.NewTimestampFromTime(now.Add(640 * time.Millisecond)))
		a := s.Attributes()
		a.PutStr("gen_ai.operation.name", "chat")
		a.PutStr("gen_ai.request.model", "gpt-4o-mini")
		a.PutStr("gen_ai.conversation.id", t["conversation_id"].(string))
		a.PutStr("user.id", t["tester_id"].(string))
		a.PutInt("gen_ai.usage.input_tokens", 412)
		a.PutInt("gen_ai.usage.output_tokens", 38)
		part := func(role string, content any) map[string]any {
			return map[string]any{"role": role, "parts": []any{map[string]any{"type": "text", "content": content}}}
		}
		sys, _ := json.Marshal([]any{map[string]any{"type": "text", "content": msgs[0]["content"]}})
		in, _ := json.Marshal([]any{part("user", msgs[1]["content"])})
		out, _ := json.Marshal([]any{part("assistant", msgs[2]["content"])})
		a.PutStr("gen_ai.system_instructions", string(sys))
		a.PutStr("gen_ai.input.messages", string(in))
		a.PutStr("gen_ai.output.messages", string(out))
	}
	body, err := ptraceotlp.NewExportRequestFromTraces(td).MarshalProto()
	if err != nil {
		b.Fatal(err)
	}
	return body
}

// BenchmarkOTLPIngest sends the same rich turns (a system prompt, the
// user's message and the answer, model, usage, trace context) to one
// server on SQLite from 4 concurrent clients two ways, in 10 paired rounds
// alternating which goes first: as OTLP/HTTP protobuf exports of 100 chat
// spans each (POST /v1/traces) and as batches of 100 turns (POST
// /api/v1/turns/batch). It reports both rates and the median of the
// rounds' ratios of the OTLP rate to the batch rate (the goal is at least
// 0.7). Use -benchtime 400x: 400 requests, 40,000 turns, of each way.
func BenchmarkOTLPIngest(b *testing.B) {
	const clients, batch = 4, 100
	a := start(b, slog.New(slog.DiscardHandler))
	per := max(b.N/clients/benchRounds, 1)
	type round struct{ otlp, turns [][][]byte }
	rounds := make([]round, benchRounds)
	for r := range rounds {
		rounds[r].otlp = make([][][]byte, clients)
		rounds[r].turns = make([][][]byte, clients)
		for c := range clients {
			for i := range per {
				from := ((r*clients+c)*per + i) * batch
				conv := func(kind string) func(int) string {
					return func(j int) string { return fmt.Sprintf("bench-%s-%d-%d", kind, c, j%10) }
				}
				rounds[r].otlp[c] = append(rounds[r].otlp[c], benchSpans(b, conv("otlp"), from, batch))
				items := make([]map[string]any, batch)
				for j := range items {
					items[j] = richBenchTurn(conv("batch")(j), from+j)
				}
				body, _ := json.Marshal(items)
				rounds[r].turns[c] = append(rounds[r].turns[c], body)
			}
		}
	}
	otlpCheck := func(answer []byte) error {
		r := ptraceotlp.NewExportResponse()
		if err := r.UnmarshalProto(answer); err != nil || r.PartialSuccess().RejectedSpans() != 0 {
			return fmt.Errorf("OTLP answer %q: %v", r.PartialSuccess().ErrorMessage(), err)
		}
		return nil
	}
	var elapsed [2]time.Duration
	ratios := make([]float64, 0, benchRounds)
	b.ResetTimer()
	for r, rd := range rounds {
		var took [2]time.Duration
		for k := range 2 {
			if (k+r)%2 == 0 {
				took[0] = postAllAs(b, a.URL()+"/v1/traces", "application/x-protobuf", rd.otlp, http.StatusOK, otlpCheck)
			} else {
				took[1] = postAll(b, a.URL()+api.Prefix+"/turns/batch", rd.turns, http.StatusOK, batchCheck(batch))
			}
		}
		elapsed[0] += took[0]
		elapsed[1] += took[1]
		ratios = append(ratios, took[1].Seconds()/took[0].Seconds())
	}
	b.StopTimer()
	n := float64(benchRounds * clients * per * batch)
	slices.Sort(ratios)
	b.ReportMetric(n/elapsed[0].Seconds(), "otlp-spans/s")
	b.ReportMetric(n/elapsed[1].Seconds(), "batch-turns/s")
	b.ReportMetric((ratios[(len(ratios)-1)/2]+ratios[len(ratios)/2])/2, "otlp/batch")
}
