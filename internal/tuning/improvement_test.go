package tuning

import "testing"

func TestParseNote(t *testing.T) {
	for _, tt := range []struct{ in, category, note string }{
		{"Should ask clarifying questions first", "", "Should ask clarifying questions first"},
		{"tone: Too robotic, needs more empathy", "tone", "Too robotic, needs more empathy"},
		{"TONE:too formal", "tone", "too formal"},
		{"Citation : Missing policy reference", "citation", "Missing policy reference"},
		{"content: a: b", "content", "a: b"},
		{"action: ", "action", ""},
		{"note: this prefix is not a category", "", "note: this prefix is not a category"},
		{"Re: 3-day rule", "", "Re: 3-day rule"},
		{"  structure: Use a numbered list  ", "structure", "Use a numbered list"},
		{"clarity", "", "clarity"},
	} {
		category, note := ParseNote(tt.in)
		if category != tt.category || note != tt.note {
			t.Errorf("ParseNote(%q) = %q, %q; want %q, %q", tt.in, category, note, tt.category, tt.note)
		}
	}
}
