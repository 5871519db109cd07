package web

import (
	"cmp"
	"net/http"
	"slices"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/workshop"
)

// renderWorkshop writes a page of the workshop v looks at.
func (u *UI) renderWorkshop(w http.ResponseWriter, r *http.Request, page string, v *workshop.Viewer, data map[string]any) error {
	data["Viewer"] = v
	data["Workshop"] = v.Workshop
	data["PhaseLabel"] = phaseLabels[v.Workshop.Phase]
	data["ImportSessions"] = u.canImportSessions(r)
	u.Render(w, r, http.StatusOK, page, data)
	return nil
}

// rubricPanel is the draft rubric beside the dashboard's tabs.
type rubricPanel struct {
	Count     int
	Groups    []rubricGroup
	Ungrouped []*workshop.DraftItem
	// Editable is set in the phases the draft rubric is edited in.
	Editable bool
	// Promoted are the texts of the items, for the sources to say they are
	// already promoted.
	Promoted map[string]bool
}

// rubricGroup is a group of draft items: one rubric question to be.
type rubricGroup struct {
	ID, Name string
	Items    []*workshop.DraftItem
}

// groupItems sorts the draft items into their groups, in the order each
// group's first item was promoted.
func groupItems(items []*workshop.DraftItem) ([]rubricGroup, []*workshop.DraftItem) {
	var groups []rubricGroup
	at := map[string]int{}
	var loose []*workshop.DraftItem
	for _, it := range items {
		if it.GroupID == "" {
			loose = append(loose, it)
			continue
		}
		i, ok := at[it.GroupID]
		if !ok {
			i = len(groups)
			at[it.GroupID] = i
			groups = append(groups, rubricGroup{ID: it.GroupID, Name: it.GroupName})
		}
		groups[i].Items = append(groups[i].Items, it)
	}
	return groups, loose
}

// dashboard writes a tab of the facilitator's dashboard: the phase control
// above, the draft rubric panel beside.
func (u *UI) dashboard(w http.ResponseWriter, r *http.Request, page, tab string, v *workshop.Viewer, data map[string]any) error {
	ctx := r.Context()
	ws := v.Workshop
	items, err := u.Workshops.DraftItems(ctx, ws.ID, "")
	if err != nil {
		return err
	}
	panel := rubricPanel{Count: len(items), Promoted: workshop.PromotedTexts(items),
		Editable: ws.Phase == workshop.PhaseDiscovery || ws.Phase == workshop.PhaseRubricCreation}
	panel.Groups, panel.Ungrouped = groupItems(items)
	data["Rubric"] = panel
	data["Tab"] = tab
	if ws.Phase == workshop.PhaseIntake || ws.Phase == workshop.PhaseDiscovery {
		ok, reason, err := u.Workshops.CanLeaveDiscovery(ctx, ws.ID)
		if err != nil {
			return err
		}
		data["CanAdvance"], data["AdvanceReason"] = ok, reason
	}
	if next := nextPhase(ws.Phase); next != "" {
		data["NextPhase"], data["NextPhaseLabel"] = next, phaseLabels[next]
	}
	if _, ok := data["Title"]; !ok {
		data["Title"] = ws.Name
	}
	return u.renderWorkshop(w, r, page, v, data)
}

// nextPhase is the phase after phase, "" after the last.
func nextPhase(phase string) string {
	i := slices.Index(workshop.Phases, phase)
	if i < 0 || i+1 >= len(workshop.Phases) {
		return ""
	}
	return workshop.Phases[i+1]
}

// startPage is the facilitator's page before discovery starts, in the
// order of the work: traces, members, settings, start.
func (u *UI) startPage(w http.ResponseWriter, r *http.Request, v *workshop.Viewer) error {
	members, err := u.Workshops.Members(r.Context(), v.Workshop.ID, "")
	if err != nil {
		return err
	}
	limit := v.Workshop.TraceLimit
	if limit <= 0 {
		limit = workshop.DefaultTraceLimit
	}
	preview, err := u.Workshops.TracePreview(r.Context(), v.Workshop.ID, tracePreviewRows)
	if err != nil {
		return err
	}
	return u.renderWorkshop(w, r, "w_start", v, map[string]any{"Title": v.Workshop.Name, "Members": members, "TracePreview": preview,
		"Participants": countRole(members, workshop.RoleParticipant), "TraceLimit": limit,
		"DefaultModel": u.Workshops.DefaultModel()})
}

// tracePreviewRows is how many imported traces the setup lists.
const tracePreviewRows = 20

func countRole(members []*workshop.Member, role string) int {
	n := 0
	for _, m := range members {
		if m.Role == role {
			n++
		}
	}
	return n
}

