package hone

import "testing"

func TestSpreadsheetSafe(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"plain text", "plain text"},
		{"a=b", "a=b"},
		{`=HYPERLINK("http://x","y")`, `'=HYPERLINK("http://x","y")`},
		{"+1+2", "'+1+2"},
		{"-2+3", "'-2+3"},
		{"@SUM(A1)", "'@SUM(A1)"},
		{"\t=1", "'\t=1"},
		{"\r=1", "'\r=1"},
		{"-5", "-5"},
		{"+1.5", "+1.5"},
		{"-1e3", "-1e3"},
		{"-Inf", "'-Inf"},
		{"-NaN", "'-NaN"},
		{"'quoted", "'quoted"},
	} {
		if got := SpreadsheetSafe(tc.in); got != tc.want {
			t.Errorf("SpreadsheetSafe(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSpreadsheetSafeNumbers(t *testing.T) {
	for _, s := range []string{"-0", "+12", "-1.", "-.5", "-1.25e-3", "+7E10"} {
		if got := SpreadsheetSafe(s); got != s {
			t.Errorf("SpreadsheetSafe(%q) = %q, want it unchanged", s, got)
		}
	}
	for _, s := range []string{"-", "+", "-.", "-e3", "-1e", "-1e+", "-0x10", "-1_000", "-1 ", "- 1", "--1"} {
		if got := SpreadsheetSafe(s); got != "'"+s {
			t.Errorf("SpreadsheetSafe(%q) = %q, want it neutralised", s, got)
		}
	}
}
