package learning

import (
	"context"
	"math"
	"strings"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/capture"
)

// Limits of a learning's texts, in characters.
const (
	MaxAdjustmentLength = 2000
	MaxPatternLength    = 500
)

// settingEnabled names the setting that switches learnings off ("false").
const settingEnabled = "enabled"

// withStatus sets l's status from its state and confidence.
func (s *Service) withStatus(l *Learning) *Learning {
	switch l.State {
	case StateRejected:
		l.Status = StatusRejected
	case StateConflict:
		l.Status = StatusConflict
	default:
		l.Status = StatusActive
		if l.Confidence < s.opts.Threshold {
			l.Status = StatusBelowThreshold
		}
	}
	if l.SourceCorrections == nil {
		l.SourceCorrections = []string{}
	}
	return l
}

// Learnings lists learnings oldest first, with their status.
func (s *Service) Learnings(ctx context.Context, f LearningFilter) ([]*Learning, error) {
	list, err := s.store.Learnings(ctx, f)
	if err != nil {
		return nil, err
	}
	for _, l := range list {
		s.withStatus(l)
	}
	return list, nil
}

// Learning returns one learning with its status.
func (s *Service) Learning(ctx context.Context, id string) (*Learning, error) {
	l, err := s.store.Learning(ctx, cleanID(id))
	if err != nil {
		return nil, err
	}
	return s.withStatus(l), nil
}

// Evidence returns the corrections a learning was learned from, with their
// turns.
func (s *Service) Evidence(ctx context.Context, l *Learning) ([]*Correction, error) {
	if len(l.SourceCorrections) == 0 {
		return []*Correction{}, nil
	}
	return s.store.CorrectionsByID(ctx, l.SourceCorrections)
}

