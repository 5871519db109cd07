package workshop

import (
	"regexp"
	"strconv"
	"strings"

	invopop "github.com/invopop/jsonschema"

	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/jsonschema"
)

// Roles are the members' roles, in the order the API lists them.
var Roles = []string{RoleFacilitator, RoleParticipant}

// Labels are the labels of feedback, in the order the API lists them.
var Labels = []string{LabelGood, LabelBad}

// States are the states of a participant's trace, in order.
var States = []string{StateFeedback, StateQuestion, StateAnswer, StateComplete}

// Statuses are the statuses of an analysis, in order.
var Statuses = []string{StatusQueued, StatusRunning, StatusDone, StatusFailed}

// Priorities are the priorities of a finding, highest first.
var Priorities = []string{PriorityHigh, PriorityMedium, PriorityLow}

// jsonPathRule is a JSONPath setting as ValidateJSONPath takes it: at most
// MaxNameLength characters, empty or a query (which starts with $).
var jsonPathRule = jsonschema.All(jsonschema.MaxLength(MaxNameLength),
	jsonschema.Pattern(jsonschema.Blank+"|^"+jsonschema.Space+`*\$`))

// personRule is the rules Person.validate checks, but the role's.
func personRule(s *invopop.Schema) {
	s.Required = []string{"name"}
	jsonschema.Set(s, "name", jsonschema.MaxLength(MaxNameLength), jsonschema.NotBlank)
	email := strings.TrimSuffix(strings.TrimPrefix(jsonschema.Spaces(capture.EmailPattern), "^"), "$")
	jsonschema.Set(s, "email", jsonschema.MaxLength(MaxNameLength), jsonschema.Pattern(jsonschema.Blank+"|"+jsonschema.Trimmed(email)))
}

// FacilitatorSchema states the rules of the facilitator a new workshop
// names: a person whose role is ignored (it is facilitator).
func FacilitatorSchema(s *invopop.Schema) { personRule(s) }

// MemberSchema states the rules of a member to add: a person whose role,
// when given, is facilitator or participant (the default).
func MemberSchema(s *invopop.Schema) {
	personRule(s)
	jsonschema.Set(s, "role", jsonschema.Pattern(jsonschema.Trimmed(jsonschema.Folded(Roles...)+"?")))
}

// JSONSchemaExtend states the rules Create.validate checks.
func (Create) JSONSchemaExtend(s *invopop.Schema) {
	s.Required = []string{"name", "facilitator"}
	jsonschema.Set(s, "name", jsonschema.MaxLength(MaxNameLength), jsonschema.NotBlank)
	jsonschema.Set(s, "description", jsonschema.MaxLength(MaxTextLength))
	jsonschema.Set(s, "input_jsonpath", jsonPathRule)
	jsonschema.Set(s, "output_jsonpath", jsonPathRule)
	jsonschema.Set(s, "model", jsonschema.MaxLength(MaxNameLength))
}

// JSONSchemaExtend states the rules Settings.apply checks.
func (Settings) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "name", jsonschema.MaxLength(MaxNameLength), jsonschema.NotBlank)
	jsonschema.Set(s, "description", jsonschema.MaxLength(MaxTextLength))
	jsonschema.Set(s, "input_jsonpath", jsonPathRule)
	jsonschema.Set(s, "output_jsonpath", jsonPathRule)
	jsonschema.Set(s, "model", jsonschema.MaxLength(MaxNameLength))
	jsonschema.Set(s, "followup_system_prompt", jsonschema.MaxLength(MaxPromptLength))
	jsonschema.Set(s, "followup_user_prompt", jsonschema.MaxLength(MaxPromptLength))
	jsonschema.Set(s, "token_budget", jsonschema.Range(MinTokenBudget, MaxTokenBudget))
}

