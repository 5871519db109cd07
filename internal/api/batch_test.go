package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/honehq/hone/internal/api"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/config"
	"github.com/honehq/hone/internal/ndjson"
)

// batch posts body to /turns/batch and returns the answer, which must have
// the status and match the BatchAnswer schema.
func (s *apiServer) batch(body string, header http.Header, status int) api.BatchAnswer {
	s.t.Helper()
	h := http.Header{}
	if s.token != "" {
		h.Set("Authorization", "Bearer "+s.token)
	}
	for k, v := range header {
		h[k] = v
	}
	res, b := s.send("POST", "/turns/batch", body, h)
	if res.StatusCode != status {
		s.t.Fatalf("POST /turns/batch: %d, want %d: %s", res.StatusCode, status, b)
	}
	validate(s.t, "BatchAnswer", b)
	var out api.BatchAnswer
	if err := jsonUnmarshal(b, &out); err != nil {
		s.t.Fatal(err)
	}
	return out
}

func TestBatchTurns(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		s := start(t, cfg)
		var items []map[string]any
		for i := range 9 {
			items = append(items, turn(fmt.Sprint("conv-", i%3), fmt.Sprint("question ", i)))
		}
		items[4]["response"] = "  "
		items[7]["avg_similarity"] = 2
		out := s.batch(mustJSON(t, items), nil, http.StatusMultiStatus)
		if len(out.Results) != 9 {
			t.Fatalf("%d results for 9 turns", len(out.Results))
		}
		want := map[int]int{0: 1, 1: 1, 2: 1, 3: 2, 5: 2, 6: 3, 8: 3}
		sessions := map[string]bool{}
		for i, r := range out.Results {
			if r.Index != i {
				t.Errorf("result %d has index %d", i, r.Index)
			}
			switch i {
			case 4, 7:
				field := map[int]string{4: "response", 7: "avg_similarity"}[i]
				if r.Error == nil || r.Error.Code != "invalid" || r.Error.Field != field || r.ID != "" {
					t.Errorf("bad turn %d: %+v", i, r)
				}
			default:
				if r.Error != nil || r.TurnNumber != want[i] || r.ID == "" {
					t.Errorf("turn %d: %+v, want number %d", i, r, want[i])
				}
				sessions[r.SessionID] = true
			}
		}
		if len(sessions) != 3 {
			t.Errorf("the turns of 3 conversations went to %d sessions", len(sessions))
		}
		for conv, n := range map[string]int{"conv-0": 3, "conv-1": 1, "conv-2": 3} {
			s.say(conv, "!session")
			if got := s.session(out.Results[map[string]int{"conv-0": 0, "conv-1": 1, "conv-2": 2}[conv]].SessionID); got.TotalTurns != n {
				t.Errorf("%s: total_turns %d, want %d", conv, got.TotalTurns, n)
			}
		}

		ndjson := mustJSON(t, turn("conv-0", "ten")) + "\n\n" + `{"conversation_id": "conv-0", "tester_id": ` + "\n" +
			mustJSON(t, turn("conv-0", "eleven")) + "\n"
		out = s.batch(ndjson, http.Header{"Content-Type": {"application/x-ndjson"}}, http.StatusMultiStatus)
		if len(out.Results) != 3 || out.Results[0].TurnNumber != 4 || out.Results[2].TurnNumber != 5 ||
			out.Results[1].Error == nil || !strings.HasPrefix(out.Results[1].Error.Message, "line 3: ") {
			t.Errorf("NDJSON: %+v", out.Results)
		}

		all := s.batch(mustJSON(t, []any{turn("conv-9", "a"), turn("conv-9", "b")}), nil, http.StatusOK)
		if all.Results[0].TurnNumber != 1 || all.Results[1].TurnNumber != 2 {
			t.Errorf("an all-good batch: %+v", all.Results)
		}
		for _, bad := range []string{``, `[]`, "\n\n", `[{"conversation_id": "c",`, `[1, 2`, `[] []`} {
			s.wantError("POST", "/turns/batch", bad, http.StatusBadRequest, "invalid", "")
		}
	})
}

