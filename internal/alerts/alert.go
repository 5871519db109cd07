package alerts

import (
	"strings"
	"time"
	"unicode"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/capture"
)

// Reactions a tester can give a proactive alert.
const (
	ReactionUp   = "up"
	ReactionAck  = "ack"
	ReactionDown = "down"
)

// reactionSpellings are the other words a reaction may be given with, in
// lower case, and the reaction each stands for.
var reactionSpellings = map[string]string{
	"👍": ReactionUp, "+1": ReactionUp, "good": ReactionUp, "thumbs_up": ReactionUp,
	"👎": ReactionDown, "-1": ReactionDown, "bad": ReactionDown, "thumbs_down": ReactionDown,
	"acknowledge": ReactionAck, "acknowledged": ReactionAck, "seen": ReactionAck,
}

// typePunctuation are the characters besides letters and digits an alert
// type may have.
const typePunctuation = "_-.:"

// MaxAlertText bounds an alert's recorded text, in characters.
const MaxAlertText = 10_000

// Alert is a proactive message an application sent to a conversation on
// its own initiative (a reminder, a warning), recorded so that the
// reactions to it can steer how many more it may send.
type Alert struct {
	ID             string    `json:"id"`
	ConversationID string    `json:"conversation_id"`
	Type           string    `json:"type"`
	Text           string    `json:"text,omitempty"`
	TesterID       string    `json:"tester_id,omitempty"`
	SentAt         time.Time `json:"sent_at"`
	// Reactions are the testers' reactions, when listed for reading.
	Reactions []*AlertReaction `json:"reactions,omitempty"`
	// WithinBudget tells, when it was recorded, whether the conversation's
	// budget allowed it and its type was not paused.
	WithinBudget bool `json:"within_budget"`
}

// AlertInput records a sent alert.
type AlertInput struct {
	// ID is the application's id of the alert, so that recording it twice
	// adds nothing; hone makes one when empty.
	ID             string `json:"id,omitempty"`
	ConversationID string `json:"conversation_id"`
	Type           string `json:"type"`
	Text           string `json:"text,omitempty"`
	TesterID       string `json:"tester_id,omitempty"`
}

// clean normalises the input and reports the first field that is wrong.
func (in *AlertInput) clean() error {
	in.ID = strings.TrimSpace(hone.CleanText(in.ID))
	in.Text = strings.TrimSpace(hone.CleanText(in.Text))
	in.TesterID = strings.TrimSpace(hone.CleanText(in.TesterID))
	if err := cleanPermit(&in.ConversationID, &in.Type); err != nil {
		return err
	}
	switch {
	case hone.Chars(in.ID) > capture.MaxIDLength:
		return hone.FieldError("id", "id is longer than %d characters", capture.MaxIDLength)
	case hone.Chars(in.Text) > MaxAlertText:
		return hone.FieldError("text", "text is longer than %d characters", MaxAlertText)
	case hone.Chars(in.TesterID) > capture.MaxIDLength:
		return hone.FieldError("tester_id", "tester_id is longer than %d characters", capture.MaxIDLength)
	}
	return nil
}

// PermitInput asks whether an alert may be sent now.
type PermitInput struct {
	ConversationID string `json:"conversation_id"`
	Type           string `json:"type"`
}

// cleanPermit normalises a conversation id and an alert type and reports
// the first that is wrong.
func cleanPermit(conversationID, typ *string) error {
	*conversationID = strings.TrimSpace(hone.CleanText(*conversationID))
	*typ = strings.TrimSpace(hone.CleanText(*typ))
	defer func() { *typ = strings.ToLower(*typ) }()
	switch {
	case *conversationID == "":
		return hone.FieldError("conversation_id", "conversation_id is required: the conversation the alert goes to")
	case hone.Chars(*conversationID) > capture.MaxIDLength:
		return hone.FieldError("conversation_id", "conversation_id is longer than %d characters", capture.MaxIDLength)
	case *typ == "":
		return hone.FieldError("type", "type is required: the kind of alert, such as reminder or price_drop")
	case hone.Chars(*typ) > capture.MaxIDLength:
		return hone.FieldError("type", "type is longer than %d characters", capture.MaxIDLength)
	case strings.IndexFunc(*typ, notTypeRune) >= 0:
		return hone.FieldError("type", "type must be one word of letters, digits, _, -, . or :, not %q", *typ)
	}
	return nil
}

