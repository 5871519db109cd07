package api

import (
	"net/http"
	"strings"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/learning"
	"github.com/honehq/hone/internal/server"
)

// learningRoutes are the learning loop's routes.
func (a *API) learningRoutes() []server.Route {
	return []server.Route{
		{Method: "POST", Path: "/turns/{id}/feedback", Handler: a.rateTurn, Doc: rateTurnDoc},
		{Method: "GET", Path: "/feedback/stats", Handler: a.feedbackStats, Doc: getFeedbackStatsDoc},
		{Method: "GET", Path: "/feedback/negative", Handler: a.negativeFeedback, Doc: listNegativeFeedbackDoc},
		{Method: "GET", Path: "/feedback/corrections", Handler: a.pendingCorrections, Doc: listPendingCorrectionsDoc},
		{Method: "GET", Path: "/learnings", Handler: a.listLearnings, Doc: listLearningsDoc},
		{Method: "POST", Path: "/learnings", Handler: a.addLearning, Doc: addLearningDoc},
		{Method: "GET", Path: "/learnings/{id}", Handler: a.getLearning, Doc: getLearningDoc},
		{Method: "PATCH", Path: "/learnings/{id}", Handler: a.updateLearning, Doc: updateLearningDoc},
		{Method: "DELETE", Path: "/learnings/{id}", Handler: a.removeLearning, Doc: deleteLearningDoc},
		{Method: "POST", Path: "/learnings/{id}/keep", Handler: a.keepLearning, Doc: keepLearningDoc},
		{Method: "POST", Path: "/learnings/synthesize", Handler: a.synthesize, Doc: synthesizeLearningsDoc},
		{Method: "GET", Path: "/learnings/runs", Handler: a.listRuns, Doc: listLearningRunsDoc},
		{Method: "GET", Path: "/learnings/runs/{id}", Handler: a.getRun, Doc: getLearningRunDoc},
		{Method: "POST", Path: "/learnings/enable", Handler: a.enableLearnings, Doc: enableLearningsDoc},
		{Method: "POST", Path: "/learnings/disable", Handler: a.disableLearnings, Doc: disableLearningsDoc},
		{Method: "GET", Path: "/prompt", Handler: a.prompt, Doc: getPromptDoc},
	}
}

// RatingAnswer is the answer to POST /turns/{id}/feedback: the rating and,
// after a 👎, the question to show the tester.
type RatingAnswer struct {
	*learning.Rating
	// Ask is the question a 👎 asks; the tester's next message in the
	// conversation, passed to POST /messages, is taken as the correction.
	Ask string `json:"ask,omitempty"`
}

// RatingList is the answer to GET /feedback/negative.
type RatingList struct {
	Ratings []*learning.Rating `json:"ratings"`
}

// CorrectionList is the answer to GET /feedback/corrections.
type CorrectionList struct {
	Corrections []*learning.Correction `json:"corrections"`
}

// LearningList is the answer to GET /learnings.
type LearningList struct {
	Learnings []*learning.Learning `json:"learnings"`
	// Enabled is false when learnings are switched off: none is applied.
	Enabled bool `json:"enabled"`
	// Threshold is the confidence from which learnings are applied.
	Threshold float64 `json:"threshold"`
}

// LearningDetail is a learning with its evidence.
type LearningDetail struct {
	*learning.Learning
	// Evidence are the corrections it was learned from, with their turns.
	Evidence []*learning.Correction `json:"evidence"`
}

// RunList is the answer to GET /learnings/runs.
type RunList struct {
	Runs []*learning.Run `json:"runs"`
}

// Switch is the answer to POST /learnings/enable and /disable.
type Switch struct {
	Enabled bool `json:"enabled"`
}

func (a *API) rateTurn(w http.ResponseWriter, r *http.Request) error {
	var in learning.RatingInput
	if err := server.DecodeJSON(r, &in); err != nil {
		return err
	}
	rt, err := a.Learning.RateTurn(r.Context(), r.PathValue("id"), in)
	if err != nil {
		return err
	}
	out := RatingAnswer{Rating: rt}
	if rt.Rating == learning.RatingDown {
		out.Ask = learning.AskCorrectionText
	}
	return server.WriteJSON(w, http.StatusOK, out)
}

func (a *API) feedbackStats(w http.ResponseWriter, r *http.Request) error {
	days, err := statsDays.read(r.URL.Query())
	if err != nil {
		return err
	}
	st, err := a.Learning.Stats(r.Context(), days)
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, st)
}

