package workshop

import "time"

// Priorities of a finding.
const (
	PriorityHigh   = "high"
	PriorityMedium = "medium"
	PriorityLow    = "low"
)

// Finding is a criterion or theme the analysis distilled, with the traces
// that support it: the spec's Finding.
type Finding struct {
	Text             string   `json:"text"`
	EvidenceTraceIDs []string `json:"evidence_trace_ids"`
	Priority         string   `json:"priority"`
}

// DisagreementAnalysis is the LLM's reading of one disagreement.
type DisagreementAnalysis struct {
	TraceID                string   `json:"trace_id"`
	Summary                string   `json:"summary"`
	UnderlyingTheme        string   `json:"underlying_theme"`
	FollowupQuestions      []string `json:"followup_questions"`
	FacilitatorSuggestions []string `json:"facilitator_suggestions"`
}

// DistillationOutput is the typed answer of the DistillFindings call, with
// the spec's field names.
type DistillationOutput struct {
	Findings                    []Finding              `json:"findings"`
	HighPriorityDisagreements   []DisagreementAnalysis `json:"high_priority_disagreements"`
	MediumPriorityDisagreements []DisagreementAnalysis `json:"medium_priority_disagreements"`
	LowerPriorityDisagreements  []DisagreementAnalysis `json:"lower_priority_disagreements"`
	Summary                     string                 `json:"summary"`
}

// Tiers of disagreement, as keys of Analysis.Disagreements.
const (
	TierHigh   = "high"
	TierMedium = "medium"
	TierLower  = "lower"
)

// Review is one reviewer's feedback on a trace, as an analysis shows it.
type Review struct {
	UserID  string `json:"user_id"`
	Name    string `json:"name"`
	Label   string `json:"feedback_label"`
	Comment string `json:"comment"`
	// QnA are the reviewer's follow-up answers, which the LLM reads; an
	// analysis record leaves them out (they are in the feedback).
	QnA []QA `json:"followup_qna,omitempty"`
}

// Disagreement is a trace whose reviewers disagree, with the LLM's
// analysis merged in when it gave one.
type Disagreement struct {
	TraceID  string                `json:"trace_id"`
	Reviews  []Review              `json:"reviews"`
	Analysis *DisagreementAnalysis `json:"analysis,omitempty"`
}

// Disagreements are the detected disagreements by tier.
type Disagreements struct {
	High   []Disagreement `json:"high"`
	Medium []Disagreement `json:"medium"`
	Lower  []Disagreement `json:"lower"`
}

// Statuses of an analysis run.
const (
	StatusQueued  = "queued"
	StatusRunning = "running"
	StatusDone    = "done"
	StatusFailed  = "failed"
)

// Analysis is one analysis run: the spec's discovery_analysis record, with
// the status of its run.
type Analysis struct {
	ID               string        `json:"id"`
	WorkshopID       string        `json:"workshop_id"`
	Template         string        `json:"template_used"`
	AnalysisData     string        `json:"analysis_data"`
	Findings         []Finding     `json:"findings"`
	Disagreements    Disagreements `json:"disagreements"`
	Summary          string        `json:"summary"`
	ParticipantCount int           `json:"participant_count"`
	// ModelRequested is the model asked for, "" for the workshop's or the
	// configured one; Model the one that answered.
	ModelRequested string `json:"model_requested,omitempty"`
	Model          string `json:"model_used"`
	Status         string `json:"status"`
	// ChunksDone of ChunksTotal is the progress of a running analysis.
	ChunksDone  int `json:"chunks_done"`
	ChunksTotal int `json:"chunks_total"`
	// Error says why a failed run failed.
	Error string `json:"error,omitempty"`
	// Warnings are things to know about the result, such as fewer than two
	// participants, or an LLM that is not configured.
	Warnings []string `json:"warnings"`
	// DroppedEvidence counts the trace ids the LLM cited that are not
	// traces of the workshop; they were left out.
	DroppedEvidence int `json:"dropped_evidence"`
	// RequestedBy is the member (or admin) who ran it.
	RequestedBy string    `json:"requested_by"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
}

// Template is an analysis template: a preset or a facilitator's own.
type Template struct {
	Name        string    `json:"name"`
	Title       string    `json:"title"`
	Instruction string    `json:"instruction"`
	Preset      bool      `json:"preset"`
	CreatedBy   string    `json:"created_by,omitempty"`
	CreatedAt   time.Time `json:"created_at,omitzero"`
}
