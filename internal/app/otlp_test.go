package app_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/honehq/hone/internal/app"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/config"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
)

// otlpIDs are the trace and span ids of span n of trace t.
func otlpIDs(t, n int) (pcommon.TraceID, pcommon.SpanID) {
	var tid pcommon.TraceID
	var sid pcommon.SpanID
	tid[0], tid[15] = byte(t+1), 1
	sid[0], sid[7] = 1, byte(n+1)
	return tid, sid
}

// chatSpan adds to ss a span of a chat exchange under the current GenAI
// semantic conventions.
func chatSpan(ss ptrace.ScopeSpans, trace, n int, conversation, question, answer string) ptrace.Span {
	s := ss.Spans().AppendEmpty()
	tid, sid := otlpIDs(trace, n)
	s.SetTraceID(tid)
	s.SetSpanID(sid)
	s.SetName("chat gpt-4o-mini")
	start := time.Now().Add(-time.Second)
	s.SetStartTimestamp(pcommon.NewTimestampFromTime(start))
	s.SetEndTimestamp(pcommon.NewTimestampFromTime(start.Add(250 * time.Millisecond)))
	a := s.Attributes()
	a.PutStr("gen_ai.operation.name", "chat")
	a.PutStr("gen_ai.request.model", "gpt-4o-mini")
	a.PutStr("gen_ai.response.id", fmt.Sprintf("chatcmpl-%d-%d", trace, n))
	a.PutStr("gen_ai.conversation.id", conversation)
	a.PutInt("gen_ai.usage.input_tokens", 20)
	a.PutInt("gen_ai.usage.output_tokens", 5)
	a.PutStr("gen_ai.input.messages", fmt.Sprintf(`[{"role":"user","parts":[{"type":"text","content":%q}]}]`, question))
	if answer != "" {
		a.PutStr("gen_ai.output.messages", fmt.Sprintf(`[{"role":"assistant","parts":[{"type":"text","content":%q}]}]`, answer))
	}
	return s
}

// otlpSend posts an OTLP export, protobuf or JSON, gzipped or not, and
// returns the status and body.
func otlpSend(t *testing.T, url string, body []byte, json, zip bool, token string) (int, []byte) {
	t.Helper()
	ct := "application/x-protobuf"
	if json {
		ct = "application/json"
	}
	req, _ := http.NewRequest("POST", url, bytes.NewReader(body))
	if zip {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write(body)
		zw.Close()
		req, _ = http.NewRequest("POST", url, &b)
		req.Header.Set("Content-Encoding", "gzip")
	}
	req.Header.Set("Content-Type", ct)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	if got := res.Header.Get("Content-Type"); got != ct {
		t.Errorf("answer Content-Type %q, want %q", got, ct)
	}
	return res.StatusCode, out
}

