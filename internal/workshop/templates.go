package workshop

import (
	"context"
	"regexp"
	"strings"

	"github.com/honehq/hone"
)

// Names of the preset analysis templates.
const (
	TemplateEvaluationCriteria = "evaluation_criteria"
	TemplateThemesPatterns     = "themes_patterns"
)

// Presets are the spec's analysis templates; evaluation_criteria is the default.
var Presets = []Template{
	{Name: TemplateEvaluationCriteria, Title: "Evaluation Criteria", Preset: true, Instruction: `Analyze the participant feedback below to extract evaluation criteria and
analyze disagreements between reviewers.

## Findings: Evaluation Criteria

Distill specific, actionable evaluation criteria from the feedback. Each
criterion should describe one quality dimension that could be used to assess
future responses. Focus on:
- User preferences and expectations for quality
- Specific aspects users care about (tone, accuracy, efficiency, empathy, etc.)
- Patterns in what makes responses "good" vs "needs improvement"

For each criterion, cite the trace IDs that provide evidence and assign a
priority (high/medium/low) based on how frequently or strongly it appears
in the feedback.

## Disagreement Analysis

For each detected disagreement, analyze:
- HIGH PRIORITY (rating disagreements — one GOOD, one BAD): What quality
  dimension is unclear? What follow-up questions would resolve it? What
  concrete calibration actions should the facilitator take?
- MEDIUM PRIORITY (both BAD, different issues): What different problems
  were identified? Are they independent or related? Which should be fixed
  first?
- LOWER PRIORITY (both GOOD, different strengths): What different aspects
  were valued? Do these reflect different user types or priorities?`},
	{Name: TemplateThemesPatterns, Title: "Themes & Patterns", Preset: true, Instruction: `Analyze the participant feedback below to identify recurring themes and
patterns, and analyze disagreements between reviewers.

## Findings: Themes & Patterns

Identify emergent themes, recurring patterns, notable tendencies, risks,
and strengths across the feedback. Unlike formal criteria, themes can be
broader observations about how users interact with and evaluate the
responses. Look for:
- Recurring concerns or praise across multiple traces
- Patterns in what users notice first or care most about
- Tendencies in how different user types evaluate responses
- Risks or failure modes that appeared across traces
- Strengths worth preserving

For each theme, cite the trace IDs that provide evidence and assign a
priority (high/medium/low) based on prevalence and impact.

## Disagreement Analysis

For each detected disagreement, analyze:
- HIGH PRIORITY (rating disagreements — one GOOD, one BAD): What
  underlying theme explains the split? What perspectives are in tension?
- MEDIUM PRIORITY (both BAD, different issues): What different themes
  do the issues fall under? Are they facets of the same problem?
- LOWER PRIORITY (both GOOD, different strengths): What different
  themes do the valued aspects represent?`},
}

var templateName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,59}$`)

// Templates lists the analysis templates of a workshop: the presets, then
// its own; facilitators only.
func (s *Service) Templates(ctx context.Context, workshopID, userID string) ([]Template, error) {
	if _, _, _, err := s.facilitator(ctx, workshopID, userID); err != nil {
		return nil, err
	}
	own, err := s.store.Templates(ctx, workshopID)
	if err != nil {
		return nil, err
	}
	return append(append([]Template(nil), Presets...), own...), nil
}

// AddTemplate saves a facilitator's own analysis template: a name (lower
// case letters, digits, _ and -), a title and the instruction that
// replaces the preset's.
func (s *Service) AddTemplate(ctx context.Context, workshopID, userID string, t Template) (*Template, error) {
	_, a, _, err := s.facilitator(ctx, workshopID, userID)
	if err != nil {
		return nil, err
	}
	t.Name = strings.TrimSpace(t.Name)
	t.Title = strings.TrimSpace(hone.CleanText(t.Title))
	t.Instruction = strings.TrimSpace(hone.CleanText(t.Instruction))
	switch {
	case !templateName.MatchString(t.Name):
		return nil, hone.FieldError("name", "name must be 1 to 60 lower-case letters, digits, '_' or '-', starting with a letter or digit; got %q", t.Name)
	case isPreset(t.Name):
		return nil, hone.FieldError("name", "%q is a preset template's name", t.Name)
	case t.Title == "":
		return nil, hone.FieldError("title", "title is required")
	case hone.Chars(t.Title) > MaxNameLength:
		return nil, hone.FieldError("title", "title is longer than %d characters", MaxNameLength)
	case t.Instruction == "":
		return nil, hone.FieldError("instruction", "instruction is required: what the analysis should look for")
	case hone.Chars(t.Instruction) > MaxPromptLength:
		return nil, hone.FieldError("instruction", "instruction is longer than %d characters", MaxPromptLength)
	}
	t.Preset, t.CreatedBy, t.CreatedAt = false, a.By(), s.opts.Now().UTC()
	if err := s.store.AddTemplate(ctx, workshopID, t); err != nil {
		if hone.ErrorCode(err) == hone.ECONFLICT {
			return nil, &hone.Error{Code: hone.ECONFLICT, Field: "name", Message: "the workshop has a template " + t.Name + " already"}
		}
		return nil, err
	}
	return &t, nil
}

func isPreset(name string) bool {
	for _, p := range Presets {
		if p.Name == name {
			return true
		}
	}
	return false
}

// template returns the template called name of a workshop.
func (s *Service) template(ctx context.Context, workshopID, name string) (*Template, error) {
	for _, p := range Presets {
		if p.Name == name {
			return &p, nil
		}
	}
	own, err := s.store.Templates(ctx, workshopID)
	if err != nil {
		return nil, err
	}
	for _, t := range own {
		if t.Name == name {
			return &t, nil
		}
	}
	return nil, hone.FieldError("template", "no analysis template %q: use %s, %s or one of the workshop's own", name,
		TemplateEvaluationCriteria, TemplateThemesPatterns)
}
