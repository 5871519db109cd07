// Package bots is hone on chat platforms (Microsoft Teams, Telegram): the
// one place their adapters hand a tester's message, a 👍/👎 press or an
// alert's button to, and get back what to show. An adapter only speaks its
// platform's protocol; who may talk, what answers (the model under test or
// the application's relay), what is recorded and how a judgment is kept
// live here, so that every platform behaves as the web chat does.
package bots

import (
	"context"
	"time"
)

// Platforms hone runs on as a bot.
const (
	Teams    = "teams"
	Telegram = "telegram"
)

// Incoming is what a tester sent on a platform, as its adapter read it:
// the text with the bot's @mention stripped (Teams) and a leading /command
// read as !command (Telegram).
type Incoming struct {
	// Platform is Teams or Telegram.
	Platform string
	// ConversationID is the platform's conversation (a Teams conversation
	// id, a Telegram chat id), without the platform prefix.
	ConversationID string
	// UserID is the platform's stable user id (Teams: the AAD object id,
	// else the channel account id; Telegram: the user id), without prefix.
	UserID string
	// UserName is the display name, for pages; Handle is the platform
	// handle an allow list may name (a Telegram username, without @).
	UserName string
	Handle   string
	// Text is the message.
	Text string
}

// Outgoing is what the adapter shows in answer.
type Outgoing struct {
	// Text is the reply (Markdown as the web chat renders it); "" for none.
	Text string
	// Ack asks for a silent acknowledgement (a reaction) beside Text.
	Ack bool
	// TurnID is the recorded answer of the model or relay: the adapter
	// offers 👍/👎 on it and sends TurnID back in Rating.
	TurnID string
	// File is a document to send instead of Text when Text is longer than
	// the platform takes in one message (!print's CSV); Link is where it
	// can be downloaded for a platform that cannot take files.
	File *File
	// Refused is set when the sender may not talk to the bot: Text is the
	// one polite refusal, or "" when they were told already.
	Refused bool
}

// File is a document a reply carries.
type File struct {
	// Name is the file name the spec gives it.
	Name string
	// Data is its content.
	Data []byte
	// Link is a signed download link to the same content, for a platform
	// that shows a link instead of a file.
	Link string
}

// Rating is a press of a 👍/👎 button under an answer.
type Rating struct {
	Incoming
	// TurnID is the answer's turn, as Outgoing.TurnID gave it.
	TurnID string
	// Up is 👍; false is 👎.
	Up bool
	// Comment is the text a 👎 came with (Teams' feedback form): the
	// correction. Without it a 👎 starts the correction dialogue.
	Comment string
}

// Bot is what adapters talk to.
type Bot interface {
	// Message handles a tester's message: a chat command, or a message the
	// model (or the application's relay) answers and hone records.
	Message(ctx context.Context, in Incoming) (Outgoing, error)
	// Rate records a press of 👍/👎 under an answer, before anything is
	// sent back: the reply is what to show (the correction question after
	// a 👎 without comment).
	Rate(ctx context.Context, r Rating) (Outgoing, error)
	// React records a press of a button under an alert, as !ack, 👍 and 👎
	// in a chat do.
	React(ctx context.Context, p AlertPress) (Outgoing, error)
}

// AlertPress is a press of a button under a proactive alert: Acknowledge,
// 👍 or 👎.
type AlertPress struct {
	Incoming
	// AlertID is the alert's id, as Delivery gave it.
	AlertID string
	// Reaction is "ack", "up" or "down", the reactions of the alerts'
	// quality score.
	Reaction string
}

// Delivery is an alert to show in a conversation of a platform, with its
// Acknowledge, 👍 and 👎 buttons.
type Delivery struct {
	// ConversationID is the platform's conversation, without prefix.
	ConversationID string
	AlertID        string
	Text           string
}

// Deliverer sends alerts into the conversations of one platform: an
// adapter is one.
type Deliverer interface {
	// Platform is the platform it sends to.
	Platform() string
	// Deliver shows d in its conversation, proactively.
	Deliver(ctx context.Context, d Delivery) error
}

// Offsets keep where each bot stopped reading its platform's updates (a
// Telegram getUpdates offset): the next update it reads, 0 for none yet.
type Offsets interface {
	NextUpdate(ctx context.Context, bot string) (int64, error)
	// SaveNextUpdate keeps next, unless a larger one is kept already.
	SaveNextUpdate(ctx context.Context, bot string, next int64) error
}

// Reference is where a bot posts into a conversation without being asked
// (an alert): a Teams conversation reference.
type Reference struct {
	// Platform and ConversationID name the conversation (without prefix).
	Platform       string
	ConversationID string
	// ServiceURL is the platform's endpoint for the conversation (the
	// Bot Connector of a Teams conversation).
	ServiceURL string
	// BotID and BotName are the bot's account in the conversation.
	BotID   string
	BotName string
	// TenantID is the conversation's tenant, "" when it has none.
	TenantID string
}

// AnswerMaxAge is how long the answers a bot sent stay rateable across
// restarts: Conversations forget older ones.
const AnswerMaxAge = 90 * 24 * time.Hour

// Conversations keep what an adapter needs to know about its
// conversations across restarts: where to post alerts, which turn each
// answer it sent holds, and each conversation's latest answer.
type Conversations interface {
	// SaveReference keeps ref as its conversation's reference.
	SaveReference(ctx context.Context, ref Reference) error
	// Reference is the conversation's reference; false when none is kept.
	Reference(ctx context.Context, platform, conversationID string) (Reference, bool, error)
	// SaveAnswer keeps that the platform's message messageID, sent in the
	// conversation, is the answer of turnID, and makes it the
	// conversation's latest answer; answers older than AnswerMaxAge are
	// forgotten.
	SaveAnswer(ctx context.Context, platform, conversationID, messageID, turnID string) error
	// AnswerTurn is the turn of the answer the platform's message
	// messageID holds; false when it is not known.
	AnswerTurn(ctx context.Context, platform, messageID string) (string, bool, error)
	// LatestAnswer is the turn of the conversation's latest answer; false
	// when none is known.
	LatestAnswer(ctx context.Context, platform, conversationID string) (string, bool, error)
}
