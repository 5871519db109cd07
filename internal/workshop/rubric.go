package workshop

import "time"

// Source types of a draft rubric item.
const (
	SourceFinding      = "finding"
	SourceDisagreement = "disagreement"
	SourceFeedback     = "feedback"
	SourceManual       = "manual"
)

// SourceTypes lists the source types.
var SourceTypes = []string{SourceFinding, SourceDisagreement, SourceFeedback, SourceManual}

// DraftItem is a draft rubric item: the spec's draft_rubric_items record.
type DraftItem struct {
	ID               string    `json:"id"`
	WorkshopID       string    `json:"workshop_id"`
	Text             string    `json:"text"`
	SourceType       string    `json:"source_type"`
	SourceAnalysisID string    `json:"source_analysis_id,omitempty"`
	SourceTraceIDs   []string  `json:"source_trace_ids"`
	GroupID          string    `json:"group_id,omitempty"`
	GroupName        string    `json:"group_name,omitempty"`
	PromotedBy       string    `json:"promoted_by"`
	PromotedAt       time.Time `json:"promoted_at"`
}

// DraftItemInput promotes something to the draft rubric.
type DraftItemInput struct {
	Text             string   `json:"text"`
	SourceType       string   `json:"source_type"`
	SourceAnalysisID string   `json:"source_analysis_id,omitempty"`
	SourceTraceIDs   []string `json:"source_trace_ids,omitempty"`
	GroupID          string   `json:"group_id,omitempty"`
	GroupName        string   `json:"group_name,omitempty"`
}

// DraftItemUpdate edits a draft item; nil fields stay as they are. A
// GroupID of "" takes the item out of its group; a GroupName without a
// GroupID starts a new group.
type DraftItemUpdate struct {
	Text      *string `json:"text,omitempty"`
	GroupID   *string `json:"group_id,omitempty"`
	GroupName *string `json:"group_name,omitempty"`
}

// ProposedGroup is a group of draft items: in the LLM's proposal and in
// apply-groups.
type ProposedGroup struct {
	Name      string   `json:"name"`
	ItemIDs   []string `json:"item_ids"`
	Rationale string   `json:"rationale"`
}

// Grouping is the typed answer of the SuggestGroups call and the body of
// apply-groups.
type Grouping struct {
	Groups []ProposedGroup `json:"groups"`
}
