package workshop

import "time"

// Feedback labels.
const (
	LabelGood = "good"
	LabelBad  = "bad"
)

// QA is one follow-up question and its answer.
type QA struct {
	Question string `json:"question"`
	Answer   string `json:"answer"`
	// Fallback is set when the question is the generic one given after the
	// LLM failed; only facilitators see it.
	Fallback bool `json:"fallback,omitempty"`
}

// Feedback is one member's review of one trace: the spec's
// discovery_feedback record.
type Feedback struct {
	ID          string    `json:"id"`
	WorkshopID  string    `json:"workshop_id"`
	TraceID     string    `json:"trace_id"`
	UserID      string    `json:"user_id"`
	Label       string    `json:"feedback_label"`
	Comment     string    `json:"comment"`
	FollowupQnA []QA      `json:"followup_qna"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
	// Pending is the question asked and not answered yet, kept so that a
	// reload shows the same question.
	Pending *Pending `json:"pending_question,omitempty"`
	// FailedAttempts counts the failed LLM attempts at the pending
	// question's number; the third gives the fallback question.
	FailedAttempts int `json:"-"`
}

// Pending is a follow-up question asked and not answered yet.
type Pending struct {
	Number   int    `json:"question_number"`
	Question string `json:"question"`
	Fallback bool   `json:"fallback,omitempty"`
}

// Complete reports whether the feedback has its three answers.
func (f *Feedback) Complete() bool { return len(f.FollowupQnA) >= Questions }

// FeedbackInput is the body of a feedback submission.
type FeedbackInput struct {
	TraceID string `json:"trace_id"`
	UserID  string `json:"user_id"`
	Label   string `json:"feedback_label"`
	Comment string `json:"comment"`
}

// AnswerInput is the body of a follow-up answer.
type AnswerInput struct {
	TraceID  string `json:"trace_id"`
	UserID   string `json:"user_id"`
	Question string `json:"question"`
	Answer   string `json:"answer"`
}

// Question is a follow-up question as asked.
type Question struct {
	Question string `json:"question"`
	Number   int    `json:"question_number"`
	// Fallback is shown to facilitators only.
	Fallback bool `json:"fallback,omitempty"`
}

// ParticipantStatus is one participant's progress in discovery.
type ParticipantStatus struct {
	UserID    string `json:"user_id"`
	Name      string `json:"name"`
	Completed int    `json:"completed"`
	Assigned  int    `json:"assigned"`
}

// CompletionStatus is discovery's progress: the spec's completion status.
type CompletionStatus struct {
	Participants         []ParticipantStatus `json:"participants"`
	FinishedParticipants int                 `json:"finished_participants"`
	TotalParticipants    int                 `json:"total_participants"`
	PercentFinished      float64             `json:"percent_finished"`
}
