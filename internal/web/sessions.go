package web

import (
	"net/http"
	"strconv"

	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/server"
)

// sessionsPerPage is how many sessions the list shows at once.
const sessionsPerPage = 50

// turnsPerPage is how many turns a session page shows at once.
const turnsPerPage = 100

func (u *UI) listSessions(w http.ResponseWriter, r *http.Request) error {
	page := pageParam(r)
	tester := r.URL.Query().Get("tester")
	list, err := u.Sessions.ListSessions(r.Context(), capture.SessionFilter{
		TesterID: tester, Offset: (page - 1) * sessionsPerPage, Limit: sessionsPerPage + 1})
	if err != nil {
		return err
	}
	more := len(list) > sessionsPerPage
	if more {
		list = list[:sessionsPerPage]
	}
	u.Render(w, r, http.StatusOK, "sessions", map[string]any{
		"Title": "Sessions", "Sessions": list, "Tester": tester, "Page": page, "More": more,
	})
	return nil
}

func (u *UI) showSession(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	s, err := u.Sessions.FindSession(ctx, r.PathValue("id"))
	if err != nil {
		return err
	}
	page := pageParam(r)
	turns, err := u.Tuning.Store().ListTurns(ctx, s.ID, (page-1)*turnsPerPage+1, turnsPerPage)
	if err != nil {
		return err
	}
	u.Render(w, r, http.StatusOK, "session", map[string]any{
		"Title": "Session " + s.ID, "Session": s, "Turns": turns, "Page": page,
		"More": page*turnsPerPage < s.TotalTurns, "AppName": u.Tuning.AppName(),
		"Duration": s.Duration(u.Tuning.Now()).Round(1e9).String(),
	})
	return nil
}

func (u *UI) exportCSV(w http.ResponseWriter, r *http.Request) error { return u.export(w, r, "csv") }

func (u *UI) exportJSON(w http.ResponseWriter, r *http.Request) error { return u.export(w, r, "json") }

func (u *UI) export(w http.ResponseWriter, r *http.Request, format string) error {
	e, err := u.Tuning.Export(r.Context(), r.PathValue("id"), format)
	if err != nil {
		return err
	}
	return server.Download(w, e.Filename, e.ContentType, e.Write)
}

func pageParam(r *http.Request) int {
	p, err := strconv.Atoi(r.URL.Query().Get("page"))
	if err != nil || p < 1 {
		return 1
	}
	return p
}
