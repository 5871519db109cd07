package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/honehq/hone/internal/workshop"
)

// TestRotateSecretEndsMemberSignIns: hone rotate-secret ends every browser
// sign-in, a workshop member's too; the member's join link still signs them
// in again, until the facilitator replaces it.
func TestRotateSecretEndsMemberSignIns(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		for _, local := range []bool{false, true} {
			e := wsOpen(t, databaseURL, local, nil)
			ws := e.create("Alpha")
			pia := e.member(ws.ID, "Pia", workshop.RoleParticipant)
			pc, fc := e.join(pia), e.join(ws.Facilitator)
			pc.page("/w/" + ws.ID)
			fc.page("/w/" + ws.ID + "/setup")
			if err := e.Auth.Rotate(context.Background()); err != nil {
				t.Fatal(err)
			}
			for who, c := range map[string]*wsClient{"participant": pc, "facilitator": fc} {
				r := c.get("/w/" + ws.ID)
				if local {
					// Without an API token the browser is the local user, who
					// opens any workshop as its facilitator, as no member.
					if r.StatusCode != http.StatusOK || !strings.Contains(r.body, `id="start-discovery"`) || strings.Contains(r.body, `id="member"`) {
						t.Errorf("local: the %s's browser after rotate-secret: %d, want the facilitator's page as the local user\n%s", who, r.StatusCode, r.body)
					}
					continue
				}
				if r.StatusCode != http.StatusUnauthorized || !strings.Contains(r.body, "join link") {
					t.Errorf("the %s's sign-in after rotate-secret: %d, want 401 about join links", who, r.StatusCode)
				}
			}
			pc.joinAs(ws.ID, pia.Token)
			pc.page("/w/" + ws.ID)
		}
	})
}
