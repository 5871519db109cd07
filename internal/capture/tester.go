package capture

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/honehq/hone"
)

// Tester identifies who is talking in a conversation.
type Tester struct {
	ConversationID string
	TesterID       string
	TesterEmail    string
}

// Limits on the length of identifiers and texts, in characters.
const (
	MaxIDLength   = 200
	MaxTextLength = 1 << 20
)

// Validate reports the first identity field that is missing or malformed.
func (t Tester) Validate() error {
	switch {
	case blank(t.ConversationID):
		return hone.FieldError("conversation_id", "conversation_id is required")
	case hone.Chars(t.ConversationID) > MaxIDLength:
		return tooLong("conversation_id", MaxIDLength)
	case blank(t.TesterID):
		return hone.FieldError("tester_id", "tester_id is required")
	case hone.Chars(t.TesterID) > MaxIDLength:
		return tooLong("tester_id", MaxIDLength)
	case hone.Chars(t.TesterEmail) > MaxIDLength:
		return tooLong("tester_email", MaxIDLength)
	case t.TesterEmail != "" && !ValidEmail(t.TesterEmail):
		return hone.FieldError("tester_email", "tester_email %q is not an email address (name@domain, without spaces)", t.TesterEmail)
	}
	return nil
}

// Clean returns t with its fields cleaned like hone.CleanText.
func (t Tester) Clean() Tester {
	return Tester{ConversationID: hone.CleanText(t.ConversationID), TesterID: hone.CleanText(t.TesterID),
		TesterEmail: hone.CleanText(t.TesterEmail)}
}

func (t Tester) String() string {
	return fmt.Sprintf("conversation=%s tester=%s", t.ConversationID, t.TesterID)
}

// EmailPattern is the form of an email address hone accepts, as a regular
// expression: one "@" with something other than "@" and white space on both
// sides.
const EmailPattern = `^[^@\s]+@[^@\s]+$`

// ValidEmail reports whether s matches EmailPattern.
func ValidEmail(s string) bool {
	local, domain, ok := strings.Cut(s, "@")
	return ok && local != "" && domain != "" && !strings.ContainsRune(domain, '@') &&
		strings.IndexFunc(s, unicode.IsSpace) < 0
}

// blank reports whether s holds nothing but white space.
func blank(s string) bool { return strings.TrimSpace(s) == "" }

func tooLong(field string, limit int) error {
	return hone.FieldError(field, "%s is longer than %d characters", field, limit)
}
