package api

import (
	"math"

	invopop "github.com/invopop/jsonschema"

	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/chat"
	"github.com/honehq/hone/internal/jsonschema"
	"github.com/honehq/hone/internal/learning"
	"github.com/honehq/hone/internal/workshop"
)

// JSONSchemaExtend states turns are numbered from 1.
func (TurnCreated) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "turn_number", jsonschema.Minimum(1))
}

// JSONSchemaExtend states the rules chat.Router.Handle checks.
func (MessageInput) JSONSchemaExtend(s *invopop.Schema) {
	s.Required = []string{"conversation_id", "tester_id"}
	for name, rule := range capture.TesterRules {
		jsonschema.Set(s, name, rule)
	}
	jsonschema.Set(s, "text", jsonschema.MaxLength(chat.MaxTextLength))
}

// JSONSchemaExtend states what a result holds: a recorded turn, or an
// error, never both.
func (BatchResult) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "index", jsonschema.Minimum(0))
	jsonschema.Set(s, "turn_number", jsonschema.Minimum(1))
	jsonschema.Apply(s, recordedOrFailed("id", "session_id", "turn_number"))
}

// recordedOrFailed is a result of a batch: the properties recorded of a
// recorded item (and maybe replayed), or an error, never both.
func recordedOrFailed(recorded ...string) jsonschema.Rule {
	var any []*invopop.Schema
	for _, p := range append(recorded, "replayed") {
		any = append(any, jsonschema.Schema(jsonschema.Require(p)))
	}
	return jsonschema.OneOf(
		jsonschema.Schema(jsonschema.Title("recorded"), jsonschema.Require(recorded...), jsonschema.Not(jsonschema.Require("error"))),
		jsonschema.Schema(jsonschema.Title("failed"), jsonschema.Require("error"), jsonschema.Not(jsonschema.AnyOf(any...))),
	)
}

// JSONSchemaExtend bounds the count of errors left out.
func (BatchAnswer) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "errors_not_listed", jsonschema.Minimum(1))
}

// JSONSchemaExtend states the rules ScoreInput.validate checks.
func (ScoreInput) JSONSchemaExtend(s *invopop.Schema) {
	s.Required = []string{"response"}
	jsonschema.Set(s, "query", jsonschema.MaxLength(maxScoreText))
	jsonschema.Set(s, "response", jsonschema.MaxLength(maxScoreText), jsonschema.NotBlank)
	jsonschema.Set(s, "avg_similarity", jsonschema.Range(0, 1))
	jsonschema.Set(s, "processing_time_ms", jsonschema.Range(0, math.MaxFloat64))
}

// JSONSchemaExtend requires the scores.
func (ScoresInput) JSONSchemaExtend(s *invopop.Schema) {
	s.Required = []string{"scores"}
}

// JSONSchemaExtend states the rules workshop.Service.SetPhase checks.
func (PhaseInput) JSONSchemaExtend(s *invopop.Schema) {
	s.Required = []string{"phase"}
	jsonschema.Set(s, "phase", jsonschema.Pattern(jsonschema.Trimmed(jsonschema.Folded(workshop.Phases...))))
}

// JSONSchemaExtend bounds the trace limit (0 takes the default).
func (BeginInput) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "trace_limit", jsonschema.Range(0, workshop.MaxImportTraces))
}

// JSONSchemaExtend states the rules workshop.Service.GenerateQuestion
// checks.
func (QuestionInput) JSONSchemaExtend(s *invopop.Schema) {
	s.Required = []string{"trace_id", "question_number"}
	jsonschema.Set(s, "trace_id", jsonschema.NotBlank)
	jsonschema.Set(s, "question_number", jsonschema.Range(1, workshop.Questions))
}

// JSONSchemaExtend states the rules workshop.Service.AddTemplate checks.
func (TemplateInput) JSONSchemaExtend(s *invopop.Schema) { workshop.TemplateInputSchema(s) }

// JSONSchemaExtend states the rule workshop.Service.RenameGroup checks.
func (GroupRename) JSONSchemaExtend(s *invopop.Schema) {
	s.Required = []string{"name"}
	jsonschema.Set(s, "name", jsonschema.MaxLength(workshop.MaxNameLength), jsonschema.NotBlank)
}

// JSONSchemaExtend states the question a 👎 asks.
func (RatingAnswer) JSONSchemaExtend(s *invopop.Schema) {
	learning.Rating{}.JSONSchemaExtend(s)
	jsonschema.Set(s, "ask", jsonschema.Const(learning.AskCorrectionText))
}

// JSONSchemaExtend says the records are suggestion records, as received.
func (SuggestionList) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "records", jsonschema.Items(jsonschema.Ref("SuggestionRecord")))
}

// JSONSchemaExtend bounds the threshold.
func (LearningList) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "threshold", jsonschema.Range(0, 1))
}

// JSONSchemaExtend states the learning's rules (the embedded pointer's
// method would run on nil).
func (LearningDetail) JSONSchemaExtend(s *invopop.Schema) { learning.Learning{}.JSONSchemaExtend(s) }
