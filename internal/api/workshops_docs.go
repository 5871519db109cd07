package api

import (
	"net/http"

	"github.com/honehq/hone/internal/jsonschema"
	"github.com/honehq/hone/internal/server"
	"github.com/honehq/hone/internal/workshop"
)

// inWorkshop are the parameters of a workshop's routes: its id, the member
// acting, then the route's own.
func inWorkshop(own ...server.Param) []server.Param {
	return append([]server.Param{shared("WorkshopID"), shared("UserID")}, own...)
}

// asSelf are the parameters of a member's own actions: the workshop's id,
// the member, then the route's own.
func asSelf(own ...server.Param) []server.Param {
	return append([]server.Param{shared("WorkshopID"), shared("UserIDSelf")}, own...)
}

// noWorkshop is the answer to a workshop id that names none.
var noWorkshop = sharedAnswer("WorkshopNotFound")

// boolQuery is a query parameter strconv.ParseBool reads.
func boolQuery(name string) server.Param {
	return server.Param{Name: name, In: "query", AllowEmpty: true, Schema: str(jsonschema.Enum(boolValues...))}
}

// workshopDoc documents a route of a workshop: params, then body (nil for
// none), then its own answers.
func workshopDoc(id string, params []server.Param, b *server.RequestBody, answers map[int]server.Response) *server.Doc {
	return &server.Doc{ID: id, Tag: "workshops", Params: params, Body: b, Responses: answers}
}