func TestIdempotentTurns(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		s := start(t, cfg)
		body := mustJSON(t, turn("c1", "My employee quit"))
		key := http.Header{"Idempotency-Key": {"7f2c1e0a-retry-1"}, "Authorization": nil}
		res, b := s.send("POST", "/turns", body, key)
		if res.StatusCode != http.StatusCreated || res.Header.Get(api.ReplayedHeader) != "" {
			t.Fatalf("first: %d %s", res.StatusCode, b)
		}
		var first, again api.TurnCreated
		jsonUnmarshal(b, &first)
		res, b = s.send("POST", "/turns", body, key)
		jsonUnmarshal(b, &again)
		if res.StatusCode != http.StatusOK || res.Header.Get(api.ReplayedHeader) != "true" || again != first {
			t.Fatalf("retry: %d %s, want 200 and %+v", res.StatusCode, b, first)
		}
		validate(t, "TurnCreated", b)
		res, b = s.send("POST", "/turns", mustJSON(t, turn("c1", "something else")), key)
		if res.StatusCode != http.StatusConflict || !strings.Contains(string(b), `"field":"Idempotency-Key"`) {
			t.Fatalf("the key with another turn: %d %s", res.StatusCode, b)
		}
		if got := s.session(first.SessionID); got.TotalTurns != 1 {
			t.Fatalf("total_turns %d after retries, want 1", got.TotalTurns)
		}

		withID := turn("c2", "hello", "id", "app-turn-42")
		one := s.postTurn(withID)
		if one.ID != "app-turn-42" {
			t.Fatalf("the client's id was not kept: %+v", one)
		}
		res, b = s.send("POST", "/turns", mustJSON(t, withID), nil)
		if res.StatusCode != http.StatusOK || !strings.Contains(string(b), `"id":"app-turn-42"`) {
			t.Fatalf("the same id again: %d %s", res.StatusCode, b)
		}
		withID["response"] = "changed"
		s.wantError("POST", "/turns", mustJSON(t, withID), http.StatusConflict, "conflict", "id")

		// Ten clients retrying the same request at once record it once.
		var wg sync.WaitGroup
		ids := make([]string, 10)
		statuses := make([]int, 10)
		racing := mustJSON(t, turn("c3", "raced"))
		for i := range 10 {
			wg.Go(func() {
				res, b := s.send("POST", "/turns", racing, http.Header{"Idempotency-Key": {"race-key"}})
				var tc api.TurnCreated
				jsonUnmarshal(b, &tc)
				ids[i], statuses[i] = tc.ID, res.StatusCode
			})
		}
		wg.Wait()
		created := 0
		for i := range ids {
			if ids[i] != ids[0] || ids[i] == "" {
				t.Errorf("retry %d got turn %q (status %d), the first %q", i, ids[i], statuses[i], ids[0])
			}
			if statuses[i] == http.StatusCreated {
				created++
			}
		}
		if created != 1 {
			t.Errorf("%d of 10 concurrent retries answered 201, want exactly 1: %v", created, statuses)
		}

		// A batch retried with its key records nothing twice; its items keep their results.
		items := mustJSON(t, []any{turn("c4", "a"), turn("c4", "b"), turn("c5", "c")})
		h := http.Header{"Idempotency-Key": {"batch-1"}}
		b1 := s.batch(items, h, http.StatusOK)
		b2 := s.batch(items, h, http.StatusOK)
		for i := range b1.Results {
			r1, r2 := b1.Results[i], b2.Results[i]
			if r1.Replayed || !r2.Replayed || r1.ID != r2.ID || r1.TurnNumber != r2.TurnNumber {
				t.Errorf("batch item %d: first %+v, retry %+v", i, r1, r2)
			}
		}
		// The same id twice in one batch is recorded once.
		dup := mustJSON(t, []any{turn("c6", "x", "id", "dup-1"), turn("c6", "x", "id", "dup-1"), turn("c6", "y", "id", "dup-1")})
		d := s.batch(dup, nil, http.StatusMultiStatus)
		if d.Results[0].Replayed || !d.Results[1].Replayed || d.Results[1].ID != "dup-1" || d.Results[2].Error == nil ||
			d.Results[2].Error.Code != "conflict" {
			t.Errorf("duplicate ids in a batch: %+v", d.Results)
		}
		if got := s.session(d.Results[0].SessionID); got.TotalTurns != 1 {
			t.Errorf("duplicate ids in a batch made %d turns", got.TotalTurns)
		}
	})
}

