package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/honehq/hone/internal/ndjson"
)

// TestWorkshopSessionImportIsTheAdmins: importing tuning sessions reads any
// session hone captured, so a facilitator signed in only by their join link
// is not offered it and is refused it, without a trace imported; the
// admin's sign-in imports. On a hone without an API token, where the
// sessions are anyone's to read, the facilitator's browser imports.
func TestWorkshopSessionImportIsTheAdmins(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		t.Run("with HONE_API_TOKEN", func(t *testing.T) {
			e := wsOpen(t, databaseURL, false, nil)
			ws := e.create("Sessions")
			session := e.postTurn("conv-private", "What is my salary?")
			fc := e.join(ws.Facilitator)
			w := "/w/" + ws.ID
			for _, page := range []string{w, w + "/setup"} {
				if body := fc.page(page); strings.Contains(body, `class="import-session"`) || !strings.Contains(body, `class="import-file"`) ||
					!strings.Contains(body, "sign in with the API token") {
					t.Errorf("the facilitator's %s offers a session import, or does not say whose it is:\n%s", page, body)
				}
			}
			before := e.snapshot(ws.ID, ws.Facilitator.Token)
			r := fc.post(w+"/traces", url.Values{"session_id": {session}, "back": {w + "/setup"}})
			if r.StatusCode != http.StatusForbidden || !strings.Contains(r.body, "admin") {
				t.Errorf("the facilitator importing a session = %d, want a 403 page:\n%s", r.StatusCode, r.body)
			}
			if after := e.snapshot(ws.ID, ws.Facilitator.Token); after != before {
				t.Fatalf("the facilitator's refused session import changed the workshop: %s", wsDiff(before, after))
			}
			if n := e.workshop(ws.ID).TraceCount; n != 0 {
				t.Fatalf("%d traces after a refused session import", n)
			}

			admin := e.admin()
			if body := admin.page(w + "/setup"); !strings.Contains(body, `class="import-session"`) {
				t.Errorf("the admin's setup page does not offer the session import:\n%s", body)
			}
			f := wsFlash(admin.follow(admin.post(w+"/traces", url.Values{"session_id": {session}, "back": {w + "/setup"}})))
			if f == nil || f.notice != "Imported 1 trace." || e.workshop(ws.ID).TraceCount != 1 {
				t.Errorf("the admin importing a session: flash %+v", f)
			}
		})
		t.Run("without HONE_API_TOKEN", func(t *testing.T) {
			e := wsOpen(t, databaseURL, true, nil)
			ws := e.create("Local sessions")
			pat := e.member(ws.ID, "Pat", "participant")
			session := e.postTurn("conv-local", "How many days of leave?")
			fc := e.join(ws.Facilitator)
			w := "/w/" + ws.ID
			if body := fc.page(w + "/setup"); !strings.Contains(body, `class="import-session"`) {
				t.Errorf("the local facilitator's setup page does not offer the session import:\n%s", body)
			}
			// A participant acts as themself: still not a facilitator.
			pc := e.join(pat)
			if r := pc.post(w+"/traces", url.Values{"session_id": {session}}); r.StatusCode != http.StatusForbidden || !strings.Contains(r.body, "facilitator") {
				t.Errorf("a participant importing a session = %d, want a 403 page:\n%s", r.StatusCode, r.body)
			}
			f := wsFlash(fc.follow(fc.post(w+"/traces", url.Values{"session_id": {session}, "back": {w + "/setup"}})))
			if f == nil || f.notice != "Imported 1 trace." || e.workshop(ws.ID).TraceCount != 1 {
				t.Errorf("the local facilitator importing a session: flash %+v", f)
			}
		})
	})
}

// TestWorkshopImportListsTheFirstErrors uploads a file of many invalid
// traces: the page lists the first of them and says how many more there
// are, the total counted in full.
func TestWorkshopImportListsTheFirstErrors(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		e := wsOpen(t, databaseURL, false, nil)
		ws := e.create("Many errors")
		fc := e.join(ws.Facilitator)
		w := "/w/" + ws.ID
		setup := w + "/setup"
		const invalid = ndjson.ListedErrors + 150
		body := strings.Repeat(`{"input":"q"}`+"\n", invalid) + `{"id":"good","input":"q","output":"a"}` + "\n"
		for _, skip := range []bool{false, true} {
			fields := url.Values{"csrf": {fc.csrf()}, "back": {setup}}
			if skip {
				fields.Set("skip_invalid", "on")
			}
			r := fc.upload(w+"/traces", fields, "bad.jsonl", body, fc.sameSite())
			if r.StatusCode != http.StatusSeeOther {
				t.Fatalf("upload = %d:\n%s", r.StatusCode, r.body)
			}
			f := wsFlash(fc.page(setup))
			if f == nil || len(f.lines) < 2 {
				t.Fatalf("skip %v: flash %+v", skip, f)
			}
			want := "Nothing was imported: 250 traces of the file are invalid."
			if skip {
				want = "Skipped 250 traces:"
			}
			shown := len(f.lines) - 1
			if !strings.HasPrefix(f.err, want) || f.lines[0] != "Line 1: output is required" ||
				f.lines[shown] != fmt.Sprintf("… and %d more, not listed here.", invalid-shown) {
				t.Errorf("skip %v: flash %q, %d lines, the last %q", skip, f.err, len(f.lines), f.lines[len(f.lines)-1])
			}
		}
	})
}
