package api

import (
	invopop "github.com/invopop/jsonschema"

	"github.com/honehq/hone/internal/alerts"
	"github.com/honehq/hone/internal/api/openapi"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/chat"
	"github.com/honehq/hone/internal/jsonschema"
	"github.com/honehq/hone/internal/learning"
	"github.com/honehq/hone/internal/llm"
	"github.com/honehq/hone/internal/quality"
	"github.com/honehq/hone/internal/score"
	"github.com/honehq/hone/internal/scoring"
	"github.com/honehq/hone/internal/server"
	"github.com/honehq/hone/internal/suggestions"
	"github.com/honehq/hone/internal/tuning"
	"github.com/honehq/hone/internal/workshop"
)

// request and reply say which way a component's body goes.
const (
	request = true
	reply   = false
)

// schemas are the component schemas of openapi.json: each name with the Go
// type it is reflected from, grouped by capability. A field of one of these
// types refers to the component of its type; a body or answer of a route
// names its Go type in its server.Doc.
var schemas = [][]openapi.Component{alertSchemas, suggestionSchemas, chatSchemas, llmSchemas, metricSchemas,
	errorSchemas, workshopSchemas, learningSchemas, scoreSchemas}

var alertSchemas = []openapi.Component{
	openapi.Of[alerts.PermitInput]("PermitInput", request),
	openapi.Of[alerts.AlertInput]("AlertInput", request),
	openapi.Of[alerts.ReactionInput]("ReactionInput", request),
	openapi.Of[alerts.Permit]("Permit", reply),
	openapi.Of[alerts.AlertReaction]("AlertReaction", reply),
	openapi.Of[alerts.Alert]("Alert", reply),
	openapi.Of[alerts.Reacted]("Reacted", reply),
	openapi.Of[alerts.AlertType]("AlertType", reply),
	openapi.Of[AlertTypeList]("AlertTypeList", reply),
}

var suggestionSchemas = []openapi.Component{
	openapi.Of[suggestions.RecordInput]("SuggestionRecord", request),
	openapi.Of[suggestions.Result]("IngestResult", reply),
	openapi.Of[suggestions.LineError]("SuggestionLineError", reply),
	openapi.Of[SuggestionList]("SuggestionList", reply),
	openapi.Of[suggestions.Forgotten]("Forgotten", reply),
	openapi.Of[suggestions.Stats]("SuggestionStats", reply),
	openapi.Of[suggestions.Group]("SuggestionGroup", reply),
	openapi.Of[suggestions.Percentiles]("SuggestionPercentiles", reply),
	openapi.Of[suggestions.Point]("SuggestionPoint", reply),
	openapi.Of[suggestions.Bin]("SuggestionBin", reply),
	openapi.Of[suggestions.Thresholds]("SuggestionThresholds", reply),
}

var chatSchemas = []openapi.Component{
	openapi.Of[capture.TurnInput]("TurnInput", request),
	openapi.Of[capture.Message]("Message", request),
	openapi.Of[map[string]any]("ContentPart", request, capture.ContentPartSchema),
	openapi.Of[capture.ToolCall]("ToolCall", request),
	openapi.Of[capture.FunctionCall]("FunctionCall", request),
	openapi.Of[capture.Usage]("TurnUsage", request),
	openapi.Of[TurnCreated]("TurnCreated", reply),
	openapi.Of[MessageInput]("MessageInput", request),
	openapi.Of[chat.Reply]("Reply", reply),
	openapi.Of[capture.Session]("Session", reply),
	openapi.Of[tuning.ExportedSession]("ExportedSession", reply),
	openapi.Of[tuning.Turn]("Turn", reply, turnSchema),
	openapi.Of[tuning.Improvement]("Improvement", reply),
	openapi.Of[tuning.Judgment]("Judgment", reply),
	openapi.Of[SessionList]("SessionList", reply),
	openapi.Of[tuning.SessionExport]("SessionExport", reply),
}

var llmSchemas = []openapi.Component{
	openapi.Of[LLMCallList]("LLMCallList", reply),
	openapi.Of[llm.Call]("LLMCall", reply),
	openapi.Of[llm.CallRequest]("LLMRequest", reply),
	openapi.Of[llm.Message]("LLMMessage", reply),
	openapi.Of[llm.CallResponse]("LLMResponse", reply),
	openapi.Of[llm.Usage]("LLMUsage", reply),
}

