package web

import (
	"net/http"
	"strconv"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/workshop"
)

// stepStates name a participant's state on a trace in their list of traces.
var stepStates = map[string]string{workshop.StateFeedback: "to do", workshop.StateQuestion: "questions to answer",
	workshop.StateAnswer: "questions to answer", workshop.StateComplete: "done"}

// workshopHome routes by role and phase as the spec's RoleBasedWorkflow
// does: a facilitator gets the start page until discovery starts, then the
// dashboard; a participant waits on the pending page, then reviews their
// traces one by one, then sees the completion page.
func (u *UI) workshopHome(w http.ResponseWriter, r *http.Request) error {
	v, err := u.viewer(r)
	if err != nil {
		return err
	}
	if v.Facilitator {
		if !v.Workshop.DiscoveryStarted {
			return u.startPage(w, r, v)
		}
		return u.monitorTab(w, r, v)
	}
	ws := v.Workshop
	if !ws.DiscoveryStarted {
		if ws.Phase != workshop.PhaseIntake && ws.Phase != workshop.PhaseDiscovery {
			return u.renderWorkshop(w, r, "w_done", v, map[string]any{"Title": ws.Name, "Ended": true})
		}
		return u.renderWorkshop(w, r, "w_pending", v, map[string]any{"Title": ws.Name})
	}
	traces, err := u.Workshops.Traces(r.Context(), ws.ID, "")
	if err != nil {
		return err
	}
	done := 0
	next := ""
	for _, t := range traces {
		if t.State == workshop.StateComplete {
			done++
		} else if next == "" {
			next = t.Trace.ID
		}
	}
	if next == "" || ws.Phase != workshop.PhaseDiscovery {
		return u.renderWorkshop(w, r, "w_done", v, map[string]any{"Title": ws.Name, "Completed": done, "Total": len(traces),
			"Ended": ws.Phase != workshop.PhaseDiscovery})
	}
	http.Redirect(w, r, tracePath(ws.ID, next), http.StatusSeeOther)
	return nil
}

// tracePage shows a trace: to a participant, their step of discovery on it;
// to a facilitator, everyone's feedback on it.
func (u *UI) tracePage(w http.ResponseWriter, r *http.Request) error {
	v, err := u.viewer(r)
	if err != nil {
		return err
	}
	traceID := r.PathValue("trace")
	if v.Facilitator {
		return u.facilitatorTrace(w, r, v, traceID)
	}
	st, err := u.Workshops.Step(r.Context(), v.Workshop.ID, traceID)
	if err != nil {
		return err
	}
	return u.renderWorkshop(w, r, "w_step", v, map[string]any{"Title": "Trace " + strconv.Itoa(st.Index) + " of " + strconv.Itoa(st.Total),
		"Step": st, "Open": v.Workshop.Phase == workshop.PhaseDiscovery})
}

func (u *UI) postFeedback(w http.ResponseWriter, r *http.Request) error {
	wid, traceID := r.PathValue("id"), r.PathValue("trace")
	_, err := u.Workshops.SubmitFeedback(r.Context(), wid, workshop.FeedbackInput{TraceID: traceID,
		Label: r.PostFormValue("feedback_label"), Comment: r.PostFormValue("comment")})
	if err != nil {
		return u.formError(w, r, tracePath(wid, traceID), err)
	}
	http.Redirect(w, r, tracePath(wid, traceID), http.StatusSeeOther)
	return nil
}

// postQuestion asks the next follow-up question; the trace's page shows it.
// When the LLM fails, the page says so and offers to retry.
func (u *UI) postQuestion(w http.ResponseWriter, r *http.Request) error {
	wid, traceID := r.PathValue("id"), r.PathValue("trace")
	n, err := strconv.Atoi(r.PostFormValue("question_number"))
	if err != nil {
		return u.formError(w, r, tracePath(wid, traceID), hone.FieldError("question_number", "question_number must be a number"))
	}
	if _, err := u.Workshops.GenerateQuestion(r.Context(), wid, traceID, "", n); err != nil {
		return u.formError(w, r, tracePath(wid, traceID), err)
	}
	http.Redirect(w, r, tracePath(wid, traceID), http.StatusSeeOther)
	return nil
}

func (u *UI) postAnswer(w http.ResponseWriter, r *http.Request) error {
	wid, traceID := r.PathValue("id"), r.PathValue("trace")
	_, err := u.Workshops.SubmitAnswer(r.Context(), wid, workshop.AnswerInput{TraceID: traceID,
		Question: r.PostFormValue("question"), Answer: r.PostFormValue("answer")})
	if err != nil {
		return u.formError(w, r, tracePath(wid, traceID), err)
	}
	http.Redirect(w, r, tracePath(wid, traceID), http.StatusSeeOther)
	return nil
}
