package web

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/learning"
	"github.com/honehq/hone/internal/score"
	"github.com/honehq/hone/internal/tuning"
)

// reviewer is the author of the judgments given on the session page.
const reviewer = "reviewer"

// reviewConfigs are the configs a reviewer may score a turn under on the
// session page: every config that is not archived but thumbs (the 👍/👎
// form) and workshop_label (a workshop's).
func (u *UI) reviewConfigs(r *http.Request) ([]*score.Config, error) {
	if u.Scores == nil {
		return nil, nil
	}
	all, err := u.Scores.Configs(r.Context(), false)
	if err != nil {
		return nil, err
	}
	var out []*score.Config
	for _, c := range all {
		if c.ID != score.BuiltInID(score.Thumbs) && c.ID != score.BuiltInID(score.WorkshopLabel) {
			out = append(out, c)
		}
	}
	return out, nil
}

// reviewedTurn finds the turn a review form is about: one of the session's.
func (u *UI) reviewedTurn(r *http.Request) (*capture.Turn, error) {
	ctx := r.Context()
	s, err := u.Sessions.FindSession(ctx, r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	number, err := strconv.Atoi(r.PathValue("number"))
	if err != nil || number < 1 || number > s.TotalTurns {
		return nil, hone.Errorf(hone.ENOTFOUND, "session %s has no turn %s", s.ID, r.PathValue("number"))
	}
	turns, err := u.Tuning.Store().ListTurns(ctx, s.ID, number, 1)
	if err != nil {
		return nil, err
	}
	if len(turns) == 0 {
		return nil, hone.Errorf(hone.ENOTFOUND, "session %s has no turn %d", s.ID, number)
	}
	return &turns[0].Turn, nil
}

// reviewDone returns to the turn on the session page, saying what was done
// or, next to the turn, what was wrong with which field.
func (u *UI) reviewDone(w http.ResponseWriter, r *http.Request, t *capture.Turn, notice string, err error) error {
	back := turnLink(t.SessionID, t.Number)
	if err == nil {
		setFlash(w, r, Flash{Notice: notice, Turn: t.Number})
		http.Redirect(w, r, back, http.StatusSeeOther)
		return nil
	}
	switch hone.ErrorCode(err) {
	case hone.EINVALID, hone.ECONFLICT, hone.EUNAVAILABLE:
	default:
		return err
	}
	msg := hone.ErrorMessage(err)
	var he *hone.Error
	if errors.As(err, &he) && he.Field != "" {
		msg = "Field “" + he.Field + "”: " + msg
	}
	setFlash(w, r, Flash{Error: msg, Turn: t.Number})
	http.Redirect(w, r, back, http.StatusSeeOther)
	return nil
}

// rateSessionTurn records the reviewer's 👍 or 👎 of a turn, with the
// correction a 👎 may carry, as the chat's 👍/👎 and its correction do.
func (u *UI) rateSessionTurn(w http.ResponseWriter, r *http.Request) error {
	t, err := u.reviewedTurn(r)
	if err != nil {
		return err
	}
	if u.Learning == nil {
		return u.reviewDone(w, r, t, "", hone.Errorf(hone.EUNAVAILABLE, "ratings are not available"))
	}
	ctx := r.Context()
	rating := r.PostFormValue("rating")
	correction := strings.TrimSpace(r.PostFormValue("correction"))
	if correction != "" && rating != learning.RatingDown {
		return u.reviewDone(w, r, t, "", hone.FieldError("correction", "a correction goes with 👎 only"))
	}
	if hone.Chars(correction) > learning.MaxCorrectionLength {
		return u.reviewDone(w, r, t, "", hone.FieldError("correction", "the correction is longer than %d characters", learning.MaxCorrectionLength))
	}
	rt, err := u.Learning.RateTurn(ctx, t.ID, learning.RatingInput{TesterID: reviewer, Rating: rating, Source: score.SourceWeb})
	if err != nil {
		return u.reviewDone(w, r, t, "", err)
	}
	notice := "👍 recorded on turn " + strconv.Itoa(t.Number) + "."
	if rt.Rating == learning.RatingDown {
		notice = "👎 recorded on turn " + strconv.Itoa(t.Number) + "."
		if correction != "" {
			if _, err := u.Learning.Correct(ctx, capture.Tester{ConversationID: rt.ConversationID, TesterID: reviewer}, correction); err != nil {
				return u.reviewDone(w, r, t, "", err)
			}
			notice = "👎 and the correction recorded on turn " + strconv.Itoa(t.Number) + "."
		}
	}
	return u.reviewDone(w, r, t, notice, nil)
}

// noteSessionTurn attaches the reviewer's improvement note to a turn, as
// !improve does to the latest.
func (u *UI) noteSessionTurn(w http.ResponseWriter, r *http.Request) error {
	t, err := u.reviewedTurn(r)
	if err != nil {
		return err
	}
	if _, err := u.Tuning.ImproveTurn(r.Context(), t.ID, r.PostFormValue("category"), r.PostFormValue("note")); err != nil {
		return u.reviewDone(w, r, t, "", err)
	}
	return u.reviewDone(w, r, t, "Note added to turn "+strconv.Itoa(t.Number)+".", nil)
}

// scoreSessionTurn records the reviewer's score of a turn under any config,
// through the score service as !score and the API do.
func (u *UI) scoreSessionTurn(w http.ResponseWriter, r *http.Request) error {
	t, err := u.reviewedTurn(r)
	if err != nil {
		return err
	}
	if u.Scores == nil {
		return u.reviewDone(w, r, t, "", hone.Errorf(hone.EUNAVAILABLE, "scores are not available"))
	}
	ctx := r.Context()
	name := strings.TrimSpace(r.PostFormValue("config"))
	if name == "" {
		return u.reviewDone(w, r, t, "", hone.FieldError("config", "choose the score config to score under"))
	}
	c, err := u.Scores.Config(ctx, name)
	if hone.ErrorCode(err) == hone.ENOTFOUND {
		err = hone.FieldError("config", "no score config is named %q", name)
	}
	if err != nil {
		return u.reviewDone(w, r, t, "", err)
	}
	value, err := formValue(c, r.PostFormValue("value"))
	if err != nil {
		return u.reviewDone(w, r, t, "", err)
	}
	sc, _, err := u.Scores.Record(ctx, score.Input{TurnID: t.ID, Config: c.ID, Value: value, Comment: r.PostFormValue("comment"),
		Source: score.SourceWeb, Author: reviewer})
	if err != nil {
		return u.reviewDone(w, r, t, "", err)
	}
	return u.reviewDone(w, r, t, "Score "+sc.Config+" = "+tuning.FormatValue(sc.Value)+" recorded on turn "+strconv.Itoa(t.Number)+".", nil)
}

// formValue is a form's value as the config's data type reads it.
func formValue(c *score.Config, v string) (json.RawMessage, error) {
	v = strings.TrimSpace(v)
	if v == "" && c.DataType != score.Text {
		return nil, hone.FieldError("value", "the value is empty: give a value of %s", c.Name)
	}
	switch c.DataType {
	case score.Numeric:
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return nil, hone.FieldError("value", "%s takes a number, not %q", c.Name, v)
		}
		return score.Number(f), nil
	case score.Boolean:
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, hone.FieldError("value", "%s takes true or false, not %q", c.Name, v)
		}
		return score.Bool(b), nil
	default:
		return score.Label(v), nil
	}
}
