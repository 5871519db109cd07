package workshop

import (
	"slices"
	"strings"
	"time"

	"github.com/honehq/hone"
)

// Phases of a workshop, in order. A workshop only moves forwards.
const (
	PhaseIntake         = "intake"
	PhaseDiscovery      = "discovery"
	PhaseRubricCreation = "rubric_creation"
	PhaseAnnotation     = "annotation"
	PhaseJudgeTuning    = "judge_tuning"
)

// Phases lists the phases in order.
var Phases = []string{PhaseIntake, PhaseDiscovery, PhaseRubricCreation, PhaseAnnotation, PhaseJudgeTuning}

// phaseIndex returns the position of phase in Phases, -1 when unknown.
func phaseIndex(phase string) int { return slices.Index(Phases, phase) }

// Defaults of a workshop.
const (
	DefaultTraceLimit  = 10
	DefaultTokenBudget = 12000
	// Questions is how many follow-up questions each trace gets.
	Questions = 3
	// MinTokenBudget and MaxTokenBudget bound a workshop's token budget.
	MinTokenBudget = 1000
	MaxTokenBudget = 10_000_000
)

// Limits on what a workshop holds, in characters.
const (
	MaxNameLength   = 200
	MaxTextLength   = 1 << 20
	MaxPromptLength = 64 << 10
)

