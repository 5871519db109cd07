package learning

import (
	"maps"
	"slices"
	"strconv"

	invopop "github.com/invopop/jsonschema"

	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/jsonschema"
)

// Ratings are the ratings of a turn, in the order the API lists them.
var Ratings = []string{RatingUp, RatingDown}

// LearningStatuses are the statuses of a learning, in the order the API
// lists them.
var LearningStatuses = []string{StatusActive, StatusBelowThreshold, StatusConflict, StatusRejected}

// RunStatuses are the statuses of a synthesis run, in order.
var RunStatuses = []string{RunQueued, RunRunning, RunDone, RunFailed}

// confidence is a confidence's range.
var confidence = jsonschema.Range(0, 1)

// JSONSchemaExtend states the rules RatingInput.clean checks: a rating or
// one of its other spellings, in any case.
func (RatingInput) JSONSchemaExtend(s *invopop.Schema) {
	s.Required = []string{"tester_id", "rating"}
	jsonschema.Set(s, "tester_id", jsonschema.MaxLength(capture.MaxIDLength), jsonschema.NotBlank)
	words := append(slices.Clone(Ratings), slices.Sorted(maps.Keys(ratingSpellings))...)
	jsonschema.Set(s, "rating", jsonschema.Pattern(jsonschema.Trimmed(jsonschema.Folded(words...))))
	jsonschema.Set(s, "intent", jsonschema.MaxLength(capture.MaxIDLength))
	jsonschema.Set(s, "context_type", jsonschema.MaxLength(capture.MaxIDLength))
}

// JSONSchemaExtend lists the ratings.
func (Rating) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "rating", jsonschema.Enum(Ratings...))
	jsonschema.Set(s, "turn_number", jsonschema.Minimum(1))
}

// JSONSchemaExtend states the counts and the percentage; a group has a
// rating at least.
func (Approval) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "total", jsonschema.Minimum(1))
	jsonschema.Set(s, "up", jsonschema.Minimum(0))
	jsonschema.Set(s, "down", jsonschema.Minimum(0))
	jsonschema.Set(s, "percent", jsonschema.Range(0, 100))
}

// JSONSchemaExtend states the counts and the percentage.
func (Stats) JSONSchemaExtend(s *invopop.Schema) {
	for _, p := range []string{"total", "up", "down", "pending_corrections"} {
		jsonschema.Set(s, p, jsonschema.Minimum(0))
	}
	jsonschema.Set(s, "percent", jsonschema.Range(0, 100))
}

// JSONSchemaExtend states turns are numbered from 1.
func (Correction) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "turn_number", jsonschema.Minimum(1))
}

// JSONSchemaExtend states the confidence and lists the statuses.
func (Learning) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "confidence", confidence)
	jsonschema.Set(s, "status", jsonschema.Enum(LearningStatuses...))
}

// JSONSchemaExtend states the rules Service.Add checks.
func (LearningInput) JSONSchemaExtend(s *invopop.Schema) {
	s.Required = []string{"prompt_adjustment"}
	jsonschema.Set(s, "prompt_adjustment", jsonschema.MaxLength(MaxAdjustmentLength), jsonschema.NotBlank)
	jsonschema.Set(s, "pattern", jsonschema.MaxLength(MaxPatternLength))
	jsonschema.Set(s, "tester_id", jsonschema.MaxLength(capture.MaxIDLength))
	jsonschema.Set(s, "confidence", confidence)
}

// JSONSchemaExtend states the rules Service.Update checks.
func (LearningUpdate) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "prompt_adjustment", jsonschema.MaxLength(MaxAdjustmentLength), jsonschema.NotBlank)
	jsonschema.Set(s, "pattern", jsonschema.MaxLength(MaxPatternLength), jsonschema.NotBlank)
	jsonschema.Set(s, "confidence", confidence)
}

// JSONSchemaExtend lists the statuses.
func (Run) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "status", jsonschema.Enum(RunStatuses...))
	jsonschema.Set(s, "corrections", jsonschema.Minimum(0))
}

// JSONSchemaExtend states the form of a version: versionLength hex digits,
// or empty.
func (PromptView) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "version", jsonschema.Pattern(`^(?:[0-9a-f]{`+strconv.Itoa(versionLength)+`})?$`))
	jsonschema.Set(s, "learnings", jsonschema.Minimum(0))
}
