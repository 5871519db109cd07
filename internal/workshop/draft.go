package workshop

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/llm"
)

// suggestSystem is the spec's SuggestGroups signature and prompt.
const suggestSystem = `Cluster related draft rubric items into groups, where each group will become one rubric question.

You are organizing draft rubric items into groups. Each group will become
one rubric question for evaluating chatbot responses.

Group items that address the same quality dimension or evaluation concern.
Each group should be:
- Cohesive: all items in a group relate to the same core idea
- Distinct: groups should not overlap significantly
- Named clearly: the group name should work as a rubric question title

Items that don't fit any group can be left ungrouped. Prefer fewer,
well-defined groups over many small ones.

Answer with groups, each with its name, the item_ids it holds (the ids given, each in at most one group) and
the rationale for putting them together.`

// draftPhase refuses draft rubric changes outside discovery and rubric creation.
func draftPhase(w *Workshop) error {
	if w.Phase != PhaseDiscovery && w.Phase != PhaseRubricCreation {
		return phaseConflict("the draft rubric is edited in discovery and rubric creation; the workshop is in %s", w.Phase)
	}
	return nil
}

// DraftItems lists the draft rubric; facilitators only.
func (s *Service) DraftItems(ctx context.Context, workshopID, userID string) ([]*DraftItem, error) {
	if _, _, _, err := s.facilitator(ctx, workshopID, userID); err != nil {
		return nil, err
	}
	return s.store.DraftItems(ctx, workshopID)
}

// Promote adds a draft rubric item: a finding or a disagreement insight of
// an analysis, a piece of participant feedback, or the facilitator's own
// text; facilitators only. Its source traces must be traces of the workshop.
func (s *Service) Promote(ctx context.Context, workshopID, userID string, in DraftItemInput) (*DraftItem, error) {
	w, a, _, err := s.facilitator(ctx, workshopID, userID)
	if err != nil {
		return nil, err
	}
	if err := draftPhase(w); err != nil {
		return nil, err
	}
	in.Text = DraftText(in.Text)
	in.SourceAnalysisID = hone.CleanText(in.SourceAnalysisID)
	in.SourceType = strings.ToLower(strings.TrimSpace(in.SourceType))
	if in.SourceType == "" {
		in.SourceType = SourceManual
	}
	switch {
	case in.Text == "":
		return nil, hone.FieldError("text", "text is required")
	case hone.Chars(in.Text) > MaxTextLength:
		return nil, hone.FieldError("text", "text is longer than %d characters", MaxTextLength)
	case !slices.Contains(SourceTypes, in.SourceType):
		return nil, hone.FieldError("source_type", "source_type must be finding, disagreement, feedback or manual, not %q", in.SourceType)
	case in.SourceAnalysisID != "" && in.SourceType != SourceFinding && in.SourceType != SourceDisagreement:
		return nil, hone.FieldError("source_analysis_id", "only a finding or a disagreement comes from an analysis")
	}
	if in.SourceAnalysisID != "" {
		if _, err := s.store.Analysis(ctx, workshopID, in.SourceAnalysisID); hone.ErrorCode(err) == hone.ENOTFOUND {
			return nil, hone.FieldError("source_analysis_id", "workshop %s has no analysis %q", workshopID, in.SourceAnalysisID)
		} else if err != nil {
			return nil, err
		}
	}
	ids, err := s.checkTraces(ctx, workshopID, in.SourceTraceIDs)
	if err != nil {
		return nil, err
	}
	it := &DraftItem{ID: hone.NewID(idLength), WorkshopID: workshopID, Text: in.Text, SourceType: in.SourceType,
		SourceAnalysisID: in.SourceAnalysisID, SourceTraceIDs: ids, PromotedBy: a.By(), PromotedAt: s.opts.Now().UTC()}
	if err := s.group(ctx, it, &in.GroupID, &in.GroupName); err != nil {
		return nil, err
	}
	items, err := s.store.DraftItems(ctx, workshopID)
	if err != nil {
		return nil, err
	}
	if PromotedTexts(items)[in.Text] {
		return nil, &hone.Error{Code: hone.ECONFLICT, Field: "text",
			Message: fmt.Sprintf("“%s” is already in the draft rubric: it was not added again", shorten(in.Text))}
	}
	if err := s.store.AddDraftItem(ctx, it); err != nil {
		return nil, err
	}
	return it, nil
}

// DraftText is text as a draft item holds it, for comparing a source with
// the items promoted.
func DraftText(text string) string { return strings.TrimSpace(hone.CleanText(text)) }

