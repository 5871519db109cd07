package quality

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// na marks an expected N/A in table tests.
const na = -1.0

// score evaluates in with the default set and returns the named metric, or na.
func score(t *testing.T, name string, in Input) float64 {
	t.Helper()
	v, found := era().Evaluate(in).Get(name)
	if !found {
		t.Fatalf("metric %s not in result", name)
	}
	if v == nil {
		return na
	}
	return *v
}

// words returns a response of n words.
func words(n int) string {
	return strings.TrimSpace(strings.Repeat("word ", n))
}

// ptr returns a pointer to v.
func ptr(v float64) *float64 { return &v }

type metricCase struct {
	name string
	in   Input
	want float64
}

func runCases(t *testing.T, metric string, cases []metricCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := score(t, metric, tc.in); math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("%s = %v, want %v (response %q)", metric, got, tc.want, tc.in.Response)
			}
		})
	}
}

func TestHasPolicyCitation(t *testing.T) {
	runCases(t, "has_policy_citation", []metricCase{
		{"spec per our", Input{Response: "Per our No Call No Show policy, employees who miss three consecutive shifts..."}, 1},
		{"spec according to", Input{Response: "According to the Attendance Policy, managers should..."}, 1},
		{"spec no citation", Input{Response: "You should call the employee and document the absence."}, 0},
		{"policy colon", Input{Response: "Policy: Employees must clock in."}, 1},
		{"fitness connection", Input{Response: "The Fitness Connection policy is clear."}, 1},
		{"states", Input{Response: "Our attendance policy states that..."}, 1},
		{"reference tag", Input{Response: "[Policy Reference: Handbook 4.2]"}, 1},
		{"policy word alone", Input{Response: "There is a policy for this."}, 0},
		{"per our across lines", Input{Response: "Per our\nhandbook policy"}, 0},
	})
}

func TestAppropriateActionSuggested(t *testing.T) {
	runCases(t, "appropriate_action_suggested", []metricCase{
		{"spec call", Input{Response: "I recommend you call the employee to discuss this situation."}, 1},
		{"spec email", Input{Response: "Would you like me to help draft an email to the employee?"}, 1},
		{"spec escalate", Input{Response: "This should be escalated to HR for FMLA review."}, 1},
		{"spec none", Input{Response: "That's a tough situation."}, 0},
		{"calendar", Input{Response: "Let me put it on your CALENDAR."}, 1},
		{"document", Input{Response: "Please document what happened."}, 1},
	})
}

// structured is a response with acknowledgement, guidance and next steps.
const structured = "Got it — that's a difficult situation. Per our No Call No Show policy, employees who miss three consecutive shifts are considered to have resigned. Would you like me to help you plan the conversation?"

func TestResponseStructureComplete(t *testing.T) {
	runCases(t, "response_structure_complete", []metricCase{
		{"complete", Input{Response: structured}, 1},
		{"hi name and numbered list", Input{Response: "Hi Meg, here is the process you asked about for late arrivals at the front desk.\n1. Talk to the employee.\n2. Note the date and time."}, 1},
		{"leading white space", Input{Response: "\n  " + structured}, 1},
		{"no acknowledgement", Input{Response: strings.Replace(structured, "Got it — that's", "A", 1)}, 0},
		{"acknowledgement after 100 chars", Input{Response: strings.Repeat("x", 100) + " " + structured}, 0},
		{"too short", Input{Response: "Got it. Would you like help?"}, 0},
		{"no next steps", Input{Response: "Got it — that's a difficult situation. Per our No Call No Show policy, employees who miss three consecutive shifts are considered to have resigned."}, 0},
	})
}

func TestResponseLengthAppropriate(t *testing.T) {
	runCases(t, "response_length_appropriate", []metricCase{
		{"99 words", Input{Response: words(99)}, 0},
		{"100 words", Input{Response: words(100)}, 1},
		{"500 words", Input{Response: words(500)}, 1},
		{"501 words", Input{Response: words(501)}, 0},
		{"white space does not count", Input{Response: " \n\t" + strings.ReplaceAll(words(100), " ", "\n\n ") + "  "}, 1},
		{"empty", Input{Response: ""}, 0},
	})
}

