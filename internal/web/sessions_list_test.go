package web_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/honehq/hone/internal/browsertest"
	"github.com/honehq/hone/internal/learning"
	"github.com/honehq/hone/internal/score"
)

// slEnv seeds the sessions of seed and a 👎 on bob's turn.
func slEnv(t *testing.T, databaseURL string) (*testApp, seeded) {
	t.Helper()
	a := openApp(t, databaseURL)
	s := a.seed()
	bob, err := a.DB.Tuning().ListTurns(context.Background(), s.bob, 1, 1)
	if err != nil || len(bob) != 1 {
		t.Fatal(err)
	}
	if _, err := a.App.Learning.RateTurn(context.Background(), bob[0].ID, learning.RatingInput{TesterID: "bob", Rating: "down",
		Source: score.SourceAPI}); err != nil {
		t.Fatal(err)
	}
	a.listen()
	return a, s
}

// The sessions list searches the messages, filters, sorts by any column,
// pages with its filters kept, exports the sessions it picks, and names a
// wrong filter.
func TestSessionListFiltersSortsAndExports(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		a, s := slEnv(t, databaseURL)
		for _, tc := range []struct {
			query string
			want  []string
		}{
			{"?q=" + url.QueryEscape("BOLD"), []string{s.alice1}},
			{"?q=pong", []string{s.bob}},
			{"?version=v1.1", []string{s.alice2}},
			{"?down=1", []string{s.bob}},
			{"?notes=1", []string{s.alice1}},
			{"?from=2025-03-01&to=2025-03-01", []string{s.alice2, s.bob, s.alice1}},
			{"?from=2025-03-02", nil},
			{"?sort=turns&dir=desc&tester=alice", []string{s.alice1, s.alice2}},
			{"?sort=started&dir=asc", []string{s.alice1, s.bob, s.alice2}},
			{"?tester=alice&sort=notes&dir=asc", []string{s.alice2, s.alice1}},
			{"?min_score=0", nil},
		} {
			status, _, body := a.get("/" + tc.query)
			if status != http.StatusOK {
				t.Errorf("GET /%s = %d", tc.query, status)
				continue
			}
			if got := rowIDs(sessionRows(body)); !slices.Equal(got, tc.want) {
				t.Errorf("GET /%s lists %q, want %q", tc.query, got, tc.want)
			}
		}
		_, _, body := a.get("/?sort=down&dir=desc")
		rows := sessionRows(body)
		if len(rows) == 0 || rows[0].Cells[5] != "0" || rows[0].Cells[6] != "1" {
			t.Errorf("bob's row counts 👍/👎 as %q", rows[0].Cells)
		}
		if !strings.Contains(body, `href="/?dir=asc&amp;sort=down"`) || !strings.Contains(body, "👎 ▼") {
			t.Error("the sorted column does not offer the other order or show its arrow")
		}

		_, _, body = a.get("/?q=e&notes=1&sort=turns&dir=asc")
		if !strings.Contains(body, `<input name="q" value="e"`) || !strings.Contains(body, `name="notes" value="1" checked`) ||
			!strings.Contains(body, `<input type="hidden" name="sort" value="turns">`) {
			t.Error("the filter form does not keep the search, the checkbox and the sort")
		}
		if !strings.Contains(body, `href="/sessions.csv?dir=asc&amp;notes=1&amp;q=e&amp;sort=turns"`) {
			t.Errorf("the CSV download does not carry the filters:\n%s", body)
		}

		_, _, csvBody := a.get("/sessions.csv?down=1")
		records, err := csv.NewReader(strings.NewReader(csvBody)).ReadAll()
		if err != nil || len(records) != 2 || records[0][0] != "session_id" || records[1][0] != s.bob || records[1][10] != "1" {
			t.Errorf("the CSV of the sessions with a 👎 is %q (%v)", records, err)
		}
		_, _, jsonBody := a.get("/sessions.json?tester=alice")
		var doc struct {
			Sessions []struct {
				ID    string `json:"id"`
				Notes int    `json:"total_improvements"`
				Down  int    `json:"thumbs_down"`
			} `json:"sessions"`
		}
		if err := json.Unmarshal([]byte(jsonBody), &doc); err != nil || len(doc.Sessions) != 2 || doc.Sessions[1].ID != s.alice1 ||
			doc.Sessions[1].Notes != 3 {
			t.Errorf("the JSON of alice's sessions is %s (%v)", jsonBody, err)
		}

		for _, tc := range []struct{ query, want string }{
			{"?from=yesterday", "from must be a date such as 2025-10-24"},
			{"?min_score=high", "min_score must be a number from 0 to 1"},
			{"?min_score=2", "the lowest score must be from 0 to 1"},
			{"?sort=mood", "sort must be one of"},
			{"?from=2025-03-02&to=2025-03-01", "the end of the date range comes before its start"},
		} {
			status, _, body := a.get("/" + tc.query)
			if status != http.StatusBadRequest || !strings.Contains(body, `id="filter-error"`) || !strings.Contains(body, tc.want) {
				t.Errorf("GET /%s = %d, want 400 saying %q", tc.query, status, tc.want)
			}
		}
		if status, _, _ := a.get("/sessions.csv?sort=mood"); status != http.StatusBadRequest {
			t.Errorf("a CSV download with a wrong sort answered %d", status)
		}
	})
}

