package quality

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestResultJSON(t *testing.T) {
	r := era().Evaluate(Input{
		Query:         "What is the attendance policy?",
		Response:      structured,
		SearchResults: json.RawMessage(`[` + noCallChunk + `]`),
	})
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"has_policy_citation":1,"appropriate_action_suggested":1,"response_structure_complete":1,"citation_accuracy":1,` +
		`"response_length_appropriate":0,"asks_clarifying_questions":null,"sequential_action_correct":1,` +
		`"rag_similarity_score":0.8,"processing_time_acceptable":null,"objective_quality_score":0.8285714285714285}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
	var back Result
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, r) {
		t.Errorf("round trip: got %+v, want %+v", back, r)
	}
}

func TestResultJSONOrderFollowsSet(t *testing.T) {
	s, err := Parse([]byte(`metrics: [{name: zeta, kind: pattern_any, patterns: [x]}, {name: alpha, kind: below, input: processing_time_ms, threshold: 1}]`), "yaml")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(s.Evaluate(Input{Response: "x"}))
	if string(b) != `{"zeta":1,"alpha":null,"objective_quality_score":1}` {
		t.Errorf("got %s", b)
	}
	b, _ = json.Marshal(s.Evaluate(Input{Response: "y"}))
	if string(b) != `{"zeta":0,"alpha":null,"objective_quality_score":0}` {
		t.Errorf("got %s", b)
	}
	b, _ = json.Marshal(Result{Metrics: []Value{{Name: "alpha"}}})
	if string(b) != `{"alpha":null,"objective_quality_score":null}` {
		t.Errorf("got %s", b)
	}
}

func TestResultUnmarshal(t *testing.T) {
	var r Result
	if err := json.Unmarshal([]byte(`{"has_policy_citation": true, "x": false, "y": null, "objective_quality_score": 0.5}`), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Metrics) != 3 || *r.Metrics[0].Score != 1 || *r.Metrics[1].Score != 0 || r.Metrics[2].Score != nil || *r.Objective != 0.5 {
		t.Errorf("got %+v", r)
	}
	for _, bad := range []string{`[1]`, `{"a": "x"}`, `{"a": {}}`} {
		if err := json.Unmarshal([]byte(bad), &r); err == nil {
			t.Errorf("%s: want error", bad)
		}
	}
}

func TestMetricNames(t *testing.T) {
	want := "has_policy_citation appropriate_action_suggested response_structure_complete citation_accuracy response_length_appropriate asks_clarifying_questions sequential_action_correct rag_similarity_score processing_time_acceptable"
	if got := strings.Join(era().MetricNames(), " "); got != want {
		t.Errorf("got %s", got)
	}
	for _, m := range era().Metrics() {
		if m.Weight != 1 || m.Description == "" {
			t.Errorf("%+v: want weight 1 and a description", m)
		}
	}
	if o, s := era().CompositeWeights(); o != 0.4 || s != 0.6 {
		t.Errorf("weights %v %v", o, s)
	}
	if era().Name() != "era-hr" {
		t.Errorf("name %q", era().Name())
	}
}

func TestResultJSONKeysAreEscaped(t *testing.T) {
	one := 1.0
	for _, name := range []string{"plain_name", `quo"te`, `back\slash`, "new\nline", "<tag>&", "é"} {
		b, err := json.Marshal(Result{Metrics: []Value{{Name: name, Score: &one}}})
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		if err := json.Unmarshal(b, &got); err != nil || got[name] != 1.0 {
			t.Errorf("%q: %s (%v)", name, b, err)
		}
	}
}