func TestAsksClarifyingQuestions(t *testing.T) {
	const asks = "Got it — how many shifts has she missed? Did she contact anyone?"
	runCases(t, "asks_clarifying_questions", []metricCase{
		{"active asks", Input{Query: "My employee didn't show up", Response: asks, IsFirstResponse: true}, 1},
		{"our", Input{Query: "One of our trainers is late every day", Response: asks, IsFirstResponse: true}, 1},
		{"active guides too", Input{Query: "My employee didn't show up", Response: asks + " Here's what to do next.", IsFirstResponse: true}, 0},
		{"active immediate steps", Input{Query: "My employee didn't show up", Response: "Any idea why? Immediate steps: call her.", IsFirstResponse: true}, 0},
		{"active no question", Input{Query: "My employee didn't show up", Response: "Call her today.", IsFirstResponse: true}, 0},
		{"not first response", Input{Query: "My employee didn't show up", Response: asks, IsFirstResponse: false}, na},
		{"hypothetical", Input{Query: "What is the attendance policy?", Response: asks, IsFirstResponse: true}, na},
		{"policy name is not a person", Input{Query: "What does the No Call No Show policy say?", Response: asks, IsFirstResponse: true}, na},
		{"name mid-sentence", Input{Query: "What should I do about Sarah?", Response: asks, IsFirstResponse: true}, 1},
		{"name opens query", Input{Query: "Sarah didn't show up today", Response: asks, IsFirstResponse: true}, 1},
		{"possessive name", Input{Query: "How do I handle Sarah's absences?", Response: asks, IsFirstResponse: true}, 1},
		{"mythology not my", Input{Query: "Is mythology training required?", Response: asks, IsFirstResponse: true}, na},
	})
}

func TestSequentialActionCorrect(t *testing.T) {
	runCases(t, "sequential_action_correct", []metricCase{
		{"spec call only", Input{Response: "Since you need to call the employee, would you like me to schedule that call?"}, 1},
		{"spec call and email", Input{Response: "You should call the employee. Would you also like me to draft a follow-up email?"}, 0},
		{"email only", Input{Response: "Would you like me to draft an email to her?"}, 1},
		{"neither", Input{Response: "That's a tough situation."}, 1},
		{"phone and send email", Input{Response: "Phone him, then send an email."}, 0},
	})
}

func TestRAGSimilarityScore(t *testing.T) {
	runCases(t, "rag_similarity_score", []metricCase{
		{"avg given", Input{AvgSimilarity: ptr(0.72), SearchResults: json.RawMessage(`[{"similarity":0.1}]`)}, 0.72},
		{"mean of similarity and score", Input{SearchResults: json.RawMessage(`[{"chunk_text":"a","similarity":0.8},{"text":"b","score":0.6},{"content":"c"}]`)}, 0.7},
		{"clamped", Input{AvgSimilarity: ptr(1.3)}, 1},
		{"strings only", Input{SearchResults: json.RawMessage(`["a chunk"]`)}, na},
		{"nothing", Input{}, na},
		{"invalid JSON", Input{SearchResults: json.RawMessage(`[{"similarity":`)}, na},
		{"wrapped", Input{SearchResults: json.RawMessage(`{"results":[{"similarity":0.5}]}`)}, 0.5},
		{"odd field types", Input{SearchResults: json.RawMessage(`[{"similarity":"high","score":0.4,"text":7}]`)}, 0.4},
	})
}

func TestProcessingTimeAcceptable(t *testing.T) {
	runCases(t, "processing_time_acceptable", []metricCase{
		{"fast", Input{ProcessingTimeMS: ptr(2999)}, 1},
		{"at limit", Input{ProcessingTimeMS: ptr(3000)}, 0},
		{"slow", Input{ProcessingTimeMS: ptr(8000)}, 0},
		{"unknown", Input{}, na},
	})
}

