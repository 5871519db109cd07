package api

import (
	"net/http"
	"strconv"

	"github.com/honehq/hone"
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
	if f.Limit, err = intParam(q.Get("limit"), "limit", 1, 1000); err != nil {
		return err
	}
	if f.Offset, err = intParam(q.Get("offset"), "offset", 0, 1<<31-1); err != nil {
		return err
	}
	list, err := a.Sessions.ListSessions(r.Context(), f)
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, SessionList{Sessions: list})
}

// intParam reads a whole-number query parameter; an empty value counts as absent (0).
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