// Workshop is one discovery workshop.
type Workshop struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	// InputJSONPath and OutputJSONPath, when set, pick the text shown and
	// sent to the LLM out of each trace's input and output.
	InputJSONPath  string `json:"input_jsonpath"`
	OutputJSONPath string `json:"output_jsonpath"`
	Phase          string `json:"phase"`
	// DiscoveryStarted is set by begin-discovery.
	DiscoveryStarted bool `json:"discovery_started"`
	// DiscoveryRandomize gives each participant their own order of traces.
	DiscoveryRandomize bool `json:"discovery_randomize"`
	// TraceLimit is how many traces discovery reviews, the first ones
	// imported; AssignedCount how many it does (fewer when there were fewer).
	TraceLimit    int `json:"trace_limit"`
	AssignedCount int `json:"assigned_count"`
	// Model is the LLM model for follow-up questions and analyses; empty
	// means the configured one.
	Model string `json:"model"`
	// FollowupSystemPrompt and FollowupUserPrompt override the spec's
	// prompts when not empty (see DefaultFollowupSystemPrompt).
	FollowupSystemPrompt string `json:"followup_system_prompt"`
	FollowupUserPrompt   string `json:"followup_user_prompt"`
	// TokenBudget bounds the estimated tokens of one analysis call; a larger
	// workshop is analysed in chunks.
	TokenBudget int       `json:"token_budget"`
	TraceCount  int       `json:"trace_count"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
}

// Person names a member to add.
type Person struct {
	Name  string `json:"name"`
	Email string `json:"email"`
	Role  string `json:"role,omitempty"`
}

// Create is what creating a workshop takes.
type Create struct {
	Name           string `json:"name"`
	Description    string `json:"description"`
	InputJSONPath  string `json:"input_jsonpath,omitempty"`
	OutputJSONPath string `json:"output_jsonpath,omitempty"`
	Model          string `json:"model,omitempty"`
	Facilitator    Person `json:"facilitator"`
}

// Settings changes a workshop's settings; nil fields stay as they are.
type Settings struct {
	Name                 *string `json:"name,omitempty"`
	Description          *string `json:"description,omitempty"`
	InputJSONPath        *string `json:"input_jsonpath,omitempty"`
	OutputJSONPath       *string `json:"output_jsonpath,omitempty"`
	Model                *string `json:"model,omitempty"`
	FollowupSystemPrompt *string `json:"followup_system_prompt,omitempty"`
	FollowupUserPrompt   *string `json:"followup_user_prompt,omitempty"`
	TokenBudget          *int    `json:"token_budget,omitempty"`
}

// clean replaces what no database can store in every text of c.
func (c *Create) clean() {
	for _, p := range []*string{&c.Name, &c.Description, &c.InputJSONPath, &c.OutputJSONPath, &c.Model,
		&c.Facilitator.Name, &c.Facilitator.Email, &c.Facilitator.Role} {
		*p = strings.TrimSpace(hone.CleanText(*p))
	}
}

// validate reports the first field of c that is missing or wrong.
func (c *Create) validate() error {
	switch {
	case c.Name == "":
		return hone.FieldError("name", "name is required")
	case hone.Chars(c.Name) > MaxNameLength:
		return hone.FieldError("name", "name is longer than %d characters", MaxNameLength)
	case hone.Chars(c.Description) > MaxTextLength:
		return hone.FieldError("description", "description is longer than %d characters", MaxTextLength)
	case hone.Chars(c.Model) > MaxNameLength:
		return hone.FieldError("model", "model is longer than %d characters", MaxNameLength)
	}
	for _, p := range []struct{ field, path string }{{"input_jsonpath", c.InputJSONPath}, {"output_jsonpath", c.OutputJSONPath}} {
		if err := ValidateJSONPath(p.field, p.path); err != nil {
			return err
		}
	}
	c.Facilitator.Role = RoleFacilitator
	return c.Facilitator.validate("facilitator.")
}

// apply sets the changed settings on w after validating them.
func (s *Settings) apply(w *Workshop) error {
	for _, p := range []**string{&s.Name, &s.Description, &s.InputJSONPath, &s.OutputJSONPath, &s.Model,
		&s.FollowupSystemPrompt, &s.FollowupUserPrompt} {
		if *p != nil {
			v := strings.TrimSpace(hone.CleanText(**p))
			*p = &v
		}
	}
	if s.Name != nil {
		if *s.Name == "" {
			return hone.FieldError("name", "name must not be empty")
		}
		if hone.Chars(*s.Name) > MaxNameLength {
			return hone.FieldError("name", "name is longer than %d characters", MaxNameLength)
		}
		w.Name = *s.Name
	}
	if s.Description != nil {
		if hone.Chars(*s.Description) > MaxTextLength {
			return hone.FieldError("description", "description is longer than %d characters", MaxTextLength)
		}
		w.Description = *s.Description
	}
	if s.InputJSONPath != nil {
		if err := ValidateJSONPath("input_jsonpath", *s.InputJSONPath); err != nil {
			return err
		}
		w.InputJSONPath = *s.InputJSONPath
	}
	if s.OutputJSONPath != nil {
		if err := ValidateJSONPath("output_jsonpath", *s.OutputJSONPath); err != nil {
			return err
		}
		w.OutputJSONPath = *s.OutputJSONPath
	}
	if s.Model != nil {
		if hone.Chars(*s.Model) > MaxNameLength {
			return hone.FieldError("model", "model is longer than %d characters", MaxNameLength)
		}
		w.Model = *s.Model
	}
	for _, p := range []struct {
		field string
		v     *string
		to    *string
	}{{"followup_system_prompt", s.FollowupSystemPrompt, &w.FollowupSystemPrompt},
		{"followup_user_prompt", s.FollowupUserPrompt, &w.FollowupUserPrompt}} {
		if p.v == nil {
			continue
		}
		if hone.Chars(*p.v) > MaxPromptLength {
			return hone.FieldError(p.field, "%s is longer than %d characters", p.field, MaxPromptLength)
		}
		*p.to = *p.v
	}
	if s.TokenBudget != nil {
		if *s.TokenBudget < MinTokenBudget || *s.TokenBudget > MaxTokenBudget {
			return hone.FieldError("token_budget", "token_budget must be from %d to %d, got %d", MinTokenBudget, MaxTokenBudget, *s.TokenBudget)
		}
		w.TokenBudget = *s.TokenBudget
	}
	return nil
}

// phaseConflict is the error of an action the workshop's phase does not allow.
func phaseConflict(format string, args ...any) error {
	return hone.Errorf(hone.ECONFLICT, format, args...)
}