var metricSchemas = []openapi.Component{
	openapi.Of[ScoreInput]("ScoreInput", request),
	openapi.Of[ScoreResult]("ScoreResult", reply),
	openapi.Of[quality.Result]("Metrics", reply),
	openapi.Of[ScoresInput]("ScoresInput", request, scoresInputSchema),
	openapi.Of[map[string]float64]("HumanScores", request, quality.HumanScoresSchema),
	openapi.Of[map[string]int]("Scores", reply, quality.ScoresSchema),
	openapi.Of[scoring.TurnScores]("TurnScores", reply, turnScoresSchema),
	openapi.Of[scoring.Stat]("MetricStat", reply),
	openapi.Of[scoring.SessionReport]("SessionMetrics", reply),
	openapi.Of[scoring.Diff]("MetricDiff", reply),
	openapi.Of[scoring.Comparison]("VersionComparison", reply),
	openapi.Of[scoring.Step]("RegressionStep", reply),
	openapi.Of[scoring.RegressionReport]("RegressionReport", reply),
}

var errorSchemas = []openapi.Component{
	openapi.Of[server.ErrorBody]("ErrorBody", reply),
	openapi.Of[server.ErrorDetail]("ErrorDetail", reply, errorDetailSchema),
	openapi.Of[BatchResult]("BatchResult", reply),
	openapi.Of[BatchAnswer]("BatchAnswer", reply),
}

var workshopSchemas = []openapi.Component{
	openapi.Of[workshop.Workshop]("Workshop", reply),
	openapi.Of[workshop.Member]("Member", reply),
	openapi.Of[workshop.Access]("Access", reply),
	openapi.Of[workshop.Created]("WorkshopCreated", reply),
	openapi.Of[workshop.Trace]("Trace", reply),
	openapi.Of[workshop.TraceView]("TraceView", reply),
	openapi.Of[workshop.LineError]("LineError", reply),
	openapi.Of[workshop.ImportResult]("ImportResult", reply),
	openapi.Of[workshop.QA]("QA", reply),
	openapi.Of[workshop.Pending]("PendingQuestion", reply),
	openapi.Of[workshop.Feedback]("Feedback", reply),
	openapi.Of[workshop.Question]("Question", reply),
	openapi.Of[workshop.ParticipantStatus]("ParticipantStatus", reply),
	openapi.Of[workshop.CompletionStatus]("CompletionStatus", reply),
	openapi.Of[workshop.Started]("AnalysisStarted", reply),
	openapi.Of[workshop.Finding]("Finding", reply, workshop.FindingSchema),
	openapi.Of[workshop.DisagreementAnalysis]("DisagreementAnalysis", reply),
	openapi.Of[workshop.Review]("Review", reply),
	openapi.Of[workshop.Disagreement]("Disagreement", reply),
	openapi.Of[workshop.Disagreements]("Disagreements", reply),
	openapi.Of[workshop.Analysis]("Analysis", reply),
	openapi.Of[workshop.Template]("Template", reply),
	openapi.Of[workshop.DraftItem]("DraftItem", reply),
	openapi.Of[workshop.ProposedGroup]("ProposedGroup", reply, workshop.ProposedGroupSchema),
	openapi.Of[workshop.Grouping]("Grouping", reply),
	openapi.Of[workshop.TraceAgreement]("TraceAgreement", reply),
	openapi.Of[workshop.PairAgreement]("PairAgreement", reply),
	openapi.Of[workshop.Agreement]("Agreement", reply),
	openapi.Of[WorkshopList]("WorkshopList", reply),
	openapi.Of[MemberList]("MemberList", reply),
	openapi.Of[TraceList]("TraceList", reply),
	openapi.Of[FeedbackList]("FeedbackList", reply),
	openapi.Of[AnalysisList]("AnalysisList", reply),
	openapi.Of[TemplateList]("TemplateList", reply),
	openapi.Of[DraftItemList]("DraftItemList", reply),
	openapi.Of[workshop.FeedbackRecord]("FeedbackRecord", reply),
	openapi.Of[workshop.Person]("FacilitatorInput", request, workshop.FacilitatorSchema),
	openapi.Of[workshop.Person]("MemberInput", request, workshop.MemberSchema),
	openapi.Of[workshop.Create]("WorkshopInput", request),
	openapi.Of[workshop.Settings]("WorkshopSettings", request),
	openapi.Of[workshop.TraceInput]("TraceInput", request),
	openapi.Of[SessionImportInput]("SessionImportInput", request),
	openapi.Of[PhaseInput]("PhaseInput", request),
	openapi.Of[BeginInput]("BeginInput", request),
	openapi.Of[workshop.FeedbackInput]("FeedbackInput", request),
	openapi.Of[QuestionInput]("QuestionInput", request),
	openapi.Of[workshop.AnswerInput]("AnswerInput", request),
	openapi.Of[workshop.AnalyzeInput]("AnalyzeInput", request),
	openapi.Of[TemplateInput]("TemplateInput", request),
	openapi.Of[workshop.DraftItemInput]("DraftItemInput", request),
	openapi.Of[workshop.DraftItemUpdate]("DraftItemUpdate", request),
	openapi.Of[workshop.ProposedGroup]("GroupInput", request, workshop.GroupInputSchema),
	openapi.Of[workshop.Grouping]("GroupingInput", request),
	openapi.Of[GroupRename]("GroupRename", request),
}

