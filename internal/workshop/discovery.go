package workshop

import (
	"context"
	"fmt"
	"strings"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/llm"
	"github.com/honehq/hone/internal/score"
)

// Begin starts discovery; facilitators only. limit is how many of the
// first traces are reviewed (DefaultTraceLimit when 0); randomize gives
// each participant their own order. From intake it moves the workshop to
// discovery.
func (s *Service) Begin(ctx context.Context, workshopID, userID string, limit int, randomize bool) (*Workshop, error) {
	w, _, _, err := s.facilitator(ctx, workshopID, userID)
	if err != nil {
		return nil, err
	}
	if limit == 0 {
		limit = DefaultTraceLimit
	}
	switch {
	case limit < 1 || limit > MaxImportTraces:
		return nil, hone.FieldError("trace_limit", "trace_limit must be from 1 to %d, got %d", MaxImportTraces, limit)
	case w.DiscoveryStarted:
		return nil, phaseConflict("discovery has started already")
	case phaseIndex(w.Phase) > phaseIndex(PhaseDiscovery):
		return nil, phaseConflict("the workshop is in %s, past discovery", w.Phase)
	case w.TraceCount == 0:
		return nil, phaseConflict("the workshop has no traces yet: import some first")
	}
	return s.store.BeginDiscovery(ctx, workshopID, limit, randomize)
}

// inDiscovery refuses what only discovery allows.
func inDiscovery(w *Workshop) error {
	if w.Phase != PhaseDiscovery || !w.DiscoveryStarted {
		if w.Phase == PhaseDiscovery || w.Phase == PhaseIntake {
			return phaseConflict("discovery has not started yet")
		}
		return phaseConflict("the workshop is in %s: discovery feedback is closed", w.Phase)
	}
	return nil
}

// assignedTrace returns the trace traceID when discovery reviews it.
func (s *Service) assignedTrace(ctx context.Context, w *Workshop, traceID string) (*Trace, error) {
	traceID = hone.CleanText(traceID)
	if strings.TrimSpace(traceID) == "" {
		return nil, hone.FieldError("trace_id", "trace_id is required")
	}
	t, err := s.store.Trace(ctx, w.ID, traceID)
	if hone.ErrorCode(err) == hone.ENOTFOUND || err == nil && t.Position >= w.AssignedCount {
		return nil, hone.Errorf(hone.ENOTFOUND, "trace %q is not among the traces discovery reviews", traceID)
	}
	return t, err
}

// SubmitFeedback stores a member's label and comment of a trace, once per
// member and trace: submitting again replaces them and keeps the answers.
func (s *Service) SubmitFeedback(ctx context.Context, workshopID string, in FeedbackInput) (*Feedback, error) {
	w, a, _, err := s.self(ctx, workshopID, in.UserID)
	if err != nil {
		return nil, err
	}
	in.Label = strings.ToLower(strings.TrimSpace(in.Label))
	in.Comment = strings.TrimSpace(hone.CleanText(in.Comment))
	switch {
	case in.Label != LabelGood && in.Label != LabelBad:
		return nil, hone.FieldError("feedback_label", "feedback_label must be good or bad, not %q", in.Label)
	case in.Comment == "":
		return nil, hone.FieldError("comment", "comment is required: say why")
	case hone.Chars(in.Comment) > MaxTextLength:
		return nil, hone.FieldError("comment", "comment is longer than %d characters", MaxTextLength)
	}
	if err := inDiscovery(w); err != nil {
		return nil, err
	}
	if _, err := s.assignedTrace(ctx, w, in.TraceID); err != nil {
		return nil, err
	}
	if s.opts.Scores == nil {
		return nil, hone.Errorf(hone.EUNAVAILABLE, "feedback is not taken: hone runs without its score capability")
	}
	var f *Feedback
	err = s.opts.Scores.Atomically(ctx, func(ctx context.Context) error {
		_, _, err := s.opts.Scores.Record(ctx, score.Input{WorkshopID: w.ID, TraceID: in.TraceID, Config: score.WorkshopLabel,
			Value: score.Label(strings.ToUpper(in.Label)), Comment: in.Comment, Source: score.SourceWorkshop, Author: a.Member.ID})
		if err != nil {
			return err
		}
		now := s.opts.Now().UTC()
		f, err = s.store.UpsertFeedback(ctx, &Feedback{ID: hone.NewID(idLength), WorkshopID: w.ID, TraceID: in.TraceID,
			UserID: a.Member.ID, Label: in.Label, Comment: in.Comment, FollowupQnA: []QA{}, CreatedAt: now, UpdatedAt: now})
		return err
	})
	if err != nil {
		return nil, err
	}
	return s.shown(a, f), nil
}

