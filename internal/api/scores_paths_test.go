package api_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/honehq/hone/internal/api"
	"github.com/honehq/hone/internal/config"
	"github.com/honehq/hone/internal/learning"
	"github.com/honehq/hone/internal/quality"
	"github.com/honehq/hone/internal/score"
	"github.com/honehq/hone/internal/tuning"
	"github.com/honehq/hone/internal/workshop"
)

// turnScores lists a turn's scores, newest first.
func (s *apiServer) turnScores(turnID string) []*score.Score {
	s.t.Helper()
	var p score.Page
	s.json("GET", "/scores?turn_id="+turnID, "", http.StatusOK, "ScorePage", &p)
	return p.Scores
}

// turnOf returns the turn of a session's export, by number.
func (s *apiServer) turnOf(sessionID string, number int) tuning.Turn {
	s.t.Helper()
	ex := s.exportJSON(sessionID)
	return ex.Turns[number-1]
}

// !score and POST /turns/{id}/scores record scores of the dimensions'
// configs; the composites are what they were, and follow scores sent to
// POST /scores and deleted; a numeric config added is a !score dimension.
func TestHumanScoresAreScores(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		s := start(t, cfg)
		created := s.postTurn(turn("sc", "What is the attendance policy?", "response", goodResponse, "prompt_version", "v7"))
		obj := *s.turnOf(created.SessionID, 1).ObjectiveScore

		r := s.say("sc", "!score professionalism:4 empathy:5 clarity:5 actionability:4 compliance:5")
		if !strings.Contains(r.Text, "Subjective Quality: 0.92") {
			t.Fatalf("!score reply %q", r.Text)
		}
		list := s.turnScores(created.ID)
		if len(list) != 5 {
			t.Fatalf("!score recorded %d scores", len(list))
		}
		for _, sc := range list {
			if sc.Source != score.SourceChat || sc.Author != "meg" || sc.PromptVersion != "v7" || sc.DataType != score.Numeric {
				t.Errorf("!score recorded %+v", sc)
			}
		}
		s.json("POST", "/turns/"+created.ID+"/scores", `{"scores":{"empathy":1}}`, http.StatusOK, "TurnScores", nil)
		if sc := s.turnScores(created.ID)[0]; sc.Config != "empathy" || sc.Value != 1.0 || sc.Source != score.SourceAPI || sc.Author != "" {
			t.Fatalf("POST /turns/{id}/scores recorded %+v", sc)
		}
		subj := (4 + 1 + 5 + 4 + 5) / 25.0
		if got := s.turnOf(created.SessionID, 1); got.Scores["empathy"] != 1 || !near(got.SubjectiveScore, subj) {
			t.Fatalf("after POST /turns/{id}/scores: %v %v", got.Scores, show(got.SubjectiveScore))
		}

		// A score of a dimension sent to POST /scores is a human score too.
		var clarity score.Score
		s.json("POST", "/scores", fmt.Sprintf(`{"turn_id":%q,"config":"clarity","value":2,"author":"ann"}`, created.ID), http.StatusCreated,
			"Score", &clarity)
		subj = (4 + 1 + 2 + 4 + 5) / 25.0
		got := s.turnOf(created.SessionID, 1)
		if got.Scores["clarity"] != 2 || !near(got.SubjectiveScore, subj) || !near(got.OverallScore, 0.4*obj+0.6*subj) {
			t.Fatalf("after POST /scores: %v %v %v", got.Scores, show(got.SubjectiveScore), show(got.OverallScore))
		}
		// Deleting it gives back the clarity given before.
		if res, b := s.call("DELETE", "/scores/"+clarity.ID, ""); res.StatusCode != http.StatusNoContent {
			t.Fatalf("delete: %d %s", res.StatusCode, b)
		}
		subj = (4 + 1 + 5 + 4 + 5) / 25.0
		if got := s.turnOf(created.SessionID, 1); got.Scores["clarity"] != 5 || !near(got.SubjectiveScore, subj) {
			t.Fatalf("after the delete: %v %v", got.Scores, show(got.SubjectiveScore))
		}
		var rep struct {
			Metrics []struct {
				Name string   `json:"name"`
				Mean *float64 `json:"mean"`
			} `json:"metrics"`
		}
		s.json("GET", "/metrics/sessions/"+created.SessionID, "", http.StatusOK, "SessionMetrics", &rep)
		for _, m := range rep.Metrics {
			if m.Name == "subjective_quality_score" && !near(m.Mean, subj) {
				t.Errorf("session subjective mean %v, want %v", show(m.Mean), subj)
			}
		}
		// Deleting every score of a dimension leaves it unscored.
		for _, sc := range s.turnScores(created.ID) {
			if sc.Config == "compliance" {
				s.call("DELETE", "/scores/"+sc.ID, "")
			}
		}
		if got := s.turnOf(created.SessionID, 1); len(got.Scores) != 4 || got.Scores["compliance"] != 0 || !near(got.SubjectiveScore, 14/20.0) {
			t.Fatalf("without compliance: %v %v", got.Scores, show(got.SubjectiveScore))
		}

		// A numeric config added is a !score dimension; the composites
		// stay the metric set's.
		s.json("POST", "/score-configs", `{"name":"helpfulness","data_type":"numeric","min":0,"max":10,"step":0.5}`, http.StatusCreated, "ScoreConfig", nil)
		r = s.say("sc", "!score helpfulness:7.5 clarity:3")
		if !strings.HasPrefix(r.Text, "✅") {
			t.Fatalf("!score helpfulness: %q", r.Text)
		}
		if sc := s.turnScores(created.ID); sc[0].Config != "clarity" || sc[1].Config != "helpfulness" || sc[1].Value != 7.5 {
			t.Fatalf("recorded %+v %+v", sc[0], sc[1])
		}
		if got := s.turnOf(created.SessionID, 1); got.Scores["helpfulness"] != 0 || got.Scores["clarity"] != 3 || !near(got.SubjectiveScore, 12/20.0) {
			t.Fatalf("composites with helpfulness: %v %v", got.Scores, show(got.SubjectiveScore))
		}
		for _, bad := range []string{"!score helpfulness:11", "!score helpfulness:7.25", "!score kindness:4", "!score thumbs:1"} {
			r := s.say("sc", bad)
			if !strings.HasPrefix(r.Text, "⚠️") || !strings.Contains(r.Text, "professionalism, empathy, clarity, actionability, compliance, each a whole number from 1 to 5") ||
				!strings.Contains(r.Text, "helpfulness, a number in steps of 0.5 from 0 to 10") {
				t.Errorf("%s: %q", bad, r.Text)
			}
		}
		if help := s.say("sc", "!help"); !strings.Contains(help.Text, "any numeric score config added") {
			t.Errorf("!help does not say that numeric configs are !score dimensions:\n%s", help.Text)
		}
		// An archived dimension is no longer offered.
		s.json("PATCH", "/score-configs/empathy", `{"archived":true}`, http.StatusOK, "ScoreConfig", nil)
		if r := s.say("sc", "!score empathy:3"); !strings.Contains(r.Text, `unknown score "empathy"`) {
			t.Errorf("an archived dimension: %q", r.Text)
		}
		s.wantError("POST", "/turns/"+created.ID+"/scores", `{"scores":{"empathy":3}}`, http.StatusBadRequest, "invalid", "scores")
	})
}