// notTypeRune reports whether r may not stand in an alert type.
func notTypeRune(r rune) bool {
	return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune(typePunctuation, r)
}

// Permit answers whether a conversation may get an alert of a type now,
// and why.
type Permit struct {
	Allowed bool `json:"allowed"`
	// Reason says why, in a sentence a developer can act on.
	Reason         string `json:"reason"`
	ConversationID string `json:"conversation_id"`
	Type           string `json:"type"`
	// TypePaused is set when the type is paused after consistently
	// negative reactions, until it is enabled again.
	TypePaused bool `json:"type_paused"`
	// Score is the conversation's alert_quality_score, −1 to 1, over
	// Scored alerts.
	Score  float64 `json:"alert_quality_score"`
	Scored int     `json:"scored_alerts"`
	// Budget is how many alerts the conversation may get in 24 hours at
	// that score; Sent how many it got in the last 24 hours.
	Budget    int `json:"budget"`
	Sent      int `json:"sent"`
	Remaining int `json:"remaining"`
	// RetryAt is when the budget allows one again, when it is spent.
	RetryAt *time.Time `json:"retry_at,omitempty"`
}

// AlertReaction is one tester's reaction to an alert: one per alert and
// tester, which they may change.
type AlertReaction struct {
	AlertID   string    `json:"alert_id"`
	TesterID  string    `json:"tester_id"`
	Reaction  string    `json:"reaction"`
	ReactedAt time.Time `json:"reacted_at"`
}

// ReactionInput reacts to an alert.
type ReactionInput struct {
	TesterID string `json:"tester_id"`
	Reaction string `json:"reaction"`
}

// clean normalises the input and reports the first field that is wrong.
func (in *ReactionInput) clean() error {
	in.TesterID = strings.TrimSpace(hone.CleanText(in.TesterID))
	in.Reaction = strings.ToLower(strings.TrimSpace(in.Reaction))
	if r, ok := reactionSpellings[in.Reaction]; ok {
		in.Reaction = r
	}
	switch {
	case in.TesterID == "":
		return hone.FieldError("tester_id", "tester_id is required: who reacts to the alert")
	case hone.Chars(in.TesterID) > capture.MaxIDLength:
		return hone.FieldError("tester_id", "tester_id is longer than %d characters", capture.MaxIDLength)
	}
	if _, ok := ReactionValue(in.Reaction); !ok {
		return hone.FieldError("reaction", "reaction must be ack, up or down, not %q", in.Reaction)
	}
	return nil
}

// Reacted is the outcome of a reaction: the reaction, and whether it
// paused the alert's type.
type Reacted struct {
	Reaction *AlertReaction `json:"reaction"`
	Type     string         `json:"type"`
	// Paused is set when this reaction paused the type; TypePaused when
	// the type is paused, by this reaction or before.
	Paused     bool   `json:"paused"`
	TypePaused bool   `json:"type_paused"`
	PauseNote  string `json:"pause_reason,omitempty"`
	Alert      *Alert `json:"-"`
}

// AlertType is a type of alert, with the reactions it got and whether it
// is paused.
type AlertType struct {
	Type   string `json:"type"`
	Sent   int    `json:"sent"`
	Up     int    `json:"up"`
	Ack    int    `json:"ack"`
	Down   int    `json:"down"`
	Paused bool   `json:"paused"`
	// Reason says why it is paused.
	Reason   string     `json:"reason,omitempty"`
	PausedAt *time.Time `json:"paused_at,omitempty"`
	// EnabledAt is when it was last enabled again: only reactions from
	// then on can pause it anew.
	EnabledAt *time.Time `json:"enabled_at,omitempty"`
}
