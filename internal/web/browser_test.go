package web_test

import (
	"encoding/csv"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/honehq/hone/internal/browsertest"
)

// recordAlerts replaces window.alert in every page so that a test can tell
// whether anything called it, without a dialog blocking the page.
const recordAlerts = `window.__alerts = []; window.alert = m => { window.__alerts.push(String(m)); };`

func TestBrowserSessionsAndSession(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		a := openApp(t, databaseURL)
		s := a.seed()
		a.listen()
		b := browsertest.New(t)
		b.OnNewDocument(recordAlerts)

		if status := b.NavigateStatus(a.base + "/"); status != http.StatusOK {
			t.Fatalf("GET / = %d, want 200", status)
		}
		if got := b.Title(); got != "Sessions · hone" {
			t.Errorf("title = %q, want %q", got, "Sessions · hone")
		}
		if got := b.Text("main h1"); got != "Tuning sessions" {
			t.Errorf("heading = %q, want %q", got, "Tuning sessions")
		}
		headers := browsertest.Eval[[]string](b,
			`Array.from(document.querySelectorAll("table.sessions thead th"), th => th.textContent.trim())`)
		wantHeaders := []string{"Session", "Tester", "Prompt version", "Turns", "Notes", "👍", "👎", "Objective", "Overall", "Started ▼", "Ended"}
		if !slices.Equal(headers, wantHeaders) {
			t.Errorf("table headers = %q, want %q", headers, wantHeaders)
		}
		rows := browsertest.Eval[[][]string](b, `Array.from(document.querySelectorAll("table.sessions tbody tr"),
			tr => Array.from(tr.cells, td => td.innerText.trim()))`)
		wantRows := [][]string{
			{s.alice2, "alice alice@example.com", "v1.1", "1", "0", "0", "0", "N/A", "N/A", "2025-03-01 11:00:00 UTC", "open"},
			{s.bob, "bob", "v2.0", "1", "0", "0", "0", "N/A", "N/A", "2025-03-01 10:15:00 UTC", "open"},
			{s.alice1, "alice alice@example.com", "v1.0", "2", "3", "0", "0", "N/A", "N/A", "2025-03-01 09:00:00 UTC", "2025-03-01 11:00:00 UTC"},
		}
		if !slices.EqualFunc(rows, wantRows, slices.Equal) {
			t.Fatalf("sessions table, newest first:\n got %q\nwant %q", rows, wantRows)
		}
		if b.Count(".pager a") != 0 {
			t.Errorf("pager links on a single page: %q", b.Texts(".pager a"))
		}

		if status := b.ClickNavigate(`tr[data-session="` + s.alice1 + `"] td a`); status != http.StatusOK {
			t.Fatalf("session page status = %d, want 200", status)
		}
		if got, want := b.Location(), a.base+"/sessions/"+s.alice1; got != want {
			t.Fatalf("after the click the browser is at %s, want %s", got, want)
		}
		if got, want := b.Text("main h1"), "Session "+s.alice1; got != want {
			t.Errorf("heading = %q, want %q", got, want)
		}
		facts := browsertest.Eval[map[string]string](b, `Object.fromEntries(Array.from(
			document.querySelectorAll("dl.facts dt"), dt => [dt.innerText.trim(), dt.nextElementSibling.innerText.trim()]))`)
		wantFacts := map[string]string{
			"Tester": "alice (alice@example.com)", "Prompt version": "v1.0", "Branch": "main",
			"Started": "2025-03-01 09:00:00 UTC", "Ended": "2025-03-01 11:00:00 UTC", "Duration": "2h0m0s",
			"Turns": "2", "Improvements": "3",
		}
		for k, want := range wantFacts {
			if got := facts[k]; got != want {
				t.Errorf("fact %q = %q, want %q", k, got, want)
			}
		}

		type turn struct {
			Meta, Who, User, BotWho, Bot string
			Notes, Cats                  []string
		}
		turns := browsertest.Eval[[]turn](b, `Array.from(document.querySelectorAll("ol.turns li.turn"), li => ({
			Meta: li.querySelector(".meta").innerText.trim(),
			Who: li.querySelector(".msg.user .who").textContent,
			User: li.querySelector(".msg.user p").innerText,
			BotWho: li.querySelector(".msg.bot .who").textContent,
			Bot: li.querySelector(".msg.bot .md").innerText.trim(),
			Notes: Array.from(li.querySelectorAll("li.note"), n => n.textContent.trim()),
			Cats: Array.from(li.querySelectorAll("li.note"), n => n.querySelector(".cat")?.textContent ?? ""),
		}))`)
		wantTurns := []turn{
			// Responses are rendered as Markdown; raw HTML in them is left out.
			{Meta: "Turn 1 · 2025-03-01 09:00:00 UTC · 850 ms", Who: "User", User: aliceMsg1, BotWho: "Bot",
				Bot:   `Sure: document.title = "pwned"; window.__xss = true; alert(1) & done`,
				Notes: []string{"content " + noteCite}, Cats: []string{"content"}},
			{Meta: "Turn 2 · 2025-03-01 09:01:30 UTC", Who: "User", User: aliceMsg2, BotWho: "Bot", Bot: "Line one with bold advice\nLine two",
				Notes: []string{noteShort, "clarity " + noteAcro}, Cats: []string{"", "clarity"}},
		}
		if len(turns) != len(wantTurns) {
			t.Fatalf("got %d turns, want %d: %+v", len(turns), len(wantTurns), turns)
		}
		for i, got := range turns {
			want := wantTurns[i]
			if got.Meta != want.Meta || got.Who != want.Who || got.User != want.User || got.BotWho != want.BotWho ||
				got.Bot != want.Bot || !slices.Equal(got.Notes, want.Notes) || !slices.Equal(got.Cats, want.Cats) {
				t.Errorf("turn %d:\n got %+v\nwant %+v", i+1, got, want)
			}
		}

		if got := b.Texts("#turn-2 .msg.bot .md strong"); !slices.Equal(got, []string{"bold"}) {
			t.Errorf("Markdown of turn 2's response: <strong> holds %q, want [bold]", got)
		}
		if got, want := b.Title(), "Session "+s.alice1+" · hone"; got != want {
			t.Errorf("title = %q, want %q: a script in a turn ran", got, want)
		}
		if got := browsertest.Eval[bool](b, `window.__xss === true`); got {
			t.Error("markup in a turn ran as script (window.__xss is set)")
		}
		if got := browsertest.Eval[int](b, `document.scripts.length + document.querySelectorAll("main img, main b").length`); got != 0 {
			t.Errorf("turn texts became %d elements instead of text", got)
		}
		if got := browsertest.Eval[[]string](b, `window.__alerts`); len(got) != 0 {
			t.Errorf("alert was called with %q", got)
		}
		if got := browsertest.Eval[[]string](b, `alert("probe"), window.__alerts`); !slices.Equal(got, []string{"probe"}) {
			t.Errorf("the alert recorder does not work: %q", got)
		}

		if got := b.Text("#download-csv"); got != "Download CSV" {
			t.Errorf("download button text = %q, want %q", got, "Download CSV")
		}
		href := b.Attr("#download-csv", "href")
		if want := "/sessions/" + s.alice1 + "/export.csv"; href != want {
			t.Fatalf("Download CSV href = %q, want %q", href, want)
		}
		b.Attr("#download-csv", "download")
		f := b.Fetch(href)
		if f.Status != http.StatusOK || f.ContentType != "text/csv; charset=utf-8" {
			t.Fatalf("fetch %s = %d %q, want 200 text/csv; charset=utf-8; body %q", href, f.Status, f.ContentType, f.Body)
		}
		if first, _, _ := strings.Cut(f.Body, "\n"); first != "Turn,User Message,Bot Response,Improvement Notes,Category,Objective Score,Subjective Score,Overall Score,Timestamp,Ratings,Scores,Corrections" {
			t.Errorf("CSV header row = %q", first)
		}
		records, err := csv.NewReader(strings.NewReader(f.Body)).ReadAll()
		if err != nil {
			t.Fatalf("CSV does not parse: %v\n%s", err, f.Body)
		}
		wantRecords := [][]string{
			{"Turn", "User Message", "Bot Response", "Improvement Notes", "Category", "Objective Score", "Subjective Score", "Overall Score", "Timestamp",
				"Ratings", "Scores", "Corrections"},
			{"1", aliceMsg1, aliceResp1, noteCite, "content", "", "", "", "2025-03-01T09:00:00Z", "", "", ""},
			{"2", aliceMsg2, aliceResp2, noteShort, "", "", "", "", "2025-03-01T09:01:30Z", "", "", ""},
			{"2", aliceMsg2, aliceResp2, noteAcro, "clarity", "", "", "", "2025-03-01T09:01:30Z", "", "", ""},
		}
		if !slices.EqualFunc(records, wantRecords, slices.Equal) {
			t.Errorf("CSV records:\n got %q\nwant %q", records, wantRecords)
		}
		resolved, err := url.Parse(b.Location())
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.Get(resolved.ResolveReference(&url.URL{Path: href}).String())
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got, want := resp.Header.Get("Content-Disposition"), `attachment; filename="hone-session-`+s.alice1+`.csv"`; got != want {
			t.Errorf("Content-Disposition = %q, want %q", got, want)
		}
		if logs := b.Logs(); len(logs) != 0 {
			t.Errorf("the pages wrote to the console: %q", logs)
		}
	})
}

