package workshop

import (
	"context"
	"strings"

	"github.com/honehq/hone"
)

// AnalyzeInput starts an analysis: the spec's {template, model}, and who asks.
type AnalyzeInput struct {
	Template string `json:"template,omitempty"`
	Model    string `json:"model,omitempty"`
	UserID   string `json:"user_id,omitempty"`
}

// Started is a queued analysis run, with what to know about it.
type Started struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	// Message says when the LLM part cannot run, and what to set.
	Message string `json:"message,omitempty"`
}

// Analyze queues an analysis of the workshop's discovery feedback with a
// template (evaluation_criteria by default); facilitators only. It runs in
// the background (see Start): poll Analysis for its status. Each run is a
// new record; earlier ones are kept.
func (s *Service) Analyze(ctx context.Context, workshopID string, in AnalyzeInput) (*Started, error) {
	w, a, _, err := s.facilitator(ctx, workshopID, in.UserID)
	if err != nil {
		return nil, err
	}
	if in.Template = strings.TrimSpace(in.Template); in.Template == "" {
		in.Template = TemplateEvaluationCriteria
	}
	in.Model = strings.TrimSpace(hone.CleanText(in.Model))
	if hone.Chars(in.Model) > MaxNameLength {
		return nil, hone.FieldError("model", "model is longer than %d characters", MaxNameLength)
	}
	if _, err := s.template(ctx, workshopID, in.Template); err != nil {
		return nil, err
	}
	if w.Phase == PhaseIntake {
		return nil, phaseConflict("the workshop is in intake: begin discovery first")
	}
	now := s.opts.Now().UTC()
	an := &Analysis{ID: hone.NewID(idLength), WorkshopID: workshopID, Template: in.Template, ModelRequested: in.Model,
		Status: StatusQueued, Findings: []Finding{}, Disagreements: emptyDisagreements(), Warnings: []string{},
		RequestedBy: a.By(), CreatedAt: now, UpdatedAt: now}
	if err := s.store.CreateAnalysis(ctx, an); err != nil {
		return nil, err
	}
	s.jobs.Notify()
	st := &Started{ID: an.ID, Status: an.Status}
	if ok, err := s.LLMConfigured(); !ok {
		st.Message = "The LLM part of the analysis needs an LLM: " + hone.ErrorMessage(err) +
			" This run computes the aggregation and the disagreement tiers only."
	}
	return st, nil
}

func emptyDisagreements() Disagreements {
	return Disagreements{High: []Disagreement{}, Medium: []Disagreement{}, Lower: []Disagreement{}}
}

// Analysis returns one analysis run with its status; facilitators only.
func (s *Service) Analysis(ctx context.Context, workshopID, userID, id string) (*Analysis, error) {
	if _, _, _, err := s.facilitator(ctx, workshopID, userID); err != nil {
		return nil, err
	}
	return s.store.Analysis(ctx, workshopID, id)
}

// Analyses lists a workshop's analysis runs newest first, of one template
// when template is not ""; facilitators only.
func (s *Service) Analyses(ctx context.Context, workshopID, userID, template string) ([]*Analysis, error) {
	if _, _, _, err := s.facilitator(ctx, workshopID, userID); err != nil {
		return nil, err
	}
	return s.store.ListAnalyses(ctx, workshopID, strings.TrimSpace(template))
}

// AnalysisRuns lists a workshop's analysis runs newest first, without their
// results, to choose one from; facilitators only.
func (s *Service) AnalysisRuns(ctx context.Context, workshopID string) ([]*Analysis, error) {
	if _, _, _, err := s.facilitator(ctx, workshopID, ""); err != nil {
		return nil, err
	}
	return s.store.AnalysisRuns(ctx, workshopID)
}
