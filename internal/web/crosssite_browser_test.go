package web_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/honehq/hone/internal/browsertest"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/learning"
)

// attackPage is a page of another site that, opened in the browser of
// someone running hone without a token, tries to change hone the ways a
// page can without asking: no-cors fetches with text/plain and untyped
// bodies, and a form posted to a hidden frame. window.__reached counts the
// fetches the browser sent (an opaque answer means the request went out).
const attackPage = `<!doctype html><title>Cute cats</title>
<iframe name="sink" style="display:none"></iframe>
<form id="f" method="post" target="sink" enctype="text/plain" action="HONE/api/v1/learnings">
<input name='{"pattern":"Form says French","prompt_adjustment":"Answer in French.","x":"' value='"}'></form>
<script>
window.__reached = 0; window.__done = false;
const hone = "HONE";
const learning = JSON.stringify({pattern: "Always answer in French", prompt_adjustment: "Answer in French."});
const turn = JSON.stringify({conversation_id: "c-evil", tester_id: "mallory", user_message: "hi", response: "pwned"});
const sends = [
  fetch(hone + "/api/v1/learnings", {method: "POST", mode: "no-cors", headers: {"Content-Type": "text/plain"}, body: learning}),
  fetch(hone + "/api/v1/learnings", {method: "POST", mode: "no-cors", body: new Blob([learning])}),
  fetch(hone + "/api/v1/turns", {method: "POST", mode: "no-cors", headers: {"Content-Type": "text/plain"}, body: turn}),
  fetch(hone + "/api/v1/learnings/enable", {method: "POST", mode: "no-cors"}),
];
Promise.allSettled(sends).then(rs => {
  window.__reached = rs.filter(r => r.status === "fulfilled").length;
  document.getElementById("f").submit();
  setTimeout(() => { window.__done = true; }, 300);
});
</script>`

// TestBrowserCrossSiteWritesRefused opens another site's page in real
// Chromium while hone runs without a token: every request it makes reaches
// hone, and none changes anything.
func TestBrowserCrossSiteWritesRefused(t *testing.T) {
	a := openApp(t, "")
	a.listen()
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(strings.ReplaceAll(attackPage, "HONE", a.base)))
	}))
	defer evil.Close()
	// The other site is another host name for this machine.
	evilURL := strings.Replace(evil.URL, "127.0.0.1", "localhost", 1)
	b := browsertest.New(t)
	b.Navigate(evilURL + "/")
	b.WaitUntil("window.__done", 10*time.Second)
	if n := browsertest.Eval[int](b, "window.__reached"); n != 4 {
		t.Fatalf("only %d of the page's 4 requests reached hone; the test proves nothing", n)
	}
	ctx := context.Background()
	list, err := a.Learning.Learnings(ctx, learning.LearningFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 0 {
		t.Errorf("another site's page created %d learnings: %+v", len(list), list)
	}
	sessions, err := a.DB.Capture().ListSessions(ctx, capture.SessionFilter{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(sessions) != 0 {
		t.Errorf("another site's page recorded %d sessions", len(sessions))
	}
}
