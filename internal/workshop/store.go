package workshop

import (
	"context"
	"time"
)

// FeedbackFilter selects feedback; empty fields match all.
type FeedbackFilter struct {
	WorkshopID string
	UserID     string
	TraceID    string
}

// Store keeps workshops and everything in them. Every method is atomic;
// the conditional ones (phases, questions, answers, claims) change nothing
// and answer ECONFLICT when the record moved on meanwhile.
type Store interface {
	// CreateWorkshop stores a new workshop with its first facilitator.
	CreateWorkshop(ctx context.Context, w *Workshop, facilitator *Member, tokenHash string) error
	// UpdateWorkshop stores w's settings (not its phase or discovery state).
	UpdateWorkshop(ctx context.Context, w *Workshop) error
	// Workshop returns a workshop with its trace count; ENOTFOUND when there is none.
	Workshop(ctx context.Context, id string) (*Workshop, error)
	// ListWorkshops returns workshops newest first: those of ids, or all when ids is nil.
	ListWorkshops(ctx context.Context, ids []string) ([]*Workshop, error)

	// AddMember stores a new member with the hash of their token.
	AddMember(ctx context.Context, m *Member, tokenHash string) error
	// SetMemberToken replaces a member's token, revoking the old one.
	SetMemberToken(ctx context.Context, workshopID, memberID, tokenHash string) error
	// Members returns a workshop's members in the order they joined.
	Members(ctx context.Context, workshopID string) ([]*Member, error)
	// MemberByToken returns the member whose token has tokenHash; ENOTFOUND when none.
	MemberByToken(ctx context.Context, tokenHash string) (*Member, error)

	// AddTraces appends traces after the workshop's last, numbering their
	// positions; a trace id the workshop has already is ECONFLICT naming it,
	// and then none is added.
	AddTraces(ctx context.Context, workshopID string, traces []*Trace) error
	// Traces returns the workshop's traces by position: the first limit, or all when limit is 0.
	Traces(ctx context.Context, workshopID string, limit int) ([]*Trace, error)
	// Trace returns one trace; ENOTFOUND when the workshop has none of that id.
	Trace(ctx context.Context, workshopID, traceID string) (*Trace, error)

	// BeginDiscovery starts discovery when the workshop has not started it:
	// phase discovery, the trace limit, the order, and the traces assigned
	// (the first limit by position). ECONFLICT when it started already or the
	// phase is past discovery.
	BeginDiscovery(ctx context.Context, workshopID string, limit int, randomize bool) (*Workshop, error)
	// SetPhase moves the workshop from phase from to phase to; ECONFLICT
	// when it is no longer in from.
	SetPhase(ctx context.Context, workshopID, from, to string) error

	// UpsertFeedback stores a member's label and comment of a trace,
	// keeping the follow-up questions and answers a record has already.
	UpsertFeedback(ctx context.Context, f *Feedback) (*Feedback, error)
	// SetLabel makes label (good or bad) and, when it is not empty, comment
	// the member's feedback of the trace, as their latest score of config
	// workshop_label (given at) says, keeping the follow-up answers; it
	// reports false, and stores nothing, when userID is no member of the
	// workshop. It joins the transaction ctx carries.
	SetLabel(ctx context.Context, workshopID, traceID, userID, label, comment string, at time.Time) (bool, error)
	// Feedback returns one record; ENOTFOUND when there is none.
	Feedback(ctx context.Context, workshopID, traceID, userID string) (*Feedback, error)
	// ListFeedback returns the records f selects, by trace position and member.
	ListFeedback(ctx context.Context, f FeedbackFilter) ([]*Feedback, error)
	// CountFeedback counts a workshop's feedback records.
	CountFeedback(ctx context.Context, workshopID string) (int, error)
	// SetPending keeps p as the pending question of the record when it
	// still has answers answers and no other pending question, and returns
	// the record as stored (with the pending question asked first, when
	// another request asked it meanwhile).
	SetPending(ctx context.Context, feedbackID string, answers int, p Pending) (*Feedback, error)
	// FailAttempt counts a failed attempt at the next question of a record
	// that still has answers answers, and returns the count.
	FailAttempt(ctx context.Context, feedbackID string, answers int) (int, error)
	// AppendAnswer appends qa to a record that still has answers answers,
	// clears its pending question and failed attempts, and counts the
	// member's completed traces up when it now has all its answers.
	AppendAnswer(ctx context.Context, feedbackID string, answers int, qa QA) (*Feedback, error)

	// CreateAnalysis stores a new analysis run.
	CreateAnalysis(ctx context.Context, a *Analysis) error
	// ClaimAnalysis marks the queued run id running (the oldest queued one
	// when id is ""), and returns it; ENOTFOUND when there is none to claim.
	ClaimAnalysis(ctx context.Context, id string) (*Analysis, error)
	// Heartbeat notes that a running run is alive, with its progress.
	Heartbeat(ctx context.Context, id string, done, total int) error
	// SaveAnalysis stores a run's results and status.
	SaveAnalysis(ctx context.Context, a *Analysis) error
	// RequeueStale queues again the running runs whose heartbeat is older
	// than before, or fails them when they were tried maxAttempts times; it
	// returns how many it touched.
	RequeueStale(ctx context.Context, before time.Time, maxAttempts int) (int, error)
	// Analysis returns one run of a workshop; ENOTFOUND when there is none.
	Analysis(ctx context.Context, workshopID, id string) (*Analysis, error)
	// ListAnalyses returns a workshop's runs newest first, of one template when it is not "".
	ListAnalyses(ctx context.Context, workshopID, template string) ([]*Analysis, error)
	// AnalysisRuns returns a workshop's runs newest first without their
	// results (findings, disagreements and analysis_data left empty).
	AnalysisRuns(ctx context.Context, workshopID string) ([]*Analysis, error)

	// Templates returns a workshop's own analysis templates by name.
	Templates(ctx context.Context, workshopID string) ([]Template, error)
	// AddTemplate stores a workshop's own template; ECONFLICT when the name is taken.
	AddTemplate(ctx context.Context, workshopID string, t Template) error

	// AddDraftItem stores a new draft rubric item.
	AddDraftItem(ctx context.Context, it *DraftItem) error
	// UpdateDraftItem stores an item's text and group.
	UpdateDraftItem(ctx context.Context, it *DraftItem) error
	// DeleteDraftItem removes an item; ENOTFOUND when there is none.
	DeleteDraftItem(ctx context.Context, workshopID, id string) error
	// DraftItems returns a workshop's draft items in the order they were promoted.
	DraftItems(ctx context.Context, workshopID string) ([]*DraftItem, error)
	// RenameGroup renames a group of draft items and returns how many it holds.
	RenameGroup(ctx context.Context, workshopID, groupID, name string) (int, error)
	// ApplyGroups ungroups every draft item of the workshop and puts the
	// items of groups in them, in one transaction.
	ApplyGroups(ctx context.Context, workshopID string, groups []Group) error

	// Ratings returns the label of every feedback record of a workshop, by
	// trace id and member.
	Ratings(ctx context.Context, workshopID string) ([]Rating, error)
}

// Group is a group of draft items with its id.
type Group struct {
	ID      string
	Name    string
	ItemIDs []string
}
