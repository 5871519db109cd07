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
		{Method: "GET", Path: "/sessions.csv", Handler: u.exportSessionsCSV},
		{Method: "GET", Path: "/sessions.json", Handler: u.exportSessionsJSON},
		{Method: "GET", Path: "/sessions/{id}", Handler: u.showSession},
		{Method: "POST", Path: "/sessions/{id}/turns/{number}/rating", Handler: u.rateSessionTurn},
		{Method: "POST", Path: "/sessions/{id}/turns/{number}/notes", Handler: u.noteSessionTurn},
		{Method: "POST", Path: "/sessions/{id}/turns/{number}/scores", Handler: u.scoreSessionTurn},
		{Method: "GET", Path: "/sessions/{id}/export.csv", Handler: u.exportCSV, Signed: true},
		{Method: "GET", Path: "/sessions/{id}/export.json", Handler: u.exportJSON, Signed: true},
		{Method: "GET", Path: "/quality", Handler: u.qualityPage},
		{Method: "GET", Path: "/chat", Handler: u.showChat},
		{Method: "POST", Path: "/chat/messages", Handler: u.postChatMessage, JSON: true},
		{Method: "POST", Path: "/chat/turns/{id}/feedback", Handler: u.rateChatTurn, JSON: true},
		{Method: "GET", Path: "/learnings", Handler: u.learningsPage},
		{Method: "POST", Path: "/learnings", Handler: u.addLearning},
		{Method: "POST", Path: "/learnings/enabled", Handler: u.switchLearnings},
		{Method: "POST", Path: "/learnings/synthesize", Handler: u.synthesizeLearnings},
		{Method: "POST", Path: "/learnings/{id}", Handler: u.editLearning},
		{Method: "POST", Path: "/learnings/{id}/delete", Handler: u.removeLearning},
		{Method: "POST", Path: "/learnings/{id}/keep", Handler: u.keepLearning},
		{Method: "GET", Path: "/workshops", Handler: u.listWorkshops},
		{Method: "POST", Path: "/workshops", Handler: u.createWorkshop},
		{Method: "GET", Path: "/w/{id}/join/{token}", Handler: u.joinWorkshop, Open: true},
		{Method: "POST", Path: "/w/{id}/leave", Handler: u.leaveWorkshop, Members: true},
		{Method: "GET", Path: "/w/{id}", Handler: u.workshopHome, Members: true},
		{Method: "GET", Path: "/w/{id}/traces/{trace}", Handler: u.tracePage, Members: true},
		{Method: "POST", Path: "/w/{id}/traces/{trace}/feedback", Handler: u.postFeedback, Members: true},
		{Method: "POST", Path: "/w/{id}/traces/{trace}/question", Handler: u.postQuestion, Members: true},
		{Method: "POST", Path: "/w/{id}/traces/{trace}/answer", Handler: u.postAnswer, Members: true},
		{Method: "GET", Path: "/w/{id}/analysis", Handler: u.analysisTab, Members: true},
		{Method: "GET", Path: "/w/{id}/setup", Handler: u.setupTab, Members: true},
		{Method: "GET", Path: "/w/{id}/export", Handler: u.exportWorkshop, Members: true},
		{Method: "POST", Path: "/w/{id}/members", Handler: u.addMember, Members: true},
		{Method: "POST", Path: "/w/{id}/members/{member}/link", Handler: u.newLink, Members: true},
		{Method: "POST", Path: "/w/{id}/traces", Handler: u.importTraces, Members: true, MaxBody: maxUpload},
		{Method: "POST", Path: "/w/{id}/settings", Handler: u.saveSettings, Members: true},
		{Method: "POST", Path: "/w/{id}/begin", Handler: u.beginDiscovery, Members: true},
		{Method: "POST", Path: "/w/{id}/phase", Handler: u.advancePhase, Members: true},
		{Method: "POST", Path: "/w/{id}/analyses", Handler: u.runAnalysis, Members: true},
		{Method: "POST", Path: "/w/{id}/templates", Handler: u.addTemplate, Members: true},
		{Method: "POST", Path: "/w/{id}/rubric", Handler: u.promote, Members: true},
		{Method: "POST", Path: "/w/{id}/rubric/suggest", Handler: u.suggestGroups, Members: true},
		{Method: "POST", Path: "/w/{id}/rubric/apply", Handler: u.applyGroups, Members: true},
		{Method: "POST", Path: "/w/{id}/rubric/{item}", Handler: u.editItem, Members: true},
		{Method: "POST", Path: "/w/{id}/rubric/{item}/delete", Handler: u.deleteItem, Members: true},
		{Method: "POST", Path: "/w/{id}/groups/{group}", Handler: u.renameGroup, Members: true},
	}
}

// AllRoutes are the UI's own routes and those capabilities add.
func (u *UI) AllRoutes() []server.Route { return append(u.Routes(), u.Extra...) }
