package web

import (
	"net/http"
	"strings"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/workshop"
)

func (u *UI) listWorkshops(w http.ResponseWriter, r *http.Request) error {
	list, err := u.Workshops.List(r.Context())
	if err != nil {
		return err
	}
	u.Render(w, r, http.StatusOK, "workshops", map[string]any{"Title": "Workshops", "Workshops": list,
		"Phases": workshop.Phases})
	return nil
}

// createWorkshop makes a workshop with the one who fills in the form as its
// facilitator, and signs this browser in as them.
func (u *UI) createWorkshop(w http.ResponseWriter, r *http.Request) error {
	in := workshop.Create{
		Name:           r.PostFormValue("name"),
		Description:    r.PostFormValue("description"),
		InputJSONPath:  r.PostFormValue("input_jsonpath"),
		OutputJSONPath: r.PostFormValue("output_jsonpath"),
		Facilitator:    workshop.Person{Name: r.PostFormValue("facilitator_name"), Email: r.PostFormValue("facilitator_email")},
	}
	c, err := u.Workshops.Create(r.Context(), in)
	if err != nil {
		return u.formError(w, r, "/workshops", err)
	}
	if err := u.setMemberCookie(w, r, c.ID, c.Facilitator.Token); err != nil {
		return err
	}
	setFlash(w, r, Flash{Notice: "Workshop created. You are its facilitator: add the participants and import the traces to review.",
		Link: c.Facilitator.JoinURL, LinkLabel: "Your own join link (to open this workshop in another browser)"})
	http.Redirect(w, r, workshopPath(c.ID), http.StatusSeeOther)
	return nil
}

// formError answers a form whose action failed: an error the user can fix
// (bad input, a conflict with the workshop's state, an LLM that failed) is
// shown on the page back, as a flash; any other is the error page.
func (u *UI) formError(w http.ResponseWriter, r *http.Request, back string, err error) error {
	switch hone.ErrorCode(err) {
	case hone.EINVALID, hone.ECONFLICT, hone.EUNAVAILABLE:
	default:
		return err
	}
	f := Flash{Error: hone.ErrorMessage(err)}
	var ie *workshop.ImportError
	if asImportError(err, &ie) {
		f.Error = "Nothing was imported: " + plural(len(ie.Lines)+ie.NotListed, "trace of the file is", "traces of the file are") +
			" invalid. Fix them, or tick “Skip invalid traces” to import the others."
		listLines(&f, ie.Lines, ie.NotListed)
	}
	setFlash(w, r, f)
	http.Redirect(w, r, back, http.StatusSeeOther)
	return nil
}

// redirectNotice goes to back, saying notice there.
func redirectNotice(w http.ResponseWriter, r *http.Request, back, notice string) error {
	if notice != "" {
		setFlash(w, r, Flash{Notice: notice})
	}
	http.Redirect(w, r, back, http.StatusSeeOther)
	return nil
}

// formBack is where a form returns to: its "back" field when that is a
// page of the workshop, else def.
func formBack(r *http.Request, workshopID, def string) string {
	back, base := safeNext(r.PostFormValue("back")), workshopPath(workshopID)
	if back == base || strings.HasPrefix(back, base+"/") || strings.HasPrefix(back, base+"?") {
		return back
	}
	return def
}