// JSONSchemaExtend states a workshop's phases and bounds.
func (Workshop) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "phase", jsonschema.Enum(Phases...))
	jsonschema.Set(s, "trace_limit", jsonschema.Minimum(1))
	jsonschema.Set(s, "assigned_count", jsonschema.Minimum(0))
	jsonschema.Set(s, "token_budget", jsonschema.Range(MinTokenBudget, MaxTokenBudget))
	jsonschema.Set(s, "trace_count", jsonschema.Minimum(0))
}

// JSONSchemaExtend states a member's roles and count.
func (Member) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "role", jsonschema.Enum(Roles...))
	jsonschema.Set(s, "completed", jsonschema.Minimum(0))
}

// JSONSchemaExtend states the form of a member's token.
func (Access) JSONSchemaExtend(s *invopop.Schema) {
	Member{}.JSONSchemaExtend(s)
	jsonschema.Set(s, "token", jsonschema.Pattern("^"+regexp.QuoteMeta(TokenPrefix)+"[A-Za-z0-9_-]{"+strconv.Itoa(tokenChars)+"}$"))
}

// JSONSchemaExtend states a trace's position and metadata.
func (Trace) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "position", jsonschema.Minimum(0))
	jsonschema.Set(s, "metadata", jsonschema.Type("object"))
}

// JSONSchemaExtend states a trace's position, metadata and state.
func (TraceView) JSONSchemaExtend(s *invopop.Schema) {
	Trace{}.JSONSchemaExtend(s)
	jsonschema.Set(s, "state", jsonschema.Enum(States...))
	jsonschema.Set(s, "question_number", jsonschema.Range(1, Questions))
}

// JSONSchemaExtend states the rules an import checks of a trace: an id of
// a turn's form, an input and an output that are neither null nor blank,
// metadata an object.
func (TraceInput) JSONSchemaExtend(s *invopop.Schema) {
	s.Required = []string{"input", "output"}
	jsonschema.Set(s, "id", jsonschema.MaxLength(capture.MaxTurnIDLength), jsonschema.Pattern("^$|"+capture.TurnIDPattern))
	blank := jsonschema.Not(jsonschema.AnyOf(jsonschema.Schema(jsonschema.Type("null")),
		jsonschema.Schema(jsonschema.Type("string"), jsonschema.Pattern(jsonschema.Blank))))
	jsonschema.Set(s, "input", blank)
	jsonschema.Set(s, "output", blank)
	jsonschema.Set(s, "metadata", jsonschema.Type("object"))
}

// JSONSchemaExtend states lines count from 1 (0 for an error of a whole
// file).
func (LineError) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "line", jsonschema.Minimum(0))
}

// JSONSchemaExtend states the counts.
func (ImportResult) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "imported", jsonschema.Minimum(0))
	jsonschema.Set(s, "errors_not_listed", jsonschema.Minimum(1))
}

// JSONSchemaExtend states a question answered is flagged only when it was
// the fallback.
func (QA) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "fallback", jsonschema.Const(true))
}

// JSONSchemaExtend states the question's number and flag.
func (Pending) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "question_number", jsonschema.Range(1, Questions))
	jsonschema.Set(s, "fallback", jsonschema.Const(true))
}

// JSONSchemaExtend states the question's number and flag.
func (Question) JSONSchemaExtend(s *invopop.Schema) { Pending{}.JSONSchemaExtend(s) }

// JSONSchemaExtend states the labels and that a trace has Questions
// answers at most.
func (Feedback) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "feedback_label", jsonschema.Enum(Labels...))
	jsonschema.Set(s, "followup_qna", jsonschema.MaxItems(Questions))
}

// JSONSchemaExtend states the labels and answers of a review.
func (Review) JSONSchemaExtend(s *invopop.Schema) { Feedback{}.JSONSchemaExtend(s) }

// JSONSchemaExtend states the labels and answers of a record, which always
// has its trace.
func (FeedbackRecord) JSONSchemaExtend(s *invopop.Schema) {
	Feedback{}.JSONSchemaExtend(s)
	jsonschema.Set(s, "trace", jsonschema.NotNull)
}