func encodeTraces(t *testing.T, td ptrace.Traces, json bool) []byte {
	req := ptraceotlp.NewExportRequestFromTraces(td)
	var b []byte
	var err error
	if json {
		b, err = req.MarshalJSON()
	} else {
		b, err = req.MarshalProto()
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func encodeLogs(t *testing.T, ld plog.Logs, json bool) []byte {
	req := plogotlp.NewExportRequestFromLogs(ld)
	var b []byte
	var err error
	if json {
		b, err = req.MarshalJSON()
	} else {
		b, err = req.MarshalProto()
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func traceAnswer(t *testing.T, body []byte, json bool) ptraceotlp.ExportResponse {
	t.Helper()
	r := ptraceotlp.NewExportResponse()
	decodeAnswer(t, body, json, r)
	return r
}

func logAnswer(t *testing.T, body []byte, json bool) plogotlp.ExportResponse {
	t.Helper()
	r := plogotlp.NewExportResponse()
	decodeAnswer(t, body, json, r)
	return r
}

// decodeAnswer decodes an OTLP answer into r, in JSON or protobuf.
func decodeAnswer(t *testing.T, body []byte, json bool, r interface {
	UnmarshalJSON([]byte) error
	UnmarshalProto([]byte) error
}) {
	t.Helper()
	unmarshal := r.UnmarshalProto
	if json {
		unmarshal = r.UnmarshalJSON
	}
	if err := unmarshal(body); err != nil {
		t.Fatalf("answer %q: %v", body, err)
	}
}

// conversationTurns are the turns of a conversation's current session.
func conversationTurns(t *testing.T, a *app.App, conversation string) []*capture.Turn {
	t.Helper()
	ctx := context.Background()
	s, err := a.DB.Capture().CurrentSession(ctx, conversation)
	if err != nil {
		t.Fatalf("conversation %s: %v", conversation, err)
	}
	var out []*capture.Turn
	if err := a.DB.Capture().EachTurn(ctx, s.ID, func(t *capture.Turn) error { out = append(out, t); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

// evaluation adds a gen_ai.evaluation.result record to sl.
func evaluation(sl plog.ScopeLogs, attrs map[string]any, trace, span int) {
	lr := sl.LogRecords().AppendEmpty()
	lr.SetEventName("gen_ai.evaluation.result")
	lr.SetTimestamp(pcommon.NewTimestampFromTime(time.Now()))
	if trace >= 0 {
		tid, sid := otlpIDs(trace, span)
		lr.SetTraceID(tid)
		lr.SetSpanID(sid)
	}
	_ = lr.Attributes().FromRaw(attrs)
}

// TestOTLPTracesAndEvaluations: chat spans exported in protobuf and JSON,
// gzipped or not, become turns (source otlp, trace context, model, usage,
// latency), other spans are ignored, a span whose chat has no answer is
// rejected the OTLP way; evaluation events linked by span, by response id
// or by another span of the trace become scores of those turns, and one of
// no turn is rejected.
func TestOTLPTracesAndEvaluations(t *testing.T) {
	eachDatabaseConfig(t, func(t *testing.T, cfg config.Config) {
		a := startWith(t, cfg)
		for i, enc := range []struct{ json, zip bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
			name := fmt.Sprintf("json=%v gzip=%v", enc.json, enc.zip)
			conv := fmt.Sprintf("otel-%d", i)
			td := ptrace.NewTraces()
			rs := td.ResourceSpans().AppendEmpty()
			rs.Resource().Attributes().PutStr("service.name", "era")
			rs.Resource().Attributes().PutStr("user.id", "meg")
			ss := rs.ScopeSpans().AppendEmpty()
			chatSpan(ss, i, 0, conv, "My employee didn't show up", "Call them first.")
			chatSpan(ss, i, 1, conv, "And then?", "")
			other := ss.Spans().AppendEmpty()
			other.SetName("GET /healthz")
			status, body := otlpSend(t, a.URL()+"/v1/traces", encodeTraces(t, td, enc.json), enc.json, enc.zip, "")
			if status != http.StatusOK {
				t.Fatalf("%s: %d %s", name, status, body)
			}
			ps := traceAnswer(t, body, enc.json).PartialSuccess()
			if ps.RejectedSpans() != 1 || !strings.Contains(ps.ErrorMessage(), "no assistant message") {
				t.Errorf("%s: partial success %d %q, want 1 span rejected for its missing answer", name, ps.RejectedSpans(), ps.ErrorMessage())
			}
			turns := conversationTurns(t, a, conv)
			if len(turns) != 1 {
				t.Fatalf("%s: %d turns, want 1", name, len(turns))
			}
			tu := turns[0]
			tid, sid := otlpIDs(i, 0)
			if tu.Source != "otlp" || tu.TraceID != tid.String() || tu.SpanID != sid.String() || tu.Model != "gpt-4o-mini" ||
				tu.UserMessage != "My employee didn't show up" || tu.Response != "Call them first." ||
				tu.Usage == nil || tu.Usage.TotalTokens != 25 || tu.LatencyMS == nil || *tu.LatencyMS != 250 {
				t.Errorf("%s: turn %+v", name, tu)
			}
			// The same export again records nothing new.
			if status, body := otlpSend(t, a.URL()+"/v1/traces", encodeTraces(t, td, enc.json), enc.json, enc.zip, ""); status != http.StatusOK {
				t.Fatalf("%s again: %d %s", name, status, body)
			}
			if n := len(conversationTurns(t, a, conv)); n != 1 {
				t.Errorf("%s: %d turns after the export was sent again, want 1", name, n)
			}

			ld := plog.NewLogs()
			rl := ld.ResourceLogs().AppendEmpty()
			rl.Resource().Attributes().PutStr("service.name", "ragas")
			sl := rl.ScopeLogs().AppendEmpty()
			evaluation(sl, map[string]any{"gen_ai.evaluation.name": "Relevance", "gen_ai.evaluation.score.value": 0.75,
				"gen_ai.evaluation.score.label": "relevant", "gen_ai.evaluation.explanation": "on topic"}, i, 0)
			evaluation(sl, map[string]any{"gen_ai.evaluation.name": "tone", "gen_ai.evaluation.score.label": "warm",
				"gen_ai.response.id": fmt.Sprintf("chatcmpl-%d-0", i)}, -1, 0)
			evaluation(sl, map[string]any{"gen_ai.evaluation.name": "relevance", "gen_ai.evaluation.score.value": 0.1}, 99, 0)
			evaluation(sl, map[string]any{"gen_ai.evaluation.name": "task_success", "gen_ai.evaluation.score.value": 1}, i, 7)
			sl.LogRecords().AppendEmpty().Body().SetStr("an ordinary log line")
			status, body = otlpSend(t, a.URL()+"/v1/logs", encodeLogs(t, ld, enc.json), enc.json, enc.zip, "")
			if status != http.StatusOK {
				t.Fatalf("%s logs: %d %s", name, status, body)
			}
			lps := logAnswer(t, body, enc.json).PartialSuccess()
			if lps.RejectedLogRecords() != 1 || !strings.Contains(lps.ErrorMessage(), "no turn was recorded") {
				t.Errorf("%s: logs partial success %d %q, want the one of no turn rejected", name, lps.RejectedLogRecords(), lps.ErrorMessage())
			}
			code, out := raw(t, "GET", a.URL()+"/api/v1/scores?turn_id="+tu.ID, "", nil)
			var page struct{ Scores []map[string]any }
			if err := json.Unmarshal([]byte(out), &page); code != http.StatusOK || err != nil {
				t.Fatalf("scores: %d %s", code, out)
			}
			got := map[string]string{}
			for _, s := range page.Scores {
				got[s["config"].(string)] = fmt.Sprintf("%v|%v|%v|%v", s["value"], s["source"], s["author"], s["comment"])
			}
			want := map[string]string{"relevance": "0.75|otlp|ragas|relevant\non topic", "tone": "warm|otlp|ragas|<nil>",
				"task_success": "1|otlp|ragas|<nil>"}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s: scores %v, want %v", name, got, want)
			}
		}
		series, _ := scrape(t, a.URL(), "")
		for k, want := range map[string]float64{`hone_otlp_ignored_total{kind="span"}`: 8, `hone_otlp_ignored_total{kind="log_record"}`: 4,
			`hone_turns_recorded_total{source="otlp"}`: 4} {
			if series[k] != want {
				t.Errorf("%s = %v, want %v", k, series[k], want)
			}
		}
	})
}

// TestOTLPTokenAndBodies: with an API token the OTLP endpoints take only
// it, without one only the hosts hone answers to; a body of another type is 415, one that is no export 400, one too
// large 413, each with a Status in the request's encoding.
func TestOTLPTokenAndBodies(t *testing.T) {
	const token = "a-long-enough-token-0123456789"
	a := startWith(t, config.Config{APIToken: token})
	td := ptrace.NewTraces()
	chatSpan(td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty(), 0, 0, "c", "hi", "hello")
	body := encodeTraces(t, td, false)
	for _, c := range []struct {
		token string
		want  int
	}{{"", 401}, {"wrong-token-0123456789", 401}, {token, 200}} {
		if status, out := otlpSend(t, a.URL()+"/v1/traces", body, false, false, c.token); status != c.want {
			t.Errorf("token %q: %d %q, want %d", c.token, status, out, c.want)
		}
	}
	b := startWith(t, config.Config{})
	for _, c := range []struct {
		what, path, ct, enc, body string
		want                      int
	}{
		{"text/plain", "/v1/traces", "text/plain", "", "{}", 415},
		{"an unknown encoding", "/v1/logs", "application/json", "br", "{}", 415},
		{"bad protobuf", "/v1/traces", "application/x-protobuf", "", "\xff\xff\xff", 400},
		{"bad JSON", "/v1/logs", "application/json", "", `{"resourceLogs": 7}`, 400},
		{"bad gzip", "/v1/logs", "application/json", "gzip", `{}`, 400},
		{"too large", "/v1/traces", "application/json", "", `{"resourceSpans":[]` + strings.Repeat(" ", 17<<20) + `}`, 413},
		{"empty JSON", "/v1/traces", "application/json", "", `{}`, 200},
	} {
		h := map[string]string{"Content-Type": c.ct}
		if c.enc != "" {
			h["Content-Encoding"] = c.enc
		}
		if status, out := raw(t, "POST", b.URL()+c.path, c.body, h); status != c.want {
			t.Errorf("%s: %d %.200q, want %d", c.what, status, out, c.want)
		}
	}
	port := b.URL()[strings.LastIndexByte(b.URL(), ':')+1:]
	if status, out := raw(t, "POST", b.URL()+"/v1/traces", "{}", map[string]string{"Content-Type": "application/json",
		"Host": "evil.example:" + port}); status != http.StatusForbidden {
		t.Errorf("a rebound export: %d %.200q, want 403", status, out)
	}
	if status, _ := raw(t, "GET", b.URL()+"/v1/traces", "", nil); status != http.StatusMethodNotAllowed {
		t.Errorf("GET /v1/traces: %d, want 405", status)
	}
}

// TestScoresPushedToOTLP: with HONE_OTLP_EXPORT_URL set, every score
// recorded, by any path (POST /scores, a 👎), reaches an OTLP receiver
// that first answers 503, once, as a gen_ai.evaluation.result record
// linked to its turn's trace and span.
func TestScoresPushedToOTLP(t *testing.T) {
	var mu sync.Mutex
	var got []plog.LogRecord
	var paths []string
	fails := 1
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if fails > 0 {
			fails--
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		body, _ := io.ReadAll(r.Body)
		req := plogotlp.NewExportRequest()
		if err := req.UnmarshalProto(body); err != nil || r.Header.Get("Content-Type") != "application/x-protobuf" || r.Header.Get("X-Key") != "k 1" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		paths = append(paths, r.URL.Path)
		for _, rl := range req.Logs().ResourceLogs().All() {
			for _, sl := range rl.ScopeLogs().All() {
				for _, lr := range sl.LogRecords().All() {
					got = append(got, lr)
				}
			}
		}
		b, _ := plogotlp.NewExportResponse().MarshalProto()
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(b)
	}))
	defer recv.Close()
	t.Setenv("HONE_OTLP_EXPORT_URL", recv.URL)
	t.Setenv("HONE_OTLP_EXPORT_HEADERS", "X-Key=k%201")
	a := startWith(t, config.Config{})
	td := ptrace.NewTraces()
	chatSpan(td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty(), 3, 0, "pushed", "hi", "hello")
	if status, out := otlpSend(t, a.URL()+"/v1/traces", encodeTraces(t, td, false), false, false, ""); status != 200 {
		t.Fatalf("traces: %d %q", status, out)
	}
	tu := conversationTurns(t, a, "pushed")[0]
	score := map[string]any{"id": "s-1", "turn_id": tu.ID, "config": "thumbs", "value": true, "comment": "spot on", "author": "meg"}
	for _, want := range []int{http.StatusCreated, http.StatusOK} {
		if code, out := post(t, a.URL()+"/api/v1/scores", score); code != want {
			t.Fatalf("score: %d %v, want %d", code, out, want)
		}
	}
	if code, out := post(t, a.URL()+"/api/v1/turns/"+tu.ID+"/feedback", map[string]any{"tester_id": "ann", "rating": "down"}); code != http.StatusOK {
		t.Fatalf("feedback: %d %v", code, out)
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n >= 2 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(1500 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 2 {
		t.Fatalf("the receiver got %d records, want 2: the score once, though sent twice, and the 👎", len(got))
	}
	lr, down := got[0], got[1]
	if v, _ := lr.Attributes().Get("hone.score.id"); v.Str() != "s-1" {
		lr, down = down, lr
	}
	if a := down.Attributes().AsRaw(); a["hone.score.author"] != "ann" || a["gen_ai.evaluation.score.label"] != "false" || down.SpanID() != lr.SpanID() {
		t.Errorf("the 👎: %v", a)
	}
	tid, sid := otlpIDs(3, 0)
	attr := func(k string) string { v, _ := lr.Attributes().Get(k); return v.AsString() }
	if lr.EventName() != "gen_ai.evaluation.result" || lr.TraceID() != tid || lr.SpanID() != sid || paths[0] != "/v1/logs" ||
		attr("gen_ai.evaluation.name") != "thumbs" || attr("gen_ai.evaluation.score.label") != "true" || attr("gen_ai.evaluation.score.value") != "1" ||
		attr("gen_ai.evaluation.explanation") != "spot on" || attr("hone.turn.id") != tu.ID || attr("hone.score.author") != "meg" {
		t.Errorf("record %v %v %v %v", lr.EventName(), lr.TraceID(), lr.SpanID(), lr.Attributes().AsRaw())
	}
}
