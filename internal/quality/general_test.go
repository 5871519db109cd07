package quality

import (
	"strings"
	"testing"
)

// era is the HR assistant's set of the response metrics spec, which the
// spec's tests hold to.
func era() *Set { return Builtin("era-hr") }

// The default set is the general one; every built-in set parses, and
// Open takes a built-in name, a file, or nothing.
func TestBuiltinSets(t *testing.T) {
	if Default().Name() != "general" || Default() != Builtin(DefaultName) {
		t.Fatalf("the default set is %q", Default().Name())
	}
	for _, name := range BuiltinNames {
		if s, err := Parse(BuiltinYAML(name), "yaml"); err != nil || s.Name() != name {
			t.Errorf("built-in %s: %v", name, err)
		}
	}
	for _, m := range Default().Metrics() {
		if m.Description == "" {
			t.Errorf("metric %s of the default set has no description to show", m.Name)
		}
	}
	for _, tc := range []struct {
		in, want, err string
	}{
		{"", "general", ""},
		{"era-hr", "era-hr", ""},
		{"general", "general", ""},
		{"retail", "", "neither a metric set file nor a built-in set (general, era-hr)"},
		{"testdata/retail-support.yaml", "retail-support", ""},
	} {
		s, err := Open(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Open(%q) = %v, want an error saying %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || s.Name() != tc.want {
			t.Errorf("Open(%q) = %v %v, want %s", tc.in, s, err, tc.want)
		}
	}
}

// A correct, short answer of a support bot is not punished by the general
// set (the complaint of the HR set: 0.33 and nine chips); each
// metric applies only where it means something.
func TestGeneralSet(t *testing.T) {
	ctx := `[{"content":"Refunds are issued within 5 business days of receiving the return."}]`
	long := strings.Repeat("word ", 130)
	for _, tc := range []struct {
		name string
		in   Input
		want map[string]any // metric → 1, 0 or nil for N/A
	}{
		{"a correct short answer", Input{Query: "How long do refunds take?", Response: "Refunds take up to 5 business days once we receive your return."},
			map[string]any{"response_length_appropriate": 1.0, "response_structured": nil, "asks_clarifying_question": nil,
				"cites_context": nil, "processing_time_acceptable": nil}},
		{"a wall of text", Input{Query: "How?", Response: long},
			map[string]any{"response_length_appropriate": 1.0, "response_structured": 0.0}},
		{"a long answer with steps", Input{Query: "How?", Response: long + "\n1. First\n2. Then"},
			map[string]any{"response_structured": 1.0}},
		{"the user's own case, a question first", Input{Query: "My order never arrived", Response: "Sorry about that! What is your order number?", IsFirstResponse: true},
			map[string]any{"asks_clarifying_question": 1.0}},
		{"the user's own case, guidance at once", Input{Query: "My order never arrived", Response: "Here's what to do: wait a week, then call us.", IsFirstResponse: true},
			map[string]any{"asks_clarifying_question": 0.0}},
		{"context given and cited", Input{Query: "Refunds?", Response: "According to the returns policy, refunds take 5 business days.", SearchResults: []byte(ctx)},
			map[string]any{"cites_context": 1.0}},
		{"context given, not cited", Input{Query: "Refunds?", Response: "Refunds take a while.", SearchResults: []byte(ctx)},
			map[string]any{"cites_context": 0.0}},
		{"slow", Input{Query: "Hi", Response: "Hello, how can I help you today?", ProcessingTimeMS: ptr(6000)},
			map[string]any{"processing_time_acceptable": 0.0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Default().Evaluate(tc.in)
			for name, want := range tc.want {
				v, found := r.Get(name)
				if !found {
					t.Fatalf("metric %s not in the result", name)
				}
				switch want := want.(type) {
				case nil:
					if v != nil {
						t.Errorf("%s = %v, want N/A", name, *v)
					}
				case float64:
					if v == nil || *v != want {
						t.Errorf("%s = %v, want %v", name, v, want)
					}
				}
			}
		})
	}
}