// JSONSchemaExtend states the counts.
func (ParticipantStatus) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "completed", jsonschema.Minimum(0))
	jsonschema.Set(s, "assigned", jsonschema.Minimum(0))
}

// JSONSchemaExtend states the counts and the percentage.
func (CompletionStatus) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "finished_participants", jsonschema.Minimum(0))
	jsonschema.Set(s, "total_participants", jsonschema.Minimum(0))
	jsonschema.Set(s, "percent_finished", jsonschema.Range(0, 100))
}

// JSONSchemaExtend states a new analysis is queued.
func (Started) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "status", jsonschema.Enum(StatusQueued))
}

// FindingSchema states a finding's text and priority as an analysis
// keeps it (a function, not a JSONSchemaExtend method: the LLM is asked for
// findings too, in its own words).
func FindingSchema(s *invopop.Schema) {
	jsonschema.Set(s, "text", jsonschema.MinLength(1))
	jsonschema.Set(s, "priority", jsonschema.Enum(Priorities...))
}

// JSONSchemaExtend states a disagreement is between two reviews or more.
func (Disagreement) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "reviews", jsonschema.MinItems(2))
}

// JSONSchemaExtend states an analysis's counts and status.
func (Analysis) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "participant_count", jsonschema.Minimum(0))
	jsonschema.Set(s, "status", jsonschema.Enum(Statuses...))
	jsonschema.Set(s, "chunks_done", jsonschema.Minimum(0))
	jsonschema.Set(s, "chunks_total", jsonschema.Minimum(0))
	jsonschema.Set(s, "dropped_evidence", jsonschema.Minimum(0))
}

// JSONSchemaExtend lists the source types.
func (DraftItem) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "source_type", jsonschema.Enum(SourceTypes...))
}

// ProposedGroupSchema states a group as the SuggestGroups call gives it (a
// function, not a JSONSchemaExtend method: the LLM is asked for groups).
func ProposedGroupSchema(s *invopop.Schema) {
	jsonschema.Set(s, "name", jsonschema.MinLength(1))
	jsonschema.Set(s, "item_ids", jsonschema.MinItems(1), jsonschema.UniqueItems)
}

// GroupInputSchema states the rules ApplyGroups checks of a group.
func GroupInputSchema(s *invopop.Schema) {
	s.Required = []string{"name"}
	jsonschema.Set(s, "name", jsonschema.MaxLength(MaxNameLength), jsonschema.NotBlank)
	jsonschema.Set(s, "item_ids", jsonschema.UniqueItems)
}

// JSONSchemaExtend states the bounds of a trace's agreement.
func (TraceAgreement) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "reviewers", jsonschema.Minimum(1))
	jsonschema.Set(s, "labels", jsonschema.Values(jsonschema.Minimum(1)))
	jsonschema.Set(s, "agreement", jsonschema.Range(0, 1))
}

// JSONSchemaExtend states the bounds of a pair's agreement.
func (PairAgreement) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "traces", jsonschema.Minimum(1))
	jsonschema.Set(s, "observed_agreement", jsonschema.Range(0, 1))
}

// JSONSchemaExtend states the counts.
func (Agreement) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "fleiss_traces", jsonschema.Minimum(0))
	jsonschema.Set(s, "alpha_traces", jsonschema.Minimum(0))
}

// JSONSchemaExtend states the rules SubmitFeedback checks.
func (FeedbackInput) JSONSchemaExtend(s *invopop.Schema) {
	s.Required = []string{"trace_id", "feedback_label", "comment"}
	jsonschema.Set(s, "trace_id", jsonschema.NotBlank)
	jsonschema.Set(s, "feedback_label", jsonschema.Pattern(jsonschema.Trimmed(jsonschema.Folded(Labels...))))
	jsonschema.Set(s, "comment", jsonschema.MaxLength(MaxTextLength), jsonschema.NotBlank)
}

