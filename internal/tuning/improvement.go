package tuning

import (
	"strings"
	"time"
)

// Improvement is a note a tester attached to a turn.
type Improvement struct {
	ID        string    `json:"id"`
	TurnID    string    `json:"turn_id"`
	SessionID string    `json:"-"`
	Note      string    `json:"improvement_note"`
	Category  string    `json:"category"`
	Timestamp time.Time `json:"timestamp"`
}

// Categories are the improvement categories a note may be filed under.
var Categories = []string{"tone", "content", "citation", "clarity", "structure", "action"}

// ParseNote splits "category: note" into its category and note when the prefix
// is one of Categories (in any case); any other prefix stays part of the note.
func ParseNote(text string) (category, note string) {
	text = strings.TrimSpace(text)
	prefix, rest, ok := strings.Cut(text, ":")
	if ok {
		p := strings.ToLower(strings.TrimSpace(prefix))
		for _, c := range Categories {
			if p == c {
				return c, strings.TrimSpace(rest)
			}
		}
	}
	return "", text
}