var (
	listWorkshopsDoc = workshopDoc("listWorkshops", nil, nil, map[int]server.Response{
		http.StatusOK: answer(WorkshopList{}), http.StatusForbidden: sharedAnswer("HostForbidden")})
	createWorkshopDoc = workshopDoc("createWorkshop", nil, body(workshop.Create{}), map[int]server.Response{
		http.StatusCreated: answer(workshop.Created{}), http.StatusForbidden: failure})
	getWorkshopDoc = workshopDoc("getWorkshop", []server.Param{shared("WorkshopID")}, nil, map[int]server.Response{
		http.StatusOK: answer(workshop.Workshop{}), http.StatusForbidden: failure, http.StatusNotFound: noWorkshop})
	updateWorkshopDoc = workshopDoc("updateWorkshop", inWorkshop(), body(workshop.Settings{}), map[int]server.Response{
		http.StatusOK: answer(workshop.Workshop{}), http.StatusNotFound: noWorkshop})
	listMembersDoc = workshopDoc("listMembers", inWorkshop(), nil, map[int]server.Response{
		http.StatusOK: answer(MemberList{}), http.StatusNotFound: noWorkshop})
	addMemberDoc = workshopDoc("addMember", inWorkshop(), body("MemberInput"), map[int]server.Response{
		http.StatusCreated: answer(workshop.Access{}), http.StatusNotFound: noWorkshop})
	newMemberTokenDoc = workshopDoc("newMemberToken",
		[]server.Param{shared("WorkshopID"), shared("MemberID"), shared("UserID")}, nil, map[int]server.Response{
			http.StatusOK: answer(workshop.Access{}), http.StatusNotFound: failure})
	listTracesDoc = workshopDoc("listTraces", inWorkshop(), nil, map[int]server.Response{
		http.StatusOK: answer(TraceList{}), http.StatusNotFound: noWorkshop})
	importTracesDoc = workshopDoc("importTraces", inWorkshop(boolQuery("skip_invalid")),
		&server.RequestBody{JSON: jsonschema.Schema(jsonschema.Type("array"), jsonschema.Items(jsonschema.Ref("TraceInput"))),
			Media: []string{"application/x-ndjson", "text/csv"}},
		map[int]server.Response{http.StatusCreated: answer(workshop.ImportResult{}), http.StatusBadRequest: failure,
			http.StatusNotFound: noWorkshop, http.StatusConflict: failure, http.StatusRequestEntityTooLarge: failure})
	importSessionTracesDoc = workshopDoc("importSessionTraces", inWorkshop(), body(SessionImportInput{}), map[int]server.Response{
		http.StatusCreated: answer(workshop.ImportResult{}), http.StatusForbidden: failure, http.StatusNotFound: failure,
		http.StatusConflict: failure, http.StatusRequestEntityTooLarge: failure})
	setPhaseDoc = workshopDoc("setPhase", inWorkshop(), body(PhaseInput{}), map[int]server.Response{
		http.StatusOK: answer(workshop.Workshop{}), http.StatusNotFound: noWorkshop, http.StatusConflict: failure})
	beginDiscoveryDoc = workshopDoc("beginDiscovery", inWorkshop(traceLimit.param(), boolQuery("randomize")),
		&server.RequestBody{JSON: BeginInput{}, Optional: true}, map[int]server.Response{
			http.StatusOK: answer(workshop.Workshop{}), http.StatusNotFound: noWorkshop, http.StatusConflict: failure})
	submitFeedbackDoc = workshopDoc("submitFeedback", asSelf(), body(workshop.FeedbackInput{}), map[int]server.Response{
		http.StatusOK: answer(workshop.Feedback{}), http.StatusNotFound: failure, http.StatusConflict: failure})
	listFeedbackDoc = workshopDoc("listFeedback", inWorkshop(), nil, map[int]server.Response{
		http.StatusOK: answer(FeedbackList{}), http.StatusNotFound: noWorkshop})
	generateFollowupQuestionDoc = workshopDoc("generateFollowupQuestion",
		asSelf(queryParam("trace_id"), questionNumber.param()),
		&server.RequestBody{JSON: QuestionInput{}, Optional: true}, map[int]server.Response{
			http.StatusOK: answer(workshop.Question{}), http.StatusNotFound: failure, http.StatusConflict: failure,
			http.StatusServiceUnavailable: sharedAnswer("LLMUnavailable")})
	submitFollowupAnswerDoc = workshopDoc("submitFollowupAnswer", asSelf(), body(workshop.AnswerInput{}), map[int]server.Response{
		http.StatusOK: answer(workshop.Feedback{}), http.StatusNotFound: failure, http.StatusConflict: failure})
	getCompletionStatusDoc = workshopDoc("getCompletionStatus", inWorkshop(), nil, map[int]server.Response{
		http.StatusOK: answer(workshop.CompletionStatus{}), http.StatusNotFound: noWorkshop})
	analyzeDiscoveryDoc = workshopDoc("analyzeDiscovery", inWorkshop(), &server.RequestBody{JSON: workshop.AnalyzeInput{}, Optional: true},
		map[int]server.Response{
			http.StatusAccepted: {JSON: workshop.Started{}, Headers: map[string]server.Header{"Location": {Required: true, Schema: str()}}},
			http.StatusNotFound: noWorkshop, http.StatusConflict: failure})
	listAnalysesDoc = workshopDoc("listAnalyses", inWorkshop(queryParam("template")), nil, map[int]server.Response{
		http.StatusOK: answer(AnalysisList{}), http.StatusNotFound: noWorkshop})
	getAnalysisDoc = workshopDoc("getAnalysis", []server.Param{shared("WorkshopID"), shared("AnalysisID"), shared("UserID")}, nil,
		map[int]server.Response{http.StatusOK: answer(workshop.Analysis{}), http.StatusNotFound: failure})
	listTemplatesDoc = workshopDoc("listTemplates", inWorkshop(), nil, map[int]server.Response{
		http.StatusOK: answer(TemplateList{}), http.StatusNotFound: noWorkshop})
	addTemplateDoc = workshopDoc("addTemplate", inWorkshop(), body(TemplateInput{}), map[int]server.Response{
		http.StatusCreated: answer(workshop.Template{}), http.StatusNotFound: noWorkshop, http.StatusConflict: failure})
	listDraftItemsDoc = workshopDoc("listDraftItems", inWorkshop(), nil, map[int]server.Response{
		http.StatusOK: answer(DraftItemList{}), http.StatusNotFound: noWorkshop})
	promoteDraftItemDoc = workshopDoc("promoteDraftItem", inWorkshop(), body(workshop.DraftItemInput{}), map[int]server.Response{
		http.StatusCreated: answer(workshop.DraftItem{}), http.StatusNotFound: noWorkshop, http.StatusConflict: failure})
	updateDraftItemDoc = workshopDoc("updateDraftItem", []server.Param{shared("WorkshopID"), shared("ItemID"), shared("UserID")},
		body(workshop.DraftItemUpdate{}), map[int]server.Response{
			http.StatusOK: answer(workshop.DraftItem{}), http.StatusNotFound: failure, http.StatusConflict: failure})
	deleteDraftItemDoc = workshopDoc("deleteDraftItem", []server.Param{shared("WorkshopID"), shared("ItemID"), shared("UserID")}, nil,
		map[int]server.Response{http.StatusNoContent: {}, http.StatusNotFound: failure, http.StatusConflict: failure})
	suggestGroupsDoc = workshopDoc("suggestGroups", inWorkshop(), nil, map[int]server.Response{
		http.StatusOK: answer(workshop.Grouping{}), http.StatusNotFound: noWorkshop,
		http.StatusServiceUnavailable: sharedAnswer("LLMUnavailable")})
	applyGroupsDoc = workshopDoc("applyGroups", inWorkshop(), body(workshop.Grouping{}), map[int]server.Response{
		http.StatusOK: answer(DraftItemList{}), http.StatusNotFound: noWorkshop, http.StatusConflict: failure})
	renameGroupDoc = workshopDoc("renameGroup", []server.Param{shared("WorkshopID"), shared("GroupID"), shared("UserID")},
		body(GroupRename{}), map[int]server.Response{
			http.StatusOK: answer(DraftItemList{}), http.StatusNotFound: failure, http.StatusConflict: failure})
	getAgreementDoc = workshopDoc("getAgreement", inWorkshop(), nil, map[int]server.Response{
		http.StatusOK: answer(workshop.Agreement{}), http.StatusNotFound: noWorkshop})
	exportWorkshopDoc = workshopDoc("exportWorkshop",
		inWorkshop(queryParam("format", jsonschema.Pattern(
			"^"+jsonschema.Folded(workshop.ExportJSONL, workshop.ExportCSV, workshop.ExportMarkdown)+"?$"))), nil,
		map[int]server.Response{
			http.StatusOK: {Media: []string{"application/x-ndjson", "text/csv", "text/markdown"},
				Headers: map[string]server.Header{"Content-Disposition": {Schema: str()}}},
			http.StatusBadRequest: badQuery, http.StatusNotFound: noWorkshop})
)
