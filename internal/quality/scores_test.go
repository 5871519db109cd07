package quality

import (
	"maps"
	"strings"
	"testing"

	"github.com/honehq/hone"
)

func TestParseScores(t *testing.T) {
	tests := []struct {
		args string
		want map[string]int
	}{
		{"professionalism:4 empathy:5 clarity:5 actionability:4 compliance:5",
			map[string]int{"professionalism": 4, "empathy": 5, "clarity": 5, "actionability": 4, "compliance": 5}},
		{"empathy:1", map[string]int{"empathy": 1}},
		{"  Professionalism:3,EMPATHY=2  ", map[string]int{"professionalism": 3, "empathy": 2}},
		{"professionalism_score:5 compliance_SCORE:1", map[string]int{"professionalism": 5, "compliance": 1}},
	}
	for _, tc := range tests {
		got, err := ParseScores(tc.args)
		if err != nil {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		if !maps.Equal(got, tc.want) {
			t.Errorf("%q: got %v, want %v", tc.args, got, tc.want)
		}
	}
}

func TestParseScoresErrors(t *testing.T) {
	tests := []struct{ args, msg string }{
		{"", "no scores given"},
		{"kindness:4", `unknown score "kindness"`},
		{"empathy:0", `empathy: "0" is not a whole number from 1 to 5`},
		{"empathy:6", `"6" is not a whole number`},
		{"empathy:4.5", `"4.5" is not a whole number`},
		{"empathy:great", `"great" is not a whole number`},
		{"empathy:", `"" is not a whole number`},
		{"empathy 4", `"empathy" is not name:value`},
		{"empathy:4 Empathy_score:5", "empathy is given twice"},
	}
	for _, tc := range tests {
		_, err := ParseScores(tc.args)
		if hone.ErrorCode(err) != hone.EINVALID {
			t.Errorf("%q: got %v, want an invalid error", tc.args, err)
			continue
		}
		msg := hone.ErrorMessage(err)
		for _, want := range []string{tc.msg, "professionalism, empathy, clarity, actionability, compliance", "from 1 to 5"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%q: message %q lacks %q", tc.args, msg, want)
			}
		}
	}
}

func TestValidateScores(t *testing.T) {
	s := era()
	if err := s.ValidateScores(map[string]int{"empathy": 5, "Clarity_Score": 1}); err != nil {
		t.Error(err)
	}
	for _, bad := range []map[string]int{
		{},
		{"empathy": 6},
		{"empathy": 0},
		{"warmth": 3},
		{"empathy": 3, "empathy_score": 4},
	} {
		if err := s.ValidateScores(bad); hone.ErrorCode(err) != hone.EINVALID {
			t.Errorf("%v: got %v, want an invalid error", bad, err)
		}
	}
}