func TestBrowserSessionListAndReview(t *testing.T) {
	a, s := slEnv(t, "")
	b := browsertest.New(t)
	b.Navigate(a.base + "/")
	b.Type(`#sessions-filter input[name="q"]`, "bold")
	b.ClickNavigate(`#sessions-filter button[type="submit"]`)
	ids := browsertest.Eval[[]string](b, `Array.from(document.querySelectorAll("table.sessions tbody tr"), tr => tr.dataset.session)`)
	if !slices.Equal(ids, []string{s.alice1}) {
		t.Errorf("searching bold shows %q", ids)
	}
	b.Navigate(a.base + "/")
	b.ClickNavigate(`th a[data-sort="down"]`)
	if got := b.Text(`th a[data-sort="down"]`); got != "👎 ▼" {
		t.Errorf("the sorted header reads %q", got)
	}
	if first := browsertest.Eval[string](b, `document.querySelector("table.sessions tbody tr").dataset.session`); first != s.bob {
		t.Errorf("sorted by 👎 the first session is %s, want bob's %s", first, s.bob)
	}
	if href := b.Attr("#export-sessions-csv", "href"); !strings.Contains(href, "sort=down") {
		t.Errorf("the download of the sorted list is %q", href)
	}

	b.Navigate(a.base + "/sessions/" + s.alice1)
	b.Click("#turn-2 details.review summary")
	b.Type(`#turn-2 .review-note textarea[name="note"]`, "Too long")
	b.ClickNavigate(`#turn-2 .review-note button[type="submit"]`)
	if loc := b.Location(); !strings.HasSuffix(loc, "/sessions/"+s.alice1+"#turn-2") {
		t.Errorf("after the note the browser is at %s", loc)
	}
	if got := b.Text("#turn-2 #flash"); got != "Note added to turn 2." {
		t.Errorf("beside turn 2 the page says %q", got)
	}
	b.Click("#turn-2 details.review summary")
	b.Type(`#turn-2 .review-score[data-config="clarity"] input[name="value"]`, "5")
	b.ClickNavigate(`#turn-2 .review-score[data-config="clarity"] button[type="submit"]`)
	b.Click("#turn-2 details.review summary")
	b.Type(`#turn-2 .review-rating textarea[name="correction"]`, "Shorter, with the policy name.")
	b.ClickNavigate(`#turn-2 .review-rating .rate-down`)
	got := b.Texts("#turn-2 .judgments li .what")
	slices.Sort(got)
	if !slices.Equal(got, []string{"Correction", "clarity 5", "👎"}) {
		t.Errorf("turn 2's judgments read %q", got)
	}
	if notes := b.Texts("#turn-2 .notes li"); len(notes) != 3 || notes[2] != "Too long" {
		t.Errorf("turn 2's notes are %q", notes)
	}
	if got := b.Text("#turn-2 .judgments q.correction"); got != "Shorter, with the policy name." {
		t.Errorf("the correction shown is %q", got)
	}
}
