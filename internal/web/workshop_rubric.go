package web

import (
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/workshop"
)

// promote puts a finding, a disagreement, a feedback comment or answer, or
// the facilitator's own text in the draft rubric.
func (u *UI) promote(w http.ResponseWriter, r *http.Request) error {
	wid := r.PathValue("id")
	back := formBack(r, wid, workshopPath(wid))
	var traces []string
	for _, id := range r.PostForm["source_trace_id"] {
		if id = strings.TrimSpace(id); id != "" {
			traces = append(traces, id)
		}
	}
	it, err := u.Workshops.Promote(r.Context(), wid, "", workshop.DraftItemInput{Text: r.PostFormValue("text"),
		SourceType: r.PostFormValue("source_type"), SourceAnalysisID: r.PostFormValue("source_analysis_id"),
		SourceTraceIDs: traces})
	if err != nil {
		return u.formError(w, r, back, err)
	}
	return redirectNotice(w, r, back, "Promoted to the draft rubric: “"+truncate(it.Text, 80)+"”")
}

// editItem changes a draft item's text, or moves it to a group: an
// existing one (group_id), a new one (new_group, its name), or none
// (group_id empty with move set).
func (u *UI) editItem(w http.ResponseWriter, r *http.Request) error {
	wid := r.PathValue("id")
	back := formBack(r, wid, workshopPath(wid))
	var up workshop.DraftItemUpdate
	if text, ok := r.PostForm["text"]; ok {
		up.Text = &text[0]
	}
	if r.PostFormValue("move") != "" {
		group := r.PostFormValue("group_id")
		if group == newGroup || r.PostFormValue("new_group") != "" {
			name := strings.TrimSpace(r.PostFormValue("new_group"))
			if name == "" {
				name = "New group"
			}
			up.GroupName = &name
		} else {
			up.GroupID = &group
		}
	}
	if _, err := u.Workshops.UpdateDraftItem(r.Context(), wid, "", r.PathValue("item"), up); err != nil {
		return u.formError(w, r, back, err)
	}
	http.Redirect(w, r, back, http.StatusSeeOther)
	return nil
}

// newGroup is the group_id value of "a new group" in the move control.
const newGroup = "+new"

func (u *UI) deleteItem(w http.ResponseWriter, r *http.Request) error {
	wid := r.PathValue("id")
	back := formBack(r, wid, workshopPath(wid))
	if err := u.Workshops.DeleteDraftItem(r.Context(), wid, "", r.PathValue("item")); err != nil {
		return u.formError(w, r, back, err)
	}
	return redirectNotice(w, r, back, "The item was removed from the draft rubric.")
}

func (u *UI) renameGroup(w http.ResponseWriter, r *http.Request) error {
	wid := r.PathValue("id")
	back := formBack(r, wid, workshopPath(wid))
	if err := u.Workshops.RenameGroup(r.Context(), wid, "", r.PathValue("group"), r.PostFormValue("name")); err != nil {
		return u.formError(w, r, back, err)
	}
	http.Redirect(w, r, back, http.StatusSeeOther)
	return nil
}

// suggestGroups shows the LLM's grouping of the draft items for review:
// nothing is saved until Apply Groups.
func (u *UI) suggestGroups(w http.ResponseWriter, r *http.Request) error {
	v, err := u.facilitatorView(r)
	if err != nil {
		return err
	}
	wid := v.Workshop.ID
	back := formBack(r, wid, workshopPath(wid))
	ctx := r.Context()
	proposal, err := u.Workshops.SuggestGroups(ctx, wid, "")
	if err != nil {
		return u.formError(w, r, back, err)
	}
	items, err := u.Workshops.DraftItems(ctx, wid, "")
	if err != nil {
		return err
	}
	return u.dashboard(w, r, "w_groups", "", v, map[string]any{"Title": "Suggested groups · " + v.Workshop.Name,
		"Proposal": reviewGroups(proposal, items), "Back": back})
}

// proposedGroup is a group of the proposal under review, with its items.
type proposedGroup struct {
	Index     int
	Name      string
	Rationale string
	Items     []*workshop.DraftItem
}

// groupReview is a proposal as the review page shows it: its groups, an
// empty one to move items into, and the items it left out.
type groupReview struct {
	Groups    []proposedGroup
	Ungrouped []*workshop.DraftItem
	// Choices are the groups an item can be moved to, by index.
	Choices []proposedGroup
}

func reviewGroups(p *workshop.Grouping, items []*workshop.DraftItem) groupReview {
	byID := make(map[string]*workshop.DraftItem, len(items))
	for _, it := range items {
		byID[it.ID] = it
	}
	var rv groupReview
	placed := map[string]bool{}
	for i, g := range p.Groups {
		pg := proposedGroup{Index: i, Name: g.Name, Rationale: g.Rationale}
		for _, id := range g.ItemIDs {
			if it := byID[id]; it != nil && !placed[id] {
				placed[id] = true
				pg.Items = append(pg.Items, it)
			}
		}
		rv.Groups = append(rv.Groups, pg)
	}
	rv.Groups = append(rv.Groups, proposedGroup{Index: len(p.Groups)})
	for _, it := range items {
		if !placed[it.ID] {
			rv.Ungrouped = append(rv.Ungrouped, it)
		}
	}
	rv.Choices = rv.Groups
	return rv
}

// applyGroups saves the grouping as reviewed: group i is named by the field
// group_<i>, and item x goes to the group the field item_<x> names by
// index ("" for none). A group without items is dropped.
func (u *UI) applyGroups(w http.ResponseWriter, r *http.Request) error {
	wid := r.PathValue("id")
	back := formBack(r, wid, workshopPath(wid))
	n, err := strconv.Atoi(r.PostFormValue("groups"))
	if err != nil || n < 0 || n > maxProposedGroups {
		return u.formError(w, r, back, hone.FieldError("groups", "the form's number of groups is missing or wrong"))
	}
	groups := make([]workshop.ProposedGroup, n)
	for i := range groups {
		groups[i].Name = r.PostFormValue("group_" + strconv.Itoa(i))
	}
	for _, key := range slices.Sorted(maps.Keys(r.PostForm)) {
		values := r.PostForm[key]
		id, ok := strings.CutPrefix(key, "item_")
		if !ok || len(values) == 0 || values[0] == "" {
			continue
		}
		i, err := strconv.Atoi(values[0])
		if err != nil || i < 0 || i >= n {
			return u.formError(w, r, back, hone.FieldError(key, "item %s is put in a group the form does not have", id))
		}
		groups[i].ItemIDs = append(groups[i].ItemIDs, id)
	}
	var keep []workshop.ProposedGroup
	for i, g := range groups {
		if len(g.ItemIDs) == 0 {
			continue
		}
		if strings.TrimSpace(g.Name) == "" {
			return u.formError(w, r, back, hone.FieldError("group_"+strconv.Itoa(i), "every group with items needs a name"))
		}
		keep = append(keep, g)
	}
	if _, err := u.Workshops.ApplyGroups(r.Context(), wid, "", workshop.Grouping{Groups: keep}); err != nil {
		return u.formError(w, r, back, err)
	}
	return redirectNotice(w, r, back, "The groups were applied: "+plural(len(keep), "group", "groups")+".")
}

// maxProposedGroups bounds the groups of a reviewed proposal.
const maxProposedGroups = 1000