func TestBrowserFilterForm(t *testing.T) {
	a := openApp(t, "")
	s := a.seed()
	a.listen()
	b := browsertest.New(t)
	b.Navigate(a.base + "/")
	b.Type(`form.filter input[name="tester"]`, "bob")
	if status := b.ClickNavigate(`form.filter button[type="submit"]`); status != http.StatusOK {
		t.Fatalf("filter status = %d, want 200", status)
	}
	if got, err := url.Parse(b.Location()); err != nil || got.Path != "/" || got.Query().Get("tester") != "bob" || got.Query().Get("q") != "" {
		t.Errorf("after filtering the browser is at %s, want / filtered on tester bob", b.Location())
	}
	ids := browsertest.Eval[[]string](b, `Array.from(document.querySelectorAll("table.sessions tbody tr"), tr => tr.dataset.session)`)
	if !slices.Equal(ids, []string{s.bob}) {
		t.Errorf("sessions shown for tester bob = %q, want %q", ids, []string{s.bob})
	}
	if got := browsertest.Eval[string](b, `document.querySelector('form.filter input[name="tester"]').value`); got != "bob" {
		t.Errorf("filter box shows %q after filtering, want bob", got)
	}
}

func TestBrowserUnknownSession(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		a := openApp(t, databaseURL)
		a.seed()
		a.listen()
		const id = `<img src=x onerror=alert(1)>`
		path := "/sessions/" + url.PathEscape(id)
		status, ctype, body := a.get(path)
		if status != http.StatusNotFound || ctype != "text/html; charset=utf-8" {
			t.Fatalf("GET %s = %d %q, want 404 text/html; charset=utf-8", path, status, ctype)
		}
		if strings.Contains(body, id) {
			t.Errorf("the error page has the id unescaped:\n%s", body)
		}

		b := browsertest.New(t)
		b.OnNewDocument(recordAlerts)
		if got := b.NavigateStatus(a.base + path); got != http.StatusNotFound {
			t.Errorf("browser got status %d, want 404", got)
		}
		if got := b.Title(); got != "Not Found · hone" {
			t.Errorf("title = %q, want %q", got, "Not Found · hone")
		}
		if got := b.Text("main h1"); got != "404 · Not Found" {
			t.Errorf("heading = %q, want %q", got, "404 · Not Found")
		}
		if got, want := b.Text("main p.error"), `session "`+id+`" not found`; got != want {
			t.Errorf("message = %q, want %q", got, want)
		}
		if got := browsertest.Eval[[]string](b, `window.__alerts`); len(got) != 0 {
			t.Errorf("alert was called with %q", got)
		}
		if status := b.ClickNavigate(`main a[href="/"]`); status != http.StatusOK {
			t.Errorf("back link status = %d, want 200", status)
		}
		if got := b.Count("table.sessions tbody tr"); got != 3 {
			t.Errorf("back on the list, %d sessions shown, want 3", got)
		}
	})
}