// JSONSchemaExtend states the rules SubmitAnswer checks.
func (AnswerInput) JSONSchemaExtend(s *invopop.Schema) {
	s.Required = []string{"trace_id", "answer"}
	jsonschema.Set(s, "trace_id", jsonschema.NotBlank)
	jsonschema.Set(s, "answer", jsonschema.MaxLength(MaxTextLength), jsonschema.NotBlank)
}

// JSONSchemaExtend states the rule Analyze checks.
func (AnalyzeInput) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "model", jsonschema.MaxLength(MaxNameLength))
}

// JSONSchemaExtend states the rules Promote checks: only a finding or a
// disagreement comes from an analysis.
func (DraftItemInput) JSONSchemaExtend(s *invopop.Schema) {
	s.Required = []string{"text"}
	jsonschema.Set(s, "text", jsonschema.MaxLength(MaxTextLength), jsonschema.NotBlank)
	jsonschema.Set(s, "source_type", jsonschema.Pattern(jsonschema.Trimmed(jsonschema.Folded(SourceTypes...)+"?")))
	jsonschema.Set(s, "group_id", jsonschema.MaxLength(MaxNameLength))
	jsonschema.Set(s, "group_name", jsonschema.MaxLength(MaxNameLength))
	jsonschema.Apply(s,
		jsonschema.If(jsonschema.Require("source_type"), jsonschema.Prop("source_type", jsonschema.Type("string"),
			jsonschema.Pattern(jsonschema.Trimmed(jsonschema.Folded(SourceFinding, SourceDisagreement))))),
		jsonschema.Else(jsonschema.Prop("source_analysis_id", jsonschema.Type("string"), jsonschema.Nullable, jsonschema.MaxLength(0))))
}

// JSONSchemaExtend states the rules UpdateDraftItem checks.
func (DraftItemUpdate) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "text", jsonschema.MaxLength(MaxTextLength), jsonschema.NotBlank)
	jsonschema.Set(s, "group_id", jsonschema.MaxLength(MaxNameLength))
	jsonschema.Set(s, "group_name", jsonschema.MaxLength(MaxNameLength))
}

// JSONSchemaExtend states that an import takes one session or one prompt
// version, not both.
func (SessionImport) JSONSchemaExtend(s *invopop.Schema) {
	one := func(given, other string) *invopop.Schema {
		return jsonschema.Schema(jsonschema.Require(given),
			jsonschema.Prop(given, jsonschema.Type("string"), jsonschema.MinLength(1)),
			jsonschema.Prop(other, jsonschema.Type("string"), jsonschema.Nullable, jsonschema.MaxLength(0)))
	}
	jsonschema.Apply(s, jsonschema.OneOf(one("session_id", "prompt_version"), one("prompt_version", "session_id")))
}

// TemplateInputSchema states the rules AddTemplate checks of a template: a
// name of templateName's form that is no preset's, a title and an
// instruction.
func TemplateInputSchema(s *invopop.Schema) {
	s.Required = []string{"name", "title", "instruction"}
	var presets []string
	for _, p := range Presets {
		presets = append(presets, p.Name)
	}
	name := strings.TrimSuffix(strings.TrimPrefix(templateName.String(), "^"), "$")
	jsonschema.Set(s, "name", jsonschema.Pattern(jsonschema.Trimmed(name)),
		jsonschema.Not(jsonschema.Pattern(jsonschema.Trimmed(jsonschema.Words(presets...)))))
	jsonschema.Set(s, "title", jsonschema.MaxLength(MaxNameLength), jsonschema.NotBlank)
	jsonschema.Set(s, "instruction", jsonschema.MaxLength(MaxPromptLength), jsonschema.NotBlank)
}

// JSONSchemaExtend states the workshop's rules (the embedded pointer's
// method would run on nil).
func (Created) JSONSchemaExtend(s *invopop.Schema) { Workshop{}.JSONSchemaExtend(s) }
