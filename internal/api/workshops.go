package api

import (
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/server"
	"github.com/honehq/hone/internal/workshop"
)

// WorkshopList is the answer to GET /workshops.
type WorkshopList struct {
	Workshops []*workshop.Workshop `json:"workshops"`
}

// MemberList is the answer to GET /workshops/{id}/members.
type MemberList struct {
	Members []*workshop.Member `json:"members"`
}

// TraceList is the answer to GET /workshops/{id}/traces.
type TraceList struct {
	Traces []workshop.TraceView `json:"traces"`
}

// FeedbackList is the answer to GET /workshops/{id}/discovery-feedback.
type FeedbackList struct {
	Feedback []*workshop.Feedback `json:"feedback"`
}

// AnalysisList is the answer to GET /workshops/{id}/discovery-analysis.
type AnalysisList struct {
	Analyses []*workshop.Analysis `json:"analyses"`
}

// TemplateList is the answer to GET /workshops/{id}/analysis-templates.
type TemplateList struct {
	Templates []workshop.Template `json:"templates"`
}

// DraftItemList is the answer to the draft rubric's list and apply-groups.
type DraftItemList struct {
	Items []*workshop.DraftItem `json:"items"`
}

// PhaseInput is the body of POST /workshops/{id}/phase.
type PhaseInput struct {
	Phase  string `json:"phase"`
	UserID string `json:"user_id,omitempty"`
}

// GroupRename is the body of PUT /workshops/{id}/draft-rubric-groups/{group_id}.
type GroupRename struct {
	Name string `json:"name"`
}

// QuestionInput is the body of POST /workshops/{id}/generate-followup-question.
type QuestionInput struct {
	TraceID        string `json:"trace_id"`
	UserID         string `json:"user_id"`
	QuestionNumber int    `json:"question_number"`
}

// BeginInput is the optional body of POST /workshops/{id}/begin-discovery;
// the spec's query parameters trace_limit and randomize work too.
type BeginInput struct {
	TraceLimit int    `json:"trace_limit,omitempty"`
	Randomize  bool   `json:"randomize,omitempty"`
	UserID     string `json:"user_id,omitempty"`
}

// userID is the acting member: the body's user_id, or the query's.
func userID(r *http.Request, body string) string {
	if body != "" {
		return body
	}
	return r.URL.Query().Get("user_id")
}

// decodeOptional reads a JSON body into v when there is one.
func decodeOptional(r *http.Request, v any) error {
	if r.ContentLength == 0 || r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	return server.DecodeJSON(r, v)
}

func (a *API) listWorkshops(w http.ResponseWriter, r *http.Request) error {
	list, err := a.Workshops.List(r.Context())
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, WorkshopList{Workshops: list})
}

func (a *API) createWorkshop(w http.ResponseWriter, r *http.Request) error {
	var in workshop.Create
	if err := server.DecodeJSON(r, &in); err != nil {
		return err
	}
	created, err := a.Workshops.Create(r.Context(), in)
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusCreated, created)
}

func (a *API) getWorkshop(w http.ResponseWriter, r *http.Request) error {
	ws, err := a.Workshops.Get(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, ws)
}

func (a *API) updateWorkshop(w http.ResponseWriter, r *http.Request) error {
	var in workshop.Settings
	if err := server.DecodeJSON(r, &in); err != nil {
		return err
	}
	ws, err := a.Workshops.Update(r.Context(), r.PathValue("id"), userID(r, ""), in)
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, ws)
}

func (a *API) listMembers(w http.ResponseWriter, r *http.Request) error {
	list, err := a.Workshops.Members(r.Context(), r.PathValue("id"), userID(r, ""))
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, MemberList{Members: list})
}

func (a *API) addMember(w http.ResponseWriter, r *http.Request) error {
	var in workshop.Person
	if err := server.DecodeJSON(r, &in); err != nil {
		return err
	}
	m, err := a.Workshops.AddMember(r.Context(), r.PathValue("id"), userID(r, ""), in)
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusCreated, m)
}

func (a *API) newMemberToken(w http.ResponseWriter, r *http.Request) error {
	m, err := a.Workshops.NewToken(r.Context(), r.PathValue("id"), userID(r, ""), r.PathValue("member_id"))
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, m)
}

func (a *API) listTraces(w http.ResponseWriter, r *http.Request) error {
	list, err := a.Workshops.Traces(r.Context(), r.PathValue("id"), userID(r, ""))
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, TraceList{Traces: list})
}

