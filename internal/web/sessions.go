package web

import (
	"net/http"
	"strconv"

	"github.com/honehq/hone/internal/tuning"
)

// sessionsPerPage is how many sessions the list shows at once.
const sessionsPerPage = 50

// turnsPerPage is how many turns a session page shows at once.
const turnsPerPage = 100

func (u *UI) listSessions(w http.ResponseWriter, r *http.Request) {
	page := pageParam(r)
	tester := r.URL.Query().Get("tester")
	list, err := u.Engine.Store().ListSessions(r.Context(), tuning.SessionFilter{
		TesterID: tester, Offset: (page - 1) * sessionsPerPage, Limit: sessionsPerPage + 1})
	if err != nil {
		u.Error(w, r, err)
		return
	}
	more := len(list) > sessionsPerPage
	if more {
		list = list[:sessionsPerPage]
	}
	u.Render(w, r, http.StatusOK, "sessions", map[string]any{
		"Title": "Sessions", "Sessions": list, "Tester": tester, "Page": page, "More": more,
	})
}

func (u *UI) showSession(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	s, err := u.Engine.Store().FindSession(ctx, r.PathValue("id"))
	if err != nil {
		u.Error(w, r, err)
		return
	}
	page := pageParam(r)
	turns, err := u.Engine.Store().ListTurns(ctx, s.ID, (page-1)*turnsPerPage+1, turnsPerPage)
	if err != nil {
		u.Error(w, r, err)
		return
	}
	u.Render(w, r, http.StatusOK, "session", map[string]any{
		"Title": "Session " + s.ID, "Session": s, "Turns": turns, "Page": page,
		"More": page*turnsPerPage < s.TotalTurns, "AppName": u.Engine.AppName(),
		"Duration": s.Duration(u.Engine.Now()).Round(1e9).String(),
	})
}

func pageParam(r *http.Request) int {
	p, err := strconv.Atoi(r.URL.Query().Get("page"))
	if err != nil || p < 1 {
		return 1
	}
	return p
}