func (a *API) negativeFeedback(w http.ResponseWriter, r *http.Request) error {
	limit, err := learningLimit.read(r.URL.Query())
	if err != nil {
		return err
	}
	list, err := a.Learning.Negative(r.Context(), limit)
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, RatingList{Ratings: list})
}

func (a *API) pendingCorrections(w http.ResponseWriter, r *http.Request) error {
	limit, err := learningLimit.read(r.URL.Query())
	if err != nil {
		return err
	}
	list, err := a.Learning.PendingCorrections(r.Context(), limit)
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, CorrectionList{Corrections: list})
}

func (a *API) listLearnings(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	status := strings.TrimSpace(q.Get("status"))
	if status != "" && !contains(learning.LearningStatuses, status) {
		return hone.FieldError("status", "status must be one of %s, not %q", strings.Join(learning.LearningStatuses, ", "), status)
	}
	list, err := a.Learning.Learnings(r.Context(), learning.LearningFilter{TesterID: strings.TrimSpace(hone.CleanText(q.Get("tester_id")))})
	if err != nil {
		return err
	}
	if status != "" {
		kept := list[:0]
		for _, l := range list {
			if l.Status == status {
				kept = append(kept, l)
			}
		}
		list = kept
	}
	on, err := a.Learning.Enabled(r.Context())
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, LearningList{Learnings: list, Enabled: on, Threshold: a.Learning.Threshold()})
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func (a *API) addLearning(w http.ResponseWriter, r *http.Request) error {
	var in learning.LearningInput
	if err := server.DecodeJSON(r, &in); err != nil {
		return err
	}
	l, err := a.Learning.Add(r.Context(), in)
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusCreated, l)
}

func (a *API) getLearning(w http.ResponseWriter, r *http.Request) error {
	l, err := a.Learning.Learning(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	ev, err := a.Learning.Evidence(r.Context(), l)
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, LearningDetail{Learning: l, Evidence: ev})
}

func (a *API) updateLearning(w http.ResponseWriter, r *http.Request) error {
	var in learning.LearningUpdate
	if err := server.DecodeJSON(r, &in); err != nil {
		return err
	}
	l, err := a.Learning.Update(r.Context(), r.PathValue("id"), in)
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, l)
}

func (a *API) removeLearning(w http.ResponseWriter, r *http.Request) error {
	if err := a.Learning.Remove(r.Context(), r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (a *API) keepLearning(w http.ResponseWriter, r *http.Request) error {
	l, err := a.Learning.Keep(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, l)
}

func (a *API) synthesize(w http.ResponseWriter, r *http.Request) error {
	run, err := a.Learning.Synthesize(r.Context())
	if err != nil {
		return err
	}
	w.Header().Set("Location", Prefix+"/learnings/runs/"+run.ID)
	return server.WriteJSON(w, http.StatusAccepted, run)
}

func (a *API) listRuns(w http.ResponseWriter, r *http.Request) error {
	limit, err := learningLimit.read(r.URL.Query())
	if err != nil {
		return err
	}
	list, err := a.Learning.Runs(r.Context(), limit)
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, RunList{Runs: list})
}

func (a *API) getRun(w http.ResponseWriter, r *http.Request) error {
	run, err := a.Learning.Run(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, run)
}

func (a *API) enableLearnings(w http.ResponseWriter, r *http.Request) error {
	return a.switchLearnings(w, r, true)
}

func (a *API) disableLearnings(w http.ResponseWriter, r *http.Request) error {
	return a.switchLearnings(w, r, false)
}

func (a *API) switchLearnings(w http.ResponseWriter, r *http.Request, on bool) error {
	if err := a.Learning.SetEnabled(r.Context(), on); err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, Switch{Enabled: on})
}

// prompt answers the learned section of a tester's system prompt and,
// when hone serves the chat with prompt files, the full prompt of the one
// named by ?prompt= (the first by default).
func (a *API) prompt(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	tester := strings.TrimSpace(hone.CleanText(q.Get("tester_id")))
	base, baseVersion, found := "", "", false
	name := strings.TrimSpace(q.Get("prompt"))
	if a.Prompts != nil {
		for _, p := range a.Prompts() {
			if name == "" || p.Name() == name {
				text, v, err := p.Current()
				if err != nil {
					// The file is the server's, not the caller's: it went
					// missing or empty on the server's disk.
					return hone.Errorf(hone.EUNAVAILABLE, "%s", hone.ErrorMessage(err))
				}
				base, baseVersion, found = text, v, true
				break
			}
		}
	}
	if name != "" && !found {
		return hone.FieldError("prompt", "hone serves no prompt file named %q", name)
	}
	view, err := a.Learning.View(r.Context(), tester, base, baseVersion, found)
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, view)
}