// importTraces takes a JSON array, NDJSON or CSV body; skip_invalid=true
// imports the valid traces of a file that has invalid ones.
func (a *API) importTraces(w http.ResponseWriter, r *http.Request) error {
	format := workshop.FormatOf("", r.Header.Get("Content-Type"))
	if format == "" {
		return hone.Errorf(hone.EINVALID, "send the traces as application/json (an array), application/x-ndjson or text/csv")
	}
	skip, err := boolParam(r, "skip_invalid")
	if err != nil {
		return err
	}
	res, err := a.Workshops.ImportTraces(r.Context(), r.PathValue("id"), userID(r, ""), readBody{r.Body}, format, skip)
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusCreated, res)
}

// readBody turns body read errors (too large, too slow) into hone errors.
type readBody struct{ r io.Reader }

func (b readBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err != nil && err != io.EOF {
		if e := server.ReadError(err); e != nil {
			return n, e
		}
	}
	return n, err
}

// SessionImportInput is the body of POST
// /workshops/{id}/traces/from-sessions: the import and who acts.
type SessionImportInput struct {
	workshop.SessionImport
	UserID string `json:"user_id,omitempty"`
}

func (a *API) importSessions(w http.ResponseWriter, r *http.Request) error {
	var in SessionImportInput
	if err := server.DecodeJSON(r, &in); err != nil {
		return err
	}
	res, err := a.Workshops.ImportSessions(r.Context(), r.PathValue("id"), userID(r, in.UserID), in.SessionImport)
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusCreated, res)
}

func boolParam(r *http.Request, name string) (bool, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, hone.FieldError(name, "%s must be true or false, got %q", name, v)
	}
	return b, nil
}

func (a *API) setPhase(w http.ResponseWriter, r *http.Request) error {
	var in PhaseInput
	if err := server.DecodeJSON(r, &in); err != nil {
		return err
	}
	ws, err := a.Workshops.SetPhase(r.Context(), r.PathValue("id"), userID(r, in.UserID), in.Phase)
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, ws)
}

func (a *API) beginDiscovery(w http.ResponseWriter, r *http.Request) error {
	var in BeginInput
	if err := decodeOptional(r, &in); err != nil {
		return err
	}
	q := r.URL.Query()
	if v := q.Get("trace_limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return hone.FieldError("trace_limit", "trace_limit must be a whole number, got %q", v)
		}
		in.TraceLimit = n
	}
	if q.Get("randomize") != "" {
		b, err := boolParam(r, "randomize")
		if err != nil {
			return err
		}
		in.Randomize = b
	}
	ws, err := a.Workshops.Begin(r.Context(), r.PathValue("id"), userID(r, in.UserID), in.TraceLimit, in.Randomize)
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, ws)
}

func (a *API) submitFeedback(w http.ResponseWriter, r *http.Request) error {
	var in workshop.FeedbackInput
	if err := server.DecodeJSON(r, &in); err != nil {
		return err
	}
	in.UserID = userID(r, in.UserID)
	f, err := a.Workshops.SubmitFeedback(r.Context(), r.PathValue("id"), in)
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, f)
}

func (a *API) listFeedback(w http.ResponseWriter, r *http.Request) error {
	list, err := a.Workshops.ListFeedback(r.Context(), r.PathValue("id"), userID(r, ""))
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, FeedbackList{Feedback: list})
}

// generateQuestion takes its parameters from a JSON body or, as the spec
// has them, from the query.
func (a *API) generateQuestion(w http.ResponseWriter, r *http.Request) error {
	var in QuestionInput
	if err := decodeOptional(r, &in); err != nil {
		return err
	}
	q := r.URL.Query()
	if in.TraceID == "" {
		in.TraceID = q.Get("trace_id")
	}
	in.UserID = userID(r, in.UserID)
	if v := q.Get("question_number"); in.QuestionNumber == 0 && v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return hone.FieldError("question_number", "question_number must be a whole number, got %q", v)
		}
		in.QuestionNumber = n
	}
	question, err := a.Workshops.GenerateQuestion(r.Context(), r.PathValue("id"), in.TraceID, in.UserID, in.QuestionNumber)
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, question)
}

func (a *API) submitAnswer(w http.ResponseWriter, r *http.Request) error {
	var in workshop.AnswerInput
	if err := server.DecodeJSON(r, &in); err != nil {
		return err
	}
	in.UserID = userID(r, in.UserID)
	f, err := a.Workshops.SubmitAnswer(r.Context(), r.PathValue("id"), in)
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, f)
}

func (a *API) completion(w http.ResponseWriter, r *http.Request) error {
	st, err := a.Workshops.Completion(r.Context(), r.PathValue("id"), userID(r, ""))
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, st)
}