// PromotedTexts are the texts of the draft items: a source whose DraftText
// is among them is already promoted, and promoting it again is refused.
func PromotedTexts(items []*DraftItem) map[string]bool {
	out := make(map[string]bool, len(items))
	for _, it := range items {
		out[it.Text] = true
	}
	return out
}

// checkTraces returns ids without duplicates, or an error naming one that
// is not a trace of the workshop.
func (s *Service) checkTraces(ctx context.Context, workshopID string, ids []string) ([]string, error) {
	out := []string{}
	if len(ids) == 0 {
		return out, nil
	}
	known, err := s.traceIDs(ctx, workshopID)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		if !known[id] {
			return nil, hone.FieldError("source_trace_ids", "workshop %s has no trace %q", workshopID, id)
		}
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out, nil
}

// group puts it in the group groupID names (taking its name, unless a new
// one is given), in a new group when only a name is given, or in none.
func (s *Service) group(ctx context.Context, it *DraftItem, groupID, groupName *string) error {
	id, name := "", ""
	if groupID != nil {
		id = strings.TrimSpace(hone.CleanText(*groupID))
		if hone.Chars(id) > MaxNameLength {
			return hone.FieldError("group_id", "group_id is longer than %d characters", MaxNameLength)
		}
	}
	if groupName != nil {
		name = strings.TrimSpace(hone.CleanText(*groupName))
		if hone.Chars(name) > MaxNameLength {
			return hone.FieldError("group_name", "group_name is longer than %d characters", MaxNameLength)
		}
	}
	switch {
	case id == "" && name == "":
		if groupID != nil {
			it.GroupID, it.GroupName = "", ""
		}
		return nil
	case id == "":
		it.GroupID, it.GroupName = hone.NewID(idLength), name
		return nil
	}
	items, err := s.store.DraftItems(ctx, it.WorkshopID)
	if err != nil {
		return err
	}
	for _, other := range items {
		if other.GroupID == id {
			it.GroupID, it.GroupName = id, other.GroupName
			if name != "" {
				it.GroupName = name
			}
			return nil
		}
	}
	if name == "" {
		return hone.FieldError("group_id", "there is no group %q: give a group_name to start one", id)
	}
	it.GroupID, it.GroupName = id, name
	return nil
}

// UpdateDraftItem edits an item's text or group; facilitators only. A
// manual change is saved at once.
func (s *Service) UpdateDraftItem(ctx context.Context, workshopID, userID, itemID string, in DraftItemUpdate) (*DraftItem, error) {
	w, _, _, err := s.facilitator(ctx, workshopID, userID)
	if err != nil {
		return nil, err
	}
	if err := draftPhase(w); err != nil {
		return nil, err
	}
	it, err := s.draftItem(ctx, workshopID, itemID)
	if err != nil {
		return nil, err
	}
	if in.Text != nil {
		text := strings.TrimSpace(hone.CleanText(*in.Text))
		if text == "" {
			return nil, hone.FieldError("text", "text must not be empty")
		}
		if hone.Chars(text) > MaxTextLength {
			return nil, hone.FieldError("text", "text is longer than %d characters", MaxTextLength)
		}
		it.Text = text
	}
	if in.GroupID != nil || in.GroupName != nil {
		if in.GroupID == nil && in.GroupName != nil && it.GroupID != "" {
			in.GroupID = &it.GroupID
		}
		if err := s.group(ctx, it, in.GroupID, in.GroupName); err != nil {
			return nil, err
		}
	}
	if err := s.store.UpdateDraftItem(ctx, it); err != nil {
		return nil, err
	}
	return it, nil
}

func (s *Service) draftItem(ctx context.Context, workshopID, itemID string) (*DraftItem, error) {
	items, err := s.store.DraftItems(ctx, workshopID)
	if err != nil {
		return nil, err
	}
	for _, it := range items {
		if it.ID == itemID {
			return it, nil
		}
	}
	return nil, hone.Errorf(hone.ENOTFOUND, "workshop %s has no draft rubric item %q", workshopID, itemID)
}

// DeleteDraftItem removes an item; facilitators only.
func (s *Service) DeleteDraftItem(ctx context.Context, workshopID, userID, itemID string) error {
	w, _, _, err := s.facilitator(ctx, workshopID, userID)
	if err != nil {
		return err
	}
	if err := draftPhase(w); err != nil {
		return err
	}
	return s.store.DeleteDraftItem(ctx, workshopID, itemID)
}

