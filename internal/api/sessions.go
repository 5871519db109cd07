package api

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/tuning"
)

// TurnCreated is the answer to POST /turns.
type TurnCreated struct {
	ID         string `json:"id"`
	SessionID  string `json:"session_id"`
	TurnNumber int    `json:"turn_number"`
}

func (a *API) createTurn(w http.ResponseWriter, r *http.Request) {
	var in tuning.TurnInput
	if err := decode(r, &in); err != nil {
		writeError(w, r, a.Logger, err)
		return
	}
	in.SearchResults, in.Metadata = nullAsAbsent(in.SearchResults), nullAsAbsent(in.Metadata)
	t, err := a.Engine.RecordTurn(r.Context(), in)
	if err != nil {
		writeError(w, r, a.Logger, err)
		return
	}
	writeJSON(w, http.StatusCreated, TurnCreated{ID: t.ID, SessionID: t.SessionID, TurnNumber: t.Number})
}

// nullAsAbsent treats an explicit JSON null like a field left out, as the
// decoder already does for every field that is not raw JSON.
func nullAsAbsent(v json.RawMessage) json.RawMessage {
	if string(v) == "null" {
		return nil
	}
	return v
}

// MessageInput is the body of POST /messages.
type MessageInput struct {
	ConversationID string `json:"conversation_id"`
	TesterID       string `json:"tester_id"`
	TesterEmail    string `json:"tester_email"`
	Text           string `json:"text"`
}

func (a *API) createMessage(w http.ResponseWriter, r *http.Request) {
	var in MessageInput
	if err := decode(r, &in); err != nil {
		writeError(w, r, a.Logger, err)
		return
	}
	reply, err := a.Engine.Handle(r.Context(), tuning.Message{
		Tester: tuning.Tester{ConversationID: in.ConversationID, TesterID: in.TesterID, TesterEmail: in.TesterEmail},
		Text:   in.Text,
	})
	if err != nil {
		writeError(w, r, a.Logger, err)
		return
	}
	writeJSON(w, http.StatusOK, reply)
}

// SessionList is the answer to GET /sessions.
type SessionList struct {
	Sessions []*tuning.Session `json:"sessions"`
}

func (a *API) listSessions(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := tuning.SessionFilter{TesterID: q.Get("tester_id")}
	var err error
	if f.Limit, err = intParam(q.Get("limit"), "limit", 1, 1000); err == nil {
		f.Offset, err = intParam(q.Get("offset"), "offset", 0, 1<<31-1)
	}
	if err != nil {
		writeError(w, r, a.Logger, err)
		return
	}
	list, err := a.Store.ListSessions(r.Context(), f)
	if err != nil {
		writeError(w, r, a.Logger, err)
		return
	}
	writeJSON(w, http.StatusOK, SessionList{Sessions: list})
}

func intParam(v, name string, lo, hi int) (int, error) {
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, hone.FieldError(name, "%s must be a whole number from %d to %d, got %q", name, lo, hi, v)
	}
	return n, nil
}

func (a *API) getSession(w http.ResponseWriter, r *http.Request) {
	s, err := a.Store.FindSession(r.Context(), r.PathValue("id"))
	if err != nil {
		writeError(w, r, a.Logger, err)
		return
	}
	writeJSON(w, http.StatusOK, s)
}

func (a *API) exportCSV(w http.ResponseWriter, r *http.Request) {
	ServeExport(w, r, a.Engine, r.PathValue("id"), "csv", a.Logger)
}

func (a *API) exportJSON(w http.ResponseWriter, r *http.Request) {
	ServeExport(w, r, a.Engine, r.PathValue("id"), "json", a.Logger)
}
