package web

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/learning"
)

// learningsPage is what the learning loop knows: the learnings with their
// status and evidence, the feedback of the last 30 days, the corrections
// waiting for synthesis and the latest runs.
func (u *UI) learningsPage(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	list, err := u.Learning.Learnings(ctx, learning.LearningFilter{})
	if err != nil {
		return err
	}
	evidence, err := u.Learning.EvidenceOf(ctx, list)
	if err != nil {
		return err
	}
	stats, err := u.Learning.Stats(ctx, 30)
	if err != nil {
		return err
	}
	pending, err := u.Learning.PendingCorrections(ctx, 50)
	if err != nil {
		return err
	}
	negative, err := u.Learning.Negative(ctx, 20)
	if err != nil {
		return err
	}
	runs, err := u.Learning.Runs(ctx, 5)
	if err != nil {
		return err
	}
	on, err := u.Learning.Enabled(ctx)
	if err != nil {
		return err
	}
	prompt, err := u.systemPrompt(ctx, r.URL.Query().Get("tester"))
	if err != nil {
		return err
	}
	data := map[string]any{"Title": "Learnings", "Learnings": list, "Evidence": evidence, "Stats": stats,
		"Pending": pending, "Negative": negative, "Runs": runs, "Enabled": on, "Threshold": u.Learning.Threshold(),
		"Prompt": prompt}
	if ok, llmErr := u.Learning.LLMConfigured(); !ok {
		data["NoLLM"] = hone.ErrorMessage(llmErr)
	}
	for _, run := range runs {
		if run.Status == learning.RunQueued || run.Status == learning.RunRunning {
			data["Running"] = true
		}
	}
	u.Render(w, r, http.StatusOK, "learnings", data)
	return nil
}

// learningsBack is where the page's forms return to.
const learningsBack = "/learnings"

func (u *UI) addLearning(w http.ResponseWriter, r *http.Request) error {
	in := learning.LearningInput{PromptAdjustment: r.PostFormValue("prompt_adjustment"), Pattern: r.PostFormValue("pattern"),
		TesterID: r.PostFormValue("tester_id")}
	if c, ok, err := confidenceField(r); err != nil {
		return u.formError(w, r, learningsBack, err)
	} else if ok {
		in.Confidence = &c
	}
	l, err := u.Learning.Add(r.Context(), in)
	if err != nil {
		return u.formError(w, r, learningsBack, err)
	}
	return redirectNotice(w, r, learningsBack, "Learning "+l.ID+" added.")
}

// confidenceField reads the form's confidence, from 0 to 1; ok is false
// when it is empty.
func confidenceField(r *http.Request) (c float64, ok bool, err error) {
	v := strings.TrimSpace(r.PostFormValue("confidence"))
	if v == "" {
		return 0, false, nil
	}
	c, err = strconv.ParseFloat(v, 64)
	if err != nil {
		return 0, false, hone.FieldError("confidence", "confidence must be a number from 0 to 1, not %q", v)
	}
	return c, true, nil
}

func (u *UI) editLearning(w http.ResponseWriter, r *http.Request) error {
	var up learning.LearningUpdate
	// The guard parses the form only when the CSRF token is not in the
	// header; the fields are read from r.PostForm either way.
	_ = r.ParseForm()
	if v, ok := r.PostForm["prompt_adjustment"]; ok {
		up.PromptAdjustment = &v[0]
	}
	if v, ok := r.PostForm["pattern"]; ok {
		up.Pattern = &v[0]
	}
	c, ok, err := confidenceField(r)
	if err != nil {
		return u.formError(w, r, learningsBack, err)
	}
	if ok {
		up.Confidence = &c
	}
	l, err := u.Learning.Update(r.Context(), r.PathValue("id"), up)
	if err != nil {
		return u.formError(w, r, learningsBack, err)
	}
	return redirectNotice(w, r, learningsBack, "Learning "+l.ID+" saved.")
}

func (u *UI) removeLearning(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	if err := u.Learning.Remove(r.Context(), id); err != nil {
		return u.formError(w, r, learningsBack, err)
	}
	return redirectNotice(w, r, learningsBack, "Learning "+id+" removed.")
}

func (u *UI) keepLearning(w http.ResponseWriter, r *http.Request) error {
	l, err := u.Learning.Keep(r.Context(), r.PathValue("id"))
	if err != nil {
		return u.formError(w, r, learningsBack, err)
	}
	return redirectNotice(w, r, learningsBack, "Learning "+l.ID+" kept; the one it conflicted with was removed.")
}

func (u *UI) switchLearnings(w http.ResponseWriter, r *http.Request) error {
	on := r.PostFormValue("enabled") == "true"
	if err := u.Learning.SetEnabled(r.Context(), on); err != nil {
		return u.formError(w, r, learningsBack, err)
	}
	notice := "Learnings are off: prompts go without them; none was deleted."
	if on {
		notice = "Learnings are on: the active ones are in the prompts again."
	}
	return redirectNotice(w, r, learningsBack, notice)
}

func (u *UI) synthesizeLearnings(w http.ResponseWriter, r *http.Request) error {
	run, err := u.Learning.Synthesize(r.Context())
	if err != nil {
		return u.formError(w, r, learningsBack, err)
	}
	return redirectNotice(w, r, learningsBack, "Synthesis "+run.ID+" started: this page shows its outcome when it is done.")
}

// turnLink is the address of a turn on its session's page.
func turnLink(sessionID string, number int) string {
	page := (number-1)/turnsPerPage + 1
	link := "/sessions/" + sessionID
	if page > 1 {
		link += "?page=" + strconv.Itoa(page)
	}
	return link + "#turn-" + strconv.Itoa(number)
}

// statusLabel names a learning's status for people.
func statusLabel(status string) string {
	switch status {
	case learning.StatusActive:
		return "active"
	case learning.StatusBelowThreshold:
		return "below threshold, not applied"
	case learning.StatusConflict:
		return "conflict, not applied"
	case learning.StatusRejected:
		return "rejected, not applied"
	}
	return status
}