// 👍/👎 in a chat and through POST /turns/{id}/feedback are scores of
// config thumbs; a thumbs score sent to POST /scores is a rating; the
// statistics count the latest of each tester and turn, as before.
func TestRatingsAreScores(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		s := start(t, cfg)
		t1 := s.postTurn(turn("c1", "q1"))
		t2 := s.postTurn(turn("c2", "q2"))
		if r := s.say("c1", "👍"); !r.Ack {
			t.Fatalf("👍: %+v", r)
		}
		if r := s.say("c1", "👎"); r.Text != learning.AskCorrectionText {
			t.Fatalf("👎: %+v", r)
		}
		list := s.turnScores(t1.ID)
		if len(list) != 2 || list[0].Config != score.Thumbs || list[0].Value != false || list[1].Value != true ||
			list[0].Source != score.SourceChat || list[0].Author != "meg" {
			t.Fatalf("the chat's ratings: %+v %+v", list[0], list[1])
		}
		s.json("POST", "/turns/"+t2.ID+"/feedback", `{"tester_id":"ann","rating":"up","intent":"policy"}`, http.StatusOK, "RatingAnswer", nil)
		if sc := s.turnScores(t2.ID); len(sc) != 1 || sc[0].Source != score.SourceAPI || sc[0].Author != "ann" || sc[0].Value != true {
			t.Fatalf("the API's rating: %+v", sc)
		}
		stats := func() learning.Stats {
			var st learning.Stats
			s.json("GET", "/feedback/stats", "", http.StatusOK, "FeedbackStats", &st)
			return st
		}
		if st := stats(); st.Total != 2 || st.Up != 1 || st.Down != 1 || len(st.ByIntent) != 1 {
			t.Fatalf("stats %+v", st)
		}
		// A thumbs score by an author, sent to POST /scores, is their rating.
		var bob score.Score
		s.json("POST", "/scores", fmt.Sprintf(`{"turn_id":%q,"config":"thumbs","value":false,"author":"bob"}`, t2.ID), http.StatusCreated, "Score", &bob)
		if st := stats(); st.Total != 3 || st.Down != 2 {
			t.Fatalf("stats with bob's 👎: %+v", st)
		}
		var neg api.RatingList
		s.json("GET", "/feedback/negative", "", http.StatusOK, "RatingList", &neg)
		if len(neg.Ratings) != 2 || neg.Ratings[0].TesterID != "bob" || neg.Ratings[0].TurnID != t2.ID {
			t.Fatalf("negative %+v", neg.Ratings)
		}
		// Deleting bob's only rating removes it; meg's 👎, with a
		// correction, stays.
		if res, b := s.call("DELETE", "/scores/"+bob.ID, ""); res.StatusCode != http.StatusNoContent {
			t.Fatalf("delete bob's: %d %s", res.StatusCode, b)
		}
		if st := stats(); st.Total != 2 || st.Down != 1 {
			t.Fatalf("stats without bob's: %+v", st)
		}
		s.say("c1", "You should have named the policy.")
		var corr api.CorrectionList
		s.json("GET", "/feedback/corrections", "", http.StatusOK, "CorrectionList", &corr)
		if len(corr.Corrections) != 1 {
			t.Fatalf("corrections %+v", corr)
		}
		// Deleting meg's 👎 makes her 👍 before it her rating again; her
		// last 👍, whose rating has a correction, is not deleted.
		list = s.turnScores(t1.ID)
		if res, b := s.call("DELETE", "/scores/"+list[0].ID, ""); res.StatusCode != http.StatusNoContent {
			t.Fatalf("delete meg's 👎: %d %s", res.StatusCode, b)
		}
		if st := stats(); st.Total != 2 || st.Up != 2 {
			t.Fatalf("stats with meg's 👍 again: %+v", st)
		}
		s.wantError("DELETE", "/scores/"+list[1].ID, "", http.StatusConflict, "conflict", "")
		if st := stats(); st.Total != 2 || st.Up != 2 || len(s.turnScores(t1.ID)) != 1 {
			t.Fatalf("a refused delete changed something: %+v", st)
		}
	})
}

