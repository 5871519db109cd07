package web

import (
	"net/http"
	"strconv"

	"github.com/honehq/hone/internal/server"
	"github.com/honehq/hone/internal/tuning"
)

// sessionsPerPage is how many sessions the list shows at once.
const sessionsPerPage = 50

// turnsPerPage is how many turns a session page shows at once.
const turnsPerPage = 100

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
	judged, err := u.Tuning.SessionJudgments(ctx, s.ID)
	if err != nil {
		return err
	}
	configs, err := u.reviewConfigs(r)
	if err != nil {
		return err
	}
	u.Render(w, r, http.StatusOK, "session", map[string]any{
		"Title": "Session " + s.ID, "Session": s, "Turns": turns, "Page": page,
		"More": page*turnsPerPage < s.TotalTurns, "AppName": u.Tuning.AppName(),
		"Duration": s.Duration(u.Tuning.Now()).Round(1e9).String(),
		"Judged":   judged, "Configs": configs, "Categories": tuning.Categories,
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