// shown is f as the actor may see it: without the fallback flags unless
// they are a facilitator.
func (s *Service) shown(a Actor, f *Feedback) *Feedback {
	if a.Facilitator() || f == nil {
		return f
	}
	c := *f
	c.FollowupQnA = make([]QA, len(f.FollowupQnA))
	for i, qa := range f.FollowupQnA {
		qa.Fallback = false
		c.FollowupQnA[i] = qa
	}
	if f.Pending != nil {
		p := *f.Pending
		p.Fallback = false
		c.Pending = &p
	}
	return &c
}

// feedbackFor returns the member's record of a trace discovery reviews.
func (s *Service) feedbackFor(ctx context.Context, w *Workshop, traceID string, m *Member) (*Trace, *Feedback, error) {
	t, err := s.assignedTrace(ctx, w, traceID)
	if err != nil {
		return nil, nil, err
	}
	f, err := s.store.Feedback(ctx, w.ID, traceID, m.ID)
	if hone.ErrorCode(err) == hone.ENOTFOUND {
		return nil, nil, phaseConflict("give your label and comment of trace %s first (discovery-feedback)", traceID)
	}
	return t, f, err
}

// GenerateQuestion asks follow-up question number of a member's feedback
// on a trace. Question 1 needs the feedback, question N the answer to N-1;
// there are three. A question asked and not answered yet is asked again as
// it was. When the LLM fails, the answer is an EUNAVAILABLE error to retry;
// at the third failed attempt it is the fallback question, flagged (for
// facilitators only), so that nobody is blocked. Without an LLM the
// fallback question comes at once.
func (s *Service) GenerateQuestion(ctx context.Context, workshopID, traceID, userID string, number int) (*Question, error) {
	w, a, _, err := s.self(ctx, workshopID, userID)
	if err != nil {
		return nil, err
	}
	if number < 1 || number > Questions {
		return nil, hone.FieldError("question_number", "question_number must be from 1 to %d, got %d", Questions, number)
	}
	if err := inDiscovery(w); err != nil {
		return nil, err
	}
	t, f, err := s.feedbackFor(ctx, w, traceID, a.Member)
	if err != nil {
		return nil, err
	}
	answered := len(f.FollowupQnA)
	switch {
	case number <= answered:
		return nil, phaseConflict("question %d of trace %s is answered already", number, traceID)
	case number > answered+1:
		return nil, phaseConflict("answer question %d of trace %s first", answered+1, traceID)
	case f.Pending != nil && f.Pending.Number == number:
		return s.question(a, f.Pending), nil
	}
	p := Pending{Number: number}
	if s.opts.LLM == nil {
		p.Question, p.Fallback = FallbackQuestions[number-1], true
	} else if p.Question, err = s.askLLM(ctx, w, t, f); err != nil {
		attempts, ferr := s.store.FailAttempt(ctx, f.ID, answered)
		if ferr != nil {
			return nil, ferr
		}
		if attempts < FailedAttempts {
			s.log.WarnContext(ctx, "follow-up question failed", "workshop_id", w.ID, "trace_id", t.ID, "attempt", attempts, "err", err)
			msg := fmt.Sprintf("The follow-up question could not be generated (attempt %d of %d).", attempts, FailedAttempts)
			if a.Facilitator() {
				// The LLM's failure is for those who run the workshop.
				msg = strings.TrimSuffix(msg, ".") + ": " + strings.TrimRight(hone.ErrorMessage(err), ". ") + "."
			}
			return nil, hone.Errorf(hone.EUNAVAILABLE, "%s Try again.", msg)
		}
		s.log.WarnContext(ctx, "follow-up question failed; a fallback question is given", "workshop_id", w.ID, "trace_id", t.ID, "err", err)
		p.Question, p.Fallback = FallbackQuestions[number-1], true
	}
	stored, err := s.store.SetPending(ctx, f.ID, answered, p)
	if err != nil {
		return nil, err
	}
	if stored.Pending == nil || stored.Pending.Number != number {
		return nil, phaseConflict("question %d of trace %s was answered meanwhile", number, traceID)
	}
	return s.question(a, stored.Pending), nil
}

func (s *Service) question(a Actor, p *Pending) *Question {
	q := &Question{Question: p.Question, Number: p.Number, Fallback: p.Fallback}
	if !a.Facilitator() {
		q.Fallback = false
	}
	return q
}

