package web

import (
	"context"
	"net/http"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/workshop"
)

// memberCookieTTL is how long a join link's sign-in lasts in a browser.
const memberCookieTTL = 90 * 24 * time.Hour

// memberCookie names the cookie that signs a member in to one workshop; it
// is sent to that workshop's pages only.
func memberCookie(workshopID string) string { return "hone_w_" + workshopID }

func workshopPath(workshopID string) string { return "/w/" + workshopID }

// setMemberCookie signs the holder of token in to the workshop's pages:
// HttpOnly, SameSite=Lax (the join link is opened from mail or chat),
// Secure over https. The cookie holds the token, checked on every request
// so that a new link revokes the old sign-ins at once, signed so that a
// rotation of hone's secret ends them too.
func (u *UI) setMemberCookie(w http.ResponseWriter, r *http.Request, workshopID, token string) error {
	v, err := u.Auth.MemberCookieValue(r.Context(), workshopID, token)
	if err != nil {
		return err
	}
	http.SetCookie(w, &http.Cookie{Name: memberCookie(workshopID), Value: v, Path: workshopPath(workshopID),
		MaxAge: int(memberCookieTTL.Seconds()), HttpOnly: true, Secure: secureCookies(r), SameSite: http.SameSiteLaxMode})
	return nil
}

func clearMemberCookie(w http.ResponseWriter, r *http.Request, workshopID string) {
	http.SetCookie(w, &http.Cookie{Name: memberCookie(workshopID), Value: "", Path: workshopPath(workshopID),
		MaxAge: -1, HttpOnly: true, Secure: secureCookies(r), SameSite: http.SameSiteLaxMode})
}

// errNotMember is the answer to someone on a workshop's pages who is neither
// signed in to it nor the admin; the page says how to get in again.
var errNotMember = hone.Errorf(hone.EUNAUTHORIZED,
	"This workshop's pages are for its members. To get in again, open your personal join link (a facilitator's own link was shown when the workshop was made). "+
		"If it no longer works, ask a facilitator of the workshop to re-send it: the Setup tab makes a new one. "+
		"hone's admin signs in to hone to open any workshop as its facilitator.")

// memberIdentity is who calls a workshop's page: the member whose join link
// signed this browser in to the workshop {id}; else the admin, signed in
// with the API token, or, on a hone without an API token, the local user,
// who opens any workshop as its facilitator. Anyone else is refused.
func (u *UI) memberIdentity(w http.ResponseWriter, r *http.Request) (hone.Identity, error) {
	ctx := r.Context()
	wid := r.PathValue("id")
	if c, err := r.Cookie(memberCookie(wid)); err == nil {
		token, ok, err := u.Auth.MemberCookieToken(ctx, wid, c.Value)
		if err != nil {
			return hone.Identity{}, err
		}
		var id hone.Identity
		if ok {
			if id, ok, err = u.Workshops.Authenticate(ctx, token); err != nil {
				return id, err
			}
		}
		if ok && id.WorkshopID == wid {
			return id, nil
		}
		clearMemberCookie(w, r, wid)
	}
	if u.Auth == nil || !u.Auth.Enabled() {
		return hone.Local, nil
	}
	id, ok, err := u.Auth.Session(ctx, r)
	if err != nil {
		return id, err
	}
	if ok && id.Kind == hone.IdentityAdmin {
		return id, nil
	}
	return hone.Identity{}, errNotMember
}

// joinWorkshop spends nothing: it checks a member's join link and signs the
// browser in to that workshop.
func (u *UI) joinWorkshop(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", "no-store")
	wid := r.PathValue("id")
	if err := u.attempts().Check(r); err != nil {
		return err
	}
	id, ok, err := u.Workshops.Authenticate(r.Context(), r.PathValue("token"))
	if err != nil {
		return err
	}
	if !ok || id.WorkshopID != wid {
		u.attempts().Fail(r.Context(), r, "workshop join link")
		return hone.Errorf(hone.EUNAUTHORIZED, "This join link is not valid: it may have been mistyped, or replaced by a newer one. Ask your facilitator for a new link.")
	}
	if err := u.setMemberCookie(w, r, wid, r.PathValue("token")); err != nil {
		return err
	}
	http.Redirect(w, r, workshopPath(wid), http.StatusSeeOther)
	return nil
}

// leaveWorkshop signs the browser out of the workshop.
func (u *UI) leaveWorkshop(w http.ResponseWriter, r *http.Request) error {
	clearMemberCookie(w, r, r.PathValue("id"))
	u.Render(w, r, http.StatusOK, "message", map[string]any{"Title": "Signed out of the workshop",
		"Message": "This browser is signed out of the workshop. Your join link signs you in again."})
	return nil
}

// sessionImporter is the context and user_id to import tuning sessions
// with from a workshop's pages. Importing sessions reads any session hone
// captured, so the workshop service allows it to the admin only, not to a
// member's sign-in; on a hone without an API token, where anyone may read
// the sessions, a member's browser imports as the local user acting as
// that member, whose role counts.
func (u *UI) sessionImporter(r *http.Request) (context.Context, string) {
	ctx := r.Context()
	id, _ := hone.IdentityFrom(ctx)
	if id.Kind == hone.IdentityMember && (u.Auth == nil || !u.Auth.Enabled()) {
		return hone.WithIdentity(ctx, hone.Local), id.MemberID
	}
	return ctx, ""
}

// canImportSessions reports whether the caller may import tuning sessions
// (see sessionImporter), for the pages to offer it.
func (u *UI) canImportSessions(r *http.Request) bool {
	id, _ := hone.IdentityFrom(r.Context())
	return id.Kind == hone.IdentityAdmin || u.Auth == nil || !u.Auth.Enabled()
}

// viewer is who looks at the workshop {id}, as the workshop package says.
func (u *UI) viewer(r *http.Request) (*workshop.Viewer, error) {
	return u.Workshops.Viewer(r.Context(), r.PathValue("id"))
}

// facilitatorView is the viewer of a facilitator's page: anyone else gets
// a 403 page.
func (u *UI) facilitatorView(r *http.Request) (*workshop.Viewer, error) {
	v, err := u.viewer(r)
	if err == nil && !v.Facilitator {
		err = hone.Errorf(hone.EFORBIDDEN, "This page is for the workshop's facilitators.")
	}
	return v, err
}
