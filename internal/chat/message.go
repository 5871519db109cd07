package chat

import (
	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/capture"
)

// Message is one chat message from a tester, as any transport delivers it.
type Message struct {
	capture.Tester
	Text string
}

// Reply is hone's answer to a message. Command is false for a message hone
// does not handle: the transport passes it on to the application. Ack asks
// the transport to acknowledge silently (a reaction) instead of or beside
// showing Text.
type Reply struct {
	Command   bool   `json:"command"`
	Text      string `json:"reply"`
	Ack       bool   `json:"ack"`
	SessionID string `json:"session_id"`
	// Failed is set when the message could not be carried out because of a
	// storage failure; Text then says so.
	Failed bool `json:"failed,omitempty"`
	// TurnID is the turn the reply recorded, when the playground answered it,
	// for a face that shows rating buttons; the API does not send it.
	TurnID string `json:"-"`
	// File is the reply's content as a document, for a face that sends
	// files (!print's CSV); the API does not send it.
	File *File `json:"-"`

	err error
}

// File is a document a reply carries: its name, its content and, when
// there is one, a signed link to download it.
type File struct {
	Name string
	Data []byte
	Link string
}

// Err is the failure behind a Failed reply, for a transport that answers
// differently when the database is unavailable (the API's 503); nil for
// any other reply.
func (r Reply) Err() error { return r.err }

// Code is the error code of a Failed reply, "" for any other.
func (r Reply) Code() string { return hone.ErrorCode(r.err) }

// Replies the spec fixes word for word for failed commands.
const (
	FailedSaveText = "⚠️ Failed to save feedback. Please try again or contact support."
	FailedReadText = "⚠️ Failed to read the session. Please try again or contact support."
)

// MaxTextLength is the longest message, in characters.
const MaxTextLength = capture.MaxTextLength
