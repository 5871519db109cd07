package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/honehq/hone/internal/browsertest"
	"github.com/honehq/hone/internal/workshop"
)

// TestBrowserWorkshopGetInAgain: a browser without the workshop's cookie
// is told how to get in again; hone's admin signs in from there and opens
// the workshop as its facilitator, then re-sends a member's link, warned
// that the old one stops working.
func TestBrowserWorkshopGetInAgain(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		e := wsOpen(t, databaseURL, false, nil)
		ws := e.create("Rejoin")
		pia := e.member(ws.ID, "Pia", workshop.RoleParticipant)
		home := e.base + "/w/" + ws.ID
		b := browsertest.New(t)

		if status := b.NavigateStatus(home); status != http.StatusUnauthorized {
			t.Fatalf("GET /w/%s without a cookie = %d, want 401", ws.ID, status)
		}
		msg := b.Text("main p.error")
		for _, want := range []string{"open your personal join link", "ask a facilitator of the workshop to re-send it", "hone's admin signs in"} {
			if !strings.Contains(msg, want) {
				t.Errorf("the 401 page says %q, want it to say %q", msg, want)
			}
		}
		signIn := "/signin?" + url.Values{"next": {"/w/" + ws.ID}}.Encode()
		if got := b.Attr("#admin-signin a", "href"); got != signIn {
			t.Errorf("the 401 page's sign-in link = %q, want %q", got, signIn)
		}
		b.ClickNavigate("#admin-signin a")
		b.Type("#token", signinToken)
		if status := b.ClickNavigate("#signin"); status != http.StatusOK {
			t.Fatalf("sign-in = %d", status)
		}
		if got := b.Location(); got != home {
			t.Fatalf("after signing in the browser is at %s, want back at the workshop %s", got, home)
		}
		if b.Count("#start-discovery") != 1 || b.Count("#members") != 1 {
			t.Fatal("the admin does not get the facilitator's start page")
		}

		row := `tr[data-member="` + pia.ID + `"]`
		if got := b.Text(row + " .resend-link summary"); got != "Re-send link" {
			t.Errorf("the member's link button says %q, want Re-send link", got)
		}
		if browsertest.Eval[bool](b, `document.querySelector('`+row+` .resend-link .warning').checkVisibility()`) {
			t.Error("the warning shows before Re-send link is pressed")
		}
		b.Click(row + " .resend-link summary")
		warning := b.Text(row + " .resend-link .warning")
		if !strings.Contains(warning, "The link Pia has now stops working") {
			t.Errorf("the warning says %q, want it to say the old link stops working", warning)
		}
		if got := b.Text(row + " .new-link"); got != "Make a new link for Pia" {
			t.Errorf("the button says %q", got)
		}
		b.ClickNavigate(row + " .new-link")
		if got := b.Text("#flash .notice"); got != "A new join link for Pia: send it to them. The link they had no longer works." {
			t.Errorf("after re-sending, the flash says %q", got)
		}
		link := browsertest.Eval[string](b, `document.getElementById("flash-link").value`)
		if !strings.HasPrefix(link, e.base+"/w/"+ws.ID+"/join/") {
			t.Errorf("the new link is %q", link)
		}
		if _, ok, _ := e.Workshops.Authenticate(context.Background(), pia.Token); ok {
			t.Error("Pia's old link still works")
		}
		if _, ok, _ := e.Workshops.Authenticate(context.Background(), link[strings.LastIndex(link, "/")+1:]); !ok {
			t.Error("Pia's new link does not work")
		}
	})
}