func TestNULAndInvalidUTF8AreReplacedAlike(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		s := start(t, cfg)
		// Raw bytes that are not UTF-8 inside JSON strings, and NUL escapes
		// in text and in the JSON fields PostgreSQL keeps as jsonb.
		body := "{\"conversation_id\":\"c\\u0000nul\",\"tester_id\":\"meg\",\"user_message\":\"broken \xff\xfe bytes\"," +
			"\"response\":\"nul \\u0000 inside, cut \xe2\x82\",\"prompt_version\":\"v\\u0000\",\"metadata\":{\"k\\u0000\":\"v\\u0000\"}," +
			"\"search_results\":[\"chunk \\u0000\", {\"lone\":\"\\ud800\"}]}"
		var created api.TurnCreated
		s.json("POST", "/turns", body, http.StatusCreated, "TurnCreated", &created)
		s.say("c\u0000nul", "!improve tone: note with \u0000 nul")
		sess := s.session(created.SessionID)
		if sess.ConversationID != "c\uFFFDnul" || sess.PromptVersion != "v\uFFFD" {
			t.Errorf("session %q %q", sess.ConversationID, sess.PromptVersion)
		}
		ex := s.exportJSON(created.SessionID)
		tr := ex.Turns[0]
		if tr.UserMessage != "broken \uFFFD\uFFFD bytes" || tr.Response != "nul \uFFFD inside, cut \uFFFD\uFFFD" ||
			!jsonEqual(t, tr.Metadata, `{"k\ufffd":"v\ufffd"}`) || !jsonEqual(t, tr.SearchResults, `["chunk \ufffd", {"lone":"\ufffd"}]`) ||
			tr.Improvements[0].Note != "note with \uFFFD nul" {
			t.Errorf("stored %+v", tr)
		}
		csv := s.exportCSV(created.SessionID)
		if !utf8.ValidString(csv) || strings.Contains(csv, "\x00") || !strings.Contains(csv, "note with \uFFFD nul") {
			t.Errorf("CSV export is not clean UTF-8: %q", csv)
		}
		_, raw := s.call("GET", "/sessions/"+created.SessionID+"/export.json", "")
		if !utf8.Valid(raw) || strings.Contains(string(raw), `\u0000`) {
			t.Errorf("JSON export is not clean: %s", raw)
		}
	})
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// TestBatchBounds: a batch carries at most ndjson.MaxBatchItems turns (413
// naming the bound beyond it, nothing recorded), and its answer lists the
// first ndjson.ListedErrors errors in full and counts the rest, so that a
// body of 4 MiB of bad lines gets a small answer.
func TestBatchBounds(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		s := start(t, cfg)
		h := http.Header{"Content-Type": {"application/x-ndjson"}}

		flood := strings.Repeat("{}\n", (4<<20)/3-1)
		res, b := s.send("POST", "/turns/batch", flood, withToken(s, h))
		if res.StatusCode != http.StatusRequestEntityTooLarge || errorOf(t, b).Code != "too_large" ||
			!strings.Contains(errorOf(t, b).Message, fmt.Sprint(ndjson.MaxBatchItems)) || len(b) > 1024 {
			t.Fatalf("4 MiB of {} lines: %d (%d bytes) %.300s", res.StatusCode, len(b), b)
		}
		array := "[" + strings.Repeat("{},", ndjson.MaxBatchItems) + "{}]"
		if res, b := s.send("POST", "/turns/batch", array, withToken(s, nil)); res.StatusCode != http.StatusRequestEntityTooLarge {
			t.Fatalf("an array of %d turns: %d %.300s", ndjson.MaxBatchItems+1, res.StatusCode, b)
		}

		var lines []string
		for i := range ndjson.MaxBatchItems {
			if i%1000 == 0 {
				lines = append(lines, mustJSON(t, turn("conv-bounds", fmt.Sprint("question ", i))))
			} else {
				lines = append(lines, "{}")
			}
		}
		res, b = s.send("POST", "/turns/batch", strings.Join(lines, "\n"), withToken(s, h))
		if res.StatusCode != http.StatusMultiStatus || len(b) > 64<<10 {
			t.Fatalf("%d lines, all but 10 bad: %d, %d bytes", ndjson.MaxBatchItems, res.StatusCode, len(b))
		}
		validate(t, "BatchAnswer", b)
		var out api.BatchAnswer
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatal(err)
		}
		recorded, listed, last := 0, 0, -1
		for _, r := range out.Results {
			if r.Index <= last {
				t.Fatalf("results out of order: %d after %d", r.Index, last)
			}
			last = r.Index
			if r.Error != nil {
				listed++
				if r.Error.Field != "conversation_id" && r.Error.Field != "user_message" && r.Error.Field != "response" {
					t.Errorf("result %d: %+v", r.Index, r.Error)
				}
				continue
			}
			if r.Index%1000 != 0 || r.ID == "" {
				t.Errorf("result %d: %+v, want only every 1000th turn recorded", r.Index, r)
			}
			recorded++
		}
		if recorded != 10 || listed != ndjson.ListedErrors || out.ErrorsNotListed != ndjson.MaxBatchItems-10-ndjson.ListedErrors {
			t.Errorf("recorded %d, listed %d errors, %d not listed", recorded, listed, out.ErrorsNotListed)
		}
		if got := s.session(out.Results[0].SessionID); got.TotalTurns != 10 {
			t.Errorf("the session holds %d turns, want 10", got.TotalTurns)
		}
	})
}