func TestObjectiveSkipsNA(t *testing.T) {
	r := era().Evaluate(Input{Query: "What is the policy?", Response: "That's a tough situation."})
	// Applicable: has_policy_citation 0, appropriate_action 0, structure 0,
	// length 0, sequential 1; N/A: citation, clarifying, rag, time.
	if r.Objective == nil || math.Abs(*r.Objective-0.2) > 1e-9 {
		t.Fatalf("objective = %v, want 0.2", r.Objective)
	}
	for _, n := range []string{"citation_accuracy", "asks_clarifying_questions", "rag_similarity_score", "processing_time_acceptable"} {
		if v, _ := r.Get(n); v != nil {
			t.Errorf("%s = %v, want N/A", n, *v)
		}
	}
}

func TestWeights(t *testing.T) {
	s, err := Parse([]byte(`
metrics:
  - {name: a, kind: pattern_any, patterns: [yes], weight: 3}
  - {name: b, kind: pattern_any, patterns: [no]}
  - {name: c, kind: pattern_any, patterns: [yes], weight: 0}
  - {name: d, kind: below, input: processing_time_ms, threshold: 1, weight: 5}
`), "yaml")
	if err != nil {
		t.Fatal(err)
	}
	r := s.Evaluate(Input{Response: "yes"})
	if r.Objective == nil || *r.Objective != 0.75 {
		t.Fatalf("objective = %v, want 0.75", r.Objective)
	}
	if v, _ := r.Get("c"); v == nil || *v != 1 {
		t.Errorf("weight-0 metric c = %v, want reported as 1", v)
	}
	s, _ = Parse([]byte(`{"metrics":[{"name":"d","kind":"below","input":"processing_time_ms","threshold":1}]}`), "json")
	if r := s.Evaluate(Input{}); r.Objective != nil {
		t.Errorf("objective with every metric N/A = %v, want N/A", *r.Objective)
	}
}

func TestCaseSensitivePattern(t *testing.T) {
	s, err := Parse([]byte(`metrics: [{name: a, kind: pattern_any, patterns: ['(?-i)FMLA', 'ada\b']}]`), "yaml")
	if err != nil {
		t.Fatal(err)
	}
	for resp, want := range map[string]float64{"FMLA": 1, "fmla": 0, "ADA": 1, "Canada": 1, "adam": 0} {
		if v, _ := s.Evaluate(Input{Response: resp}).Get("a"); *v != want {
			t.Errorf("%q: got %v, want %v", resp, *v, want)
		}
	}
}

func TestPatternPrefilters(t *testing.T) {
	p, err := compilePattern(`\d+\.\s|our .+ policy states|[A-Z]x`)
	if err != nil {
		t.Fatal(err)
	}
	for s, want := range map[string]bool{
		"steps:\n1. call":                  true,
		"version 2.0 only":                 false,
		"end 12. ":                         true,
		"Our leave policy states that":     true,
		"our leave policy says so; states": false,
		"QX":                               true,
		"no match here":                    false,
	} {
		if got := p.match(newText(s)); got != want {
			t.Errorf("match(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestNewText(t *testing.T) {
	for _, s := range []string{"", "abc", "ABC — Déjà VU’s", "plain ascii text", "ÀB\u00a0cd\te", "\xffBAD"} {
		txt := newText(s)
		want := strings.ToLower(s)
		if s == "\xffBAD" {
			want = "\xffbad"
		}
		if txt.lower != want {
			t.Errorf("lower(%q) = %q, want %q", s, txt.lower, want)
		}
		if txt.words != len(strings.Fields(s)) || txt.runes != len([]rune(s)) {
			t.Errorf("%q: %d words %d runes", s, txt.words, txt.runes)
		}
	}
}

func TestEvaluateConcurrently(t *testing.T) {
	s := era()
	in := Input{Query: "My employee Jordan didn't show up", Response: benchResponse, SearchResults: benchResults, IsFirstResponse: true}
	want, _ := json.Marshal(s.Evaluate(in))
	done := make(chan string)
	for range 8 {
		go func() {
			b, _ := json.Marshal(s.Evaluate(in))
			done <- string(b)
		}()
	}
	for range 8 {
		if got := <-done; got != string(want) {
			t.Errorf("got %s, want %s", got, want)
		}
	}
}