// RenameGroup renames a group of draft items; facilitators only.
func (s *Service) RenameGroup(ctx context.Context, workshopID, userID, groupID, name string) error {
	w, _, _, err := s.facilitator(ctx, workshopID, userID)
	if err != nil {
		return err
	}
	if err := draftPhase(w); err != nil {
		return err
	}
	name = strings.TrimSpace(hone.CleanText(name))
	if name == "" || hone.Chars(name) > MaxNameLength {
		return hone.FieldError("name", "name must be 1 to %d characters", MaxNameLength)
	}
	n, err := s.store.RenameGroup(ctx, workshopID, groupID, name)
	if err != nil {
		return err
	}
	if n == 0 {
		return hone.Errorf(hone.ENOTFOUND, "workshop %s has no group %q", workshopID, groupID)
	}
	return nil
}

// SuggestGroups asks the LLM to group the draft items into rubric
// questions and returns its proposal, saving nothing; item ids it invents
// are dropped, and so is an item it puts in a second group. Facilitators only.
func (s *Service) SuggestGroups(ctx context.Context, workshopID, userID string) (*Grouping, error) {
	w, _, _, err := s.facilitator(ctx, workshopID, userID)
	if err != nil {
		return nil, err
	}
	items, err := s.store.DraftItems(ctx, workshopID)
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return &Grouping{Groups: []ProposedGroup{}}, nil
	}
	if s.opts.LLM == nil {
		return nil, s.errNoLLM()
	}
	var b strings.Builder
	for _, it := range items {
		fmt.Fprintf(&b, "- id %s: %s\n", it.ID, oneLine(it.Text))
	}
	out, _, err := llm.Generate[Grouping](ctx, s.opts.LLM, llm.Request{Purpose: llm.PurposeAnalysis,
		CauseType: "workshop", CauseID: workshopID, Model: w.Model,
		Messages: []llm.Message{{Role: llm.RoleSystem, Content: suggestSystem}, {Role: llm.RoleUser, Content: "## items\n" + b.String()}}})
	if err != nil {
		return nil, err
	}
	known := make(map[string]bool, len(items))
	for _, it := range items {
		known[it.ID] = true
	}
	used := map[string]bool{}
	res := &Grouping{Groups: []ProposedGroup{}}
	for _, g := range out.Groups {
		g.Name = strings.TrimSpace(hone.CleanText(g.Name))
		ids := []string{}
		for _, id := range g.ItemIDs {
			if known[id] && !used[id] {
				used[id] = true
				ids = append(ids, id)
			}
		}
		if len(ids) == 0 || g.Name == "" {
			continue
		}
		g.ItemIDs = ids
		res.Groups = append(res.Groups, g)
	}
	return res, nil
}

// ApplyGroups saves a grouping in one transaction: the items of each group
// go in it, every other item is ungrouped. Facilitators only.
func (s *Service) ApplyGroups(ctx context.Context, workshopID, userID string, in Grouping) ([]*DraftItem, error) {
	w, _, _, err := s.facilitator(ctx, workshopID, userID)
	if err != nil {
		return nil, err
	}
	if err := draftPhase(w); err != nil {
		return nil, err
	}
	items, err := s.store.DraftItems(ctx, workshopID)
	if err != nil {
		return nil, err
	}
	known := make(map[string]bool, len(items))
	for _, it := range items {
		known[it.ID] = true
	}
	seen := map[string]bool{}
	groups := make([]Group, 0, len(in.Groups))
	for i, g := range in.Groups {
		name := strings.TrimSpace(hone.CleanText(g.Name))
		field := fmt.Sprintf("groups[%d]", i)
		if name == "" || hone.Chars(name) > MaxNameLength {
			return nil, hone.FieldError(field+".name", "every group needs a name of 1 to %d characters", MaxNameLength)
		}
		for _, id := range g.ItemIDs {
			switch {
			case !known[id]:
				return nil, hone.FieldError(field+".item_ids", "workshop %s has no draft rubric item %q", workshopID, id)
			case seen[id]:
				return nil, hone.FieldError(field+".item_ids", "item %q is in two groups", id)
			}
			seen[id] = true
		}
		groups = append(groups, Group{ID: hone.NewID(idLength), Name: name, ItemIDs: g.ItemIDs})
	}
	if err := s.store.ApplyGroups(ctx, workshopID, groups); err != nil {
		return nil, err
	}
	return s.store.DraftItems(ctx, workshopID)
}

// Agreement computes the workshop's agreement figures; facilitators only.
func (s *Service) Agreement(ctx context.Context, workshopID, userID string) (*Agreement, error) {
	if _, _, _, err := s.facilitator(ctx, workshopID, userID); err != nil {
		return nil, err
	}
	ratings, err := s.store.Ratings(ctx, workshopID)
	if err != nil {
		return nil, err
	}
	ag := ComputeAgreement(ratings)
	return &ag, nil
}
