package web_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/learning"
	"github.com/honehq/hone/internal/score"
	"github.com/honehq/hone/internal/tuning"
)

// srEnv is hone run locally (no token) with one session of two turns by
// meg in conversation conv-meg.
type srEnv struct {
	*wsEnv
	session string
	turns   []*capture.Turn
}

func srOpen(t *testing.T, databaseURL string) *srEnv {
	t.Helper()
	e := &srEnv{wsEnv: wsOpen(t, databaseURL, true, nil)}
	rec := capture.NewRecorder(e.DB.Capture(), nil)
	for _, q := range []string{"How many vacation days do I get?", "And sick days?"} {
		tr, _, err := rec.Record(context.Background(), capture.TurnInput{ConversationID: "conv-meg", TesterID: "meg",
			PromptVersion: "v1", UserMessage: q, Response: "It depends."}, "")
		if err != nil {
			t.Fatal(err)
		}
		e.session, e.turns = tr.SessionID, append(e.turns, tr)
	}
	return e
}

// srJudgments are the judgments the session page shows on turn n, as
// "kind|text".
func srJudgments(page string, n int) []string {
	li := lnFirst(regexp.MustCompile(`(?s)(<li class="turn" id="turn-`+strconv.Itoa(n)+`".*?)(?:<li class="turn"|</ol>)`), page)
	var out []string
	for _, m := range regexp.MustCompile(`(?s)<li class="judgment [a-z]+" data-kind="([a-z]+)".*?>(.*?)</li>`).FindAllStringSubmatch(li, -1) {
		text := regexp.MustCompile(`<[^>]+>`).ReplaceAllString(m[2], "")
		out = append(out, m[1]+"|"+strings.Join(strings.Fields(text), " "))
	}
	return out
}

// The session page and both exports show every judgment of each turn: who,
// what and when, whatever recorded it.
func TestSessionShowsEveryJudgment(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		e := srOpen(t, databaseURL)
		ctx := context.Background()
		first := e.turns[0]
		if _, err := e.App.Learning.RateTurn(ctx, first.ID, learning.RatingInput{TesterID: "meg", Rating: "down", Source: score.SourceChat}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.App.Learning.Correct(ctx, capture.Tester{ConversationID: "conv-meg", TesterID: "meg"}, "Say 25 days, from the handbook."); err != nil {
			t.Fatal(err)
		}
		if _, err := e.App.UI.Scores.AddConfig(ctx, score.ConfigInput{Name: "tone", DataType: score.Categorical,
			Categories: []score.Category{{Label: "formal"}, {Label: "warm"}}}); err != nil {
			t.Fatal(err)
		}
		for _, in := range []score.Input{
			{TurnID: first.ID, Config: "clarity", Value: score.Number(4), Source: score.SourceChat, Author: "meg"},
			{TurnID: first.ID, Config: "tone", Value: score.Label("formal"), Comment: "too stiff", Source: score.SourceAPI, Author: "lee"},
			{TurnID: e.turns[1].ID, Config: "thumbs", Value: score.Bool(true), Source: score.SourceAPI, Author: "lee"},
		} {
			if _, _, err := e.App.UI.Scores.Record(ctx, in); err != nil {
				t.Fatal(err)
			}
		}

		c := e.client()
		page := c.page("/sessions/" + e.session)
		got := srJudgments(page, 1)
		want := []string{"rating|👎 by meg via chat", "correction|Correction Say 25 days, from the handbook. by meg",
			"score|clarity 4 by meg via chat", "score|tone formal too stiff by lee via api"}
		if len(got) != len(want) {
			t.Fatalf("turn 1 shows the judgments %q, want %d", got, len(want))
		}
		for i := range want {
			if !strings.HasPrefix(got[i], want[i]) || !strings.Contains(got[i], "UTC") {
				t.Errorf("turn 1's judgment %d reads %q, want %q and a time", i, got[i], want[i])
			}
		}
		if got := srJudgments(page, 2); len(got) != 1 || !strings.HasPrefix(got[0], "rating|👍 by lee via api") {
			t.Errorf("turn 2 shows %q", got)
		}

		r := c.get("/sessions/" + e.session + "/export.csv")
		rows, err := csv.NewReader(strings.NewReader(r.body)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		header := append(tuning.CSVHeader("Bot"), "Ratings", "Scores", "Corrections")
		if !slices.Equal(rows[0], header) {
			t.Fatalf("the CSV header is %q, want the spec's columns then the judgments': %q", rows[0], header)
		}
		if len(rows) != 3 {
			t.Fatalf("the CSV has %d rows", len(rows))
		}
		one := rows[1]
		for i, want := range []*regexp.Regexp{
			regexp.MustCompile(`^down by meg at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`),
			regexp.MustCompile(`^clarity=4 by meg at \S+; tone=formal by lee at \S+ \(too stiff\)$`),
			regexp.MustCompile(`^by meg at \S+: Say 25 days, from the handbook\.$`),
		} {
			if !want.MatchString(one[9+i]) {
				t.Errorf("turn 1's %s cell is %q", header[9+i], one[9+i])
			}
		}
		if !strings.HasPrefix(rows[2][9], "up by lee at ") || rows[2][10] != "" || rows[2][11] != "" {
			t.Errorf("turn 2's judgment cells are %q", rows[2][9:])
		}

		var doc struct {
			Turns []struct {
				Judgments []tuning.Judgment `json:"judgments"`
			} `json:"turns"`
		}
		if err := json.Unmarshal([]byte(c.get("/sessions/"+e.session+"/export.json").body), &doc); err != nil {
			t.Fatal(err)
		}
		var kinds []string
		for _, j := range doc.Turns[0].Judgments {
			kinds = append(kinds, j.Kind+":"+j.Author+":"+tuning.FormatValue(j.Value)+j.Text)
		}
		if !slices.Equal(kinds, []string{"rating:meg:down", "correction:meg:Say 25 days, from the handbook.", "score:meg:4", "score:lee:formaltoo stiff"}) {
			t.Errorf("turn 1's JSON judgments are %q", kinds)
		}
		if len(doc.Turns[1].Judgments) != 1 || doc.Turns[1].Judgments[0].Value != "up" {
			t.Errorf("turn 2's JSON judgments are %+v", doc.Turns[1].Judgments)
		}
	})
}

