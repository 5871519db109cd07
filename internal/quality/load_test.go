package quality

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/honehq/hone"
)

func TestDefaultLoads(t *testing.T) {
	if _, err := Parse(BuiltinYAML("era-hr"), "yaml"); err != nil {
		t.Fatal(err)
	}
	if got := len(era().Metrics()); got != 9 {
		t.Fatalf("default set has %d metrics, want 9", got)
	}
}

func TestLoadCustomSet(t *testing.T) {
	s, err := Load("testdata/retail-support.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if o, sub := s.CompositeWeights(); o != 0.5 || sub != 0.5 {
		t.Errorf("weights normalised to %v/%v, want 0.5/0.5", o, sub)
	}
	if got := strings.Join(s.SubjectiveNames(), ","); got != "politeness,accuracy" {
		t.Errorf("subjective names %s", got)
	}
	r := s.Evaluate(Input{
		Response:         "Sorry about the delay! Your order #123456 shipped today; here is the tracking link.",
		ProcessingTimeMS: ptr(1200),
		AvgSimilarity:    ptr(0.6),
	})
	b, _ := json.Marshal(r)
	// (2*1 + 1 + 1 + 1 + 1 + 0.5*0.6) / 6.5 = 6.3 / 6.5
	want := `{"mentions_order":1,"apologises_and_resolves":1,"concise":1,"one_remedy":1,"fast":1,"retrieval":0.6,"objective_quality_score":0.9692307692307692}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	r = s.Evaluate(Input{Response: "Here is a refund or store credit, your choice."})
	if v, _ := r.Get("one_remedy"); *v != 0 {
		t.Errorf("one_remedy = %v, want 0", *v)
	}
	if v, _ := r.Get("apologises_and_resolves"); *v != 0 {
		t.Errorf("apologises_and_resolves = %v, want 0", *v)
	}
	if _, err := s.ParseScores("politeness:5 accuracy:4"); err != nil {
		t.Error(err)
	}
	if _, err := s.ParseScores("empathy:5"); err == nil {
		t.Error("empathy accepted by a set without it")
	}
}

func TestLoadJSONAndExtensions(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "set.json")
	if err := os.WriteFile(path, []byte(`{"metrics":[{"name":"a","kind":"pattern_any","patterns":["x"]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "set.json")
	if err := os.WriteFile(bad, []byte(`{"metrics":[{"name":"a","kind":"pattern_any","patterns":["("]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(bad)
	if err == nil || !strings.Contains(hone.ErrorMessage(err), bad+`: metric "a": patterns[0]: invalid regex "(": missing closing )`) {
		t.Errorf("got %v", err)
	}
	if _, err := Load(filepath.Join(dir, "set.toml")); err == nil || !strings.Contains(err.Error(), "unsupported extension") {
		t.Errorf("toml: got %v", err)
	}
	if _, err := Load(filepath.Join(dir, "missing.yml")); err == nil {
		t.Error("missing file: want error")
	}
	if _, err := Parse([]byte(`{}`), "toml"); hone.ErrorCode(err) != hone.EINVALID {
		t.Errorf("toml format: got %v", err)
	}
}

func TestParseErrors(t *testing.T) {
	const ok = "{name: ok, kind: pattern_any, patterns: [x]}"
	tests := []struct {
		name, format, src string
		field, msg        string
	}{
		{"bad regex", "yaml", `metrics: [{name: has_policy_citation, kind: pattern_any, patterns: ['policy:', 'per our', '(']}]`,
			"metrics[0].patterns[2]", `metric "has_policy_citation": patterns[2]: invalid regex "(": missing closing )`},
		{"bad regex in json", "json", `{"metrics":[{"name":"m","kind":"structure","ack_patterns":["a"],"next_step_patterns":["[z-a]"]}]}`,
			"metrics[0].next_step_patterns[0]", `metric "m": next_step_patterns[0]: invalid regex "[z-a]": invalid character class range`},
		{"unknown kind", "yaml", `metrics: [{name: m, kind: regex_all, patterns: [x]}]`,
			"metrics[0].kind", `metric "m": kind: unknown kind "regex_all"`},
		{"missing kind", "yaml", `metrics: [{name: m, patterns: [x]}]`,
			"metrics[0].kind", `metric "m": kind: required`},
		{"unknown field", "yaml", `metrics: [{name: m, kind: pattern_any, paterns: [x]}]`,
			"metrics[0].paterns", `metric "m": paterns: unknown field`},
		{"unknown field json", "json", `{"metrics":[{"name":"m","kind":"pattern_any","patterns":["x"],"colour":"red"}]}`,
			"metrics[0].colour", `metric "m": colour: unknown field`},
		{"field of another kind", "yaml", `metrics: [{name: m, kind: pattern_any, patterns: [x], min_words: 3}]`,
			"metrics[0].min_words", `metric "m": min_words: field does not apply to kind "pattern_any"`},
		{"duplicate name", "yaml", "metrics: [" + ok + ", " + ok + "]",
			"metrics[1].name", `metric "ok": name: duplicate metric name`},
		{"negative weight", "yaml", `metrics: [{name: m, kind: pattern_any, patterns: [x], weight: -1}]`,
			"metrics[0].weight", `metric "m": weight: must be a non-negative number, got -1`},
		{"weight not a number", "yaml", `metrics: [{name: m, kind: pattern_any, patterns: [x], weight: heavy}]`,
			"metrics[0].weight", `metric "m": weight: want a number, got string`},
		{"patterns not a list", "yaml", `metrics: [{name: m, kind: pattern_any, patterns: x}]`,
			"metrics[0].patterns", `metric "m": patterns: want a list of strings, got string`},
		{"min above max", "yaml", `metrics: [{name: len, kind: word_range, min_words: 500, max_words: 100}]`,
			"metrics[0].max_words", `metric "len": max_words: must not be less than min_words (500), got 100`},
		{"no bounds", "yaml", `metrics: [{name: len, kind: word_range}]`,
			"metrics[0].min_words", `metric "len": min_words: min_words or max_words is required`},
		{"negative min", "yaml", `metrics: [{name: len, kind: word_range, min_words: -1}]`,
			"metrics[0].min_words", `metric "len": min_words: must not be negative, got -1`},
		{"missing name", "yaml", `metrics: [{kind: pattern_any, patterns: [x]}]`,
			"metrics[0].name", `metric #0: name: required`},
		{"bad name", "yaml", `metrics: [{name: Has Citation, kind: pattern_any, patterns: [x]}]`,
			"metrics[0].name", `metric "Has Citation": name: invalid name`},
		{"reserved name", "yaml", `metrics: [{name: objective_quality_score, kind: pattern_any, patterns: [x]}]`,
			"metrics[0].name", `metric "objective_quality_score": name: reserved`},
		{"no patterns", "yaml", `metrics: [{name: m, kind: pattern_any}]`,
			"metrics[0].patterns", `metric "m": patterns: at least one pattern is required`},
		{"missing threshold", "yaml", `metrics: [{name: t, kind: below, input: processing_time_ms}]`,
			"metrics[0].threshold", `metric "t": threshold: required`},
		{"unknown input", "yaml", `metrics: [{name: t, kind: input_value, input: latency}]`,
			"metrics[0].input", `metric "t": input: unknown input "latency"`},
		{"bad ack_within", "yaml", `metrics: [{name: s, kind: structure, ack_patterns: [a], next_step_patterns: [b], ack_within: 0}]`,
			"metrics[0].ack_within", `metric "s": ack_within: must be positive, got 0`},
		{"missing question patterns", "yaml", `metrics: [{name: c, kind: clarifying, active_patterns: [my]}]`,
			"metrics[0].question_patterns", `metric "c": question_patterns: at least one pattern is required`},
		{"bad guidance regex", "yaml", `metrics: [{name: c, kind: clarifying, question_patterns: ['\?'], guidance_patterns: ['a**']}]`,
			"metrics[0].guidance_patterns[0]", `metric "c": guidance_patterns[0]: invalid regex "a**": invalid nested repetition operator`},
		{"metric not a mapping", "yaml", `metrics: [x]`,
			"metrics[0]", `metric #0: must be a mapping`},
		{"no metrics", "yaml", `name: empty`,
			"metrics", `metrics: at least one metric is required`},
		{"unknown top-level field", "yaml", "metric: []",
			"metric", `unknown field "metric"`},
		{"negative composite weight", "yaml", "composite: {objective_weight: -0.4, subjective_weight: 0.6}\nmetrics: [" + ok + "]",
			"composite.objective_weight", `composite: objective_weight: must not be negative, got -0.4`},
		{"lone composite weight above 1", "yaml", "composite: {subjective_weight: 1.5}\nmetrics: [" + ok + "]",
			"composite.subjective_weight", `composite: subjective_weight: must be between 0 and 1 when given alone, got 1.5`},
		{"zero composite weights", "yaml", "composite: {objective_weight: 0, subjective_weight: 0}\nmetrics: [" + ok + "]",
			"composite", `both 0`},
		{"duplicate subjective", "yaml", "subjective: [empathy, Empathy_score]\nmetrics: [" + ok + "]",
			"subjective[1]", `subjective[1]: duplicate score name "empathy"`},
		{"empty subjective", "yaml", "subjective: []\nmetrics: [" + ok + "]",
			"subjective", `at least one score name is required`},
		{"yaml syntax", "yaml", "metrics: [",
			"", `metric set: yaml:`},
		{"duplicate yaml key", "yaml", "metrics: [{name: a, name: b, kind: pattern_any, patterns: [x]}]",
			"", `already defined`},
		{"json syntax", "json", `{"metrics": [`,
			"", `metric set:`},
		{"top level list", "yaml", `[1, 2]`,
			"", `the top level must be a mapping`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.src), tc.format)
			if err == nil {
				t.Fatal("no error")
			}
			if hone.ErrorCode(err) != hone.EINVALID {
				t.Errorf("code %q, want invalid: %v", hone.ErrorCode(err), err)
			}
			if got := hone.ErrorField(err); got != tc.field {
				t.Errorf("field %q, want %q", got, tc.field)
			}
			if got := hone.ErrorMessage(err); !strings.Contains(got, tc.msg) {
				t.Errorf("message %q, want it to contain %q", got, tc.msg)
			}
		})
	}
}

func TestCompositeWeightsInFile(t *testing.T) {
	const m = "metrics: [{name: a, kind: pattern_any, patterns: [x]}]"
	tests := []struct {
		composite string
		obj, subj float64
	}{
		{"", 0.4, 0.6},
		{"composite: {objective_weight: 2, subjective_weight: 3}\n", 0.4, 0.6},
		{"composite: {objective_weight: 0.3}\n", 0.3, 0.7},
		{"composite: {subjective_weight: 1}\n", 0, 1},
		{"composite: {objective_weight: 0.5, subjective_weight: 0.5}\n", 0.5, 0.5},
	}
	for _, tc := range tests {
		s, err := Parse([]byte(tc.composite+m), "yaml")
		if err != nil {
			t.Fatal(err)
		}
		if o, sub := s.CompositeWeights(); math.Abs(o-tc.obj) > 1e-12 || math.Abs(sub-tc.subj) > 1e-12 {
			t.Errorf("%q: weights %v/%v, want %v/%v", tc.composite, o, sub, tc.obj, tc.subj)
		}
	}
}