func withToken(s *apiServer, h http.Header) http.Header {
	out := http.Header{}
	for k, v := range h {
		out[k] = v
	}
	if s.token != "" {
		out.Set("Authorization", "Bearer "+s.token)
	}
	return out
}

// richTurn is a turn as a recording proxy would send it: no tester, no
// user_message or response, the whole chat in messages.
func richTurn(conversation, question string) map[string]any {
	return map[string]any{"conversation_id": conversation, "model": "gpt-4o-mini", "latency_ms": 640.5,
		"usage":    map[string]any{"prompt_tokens": 120, "completion_tokens": 30},
		"trace_id": "4bf92f3577b34da6a3ce929d0e0e4736", "span_id": "00f067aa0ba902b7", "parent_id": "53995c3f42cd8ad8",
		"metadata": map[string]any{"env": "staging"},
		"messages": []any{
			map[string]any{"role": "system", "content": "Answer as the HR assistant."},
			map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": question}}},
			map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"id": "call_1", "type": "function",
				"function": map[string]any{"name": "policy", "arguments": `{"topic":"attendance"}`}}}},
			map[string]any{"role": "tool", "tool_call_id": "call_1", "content": "Call first."},
			map[string]any{"role": "assistant", "content": "Call the employee first."},
		}}
}

// TestRichTurnsAreReadBack records turns with the richer record, alone and
// in a batch, and reads them back: the session of the anonymous tester, the
// JSON export with every new field (as documented), the CSV with the
// spec's columns only, and !session naming the anonymous tester.
func TestRichTurnsAreReadBack(t *testing.T) {
	eachDatabaseParallel(t, func(t *testing.T, cfg config.Config) {
		s := start(t, cfg)
		one := s.postTurn(richTurn("conv-rich", "My employee didn't show up"))
		plain := s.postTurn(turn("conv-rich", "And now?"))
		imported := richTurn("conv-rich", "Imported question")
		imported["source"], imported["tester_id"] = "import", ""
		out := s.batch(mustJSON(t, []any{imported, richTurn("conv-rich", "Batch question")}), nil, http.StatusOK)
		sess := s.session(one.SessionID)
		if sess.TesterID != capture.AnonymousTester || sess.TotalTurns != 4 || plain.SessionID != one.SessionID ||
			out.Results[1].SessionID != one.SessionID {
			t.Fatalf("session %+v; turns in %s, %s, %s", sess, one.SessionID, plain.SessionID, out.Results[1].SessionID)
		}
		exp := s.exportJSON(one.SessionID)
		if exp.Session.TesterID != capture.AnonymousTester || len(exp.Turns) != 4 {
			t.Fatalf("export: %+v", exp.Session)
		}
		for i, want := range []struct{ user, source string }{
			{"My employee didn't show up", "api"}, {"And now?", "api"}, {"Imported question", "import"}, {"Batch question", "api"},
		} {
			got := exp.Turns[i]
			if got.UserMessage != want.user || got.Source != want.source {
				t.Errorf("turn %d: user_message %q source %q, want %q %q", i+1, got.UserMessage, got.Source, want.user, want.source)
			}
			if i == 1 {
				if got.Messages != nil || got.Model != "" || got.Usage != nil || got.TraceID != "" || got.Response != "Answer to: And now?" {
					t.Errorf("a turn of today's shape: %+v", got)
				}
				continue
			}
			wantMessages := mustJSON(t, richTurn("", want.user)["messages"])
			if !jsonEqual(t, got.Messages, wantMessages) || got.Response != "Call the employee first." || got.Model != "gpt-4o-mini" ||
				got.Usage == nil || *got.Usage != (capture.Usage{PromptTokens: 120, CompletionTokens: 30, TotalTokens: 150}) ||
				got.LatencyMS == nil || *got.LatencyMS != 640.5 || got.ProcessingTimeMS == nil || *got.ProcessingTimeMS != 640.5 ||
				got.TraceID != "4bf92f3577b34da6a3ce929d0e0e4736" || got.SpanID != "00f067aa0ba902b7" || got.ParentID != "53995c3f42cd8ad8" ||
				!jsonEqual(t, got.Metadata, `{"env":"staging"}`) {
				t.Errorf("turn %d: %+v", i+1, got)
			}
		}
		rows := parseCSV(t, s.exportCSV(one.SessionID))
		if len(rows) != 5 || strings.Join(rows[0], "|") != "Turn|User Message|Bot Response|Improvement Notes|Category|Objective Score|Subjective Score|Overall Score|Timestamp|Ratings|Scores|Corrections" ||
			rows[1][1] != "My employee didn't show up" || rows[1][2] != "Call the employee first." {
			t.Errorf("CSV: %q", rows)
		}
		if r := s.say("conv-rich", "!session"); !strings.Contains(r.Text, "Tester: anonymous") {
			t.Errorf("!session: %q", r.Text)
		}
		s.postTurn(turn("conv-plain", "q"))
		if r := s.say("conv-plain", "!session"); !strings.Contains(r.Text, "Current Session") || strings.Contains(r.Text, "Tester:") {
			t.Errorf("!session of a named tester's conversation: %q", r.Text)
		}
	})
}

