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