var learningSchemas = []openapi.Component{
	openapi.Of[learning.RatingInput]("RatingInput", request),
	openapi.Of[learning.Rating]("Rating", reply),
	openapi.Of[RatingAnswer]("RatingAnswer", reply),
	openapi.Of[RatingList]("RatingList", reply),
	openapi.Of[learning.Approval]("Approval", reply),
	openapi.Of[learning.Stats]("FeedbackStats", reply),
	openapi.Of[learning.Correction]("Correction", reply),
	openapi.Of[CorrectionList]("CorrectionList", reply),
	openapi.Of[learning.Learning]("Learning", reply),
	openapi.Of[LearningDetail]("LearningDetail", reply),
	openapi.Of[LearningList]("LearningList", reply),
	openapi.Of[learning.LearningInput]("LearningInput", request),
	openapi.Of[learning.LearningUpdate]("LearningUpdate", request),
	openapi.Of[learning.Run]("LearningRun", reply),
	openapi.Of[RunList]("LearningRunList", reply),
	openapi.Of[Switch]("LearningSwitch", reply),
	openapi.Of[learning.PromptView]("PromptView", reply),
}

var scoreSchemas = []openapi.Component{
	openapi.Of[score.Category]("ScoreCategory", request),
	openapi.Of[score.ConfigInput]("ScoreConfigInput", request),
	openapi.Of[score.ConfigUpdate]("ScoreConfigUpdate", request),
	openapi.Of[score.Config]("ScoreConfig", reply),
	openapi.Of[ScoreConfigList]("ScoreConfigList", reply),
	openapi.Of[score.Input]("NewScore", request),
	openapi.Of[score.Score]("Score", reply),
	openapi.Of[score.Page]("ScorePage", reply),
	openapi.Of[RecordedScore]("RecordedScore", reply),
	openapi.Of[ScoreBatchAnswer]("ScoreBatchAnswer", reply),
	openapi.Of[score.ExportRow]("ScoreExportRow", reply),
}

// turnSchema says what a turn's metrics and scores hold.
func turnSchema(s *invopop.Schema) {
	jsonschema.Set(s, "metrics", jsonschema.Ref("Metrics"), jsonschema.Nullable)
	jsonschema.Set(s, "scores", jsonschema.Ref("Scores"))
}

// turnScoresSchema says what a turn's scores hold.
func turnScoresSchema(s *invopop.Schema) {
	jsonschema.Set(s, "scores", jsonschema.Ref("Scores"))
}

// scoresInputSchema says what the scores a client sends hold.
func scoresInputSchema(s *invopop.Schema) {
	jsonschema.Set(s, "scores", jsonschema.Ref("HumanScores"))
}

// errorDetailSchema says what an error's details hold: the refused lines of
// an import.
func errorDetailSchema(s *invopop.Schema) {
	jsonschema.Set(s, "details", jsonschema.Type("array"), jsonschema.Items(jsonschema.Ref("LineError")))
}
