package web

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/server"
	"github.com/honehq/hone/internal/workshop"
)

// maxUpload bounds a trace file uploaded from the browser.
const maxUpload = 32 << 20

func (u *UI) addMember(w http.ResponseWriter, r *http.Request) error {
	wid := r.PathValue("id")
	back := formBack(r, wid, workshopPath(wid)+"/setup")
	a, err := u.Workshops.AddMember(r.Context(), wid, "", workshop.Person{Name: r.PostFormValue("name"),
		Email: r.PostFormValue("email"), Role: r.PostFormValue("role")})
	if err != nil {
		return u.formError(w, r, back, err)
	}
	setFlash(w, r, Flash{Notice: a.Name + " was added as a " + a.Role + ". Send them their personal join link; it is shown only now.",
		Link: a.JoinURL, LinkLabel: a.Name + "’s join link"})
	http.Redirect(w, r, back, http.StatusSeeOther)
	return nil
}

// newLink re-sends a member's join link: it makes a new one, which revokes
// the old one and its sign-ins.
func (u *UI) newLink(w http.ResponseWriter, r *http.Request) error {
	wid := r.PathValue("id")
	back := formBack(r, wid, workshopPath(wid)+"/setup")
	a, err := u.Workshops.NewToken(r.Context(), wid, "", r.PathValue("member"))
	if err != nil {
		return u.formError(w, r, back, err)
	}
	setFlash(w, r, Flash{Notice: "A new join link for " + a.Name + ": send it to them. The link they had no longer works.",
		Link: a.JoinURL, LinkLabel: a.Name + "’s join link"})
	http.Redirect(w, r, back, http.StatusSeeOther)
	return nil
}

// importTraces imports an uploaded JSON, JSONL or CSV file, or the turns of
// a tuning session.
func (u *UI) importTraces(w http.ResponseWriter, r *http.Request) error {
	wid := r.PathValue("id")
	back := formBack(r, wid, workshopPath(wid)+"/setup")
	ctx := r.Context()
	if err := r.ParseMultipartForm(1 << 20); err != nil && !errors.Is(err, http.ErrNotMultipart) {
		return u.formError(w, r, back, hone.FieldError("file", "the upload could not be read: %v", err))
	}
	var res *workshop.ImportResult
	var err error
	if session := strings.TrimSpace(r.PostFormValue("session_id")); session != "" {
		ictx, user := u.sessionImporter(r)
		res, err = u.Workshops.ImportSessions(ictx, wid, user, workshop.SessionImport{SessionID: session})
	} else {
		f, hdr, ferr := r.FormFile("file")
		if ferr != nil {
			return u.formError(w, r, back, hone.FieldError("file", "choose a JSON, JSONL or CSV file of traces to import"))
		}
		defer f.Close()
		format := workshop.FormatOf(hdr.Filename, hdr.Header.Get("Content-Type"))
		if format == "" {
			return u.formError(w, r, back, hone.FieldError("file",
				"%s is not a file hone imports: give a .json, .jsonl or .csv file", hdr.Filename))
		}
		res, err = u.Workshops.ImportTraces(ctx, wid, "", f, format, r.PostFormValue("skip_invalid") != "")
	}
	if err != nil {
		return u.formError(w, r, back, err)
	}
	fl := Flash{Notice: "Imported " + plural(res.Imported, "trace", "traces") + "."}
	if len(res.Skipped) > 0 {
		fl.Error = "Skipped " + plural(len(res.Skipped)+res.ErrorsNotListed, "trace", "traces") + ":"
		listLines(&fl, res.Skipped, res.ErrorsNotListed)
	}
	setFlash(w, r, fl)
	http.Redirect(w, r, back, http.StatusSeeOther)
	return nil
}

// saveSettings sets the model of the workshop's follow-up questions and
// analyses ("" for the configured one).
func (u *UI) saveSettings(w http.ResponseWriter, r *http.Request) error {
	wid := r.PathValue("id")
	back := formBack(r, wid, workshopPath(wid))
	model := r.PostFormValue("model")
	if _, err := u.Workshops.Update(r.Context(), wid, "", workshop.Settings{Model: &model}); err != nil {
		return u.formError(w, r, back, err)
	}
	notice := "Follow-up questions and analyses use the configured model."
	if m := strings.TrimSpace(model); m != "" {
		notice = "Follow-up questions and analyses use the model " + m + "."
	}
	return redirectNotice(w, r, back, notice)
}

func (u *UI) beginDiscovery(w http.ResponseWriter, r *http.Request) error {
	wid := r.PathValue("id")
	ctx := r.Context()
	limit := 0
	if s := strings.TrimSpace(r.PostFormValue("trace_limit")); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			return u.formError(w, r, workshopPath(wid), hone.FieldError("trace_limit", "the trace limit must be a whole number, not %q", s))
		}
		limit = n
	}
	if model, ok := r.PostForm["model"]; ok {
		if _, err := u.Workshops.Update(ctx, wid, "", workshop.Settings{Model: &model[0]}); err != nil {
			return u.formError(w, r, workshopPath(wid), err)
		}
	}
	ws, err := u.Workshops.Begin(ctx, wid, "", limit, r.PostFormValue("randomize") != "")
	if err != nil {
		return u.formError(w, r, workshopPath(wid), err)
	}
	return redirectNotice(w, r, workshopPath(wid), "Discovery has started: "+plural(ws.AssignedCount, "trace is", "traces are")+
		" assigned to every participant.")
}

func (u *UI) advancePhase(w http.ResponseWriter, r *http.Request) error {
	wid := r.PathValue("id")
	ws, err := u.Workshops.SetPhase(r.Context(), wid, "", r.PostFormValue("phase"))
	if err != nil {
		return u.formError(w, r, workshopPath(wid), err)
	}
	return redirectNotice(w, r, workshopPath(wid), "The workshop is now in "+phaseLabels[ws.Phase]+".")
}

func (u *UI) runAnalysis(w http.ResponseWriter, r *http.Request) error {
	wid := r.PathValue("id")
	back := workshopPath(wid) + "/analysis"
	st, err := u.Workshops.Analyze(r.Context(), wid, workshop.AnalyzeInput{Template: r.PostFormValue("template")})
	if err != nil {
		return u.formError(w, r, back, err)
	}
	http.Redirect(w, r, back+"?run="+st.ID, http.StatusSeeOther)
	return nil
}

func (u *UI) addTemplate(w http.ResponseWriter, r *http.Request) error {
	wid := r.PathValue("id")
	back := workshopPath(wid) + "/analysis"
	t, err := u.Workshops.AddTemplate(r.Context(), wid, "", workshop.Template{Name: r.PostFormValue("name"),
		Title: r.PostFormValue("title"), Instruction: r.PostFormValue("instruction")})
	if err != nil {
		return u.formError(w, r, back, err)
	}
	return redirectNotice(w, r, back, "The template “"+t.Title+"” was saved: pick it to run an analysis with it.")
}

// exportWorkshop downloads the workshop's results as JSONL, CSV or Markdown.
func (u *UI) exportWorkshop(w http.ResponseWriter, r *http.Request) error {
	e, err := u.Workshops.Export(r.Context(), r.PathValue("id"), "", r.URL.Query().Get("format"))
	if err != nil {
		return err
	}
	return server.Download(w, e.Filename, e.ContentType, e.Write)
}