// A workshop's GOOD/BAD labels are scores of config workshop_label, by the
// member, with the comment; a label a member sends to POST /scores is
// their feedback, one by someone else only a score; agreement counts the
// members'.
func TestLabelsAreScores(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		s := start(t, cfg)
		doc := confDoc(t)
		anyone := s.as(t, doc, "")
		w := anyone.createWorkshop("labels")
		alice := anyone.addMember(w.ID, "Alice", "participant")
		bob := anyone.addMember(w.ID, "Bob", "participant")
		anyone.importJSON(w.ID, map[string]any{"id": "t1", "input": "q1", "output": "a1"}, map[string]any{"id": "t2", "input": "q2", "output": "a2"})
		anyone.json("POST", "/workshops/"+w.ID+"/begin-discovery", "", http.StatusOK, "Workshop", nil)
		s.as(t, doc, alice.Token).feedback(w.ID, "t1", "good", "Clear and kind.")
		s.as(t, doc, alice.Token).feedback(w.ID, "t1", "bad", "On second thought, vague.")
		var p score.Page
		s.json("GET", "/scores?workshop_id="+w.ID+"&trace_id=t1", "", http.StatusOK, "ScorePage", &p)
		if len(p.Scores) != 2 || p.Scores[0].Value != "BAD" || p.Scores[0].Comment != "On second thought, vague." ||
			p.Scores[0].Author != alice.ID || p.Scores[0].Source != score.SourceWorkshop || p.Scores[1].Value != "GOOD" {
			t.Fatalf("alice's labels %+v", p.Scores)
		}
		agreement := func() workshop.Agreement {
			var a workshop.Agreement
			anyone.json("GET", "/workshops/"+w.ID+"/agreement", "", http.StatusOK, "Agreement", &a)
			return a
		}
		// Bob labels through POST /scores: his feedback, counted.
		var bobs score.Score
		s.json("POST", "/scores", fmt.Sprintf(`{"workshop_id":%q,"trace_id":"t1","config":"workshop_label","value":"good","author":%q}`,
			w.ID, bob.ID), http.StatusCreated, "Score", &bobs)
		// A judge that is no member: a score, not feedback.
		s.json("POST", "/scores", fmt.Sprintf(`{"workshop_id":%q,"trace_id":"t1","config":"workshop_label","value":"GOOD","author":"judge","source":"llm"}`,
			w.ID), http.StatusCreated, "Score", nil)
		a := agreement()
		if len(a.Traces) != 1 || a.Traces[0].Reviewers != 2 || a.Traces[0].Labels["good"] != 1 || a.Traces[0].Labels["bad"] != 1 {
			t.Fatalf("agreement %+v", a.Traces)
		}
		var list api.FeedbackList
		anyone.json("GET", "/workshops/"+w.ID+"/discovery-feedback", "", http.StatusOK, "FeedbackList", &list)
		if len(list.Feedback) != 2 {
			t.Fatalf("feedback %+v", list.Feedback)
		}
		// Deleting alice's BAD gives back her GOOD and its comment.
		if res, b := s.call("DELETE", "/scores/"+p.Scores[0].ID, ""); res.StatusCode != http.StatusNoContent {
			t.Fatalf("delete: %d %s", res.StatusCode, b)
		}
		if a := agreement(); a.Traces[0].Labels["good"] != 2 {
			t.Fatalf("agreement after the delete %+v", a.Traces)
		}
		anyone.json("GET", "/workshops/"+w.ID+"/discovery-feedback?user_id="+alice.ID, "", http.StatusOK, "FeedbackList", &list)
		if len(list.Feedback) != 1 || list.Feedback[0].Label != "good" || list.Feedback[0].Comment != "Clear and kind." {
			t.Fatalf("alice's feedback after the delete %+v", list.Feedback)
		}
		// A member's last label, whose feedback stands, is not deleted.
		s.wantError("DELETE", "/scores/"+p.Scores[1].ID, "", http.StatusConflict, "conflict", "")
		s.wantError("DELETE", "/scores/"+bobs.ID, "", http.StatusConflict, "conflict", "")
	})
}

