package web_test

import (
	"context"
	"fmt"
	"github.com/honehq/hone/internal/capture"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestSessionListTesterFilter(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		a := openApp(t, databaseURL)
		s := a.seed()
		a.listen()
		for _, tc := range []struct {
			query string
			want  []string
		}{
			{"", []string{s.alice2, s.bob, s.alice1}},
			{"?tester=alice", []string{s.alice2, s.alice1}},
			{"?tester=bob", []string{s.bob}},
			{"?tester=ali", nil},
			{"?tester=nobody", nil},
		} {
			status, _, body := a.get("/" + tc.query)
			if status != 200 {
				t.Errorf("GET /%s = %d, want 200", tc.query, status)
				continue
			}
			if got := rowIDs(sessionRows(body)); !slices.Equal(got, tc.want) {
				t.Errorf("GET /%s lists %q, want %q", tc.query, got, tc.want)
			}
			if strings.Contains(body, "No sessions yet") {
				t.Errorf("GET /%s says there are no sessions yet, but there are", tc.query)
			}
			if none := strings.Contains(body, "No sessions match"); none != (len(tc.want) == 0) {
				t.Errorf("GET /%s: no-match message shown = %v with %d sessions", tc.query, none, len(tc.want))
			}
			if _, ok := pagerLink(body, "Older →"); ok {
				t.Errorf("GET /%s has an Older link with only %d sessions", tc.query, len(tc.want))
			}
		}

		_, _, body := a.get("/?tester=alice")
		if !strings.Contains(body, `<input name="tester" value="alice"`) {
			t.Error("the filter box does not keep the tester filtered on")
		}
		rows := sessionRows(body)
		want := []string{s.alice1, "alice alice@example.com", "v1.0", "2", "3", "0", "0", "N/A", "N/A", "2025-03-01 09:00:00 UTC", "2025-03-01 11:00:00 UTC"}
		if len(rows) != 2 || !slices.Equal(rows[1].Cells, want) {
			t.Errorf("alice's first session row = %q, want %q", rows, want)
		}
		_, _, body = a.get("/?tester=nobody")
		if !strings.Contains(body, `No sessions match tester <code>nobody</code>. <a href="/">Show all sessions</a>`) {
			t.Errorf("no-match message for tester nobody missing:\n%s", body)
		}
		_, _, body = a.get("/?tester=" + url.QueryEscape(`"><script>x</script>`))
		if strings.Contains(body, "<script>x</script>") {
			t.Error("the tester filter is echoed into the page unescaped")
		}
	})
}

func TestSessionListPagination(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		a := openApp(t, databaseURL)
		const tester = "qa team&co"
		const sessions = 52
		var ids []string
		for i := range sessions {
			a.clock = time.Date(2025, 3, 1, 8, i, 0, 0, time.UTC)
			tr := a.turn(capture.TurnInput{ConversationID: "conv-pager", TesterID: tester,
				PromptVersion: fmt.Sprintf("p%02d", i+1), UserMessage: "hi", Response: "hello"})
			ids = append(ids, tr.SessionID)
		}
		a.at("07:00:00")
		other := a.turn(capture.TurnInput{ConversationID: "conv-other", TesterID: "other", UserMessage: "hi", Response: "hello"}).SessionID
		a.listen()
		newestFirst := slices.Clone(ids)
		slices.Reverse(newestFirst)

		first := "/?tester=" + url.QueryEscape(tester)
		status, _, body := a.get(first)
		if status != 200 {
			t.Fatalf("GET %s = %d", first, status)
		}
		rows := sessionRows(body)
		if got := rowIDs(rows); !slices.Equal(got, newestFirst[:50]) {
			t.Fatalf("page 1 lists %d sessions %q, want the newest 50 %q", len(got), got, newestFirst[:50])
		}
		want := []string{newestFirst[0], tester, "p52", "1", "0", "0", "0", "N/A", "N/A", "2025-03-01 08:51:00 UTC", "open"}
		if !slices.Equal(rows[0].Cells, want) {
			t.Errorf("newest row = %q, want %q", rows[0].Cells, want)
		}
		want = []string{newestFirst[1], tester, "p51", "1", "0", "0", "0", "N/A", "N/A", "2025-03-01 08:50:00 UTC", "2025-03-01 08:51:00 UTC"}
		if !slices.Equal(rows[1].Cells, want) {
			t.Errorf("second row = %q, want %q", rows[1].Cells, want)
		}
		if href, ok := pagerLink(body, "← Newer"); ok {
			t.Errorf("page 1 has a Newer link %q", href)
		}
		older, ok := pagerLink(body, "Older →")
		if !ok {
			t.Fatal("page 1 of 52 sessions has no Older link")
		}
		next, err := url.Parse(older)
		if err != nil {
			t.Fatal(err)
		}
		if q := next.Query(); q.Get("tester") != tester || q.Get("page") != "2" {
			t.Fatalf("Older link %q: tester=%q page=%q, want tester=%q page=2", older, q.Get("tester"), q.Get("page"), tester)
		}

		second := "/" + older
		_, _, body = a.get(second)
		if got := rowIDs(sessionRows(body)); !slices.Equal(got, newestFirst[50:]) {
			t.Errorf("page 2 lists %q, want the oldest two %q", got, newestFirst[50:])
		}
		if href, ok := pagerLink(body, "Older →"); ok {
			t.Errorf("the last page has an Older link %q", href)
		}
		newer, ok := pagerLink(body, "← Newer")
		if !ok {
			t.Fatal("page 2 has no Newer link")
		}
		prev, err := url.Parse(newer)
		if err != nil {
			t.Fatal(err)
		}
		if q := prev.Query(); q.Get("tester") != tester || q.Get("page") != "1" {
			t.Errorf("Newer link %q: tester=%q page=%q, want tester=%q page=1", newer, q.Get("tester"), q.Get("page"), tester)
		}

		_, _, body = a.get("/?page=2")
		all := append(slices.Clone(newestFirst), other)
		if got := rowIDs(sessionRows(body)); !slices.Equal(got, all[50:]) {
			t.Errorf("unfiltered page 2 lists %q, want %q", got, all[50:])
		}
		if href, ok := pagerLink(body, "← Newer"); !ok || href != "/?page=1" {
			t.Errorf("unfiltered page 2 Newer link = %q, %v; want /?page=1", href, ok)
		}
		_, _, body = a.get("/?page=3")
		if rows := sessionRows(body); len(rows) != 0 || !strings.Contains(body, "No sessions match on page 3.") {
			t.Errorf("page 3 of 53 sessions: %d rows, no-match message shown = %v",
				len(rows), strings.Contains(body, "No sessions match on page 3."))
		}
		for _, p := range []string{"0", "-1", "x"} {
			_, _, body = a.get("/?page=" + p)
			if got := rowIDs(sessionRows(body)); !slices.Equal(got, all[:50]) {
				t.Errorf("page=%s does not show the first page", p)
			}
		}
	})
}