// monitorTab is the dashboard's feedback monitor: each participant's
// progress and, for the one picked, their feedback; the agreement figures.
func (u *UI) monitorTab(w http.ResponseWriter, r *http.Request, v *workshop.Viewer) error {
	ctx := r.Context()
	ws := v.Workshop
	status, err := u.Workshops.Completion(ctx, ws.ID, "")
	if err != nil {
		return err
	}
	ag, err := u.Workshops.Agreement(ctx, ws.ID, "")
	if err != nil {
		return err
	}
	data := map[string]any{"Status": status, "Agreement": ag, "Splits": splits(ag, 10),
		"DefaultModel": u.Workshops.DefaultModel()}
	if member := r.URL.Query().Get("member"); member != "" {
		fb, err := u.Workshops.ListFeedback(ctx, ws.ID, member)
		if err != nil {
			return err
		}
		page := pageParam(r)
		from := min((page-1)*feedbackPerPage, len(fb))
		data["Member"], data["Feedback"], data["FeedbackTotal"] = member, fb[from:min(from+feedbackPerPage, len(fb))], len(fb)
		data["Page"], data["More"] = page, from+feedbackPerPage < len(fb)
		for _, p := range status.Participants {
			if p.UserID == member {
				data["MemberName"] = p.Name
			}
		}
	}
	names := map[string]string{}
	for _, p := range status.Participants {
		names[p.UserID] = p.Name
	}
	data["Names"] = names
	return u.dashboard(w, r, "w_monitor", "monitor", v, data)
}

// feedbackPerPage is how much of a participant's feedback the monitor
// shows at once.
const feedbackPerPage = 50

// splits are the n traces whose reviewers agree least, for the monitor.
func splits(ag *workshop.Agreement, n int) []workshop.TraceAgreement {
	var out []workshop.TraceAgreement
	for _, t := range ag.Traces {
		if t.Agreement != nil && *t.Agreement < 1 {
			out = append(out, t)
		}
	}
	slices.SortStableFunc(out, func(a, b workshop.TraceAgreement) int { return cmp.Compare(*a.Agreement, *b.Agreement) })
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// analysisTab shows an analysis run (the newest, or ?run=) with the
// controls to run another.
func (u *UI) analysisTab(w http.ResponseWriter, r *http.Request) error {
	v, err := u.facilitatorView(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	ws := v.Workshop
	runs, err := u.Workshops.AnalysisRuns(ctx, ws.ID)
	if err != nil {
		return err
	}
	templates, err := u.Workshops.Templates(ctx, ws.ID, "")
	if err != nil {
		return err
	}
	data := map[string]any{"Title": "Analysis · " + ws.Name, "Runs": runs, "Templates": templates}
	titles := map[string]string{}
	for _, t := range templates {
		titles[t.Name] = t.Title
	}
	data["TemplateTitles"] = titles
	id := r.URL.Query().Get("run")
	if id == "" && len(runs) > 0 {
		id = runs[0].ID
	}
	if id != "" {
		run, err := u.Workshops.Analysis(ctx, ws.ID, "", id)
		if err != nil {
			return err
		}
		data["Run"] = run
		data["Pending"] = run.Status == workshop.StatusQueued || run.Status == workshop.StatusRunning
		data["Template"] = cmp.Or(titles[run.Template], run.Template)
		show := r.URL.Query().Get("show")
		data["Tiers"] = []tierView{
			newTier("HIGH", workshop.TierHigh, "Rating disagreements: one GOOD, one BAD", run.Disagreements.High, show),
			newTier("MEDIUM", workshop.TierMedium, "Both BAD, different issues", run.Disagreements.Medium, show),
			newTier("LOWER", workshop.TierLower, "Both GOOD, different strengths", run.Disagreements.Lower, show),
		}
	}
	ok, llmErr := u.Workshops.LLMConfigured()
	if !ok {
		data["NoLLM"] = hone.ErrorMessage(llmErr)
	}
	return u.dashboard(w, r, "w_analysis", "analysis", v, data)
}

// setupTab is the setup in the order of the work: the traces (listed, to
// preview) and their import, the members, the settings.
func (u *UI) setupTab(w http.ResponseWriter, r *http.Request) error {
	v, err := u.facilitatorView(r)
	if err != nil {
		return err
	}
	members, err := u.Workshops.Members(r.Context(), v.Workshop.ID, "")
	if err != nil {
		return err
	}
	preview, err := u.Workshops.TracePreview(r.Context(), v.Workshop.ID, tracePreviewRows)
	if err != nil {
		return err
	}
	return u.dashboard(w, r, "w_setup", "setup", v, map[string]any{"Title": "Setup · " + v.Workshop.Name,
		"Members": members, "TracePreview": preview, "DefaultModel": u.Workshops.DefaultModel()})
}

// facilitatorTrace shows a trace with every member's feedback on it.
func (u *UI) facilitatorTrace(w http.ResponseWriter, r *http.Request, v *workshop.Viewer, traceID string) error {
	tr, err := u.Workshops.TraceReviews(r.Context(), v.Workshop.ID, traceID)
	if err != nil {
		return err
	}
	return u.dashboard(w, r, "w_trace", "", v, map[string]any{"Title": "Trace " + traceID, "Reviews": tr})
}

// tierShown is how many disagreements of a tier the analysis tab shows
// until asked for all.
const tierShown = 25

// tierView is a tier of disagreements as the analysis tab shows it.
type tierView struct {
	Name, Class, About string
	List               []workshop.Disagreement
	// Total is the tier's size; List holds them all when Total is no more
	// than tierShown or the page was asked to show them all.
	Total int
}

func newTier(name, class, about string, list []workshop.Disagreement, show string) tierView {
	t := tierView{Name: name, Class: class, About: about, List: list, Total: len(list)}
	if show != class && len(list) > tierShown {
		t.List = list[:tierShown]
	}
	return t
}
