package suggestions_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/suggestions"
)

// specLine is the spec's example JSONL line, with an id.
const specLine = `{"id": "r1", "ts": 1704067200.0, "session": "my-project", "server": "local", "trigger_block": 5, "result_block": 6,
 "context": {"nodes": ["claude", "bash", "python"], "graphs": ["pipeline"], "workflows": ["debug"],
  "blocks": [{"input": "@claude explain async", "output": "Async is...", "success": true},
   {"input": "@bash ls", "output": "file1.py\nfile2.py", "success": true}], "cwd": "/home/user/project"},
 "llm_request": {"messages": [{"role": "system", "content": "You are a command suggestion assistant..."},
   {"role": "user", "content": "{\"nodes\": [...], \"blocks\": [...]}"}], "model": "gpt-4o-mini", "temperature": 0.7, "max_tokens": 256},
 "llm_response": {"raw_content": "1. @claude explain this error\n2. @bash cat logs.txt\n3. @python debug.py", "model": "gpt-4o-mini",
   "usage": {"prompt_tokens": 150, "completion_tokens": 50, "total_tokens": 200}, "finish_reason": "stop", "latency_ms": 234.5},
 "suggestions": ["@claude explain this error", "@bash cat logs.txt", "@python debug.py"], "suggestion_node_version": "v1.0",
 "viewed_indices": [0, 1, 0], "cycle_count": 2, "displayed_index_at_submit": 0, "accepted_index": 0,
 "actual_input": "@claude explain this error", "match_type": "exact", "time_to_action_ms": 1234.5}`

// edit returns the spec line with fields set (nil deletes).
func edit(t *testing.T, changes map[string]any) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(specLine), &m); err != nil {
		t.Fatal(err)
	}
	for k, v := range changes {
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
	}
	b, _ := json.Marshal(m)
	return b
}

func TestParseTheSpecExample(t *testing.T) {
	r, err := suggestions.Parse([]byte(specLine))
	if err != nil {
		t.Fatal(err)
	}
	if r.ID != "r1" || r.TS.Unix() != 1704067200 || r.Server != "local" || r.Session != "my-project" || r.Version != "v1.0" ||
		r.Model != "gpt-4o-mini" || r.Temperature == nil || *r.Temperature != 0.7 || r.MatchType != "exact" || *r.AcceptedIndex != 0 ||
		r.Suggestions != 3 || r.CycleCount != 2 || r.TimeToActionMS != 1234.5 || r.ContextBlockCount != 2 || r.TotalTokens != 200 ||
		!r.ViewedButRejected || !r.CycledBack || string(r.Raw) != strings.TrimSpace(specLine) {
		t.Fatalf("parsed %+v", r)
	}
}