// Concurrent scores of one turn's dimensions, by !score, POST /turns/{id}/scores
// and POST /scores, leave the composites what the latest score of each
// dimension gives.
func TestConcurrentScoresKeepTheComposites(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		s := start(t, cfg)
		created := s.postTurn(turn("cc", "What is the attendance policy?", "response", goodResponse))
		names := quality.Builtin("era-hr").SubjectiveNames()
		var wg sync.WaitGroup
		for round := range 4 {
			for i, n := range names {
				wg.Go(func() {
					s := *s
					s.t = t
					v := 1 + (i+round)%5
					var res *http.Response
					var b []byte
					switch round % 3 {
					case 0:
						res, b = s.call("POST", "/messages", fmt.Sprintf(`{"conversation_id":"cc","tester_id":"t%d","text":"!score %s:%d"}`, i, n, v))
					case 1:
						res, b = s.call("POST", "/turns/"+created.ID+"/scores", fmt.Sprintf(`{"scores":{%q:%d}}`, n, v))
					default:
						res, b = s.call("POST", "/scores", fmt.Sprintf(`{"turn_id":%q,"config":%q,"value":%d}`, created.ID, n, v))
					}
					if res.StatusCode >= 300 {
						t.Errorf("%d %s", res.StatusCode, b)
					}
				})
			}
		}
		wg.Wait()
		latest := map[string]int{}
		for _, sc := range s.turnScores(created.ID) {
			if _, ok := latest[sc.Config]; !ok {
				latest[sc.Config] = int(sc.Value.(float64))
			}
		}
		got := s.turnOf(created.SessionID, 1)
		c := quality.Builtin("era-hr").Composite(got.ObjectiveScore, latest)
		if len(latest) != 5 || fmt.Sprint(got.Scores) != fmt.Sprint(latest) || !near(got.SubjectiveScore, *c.Subjective) || !near(got.OverallScore, *c.Overall) {
			t.Fatalf("the turn holds %v (%v), its latest scores are %v (%v)", got.Scores, show(got.SubjectiveScore), latest, *c.Subjective)
		}
	})
}
