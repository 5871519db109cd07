package web

import "github.com/honehq/hone/internal/server"

// Routes is the UI's route table.
func (u *UI) Routes() []server.Route {
	return []server.Route{
		{Method: "GET", Path: "/healthz", Handler: u.healthz, Open: true},
		{Method: "GET", Path: "/static/", Handler: u.serveStatic, Open: true},
		{Method: "GET", Path: "/signin", Handler: u.signInPage, Open: true},
		{Method: "POST", Path: "/signin", Handler: u.signIn, Open: true},
		{Method: "GET", Path: "/signin/{token}", Handler: u.signInLink, Open: true},
		{Method: "POST", Path: "/signout", Handler: u.signOut},
		{Method: "GET", Path: "/{$}", Handler: u.listSessions},
		{Method: "GET", Path: "/sessions/{id}", Handler: u.showSession},
		{Method: "GET", Path: "/sessions/{id}/export.csv", Handler: u.exportCSV, Signed: true},
		{Method: "GET", Path: "/sessions/{id}/export.json", Handler: u.exportJSON, Signed: true},
		{Method: "GET", Path: "/metrics", Handler: u.metricsPage},
		{Method: "GET", Path: "/chat", Handler: u.showChat},
		{Method: "POST", Path: "/chat/messages", Handler: u.postChatMessage, JSON: true},
	}
}