func (a *API) analyze(w http.ResponseWriter, r *http.Request) error {
	var in workshop.AnalyzeInput
	if err := decodeOptional(r, &in); err != nil {
		return err
	}
	in.UserID = userID(r, in.UserID)
	st, err := a.Workshops.Analyze(r.Context(), r.PathValue("id"), in)
	if err != nil {
		return err
	}
	w.Header().Set("Location", Prefix+"/workshops/"+r.PathValue("id")+"/discovery-analysis/"+st.ID)
	return server.WriteJSON(w, http.StatusAccepted, st)
}

func (a *API) listAnalyses(w http.ResponseWriter, r *http.Request) error {
	list, err := a.Workshops.Analyses(r.Context(), r.PathValue("id"), userID(r, ""), r.URL.Query().Get("template"))
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, AnalysisList{Analyses: list})
}

func (a *API) getAnalysis(w http.ResponseWriter, r *http.Request) error {
	an, err := a.Workshops.Analysis(r.Context(), r.PathValue("id"), userID(r, ""), r.PathValue("analysis_id"))
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, an)
}

func (a *API) listTemplates(w http.ResponseWriter, r *http.Request) error {
	list, err := a.Workshops.Templates(r.Context(), r.PathValue("id"), userID(r, ""))
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, TemplateList{Templates: list})
}

// TemplateInput is the body of POST /workshops/{id}/analysis-templates.
type TemplateInput struct {
	Name        string `json:"name"`
	Title       string `json:"title"`
	Instruction string `json:"instruction"`
}

func (a *API) addTemplate(w http.ResponseWriter, r *http.Request) error {
	var in TemplateInput
	if err := server.DecodeJSON(r, &in); err != nil {
		return err
	}
	t, err := a.Workshops.AddTemplate(r.Context(), r.PathValue("id"), userID(r, ""),
		workshop.Template{Name: in.Name, Title: in.Title, Instruction: in.Instruction})
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusCreated, t)
}

func (a *API) listDraftItems(w http.ResponseWriter, r *http.Request) error {
	list, err := a.Workshops.DraftItems(r.Context(), r.PathValue("id"), userID(r, ""))
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, DraftItemList{Items: list})
}

func (a *API) promote(w http.ResponseWriter, r *http.Request) error {
	var in workshop.DraftItemInput
	if err := server.DecodeJSON(r, &in); err != nil {
		return err
	}
	it, err := a.Workshops.Promote(r.Context(), r.PathValue("id"), userID(r, ""), in)
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusCreated, it)
}

func (a *API) updateDraftItem(w http.ResponseWriter, r *http.Request) error {
	var in workshop.DraftItemUpdate
	if err := server.DecodeJSON(r, &in); err != nil {
		return err
	}
	it, err := a.Workshops.UpdateDraftItem(r.Context(), r.PathValue("id"), userID(r, ""), r.PathValue("item_id"), in)
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, it)
}

func (a *API) deleteDraftItem(w http.ResponseWriter, r *http.Request) error {
	if err := a.Workshops.DeleteDraftItem(r.Context(), r.PathValue("id"), userID(r, ""), r.PathValue("item_id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (a *API) renameGroup(w http.ResponseWriter, r *http.Request) error {
	var in GroupRename
	if err := server.DecodeJSON(r, &in); err != nil {
		return err
	}
	if err := a.Workshops.RenameGroup(r.Context(), r.PathValue("id"), userID(r, ""), r.PathValue("group_id"), in.Name); err != nil {
		return err
	}
	return a.listDraftItems(w, r)
}

func (a *API) suggestGroups(w http.ResponseWriter, r *http.Request) error {
	g, err := a.Workshops.SuggestGroups(r.Context(), r.PathValue("id"), userID(r, ""))
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, g)
}

func (a *API) applyGroups(w http.ResponseWriter, r *http.Request) error {
	var in workshop.Grouping
	if err := server.DecodeJSON(r, &in); err != nil {
		return err
	}
	items, err := a.Workshops.ApplyGroups(r.Context(), r.PathValue("id"), userID(r, ""), in)
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, DraftItemList{Items: items})
}

func (a *API) agreement(w http.ResponseWriter, r *http.Request) error {
	ag, err := a.Workshops.Agreement(r.Context(), r.PathValue("id"), userID(r, ""))
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, ag)
}

func (a *API) exportWorkshop(w http.ResponseWriter, r *http.Request) error {
	format := strings.ToLower(r.URL.Query().Get("format"))
	if format == "" {
		format = workshop.ExportJSONL
	}
	e, err := a.Workshops.Export(r.Context(), r.PathValue("id"), userID(r, ""), format)
	if err != nil {
		return err
	}
	return server.Download(w, e.Filename, e.ContentType, e.Write)
}
