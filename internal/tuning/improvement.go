package tuning

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/honehq/hone"
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

// MaxNoteLength bounds a note given on a turn by id, in characters.
const MaxNoteLength = 8192

// ImproveTurn attaches a note to a turn by id, as !improve does to the
// latest one: for a reviewer of a session. category is one of Categories
// or ""; a note that starts with "category:" is filed under it when
// category is "".
func (s *Service) ImproveTurn(ctx context.Context, turnID, category, note string) (*Improvement, error) {
	category = strings.ToLower(strings.TrimSpace(category))
	note = strings.TrimSpace(hone.CleanText(note))
	if category == "" {
		category, note = ParseNote(note)
	}
	switch {
	case category != "" && !slices.Contains(Categories, category):
		return nil, hone.FieldError("category", "category must be one of %s, or none, not %q", strings.Join(Categories, ", "), category)
	case note == "":
		return nil, hone.FieldError("note", "the note is empty: say what should improve")
	case hone.Chars(note) > MaxNoteLength:
		return nil, hone.FieldError("note", "the note is longer than %d characters", MaxNoteLength)
	}
	return s.store.AddTurnImprovement(ctx, turnID, category, note)
}
