package api

import (
	"net/http"

	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/server"
)

// SessionList is the answer to GET /sessions.
type SessionList struct {
	Sessions []*capture.Session `json:"sessions"`
}

func (a *API) listSessions(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	f := capture.SessionFilter{TesterID: q.Get("tester_id")}
	var err error
	if f.Limit, err = sessionLimit.read(q); err != nil {
		return err
	}
	if f.Offset, err = sessionOffset.read(q); err != nil {
		return err
	}
	list, err := a.Sessions.ListSessions(r.Context(), f)
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, SessionList{Sessions: list})
}

func (a *API) getSession(w http.ResponseWriter, r *http.Request) error {
	s, err := a.Sessions.FindSession(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, s)
}

func (a *API) exportCSV(w http.ResponseWriter, r *http.Request) error {
	return a.export(w, r, "csv")
}

func (a *API) exportJSON(w http.ResponseWriter, r *http.Request) error {
	return a.export(w, r, "json")
}

func (a *API) export(w http.ResponseWriter, r *http.Request, format string) error {
	e, err := a.Tuning.Export(r.Context(), r.PathValue("id"), format)
	if err != nil {
		return err
	}
	return server.Download(w, e.Filename, e.ContentType, e.Write)
}
