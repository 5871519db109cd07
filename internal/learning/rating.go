package learning

import (
	"strings"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/capture"
)

// Ratings a tester gives a response.
const (
	RatingUp   = "up"
	RatingDown = "down"
)

// Rating is a tester's 👍 or 👎 on a turn: one per turn and tester, which
// they may change.
type Rating struct {
	ID             string    `json:"id"`
	TurnID         string    `json:"turn_id"`
	SessionID      string    `json:"session_id"`
	ConversationID string    `json:"conversation_id"`
	TesterID       string    `json:"tester_id"`
	Rating         string    `json:"rating"`
	Intent         string    `json:"intent,omitempty"`
	ContextType    string    `json:"context_type,omitempty"`
	CreatedAt      time.Time `json:"created_at"`
	UpdatedAt      time.Time `json:"updated_at"`
	// TurnNumber, UserMessage and Response are the turn's, when listed for
	// reading.
	TurnNumber  int    `json:"turn_number,omitempty"`
	UserMessage string `json:"user_message,omitempty"`
	Response    string `json:"response,omitempty"`
}

// RatingInput rates a turn.
type RatingInput struct {
	TesterID    string `json:"tester_id"`
	Rating      string `json:"rating"`
	Intent      string `json:"intent,omitempty"`
	ContextType string `json:"context_type,omitempty"`
	// Source is where the rating was given, a score source: the API when
	// left empty.
	Source string `json:"-"`
}

// ratingSpellings are the other words a rating may be given with, in lower
// case, and the rating each stands for.
var ratingSpellings = map[string]string{
	"👍": RatingUp, "+1": RatingUp, "good": RatingUp, "thumbs_up": RatingUp,
	"👎": RatingDown, "-1": RatingDown, "bad": RatingDown, "thumbs_down": RatingDown,
}

// clean normalises the input and reports the first field that is wrong.
func (in *RatingInput) clean() error {
	in.TesterID = strings.TrimSpace(hone.CleanText(in.TesterID))
	in.Rating = strings.ToLower(strings.TrimSpace(in.Rating))
	in.Intent = strings.TrimSpace(hone.CleanText(in.Intent))
	in.ContextType = strings.TrimSpace(hone.CleanText(in.ContextType))
	if r, ok := ratingSpellings[in.Rating]; ok {
		in.Rating = r
	}
	switch {
	case in.TesterID == "":
		return hone.FieldError("tester_id", "tester_id is required: who rates the response")
	case hone.Chars(in.TesterID) > capture.MaxIDLength:
		return hone.FieldError("tester_id", "tester_id is longer than %d characters", capture.MaxIDLength)
	case in.Rating != RatingUp && in.Rating != RatingDown:
		return hone.FieldError("rating", "rating must be up or down, not %q", in.Rating)
	case hone.Chars(in.Intent) > capture.MaxIDLength:
		return hone.FieldError("intent", "intent is longer than %d characters", capture.MaxIDLength)
	case hone.Chars(in.ContextType) > capture.MaxIDLength:
		return hone.FieldError("context_type", "context_type is longer than %d characters", capture.MaxIDLength)
	}
	return nil
}

// Approval is how often responses of one kind were rated 👍.
type Approval struct {
	Name  string `json:"name"`
	Total int    `json:"total"`
	Up    int    `json:"up"`
	Down  int    `json:"down"`
	// Percent is Up of Total, 0 to 100.
	Percent float64 `json:"percent"`
}

// Stats sums up the ratings since a time.
type Stats struct {
	Since time.Time `json:"since"`
	Total int       `json:"total"`
	Up    int       `json:"up"`
	Down  int       `json:"down"`
	// Percent is Up of Total, 0 to 100.
	Percent       float64    `json:"percent"`
	ByIntent      []Approval `json:"by_intent"`
	ByContextType []Approval `json:"by_context_type"`
	// PendingCorrections counts the corrections not synthesised yet.
	PendingCorrections int `json:"pending_corrections"`
}

// percent fills in a's Percent.
func (a *Approval) percent() {
	if a.Total > 0 {
		a.Percent = 100 * float64(a.Up) / float64(a.Total)
	}
}