func TestParseDerivesAndRefuses(t *testing.T) {
	noID, err := suggestions.Parse(edit(t, map[string]any{"id": nil}))
	again, _ := suggestions.Parse(edit(t, map[string]any{"id": nil}))
	if err != nil || len(noID.ID) != 33 || noID.ID != again.ID {
		t.Fatalf("an id from the content: %q %q %v", noID.ID, again.ID, err)
	}
	classified, err := suggestions.Parse(edit(t, map[string]any{"match_type": nil, "accepted_index": nil, "actual_input": "@bash cat logs.txt | less"}))
	if err != nil || classified.MatchType != "partial" || *classified.AcceptedIndex != 1 {
		t.Fatalf("classified %+v %v", classified, err)
	}
	plain, err := suggestions.Parse(edit(t, map[string]any{"viewed_indices": []int{0}, "llm_request": nil, "context_block_count": 7,
		"llm_response": map[string]any{"model": "m2", "usage": map[string]any{"prompt_tokens": 10, "completion_tokens": 5}}}))
	if err != nil || plain.ViewedButRejected || plain.CycledBack || plain.Model != "m2" || plain.Temperature != nil || plain.TotalTokens != 15 ||
		plain.ContextBlockCount != 7 {
		t.Fatalf("plain %+v %v", plain, err)
	}
	for _, c := range []struct {
		name    string
		changes map[string]any
		field   string
	}{
		{"no ts", map[string]any{"ts": nil}, "ts"},
		{"a ts of 0", map[string]any{"ts": 0}, "ts"},
		{"ts as text", map[string]any{"ts": "yesterday"}, "ts"},
		{"no suggestions", map[string]any{"suggestions": nil}, "suggestions"},
		{"suggestions of numbers", map[string]any{"suggestions": []int{1}}, "suggestions"},
		{"no actual_input", map[string]any{"actual_input": nil}, "actual_input"},
		{"an accepted_index past the list", map[string]any{"accepted_index": 3}, "accepted_index"},
		{"a viewed index past the list", map[string]any{"viewed_indices": []int{0, 5}}, "viewed_indices"},
		{"a displayed index past the list", map[string]any{"displayed_index_at_submit": 3}, "displayed_index_at_submit"},
		{"an unknown match_type", map[string]any{"match_type": "fuzzy"}, "match_type"},
		{"a match without its index", map[string]any{"accepted_index": nil}, "accepted_index"},
		{"none with an index", map[string]any{"match_type": "none"}, "accepted_index"},
		{"a negative cycle_count", map[string]any{"cycle_count": -1}, "cycle_count"},
		{"cycle_count as text", map[string]any{"cycle_count": "2"}, "cycle_count"},
		{"a negative time_to_action_ms", map[string]any{"time_to_action_ms": -5}, "time_to_action_ms"},
		{"context as a list", map[string]any{"context": []int{1}}, "context"},
		{"a model that is a number", map[string]any{"llm_request": map[string]any{"model": 4}}, "llm_request.model"},
		{"an empty id", map[string]any{"id": " "}, "id"},
		{"a long id", map[string]any{"id": strings.Repeat("i", 129)}, "id"},
		{"a long session", map[string]any{"session": strings.Repeat("s", 201)}, "session"},
	} {
		_, err := suggestions.Parse(edit(t, c.changes))
		if hone.ErrorCode(err) != hone.EINVALID || hone.ErrorField(err) != c.field {
			t.Errorf("%s: %v (field %q), want field %q", c.name, err, hone.ErrorField(err), c.field)
		}
	}
	if _, err := suggestions.Parse([]byte(`{"ts": 1,`)); hone.ErrorCode(err) != hone.EINVALID {
		t.Errorf("broken JSON: %v", err)
	}
	if _, err := suggestions.Parse([]byte(`[1]`)); hone.ErrorMessage(err) != "a record must be a JSON object, not array" {
		t.Errorf("an array: %v", err)
	}
	if _, err := suggestions.Parse(edit(t, map[string]any{"context": "x"})); hone.ErrorMessage(err) != "context must be an object, not string" {
		t.Errorf("a context of text: %v", err)
	}
	far, err := suggestions.Parse(edit(t, map[string]any{"ts": 1e10 + 0.5}))
	if err != nil || far.TS.Year() != 2286 || far.TS.Nanosecond() != 500000000 {
		t.Errorf("a far ts: %v %v", far.TS, err)
	}
	bad, err := suggestions.Parse(append([]byte(`{"ts": 1, "suggestions": [], "actual_input": "a`), 0xff, '"', '}'))
	if err != nil || !strings.Contains(string(bad.Raw), "a\uFFFD") && !strings.Contains(string(bad.Raw), "a�") {
		t.Errorf("a record with a byte that is not UTF-8: %q %v", bad.Raw, err)
	}
}

func TestReadNDJSONKeepsGoodLines(t *testing.T) {
	body := specLine2() + "\n\n{not json}\n" + string(edit(t, map[string]any{"id": "r2", "ts": nil})) + "\n" +
		string(edit(t, map[string]any{"id": "r3"})) + "\n"
	b, err := suggestions.ReadNDJSON(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if b.Lines != 4 || len(b.Records) != 2 || b.Records[0].ID != "r1" || b.Records[1].ID != "r3" || b.Errors.Len() != 2 ||
		b.Errors.Listed[0].Line != 3 || b.Errors.Listed[1].Line != 4 || b.Errors.Listed[1].Field != "ts" {
		t.Fatalf("batch %+v", b)
	}
	arr, err := suggestions.ReadJSON(strings.NewReader("[" + specLine + `, {"ts": "x"}]`))
	if err != nil || len(arr.Records) != 1 || arr.Errors.Len() != 1 || arr.Errors.Listed[0].Line != 2 || arr.Errors.Listed[0].Field != "ts" {
		t.Fatalf("array %+v %v", arr, err)
	}
	if _, err := suggestions.ReadJSON(strings.NewReader(`"x"`)); hone.ErrorCode(err) != hone.EINVALID {
		t.Errorf("a string body: %v", err)
	}
}

// specLine2 is the spec line on one line.
func specLine2() string {
	var m map[string]any
	_ = json.Unmarshal([]byte(specLine), &m)
	b, _ := json.Marshal(m)
	return string(b)
}