func TestSessionListEmpty(t *testing.T) {
	a := openApp(t, "")
	a.listen()
	status, ctype, body := a.get("/")
	if status != 200 || ctype != "text/html; charset=utf-8" {
		t.Fatalf("GET / = %d %q, want 200 text/html; charset=utf-8", status, ctype)
	}
	if !strings.Contains(body, "No sessions yet. Send a turn to <code>POST /api/v1/turns</code>") {
		t.Errorf("an empty database does not say there are no sessions yet:\n%s", body)
	}
	if strings.Contains(body, `<table class="sessions">`) {
		t.Error("an empty database shows a sessions table")
	}
}

// A session started by a turn without a tester_id shows its tester as the
// anonymous one, and says why.
func TestSessionPageShowsTheAnonymousTester(t *testing.T) {
	a := openApp(t, "")
	a.listen()
	tr := a.turn(capture.TurnInput{ConversationID: "conv-anon", UserMessage: "hi", Response: "hello"})
	_, _, body := a.get("/sessions/" + tr.SessionID)
	if !strings.Contains(body, `<dt>Tester</dt><dd>anonymous <span class="muted">(turns sent without a tester_id)</span></dd>`) {
		t.Errorf("the session page does not show the anonymous tester:\n%s", body)
	}
	named := a.turn(capture.TurnInput{ConversationID: "conv-meg", TesterID: "meg", UserMessage: "hi", Response: "hello"})
	if _, _, body := a.get("/sessions/" + named.SessionID); strings.Contains(body, "without a tester_id") {
		t.Error("a named tester's session says its turns came without a tester_id")
	}
}

// The sessions list, a session's page and GET /api/v1/sessions show a
// tester's display name beside the id.
func TestPagesShowTesterNames(t *testing.T) {
	a := openApp(t, "")
	a.listen()
	tr := a.turn(capture.TurnInput{ConversationID: "teams:a:conv-meg", TesterID: "teams:meg", UserMessage: "hi", Response: "hello"})
	a.turn(capture.TurnInput{ConversationID: "conv-bob", TesterID: "bob", UserMessage: "hi", Response: "hello"})
	if err := a.Names.SetTesterName(context.Background(), "teams:meg", "Meg <Bowen>"); err != nil {
		t.Fatal(err)
	}
	named := `<span class="tester-name">Meg &lt;Bowen&gt;</span> teams:meg`
	if _, _, body := a.get("/"); !strings.Contains(body, "<td>"+named+"</td>") || !strings.Contains(body, "<td>bob</td>") {
		t.Errorf("the sessions list does not show the tester's name beside the id:\n%s", body)
	}
	if _, _, body := a.get("/sessions/" + tr.SessionID); !strings.Contains(body, "<dt>Tester</dt><dd>"+named+"</dd>") {
		t.Errorf("the session page does not show the tester's name:\n%s", body)
	}
	_, _, body := a.get("/api/v1/sessions")
	if !strings.Contains(body, `"tester_id":"teams:meg","tester_email":"","tester_name":"Meg <Bowen>"`) ||
		strings.Count(body, `"tester_name"`) != 1 {
		t.Errorf("GET /api/v1/sessions: %s", body)
	}
}