// A turn whose messages hold more text together than a turn may is refused
// naming messages, alone and in a batch, with a body limit that lets it in.
func TestRichTurnTextBound(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		cfg.MaxBodyBytes = 16 << 20
		s := start(t, cfg)
		in := richTurn("conv-big", "q")
		list := in["messages"].([]any)
		for range capture.MaxMessagesText / capture.MaxTextLength {
			list = append(list, map[string]any{"role": "user", "content": strings.Repeat("a", capture.MaxTextLength)})
		}
		in["messages"] = list
		in["response"] = "a"
		e := s.wantError("POST", "/turns", mustJSON(t, in), http.StatusBadRequest, "invalid", "messages")
		if !strings.Contains(e.Message, "4194304 characters") {
			t.Errorf("message %q", e.Message)
		}
		out := s.batch(mustJSON(t, []any{turn("conv-big", "q"), in}), nil, http.StatusMultiStatus)
		if r := out.Results[1]; r.Error == nil || r.Error.Field != "messages" {
			t.Errorf("in a batch: %+v", r)
		}
		list = list[:len(list)-1]
		in["messages"] = list
		if got := s.postTurn(in); got.TurnNumber != 2 {
			t.Errorf("at the bound: %+v", got)
		}
	})
}

// Errors inside messages name the message and field, over HTTP and in a
// batch; the turn is not recorded.
func TestRichTurnErrorsNameTheField(t *testing.T) {
	eachDatabaseParallel(t, func(t *testing.T, cfg config.Config) {
		s := start(t, cfg)
		for _, c := range []struct {
			edit  func(m map[string]any)
			field string
		}{
			{func(m map[string]any) { m["messages"].([]any)[2].(map[string]any)["role"] = "bot" }, "messages[2].role"},
			{func(m map[string]any) { m["messages"].([]any)[1].(map[string]any)["content"] = 5 }, "messages[1].content"},
			{func(m map[string]any) {
				m["messages"].([]any)[2].(map[string]any)["tool_calls"].([]any)[0].(map[string]any)["function"].(map[string]any)["name"] = 5
			}, "messages[2].tool_calls[0].function.name"},
			{func(m map[string]any) { m["messages"].([]any)[3].(map[string]any)["colour"] = "blue" }, "messages[3].colour"},
			{func(m map[string]any) { m["usage"] = map[string]any{"prompt_tokens": 1.5, "completion_tokens": 1} }, "usage.prompt_tokens"},
			{func(m map[string]any) { m["messages"] = m["messages"].([]any)[:2] }, "messages"},
			{func(m map[string]any) { m["trace_id"] = "4BF92F3577B34DA6A3CE929D0E0E4736" }, "trace_id"},
			{func(m map[string]any) { m["source"] = "web" }, "source"},
		} {
			in := richTurn("conv-bad", "q")
			c.edit(in)
			s.wantError("POST", "/turns", mustJSON(t, in), http.StatusBadRequest, "invalid", c.field)
			out := s.batch(mustJSON(t, in)+"\n", http.Header{"Content-Type": {"application/x-ndjson"}}, http.StatusMultiStatus)
			if r := out.Results[0]; r.Error == nil || r.Error.Field != c.field {
				t.Errorf("NDJSON: %+v, want field %s", r, c.field)
			}
		}
		if list := s.sessions(""); len(list) != 0 {
			t.Errorf("bad turns wrote %d sessions", len(list))
		}
	})
}