// askLLM generates the next follow-up question of f.
func (s *Service) askLLM(ctx context.Context, w *Workshop, t *Trace, f *Feedback) (string, error) {
	system, user := followupPrompts(w, t, f)
	resp, err := s.opts.LLM.Complete(ctx, llm.Request{Purpose: llm.PurposeFollowUp, CauseType: "discovery_feedback",
		CauseID: f.ID, Model: w.Model, Messages: []llm.Message{{Role: llm.RoleSystem, Content: system},
			{Role: llm.RoleUser, Content: user}}})
	if err != nil {
		return "", err
	}
	q := hone.CleanText(cleanQuestion(resp.Content))
	if q == "" {
		return "", hone.Errorf(hone.EUNAVAILABLE, "The LLM answered with no question.")
	}
	return q, nil
}

// SubmitAnswer appends the answer to the question asked: answers are kept
// in order, and there are never more than three.
func (s *Service) SubmitAnswer(ctx context.Context, workshopID string, in AnswerInput) (*Feedback, error) {
	w, a, _, err := s.self(ctx, workshopID, in.UserID)
	if err != nil {
		return nil, err
	}
	in.Answer = strings.TrimSpace(hone.CleanText(in.Answer))
	in.Question = strings.TrimSpace(hone.CleanText(in.Question))
	switch {
	case in.Answer == "":
		return nil, hone.FieldError("answer", "answer is required")
	case hone.Chars(in.Answer) > MaxTextLength:
		return nil, hone.FieldError("answer", "answer is longer than %d characters", MaxTextLength)
	}
	if err := inDiscovery(w); err != nil {
		return nil, err
	}
	_, f, err := s.feedbackFor(ctx, w, in.TraceID, a.Member)
	if err != nil {
		return nil, err
	}
	switch {
	case f.Complete():
		return nil, phaseConflict("the %d questions of trace %s are answered already", Questions, in.TraceID)
	case f.Pending == nil:
		return nil, phaseConflict("ask question %d of trace %s first (generate-followup-question)", len(f.FollowupQnA)+1, in.TraceID)
	case in.Question != "" && in.Question != strings.TrimSpace(f.Pending.Question):
		return nil, phaseConflict("the question answered is not question %d as asked: %q", f.Pending.Number, f.Pending.Question)
	}
	stored, err := s.store.AppendAnswer(ctx, f.ID, len(f.FollowupQnA), QA{Question: f.Pending.Question, Answer: in.Answer,
		Fallback: f.Pending.Fallback})
	if err != nil {
		return nil, err
	}
	return s.shown(a, stored), nil
}

// ListFeedback returns discovery feedback: a participant's own, or, to a
// facilitator (and the admin), everyone's or one member's when userID names one.
func (s *Service) ListFeedback(ctx context.Context, workshopID, userID string) ([]*Feedback, error) {
	w, err := s.store.Workshop(ctx, workshopID)
	if err != nil {
		return nil, err
	}
	viewer, ms, err := s.actor(ctx, w, "")
	if err != nil {
		return nil, err
	}
	if !viewer.Facilitator() || viewer.Local && userID != "" {
		if viewer, _, err = s.actor(ctx, w, userID); err != nil {
			return nil, forbidSelf(err)
		}
	}
	f := FeedbackFilter{WorkshopID: w.ID, UserID: hone.CleanText(userID)}
	switch {
	case !viewer.Facilitator():
		f.UserID = viewer.Member.ID
	case f.UserID != "" && ms.byID[f.UserID] == nil:
		return nil, hone.Errorf(hone.ENOTFOUND, "workshop %s has no member %q (user_id)", w.ID, f.UserID)
	}
	list, err := s.store.ListFeedback(ctx, f)
	if err != nil {
		return nil, err
	}
	for i := range list {
		list[i] = s.shown(viewer, list[i])
	}
	return list, nil
}

// Completion is discovery's progress per participant; facilitators only.
func (s *Service) Completion(ctx context.Context, workshopID, userID string) (*CompletionStatus, error) {
	w, _, ms, err := s.facilitator(ctx, workshopID, userID)
	if err != nil {
		return nil, err
	}
	st := &CompletionStatus{Participants: []ParticipantStatus{}}
	assigned := 0
	if w.DiscoveryStarted {
		assigned = w.AssignedCount
	}
	for _, m := range ms.list {
		if m.Role != RoleParticipant {
			continue
		}
		st.Participants = append(st.Participants, ParticipantStatus{UserID: m.ID, Name: m.Name, Completed: m.Completed, Assigned: assigned})
		st.TotalParticipants++
		if assigned > 0 && m.Completed >= assigned {
			st.FinishedParticipants++
		}
	}
	if st.TotalParticipants > 0 {
		st.PercentFinished = 100 * float64(st.FinishedParticipants) / float64(st.TotalParticipants)
	}
	return st, nil
}
