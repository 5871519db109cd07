package api

import (
	"net/http"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/chat"
	"github.com/honehq/hone/internal/server"
)

// MessageInput is the body of POST /messages.
type MessageInput struct {
	ConversationID string `json:"conversation_id"`
	TesterID       string `json:"tester_id"`
	TesterEmail    string `json:"tester_email"`
	Text           string `json:"text"`
}

// createMessage hands a chat message to the chat router. A command that
// could not be carried out because the database is unavailable answers 503
// with the spec's message, so that the application can show it and retry.
func (a *API) createMessage(w http.ResponseWriter, r *http.Request) error {
	var in MessageInput
	if err := server.DecodeJSON(r, &in); err != nil {
		return err
	}
	reply, err := a.Chat.Handle(r.Context(), chat.Message{
		Tester: capture.Tester{ConversationID: in.ConversationID, TesterID: in.TesterID, TesterEmail: in.TesterEmail},
		Text:   in.Text,
	})
	if err != nil {
		return err
	}
	if reply.Failed && reply.Code() == hone.EUNAVAILABLE {
		return &hone.Error{Code: hone.EUNAVAILABLE, Message: reply.Text}
	}
	return server.WriteJSON(w, http.StatusOK, reply)
}