// EvidenceOf returns the corrections the learnings were learned from, by
// id, in one read.
func (s *Service) EvidenceOf(ctx context.Context, list []*Learning) (map[string]*Correction, error) {
	var ids []string
	for _, l := range list {
		ids = append(ids, l.SourceCorrections...)
	}
	out := make(map[string]*Correction, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	found, err := s.store.CorrectionsByID(ctx, ids)
	if err != nil {
		return nil, err
	}
	for _, c := range found {
		out[c.ID] = c
	}
	return out, nil
}

// cleanText trims text of white space and checks its length.
func cleanText(field, text string, max int, required bool) (string, error) {
	text = strings.TrimSpace(hone.CleanText(text))
	switch {
	case text == "" && required:
		return "", hone.FieldError(field, "%s is required", field)
	case hone.Chars(text) > max:
		return "", hone.FieldError(field, "%s is longer than %d characters", field, max)
	}
	return text, nil
}

// checkConfidence refuses a confidence outside 0 to 1.
func checkConfidence(c float64) error {
	if math.IsNaN(c) || c < 0 || c > 1 {
		return hone.FieldError("confidence", "confidence must be from 0 to 1, not %v", c)
	}
	return nil
}

// Add stores a learning someone gives by hand, with confidence 1 unless
// they say otherwise. One that says what an existing learning says already
// is refused (ECONFLICT naming it).
func (s *Service) Add(ctx context.Context, in LearningInput) (*Learning, error) {
	adj, err := cleanText("prompt_adjustment", in.PromptAdjustment, MaxAdjustmentLength, true)
	if err != nil {
		return nil, err
	}
	pattern, err := cleanText("pattern", in.Pattern, MaxPatternLength, false)
	if err != nil {
		return nil, err
	}
	if pattern == "" {
		pattern = summary(adj, 120)
	}
	tester, err := cleanText("tester_id", in.TesterID, capture.MaxIDLength, false)
	if err != nil {
		return nil, err
	}
	confidence := 1.0
	if in.Confidence != nil {
		if err := checkConfidence(*in.Confidence); err != nil {
			return nil, err
		}
		confidence = *in.Confidence
	}
	existing, err := s.store.Learnings(ctx, LearningFilter{TesterID: tester})
	if err != nil {
		return nil, err
	}
	for _, e := range existing {
		if nearDuplicate(e.PromptAdjustment, adj) {
			return nil, hone.Errorf(hone.ECONFLICT, "learning %s says this already: %q", e.ID, e.PromptAdjustment)
		}
	}
	now := s.now()
	l := &Learning{ID: hone.NewID(idLength), Pattern: pattern, PromptAdjustment: adj, Confidence: confidence,
		SourceCorrections: []string{}, TesterID: tester, Manual: true, CreatedAt: now, UpdatedAt: now, State: StateOK}
	if err := s.store.AddLearning(ctx, l); err != nil {
		return nil, err
	}
	s.changed()
	return s.withStatus(l), nil
}

// Update edits a learning's texts or confidence. Editing a learning in
// conflict settles the conflict in its favour: it is the owner's word now.
func (s *Service) Update(ctx context.Context, id string, in LearningUpdate) (*Learning, error) {
	l, err := s.store.Learning(ctx, cleanID(id))
	if err != nil {
		return nil, err
	}
	if in.PromptAdjustment != nil {
		if l.PromptAdjustment, err = cleanText("prompt_adjustment", *in.PromptAdjustment, MaxAdjustmentLength, true); err != nil {
			return nil, err
		}
	}
	if in.Pattern != nil {
		if l.Pattern, err = cleanText("pattern", *in.Pattern, MaxPatternLength, true); err != nil {
			return nil, err
		}
	}
	if in.Confidence != nil {
		if err := checkConfidence(*in.Confidence); err != nil {
			return nil, err
		}
		l.Confidence = *in.Confidence
	}
	if l.State == StateConflict && (in.PromptAdjustment != nil || in.Pattern != nil) {
		if err := s.store.DeleteLearning(ctx, l.ConflictsWith); err != nil && hone.ErrorCode(err) != hone.ENOTFOUND {
			return nil, err
		}
		l.State, l.ConflictsWith, l.Reason = StateOK, "", ""
	}
	l.UpdatedAt = s.now()
	if err := s.store.UpdateLearning(ctx, l); err != nil {
		return nil, err
	}
	s.changed()
	return s.withStatus(l), nil
}

// Remove deletes a learning; a learning that was in conflict with it is no
// longer.
func (s *Service) Remove(ctx context.Context, id string) error {
	if err := s.store.DeleteLearning(ctx, strings.TrimSpace(id)); err != nil {
		return err
	}
	s.changed()
	return nil
}

// Keep settles the conflicts of a learning in its favour: the learnings it
// conflicts with, and those that conflict with it, are removed.
func (s *Service) Keep(ctx context.Context, id string) (*Learning, error) {
	l, err := s.store.Learning(ctx, cleanID(id))
	if err != nil {
		return nil, err
	}
	all, err := s.store.Learnings(ctx, LearningFilter{})
	if err != nil {
		return nil, err
	}
	settled := false
	for _, o := range all {
		if o.ID != l.ID && (o.ID == l.ConflictsWith && l.State == StateConflict || o.State == StateConflict && o.ConflictsWith == l.ID) {
			if err := s.store.DeleteLearning(ctx, o.ID); err != nil && hone.ErrorCode(err) != hone.ENOTFOUND {
				return nil, err
			}
			settled = true
		}
	}
	if !settled {
		return nil, hone.Errorf(hone.ECONFLICT, "learning %s is in no conflict to settle", l.ID)
	}
	s.changed()
	return s.Learning(ctx, l.ID)
}

// Enabled reports whether learnings are applied to prompts.
func (s *Service) Enabled(ctx context.Context) (bool, error) {
	v, err := s.store.Setting(ctx, settingEnabled)
	return v != "false", err
}

// SetEnabled switches learnings on or off, deleting none.
func (s *Service) SetEnabled(ctx context.Context, on bool) error {
	v := "true"
	if !on {
		v = "false"
	}
	if err := s.store.SetSetting(ctx, settingEnabled, v); err != nil {
		return err
	}
	s.changed()
	return nil
}

// cleanID is an id from a path as the store may look it up: NUL and bytes
// that are not UTF-8 replaced, white space around it trimmed.
func cleanID(id string) string { return strings.TrimSpace(hone.CleanText(id)) }
