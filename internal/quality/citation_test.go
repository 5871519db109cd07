package quality

import (
	"encoding/json"
	"testing"
)

// noCallChunk is a retrieved policy chunk.
const noCallChunk = `{"chunk_text":"No Call No Show. Employees who miss three consecutive scheduled shifts without notice are considered to have voluntarily resigned.","similarity":0.8}`

func TestCitationAccuracy(t *testing.T) {
	results := json.RawMessage(`[{"chunk_text":"Dress code: wear the uniform.","similarity":0.3},` + noCallChunk + `]`)
	runCases(t, "citation_accuracy", []metricCase{
		{"no results", Input{Response: "Per our No Call No Show policy, employees who miss three shifts resign."}, na},
		{"results without text", Input{Response: "Per our No Call No Show policy, employees who miss three shifts resign.", SearchResults: json.RawMessage(`[{"similarity":0.9}]`)}, na},
		{"no citation", Input{Response: "You should call the employee and document the absence.", SearchResults: results}, 0},
		// Cited: "employees who miss three consecutive shifts are considered to
		// have voluntarily resigned" without the framing "Per our ... policy".
		{"verbatim", Input{Response: "Got it. Per our No Call No Show policy, employees who miss three consecutive shifts are considered to have voluntarily resigned. Would you like help?", SearchResults: results}, 1},
		// Content words: employees, miss, three, shifts, fired, immediately;
		// the chunk holds employees, miss, three, shifts: 4/6.
		{"paraphrase", Input{Response: "Per our No Call No Show policy, employees who miss three shifts are fired immediately.", SearchResults: results}, 4.0 / 6},
		// Quoted: "wear the uniform" -> wear, uniform, both in chunk 1.
		{"quoted passage", Input{Response: `The handbook says "wear the uniform" at all times.`, SearchResults: results}, 1},
		{"short quote ignored", Input{Response: `It is "fine" to ask.`, SearchResults: results}, 0},
		// After "Policy:": dress, code, wear, uniform, daily -> 4/5.
		{"after policy colon", Input{Response: "Dress Code Policy: dress code — wear the uniform daily\nAnything else?", SearchResults: results}, 0.8},
		{"curly quotes", Input{Response: "It reads “employees who miss three consecutive scheduled shifts”.", SearchResults: results}, 1},
		{"string results", Input{Response: "Per our dress policy, wear the uniform.", SearchResults: json.RawMessage(`["Dress code: wear the uniform."]`)}, 1},
		{"content field", Input{Response: "Per our dress policy, wear the uniform.", SearchResults: json.RawMessage(`[{"content":"Wear the uniform."}]`)}, 1},
		{"unrelated citation", Input{Response: "According to the parking policy, spaces are assigned.", SearchResults: results}, 0},
	})
}

func TestEachWord(t *testing.T) {
	var got []string
	eachWord("Don’t stop—employees' 3rd SHIFT, ok?", func(w []byte) { got = append(got, string(w)) })
	want := []string{"dont", "stop", "employees", "3rd", "shift", "ok"}
	if len(got) != len(want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %q, want %q", got, want)
		}
	}
}
