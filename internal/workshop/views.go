package workshop

import (
	"context"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/llm"
)

// Viewer is who looks at a workshop: a member, or the admin (Member nil).
type Viewer struct {
	Workshop *Workshop
	Member   *Member
	// Facilitator is set for a facilitator and the admin: they see the
	// dashboard, everyone's feedback and the fallback flags.
	Facilitator bool
}

// Viewer returns the workshop and who the request's identity is in it. A
// member of another workshop is EFORBIDDEN; on a hone without an API
// token, anyone who is not a member sees it as a facilitator would.
func (s *Service) Viewer(ctx context.Context, workshopID string) (*Viewer, error) {
	w, a, _, err := s.resolve(ctx, workshopID, "")
	if err != nil {
		return nil, err
	}
	return &Viewer{Workshop: w, Member: a.Member, Facilitator: a.Facilitator()}, nil
}

// DefaultModel is the model follow-up questions and analyses use when a
// workshop names none; "" without an LLM.
func (s *Service) DefaultModel() string {
	if s.opts.LLM == nil {
		return ""
	}
	return s.opts.LLM.Model(llm.PurposeFollowUp)
}

// Step is where a member is on one trace of discovery: the trace, their
// feedback on it so far, and their progress over all their traces.
type Step struct {
	Trace    *Trace
	Feedback *Feedback
	// State is StateFeedback, StateQuestion (QuestionNumber is to be
	// asked), StateAnswer (the pending question awaits its answer) or
	// StateComplete.
	State          string
	QuestionNumber int
	// Index is the trace's place (from 1) in the member's order of Total
	// traces, of which Completed are complete.
	Index, Total, Completed int
	// Next is the first trace after this one in the member's order that is
	// not complete, else the first before it; "" when all are.
	Next string
	// Previous and Following are the traces just before and after this one
	// in the member's order, complete or not; "" at either end.
	Previous, Following string
	// Traces are all the member's traces in their order, with their state,
	// for them to go back to their earlier feedback.
	Traces []StepTrace
}

// StepTrace is one of a member's traces as their steps list it.
type StepTrace struct {
	ID string
	// Index is the trace's place (from 1) in the member's order.
	Index int
	State string
}

// Step returns the caller's step on traceID, which must be one of their
// assigned traces.
func (s *Service) Step(ctx context.Context, workshopID, traceID string) (*Step, error) {
	w, a, _, err := s.self(ctx, workshopID, "")
	if err != nil {
		return nil, err
	}
	views, err := s.assigned(ctx, w, a.Member)
	if err != nil {
		return nil, err
	}
	st := &Step{Total: len(views), Traces: make([]StepTrace, len(views))}
	at := -1
	for i, v := range views {
		st.Traces[i] = StepTrace{ID: v.Trace.ID, Index: i + 1, State: v.State}
		if v.State == StateComplete {
			st.Completed++
		}
		if v.Trace.ID == traceID {
			at = i
			st.Trace, st.State, st.QuestionNumber, st.Index = v.Trace, v.State, v.QuestionNumber, i+1
		}
	}
	if at < 0 {
		return nil, hone.Errorf(hone.ENOTFOUND, "trace %q is not among your traces to review", traceID)
	}
	if at > 0 {
		st.Previous = views[at-1].Trace.ID
	}
	if at+1 < len(views) {
		st.Following = views[at+1].Trace.ID
	}
	for k := 1; k < len(views); k++ {
		if v := views[(at+k)%len(views)]; v.State != StateComplete {
			st.Next = v.Trace.ID
			break
		}
	}
	if st.State != StateFeedback {
		f, err := s.store.Feedback(ctx, w.ID, traceID, a.Member.ID)
		if err != nil {
			return nil, err
		}
		st.Feedback = s.shown(a, f)
	}
	return st, nil
}

// TraceReviews is a trace with every member's feedback on it, for
// facilitators.
type TraceReviews struct {
	Trace    *Trace
	Feedback []*Feedback
	// Names are the members' names by id.
	Names map[string]string
}

// TraceReviews returns a trace and all feedback on it; facilitators only.
func (s *Service) TraceReviews(ctx context.Context, workshopID, traceID string) (*TraceReviews, error) {
	w, _, ms, err := s.facilitator(ctx, workshopID, "")
	if err != nil {
		return nil, err
	}
	t, err := s.store.Trace(ctx, w.ID, traceID)
	if err != nil {
		return nil, err
	}
	fb, err := s.store.ListFeedback(ctx, FeedbackFilter{WorkshopID: w.ID, TraceID: traceID})
	if err != nil {
		return nil, err
	}
	names := make(map[string]string, len(ms.list))
	for _, m := range ms.list {
		names[m.ID] = m.Name
	}
	return &TraceReviews{Trace: t, Feedback: fb, Names: names}, nil
}

// TracePreview lists the first n traces of the workshop by position, for a
// facilitator to look through before discovery; facilitators only.
func (s *Service) TracePreview(ctx context.Context, workshopID string, n int) ([]*Trace, error) {
	if _, _, _, err := s.facilitator(ctx, workshopID, ""); err != nil {
		return nil, err
	}
	return s.store.Traces(ctx, workshopID, n)
}