// A reviewer rates, notes and scores a turn from the session page, through
// the same calls as the chat; each form returns to the turn, and a wrong
// field is named there while nothing changes.
func TestSessionReviewForms(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		e := srOpen(t, databaseURL)
		ctx := context.Background()
		c := e.client()
		base := "/sessions/" + e.session + "/turns/2/"
		back := "/sessions/" + e.session + "#turn-2"

		r := c.post(base+"rating", url.Values{"rating": {"down"}, "correction": {"Mention the sick-leave policy."}})
		if r.StatusCode != http.StatusSeeOther || r.location() != back {
			t.Fatalf("the rating form answered %d to %q, want 303 to %q", r.StatusCode, r.location(), back)
		}
		page := c.page(back)
		if f := wsFlash(page); f == nil || f.notice != "👎 and the correction recorded on turn 2." {
			t.Errorf("after a 👎 the page says %+v", f)
		}
		if got := srJudgments(page, 2); len(got) != 2 || !strings.HasPrefix(got[0], "rating|👎 by reviewer via web") ||
			!strings.HasPrefix(got[1], "correction|Correction Mention the sick-leave policy. by reviewer") {
			t.Errorf("turn 2 shows %q", got)
		}
		ratings, err := e.App.Learning.Negative(ctx, 10)
		if err != nil || len(ratings) != 1 || ratings[0].TurnID != e.turns[1].ID || ratings[0].TesterID != "reviewer" {
			t.Errorf("the learning loop has the 👎s %+v (%v)", ratings, err)
		}
		pending, err := e.App.Learning.PendingCorrections(ctx, 10)
		if err != nil || len(pending) != 1 || pending[0].Text != "Mention the sick-leave policy." {
			t.Errorf("the corrections waiting for synthesis are %+v (%v)", pending, err)
		}

		c.follow(c.post(base+"notes", url.Values{"note": {"Cite the policy."}, "category": {"citation"}}))
		c.follow(c.post(base+"scores", url.Values{"config": {"clarity"}, "value": {"3"}, "comment": {"ok"}}))
		page = c.follow(c.post(base+"rating", url.Values{"rating": {"up"}}))
		if f := wsFlash(page); f == nil || f.notice != "👍 recorded on turn 2." {
			t.Errorf("after a 👍 the page says %+v", f)
		}
		got := srJudgments(page, 2)
		if len(got) != 4 || !strings.HasPrefix(got[2], "score|clarity 3 ok by reviewer via web") || !strings.HasPrefix(got[3], "rating|👍 by reviewer via web") {
			t.Errorf("turn 2 shows %q", got)
		}
		if !strings.Contains(page, `<span class="cat">citation</span> Cite the policy.`) {
			t.Error("the note added is not shown on its turn")
		}
		s, err := e.DB.Capture().FindSession(ctx, e.session)
		if err != nil || s.TotalImprovements != 1 {
			t.Errorf("the session counts %d notes (%v)", s.TotalImprovements, err)
		}
		list, err := e.App.UI.Scores.List(ctx, score.Query{TurnID: e.turns[1].ID, Config: "clarity"}, e.DB.Now())
		if err != nil || len(list.Scores) != 1 || list.Scores[0].Source != score.SourceWeb || list.Scores[0].Author != "reviewer" {
			t.Errorf("the clarity scores of turn 2 are %+v (%v)", list, err)
		}

		before, _ := e.App.Tuning.SessionJudgments(ctx, e.session)
		for _, tc := range []struct {
			path string
			form url.Values
			want string
		}{
			{"scores", url.Values{"config": {"clarity"}, "value": {"9"}}, "Field “value”: "},
			{"scores", url.Values{"config": {"clarity"}, "value": {"very"}}, "Field “value”: clarity takes a number, not \"very\""},
			{"scores", url.Values{"config": {"nosuch"}, "value": {"1"}}, "Field “config”: no score config is named \"nosuch\""},
			{"scores", url.Values{"value": {"1"}}, "Field “config”: "},
			{"notes", url.Values{"note": {"  "}}, "Field “note”: the note is empty"},
			{"notes", url.Values{"note": {"x"}, "category": {"mood"}}, "Field “category”: category must be one of"},
			{"rating", url.Values{"rating": {"meh"}}, "Field “rating”: rating must be up or down"},
			{"rating", url.Values{"rating": {"up"}, "correction": {"x"}}, "Field “correction”: a correction goes with 👎 only"},
		} {
			r := c.post(base+tc.path, tc.form)
			if r.StatusCode != http.StatusSeeOther || r.location() != back {
				t.Errorf("%s %v answered %d to %q", tc.path, tc.form, r.StatusCode, r.location())
				continue
			}
			page := c.page(back)
			f := wsFlash(page)
			if f == nil || !strings.HasPrefix(f.err, tc.want) {
				t.Errorf("%s %v says %+v, want %q", tc.path, tc.form, f, tc.want)
			}
			if !strings.Contains(page, `<details class="review" open>`) {
				t.Errorf("%s %v: the turn's review forms are not open beside the error", tc.path, tc.form)
			}
		}
		after, _ := e.App.Tuning.SessionJudgments(ctx, e.session)
		if len(after[e.turns[1].ID]) != len(before[e.turns[1].ID]) {
			t.Error("a refused form recorded a judgment")
		}
		if s, _ := e.DB.Capture().FindSession(ctx, e.session); s.TotalImprovements != 1 {
			t.Error("a refused note was added")
		}

		if r := c.post("/sessions/"+e.session+"/turns/9/notes", url.Values{"note": {"x"}}); r.StatusCode != http.StatusNotFound {
			t.Errorf("a note on a turn the session lacks answered %d", r.StatusCode)
		}
		if r := c.postAs(base+"notes", url.Values{"note": {"x"}}, c.sameSite()); r.StatusCode != http.StatusForbidden {
			t.Errorf("a note without the CSRF token answered %d", r.StatusCode)
		}
	})
}
