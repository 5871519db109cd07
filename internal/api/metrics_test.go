package api_test

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"

	"github.com/honehq/hone/internal/api"
	"github.com/honehq/hone/internal/config"
	"github.com/honehq/hone/internal/quality"
	"github.com/honehq/hone/internal/scoring"
)

// TestScoreEndpointSpecExamples posts the spec's ✅ and ❌ examples to
// POST /score and checks each metric they illustrate.
func TestScoreEndpointSpecExamples(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		s := start(t, cfg)
		one, zero := 1.0, 0.0
		for _, c := range []struct {
			metric string
			body   map[string]any
			want   *float64
		}{
			{"has_policy_citation", map[string]any{"response": "Per our No Call No Show policy, employees who miss three consecutive shifts..."}, &one},
			{"has_policy_citation", map[string]any{"response": "According to the Attendance Policy, managers should..."}, &one},
			{"has_policy_citation", map[string]any{"response": "You should call the employee and document the absence."}, &zero},
			{"appropriate_action_suggested", map[string]any{"response": "I recommend you call the employee to discuss this situation."}, &one},
			{"appropriate_action_suggested", map[string]any{"response": "Would you like me to help draft an email to the employee?"}, &one},
			{"appropriate_action_suggested", map[string]any{"response": "This should be escalated to HR for FMLA review."}, &one},
			{"appropriate_action_suggested", map[string]any{"response": "That's a tough situation."}, &zero},
			{"sequential_action_correct", map[string]any{"response": "Since you need to call the employee, would you like me to schedule that call?"}, &one},
			{"sequential_action_correct", map[string]any{"response": "You should call the employee. Would you also like me to draft a follow-up email?"}, &zero},
			{"asks_clarifying_questions", map[string]any{"query": "My employee didn't show up", "is_first_response": true,
				"response": "I'm sorry to hear that. How many shifts has the employee missed?"}, &one},
			{"asks_clarifying_questions", map[string]any{"query": "My employee didn't show up", "is_first_response": true,
				"response": "Here's what to do: document it. Did they call?"}, &zero},
			{"asks_clarifying_questions", map[string]any{"query": "What does the attendance policy say?", "is_first_response": true,
				"response": "Could you tell me more?"}, nil},
			{"asks_clarifying_questions", map[string]any{"query": "My employee didn't show up", "is_first_response": false,
				"response": "How many shifts?"}, nil},
			{"processing_time_acceptable", map[string]any{"response": "ok", "processing_time_ms": 1850}, &one},
			{"processing_time_acceptable", map[string]any{"response": "ok", "processing_time_ms": 3000}, &zero},
			{"processing_time_acceptable", map[string]any{"response": "ok"}, nil},
			{"rag_similarity_score", map[string]any{"response": "ok", "search_results": []any{map[string]any{"chunk_text": "a", "similarity": 0.8},
				map[string]any{"chunk_text": "b", "similarity": 0.6}}}, ptr(0.7)},
			{"rag_similarity_score", map[string]any{"response": "ok"}, nil},
			{"response_length_appropriate", map[string]any{"response": strings.Repeat("word ", 150)}, &one},
			{"response_length_appropriate", map[string]any{"response": "too short"}, &zero},
		} {
			var out struct {
				Metrics map[string]*float64 `json:"metrics"`
			}
			s.json("POST", "/score", mustJSON(t, c.body), http.StatusOK, "ScoreResult", &out)
			if len(out.Metrics) != len(quality.Builtin("era-hr").MetricNames())+1 {
				t.Errorf("%v: %d metrics, want the nine and objective_quality_score", c.body, len(out.Metrics))
			}
			got, ok := out.Metrics[c.metric]
			if !ok || (got == nil) != (c.want == nil) || got != nil && math.Abs(*got-*c.want) > 1e-9 {
				t.Errorf("%s of %v = %v, want %v", c.metric, c.body, show(got), show(c.want))
			}
			// objective_quality_score is the mean of the metrics that apply.
			var sum float64
			var n int
			for k, v := range out.Metrics {
				if k != scoring.ObjectiveName && v != nil {
					sum += *v
					n++
				}
			}
			if obj := out.Metrics[scoring.ObjectiveName]; obj == nil || math.Abs(*obj-sum/float64(n)) > 1e-9 {
				t.Errorf("objective_quality_score %v, want %v", show(obj), sum/float64(n))
			}
		}
		s.wantError("POST", "/score", `{"query":"q"}`, http.StatusBadRequest, "invalid", "response")
		s.wantError("POST", "/score", `{"response":"r","processing_time_ms":-1}`, http.StatusBadRequest, "invalid", "processing_time_ms")
		s.wantError("POST", "/score", `{"response":"r","bogus":1}`, http.StatusBadRequest, "invalid", "bogus")
	})
}

func ptr(v float64) *float64 { return &v }

func show(p *float64) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprint(*p)
}

// goodResponse scores well on the default set's objective metrics.
const goodResponse = "Got it — that's a difficult situation. Per our No Call No Show policy, employees who miss three consecutive shifts are considered to have resigned. Here's what I recommend: 1. Document each absence. 2. Try to reach the employee by phone today."

func TestScoreCommandAndTurnScores(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		s := start(t, cfg)
		if r := s.say("sc", "!score clarity:4"); r.Text != scoring.NoTurnText || !r.Command {
			t.Fatalf("!score before any turn: %+v", r)
		}
		ms := 1200.0
		created := s.postTurn(turn("sc", "What is the attendance policy?", "response", goodResponse, "processing_time_ms", ms))
		want := quality.Builtin("era-hr").Evaluate(quality.Input{Query: "What is the attendance policy?", Response: goodResponse,
			ProcessingTimeMS: &ms, IsFirstResponse: true})
		obj := *want.Objective

		// A bad score: the reply names the valid scores and the range, nothing is saved.
		for _, bad := range []string{"!score kindness:4", "!score clarity:6", "!score clarity:0", "!score clarity:four", "!score"} {
			r := s.say("sc", bad)
			if !strings.HasPrefix(r.Text, "⚠️") || !strings.Contains(r.Text, "professionalism, empathy, clarity, actionability, compliance") ||
				!strings.Contains(r.Text, "from 1 to 5") {
				t.Errorf("%s: %q", bad, r.Text)
			}
		}
		ex := s.exportJSON(created.SessionID)
		if len(ex.Turns[0].Scores) != 0 || ex.Turns[0].SubjectiveScore != nil {
			t.Fatalf("a refused !score saved %v", ex.Turns[0].Scores)
		}

		r := s.say("sc", "!score professionalism:4 empathy:5 clarity:5 actionability:4 compliance:5")
		wantText := fmt.Sprintf("✅ Subjective scores added!\n\nObjective Quality: %.2f\nSubjective Quality: 0.92\nOverall Quality: %.2f",
			obj, 0.4*obj+0.6*0.92)
		if r.Text != wantText || r.SessionID != created.SessionID {
			t.Fatalf("!score reply %q, want %q", r.Text, wantText)
		}
		// Re-scoring replaces per name through the API.
		var ts api.TurnScores
		s.json("POST", "/turns/"+created.ID+"/scores", `{"scores":{"Clarity_Score":3,"empathy":1}}`, http.StatusOK, "TurnScores", &ts)
		subj := (4 + 1 + 3 + 4 + 5) / 25.0
		if ts.TurnID != created.ID || ts.TurnNumber != 1 || len(ts.Scores) != 5 || ts.Scores["clarity"] != 3 ||
			!near(ts.Subjective, subj) || !near(ts.Overall, 0.4*obj+0.6*subj) || !near(ts.Objective, obj) {
			t.Fatalf("re-scored %+v", ts)
		}
		s.wantError("POST", "/turns/"+created.ID+"/scores", `{"scores":{"clarity":6}}`, http.StatusBadRequest, "invalid", "scores")
		e := s.wantError("POST", "/turns/"+created.ID+"/scores", `{"scores":{"kindness":3}}`, http.StatusBadRequest, "invalid", "scores")
		if !strings.Contains(e.Message, "professionalism, empathy, clarity, actionability, compliance") {
			t.Errorf("error %q does not list the scores", e.Message)
		}
		s.wantError("POST", "/turns/"+created.ID+"/scores", `{"scores":{}}`, http.StatusBadRequest, "invalid", "scores")
		s.wantError("POST", "/turns/nosuch/scores", `{"scores":{"clarity":3}}`, http.StatusNotFound, "not_found", "")

		ex = s.exportJSON(created.SessionID)
		got := ex.Turns[0]
		if got.Scores["empathy"] != 1 || !near(got.OverallScore, 0.4*obj+0.6*subj) || !near(got.ObjectiveScore, obj) {
			t.Errorf("export turn %+v", got)
		}
		var m quality.Result
		if err := json.Unmarshal(got.Metrics, &m); err != nil || len(m.Metrics) != 9 {
			t.Fatalf("export metrics %s: %v", got.Metrics, err)
		}
		for _, v := range want.Metrics {
			g, _ := m.Get(v.Name)
			if (g == nil) != (v.Score == nil) || g != nil && !near(g, *v.Score) {
				t.Errorf("exported %s = %v, want %v", v.Name, show(g), show(v.Score))
			}
		}
		if g, _ := m.Get("asks_clarifying_questions"); g != nil {
			t.Errorf("asks_clarifying_questions of a hypothetical question = %v, want N/A (null)", *g)
		}
		rows := parseCSV(t, s.exportCSV(created.SessionID))
		if row := rows[1]; row[5] != fmt.Sprintf("%.2f", obj) || row[6] != fmt.Sprintf("%.2f", subj) || row[7] != fmt.Sprintf("%.2f", 0.4*obj+0.6*subj) {
			t.Errorf("CSV row %q", row)
		}
		if help := s.say("sc", "!help"); !strings.Contains(help.Text, "`!score professionalism:<1-5> …`") {
			t.Errorf("!help lacks !score:\n%s", help.Text)
		}
	})
}

func near(p *float64, want float64) bool { return p != nil && math.Abs(*p-want) < 1e-9 }

func TestMetricsComparisons(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		s := start(t, cfg)
		// v1: six turns scored 5; v2 (later): six scored 1 or 2; v3: too few.
		var v1Session string
		for i, v := range []struct {
			version string
			n       int
			score   func(i int) int
		}{
			{"v1", 6, func(int) int { return 5 }},
			{"v2", 6, func(i int) int { return 1 + i%2 }},
			{"v3", 2, func(int) int { return 5 }},
		} {
			conv := fmt.Sprintf("cmp%d", i)
			for j := range v.n {
				tc := s.postTurn(turn(conv, fmt.Sprintf("question %d", j), "prompt_version", v.version, "response", goodResponse))
				if v.version == "v1" {
					v1Session = tc.SessionID
				}
				s.json("POST", "/turns/"+tc.ID+"/scores", fmt.Sprintf(`{"scores":{"clarity":%d}}`, v.score(j)), http.StatusOK, "TurnScores", nil)
			}
		}
		s.postTurn(turn("cmp0", "unscored", "prompt_version", "v1", "response", goodResponse))

		var rep scoring.SessionReport
		s.json("GET", "/metrics/sessions/"+v1Session, "", http.StatusOK, "SessionMetrics", &rep)
		if rep.Turns != 7 || rep.PromptVersion != "v1" || len(rep.Metrics) != 12 || rep.Metrics[0].Name != "has_policy_citation" {
			t.Fatalf("session report %+v", rep)
		}
		last := rep.Metrics[11]
		if last.Name != scoring.OverallName || last.N != 6 || rep.Metrics[10].N != 6 || !near(rep.Metrics[10].Mean, 1) || rep.Metrics[9].N != 7 {
			t.Errorf("composites %+v", rep.Metrics[9:])
		}
		if rep.Metrics[5].Name != "asks_clarifying_questions" || rep.Metrics[5].N != 0 || rep.Metrics[5].Mean != nil {
			t.Errorf("N/A metric %+v", rep.Metrics[5])
		}
		s.wantError("GET", "/metrics/sessions/nosuch", "", http.StatusNotFound, "not_found", "")

		var c scoring.Comparison
		s.json("GET", "/metrics/compare?a=v1&b=v2", "", http.StatusOK, "VersionComparison", &c)
		if c.TurnsA != 7 || c.TurnsB != 6 || !strings.Contains(c.Test, "bootstrap CI + Mann–Whitney") || len(c.Metrics) != 12 {
			t.Fatalf("comparison %+v", c)
		}
		overall := c.Metrics[11]
		if overall.Name != scoring.OverallName || overall.NA != 6 || overall.NB != 6 || !overall.Significant ||
			overall.Difference == nil || *overall.Difference >= 0 || *overall.CIHigh >= 0 || overall.PValue >= 0.05 {
			t.Errorf("overall %+v", overall)
		}
		if obj := c.Metrics[9]; obj.Significant || !near(obj.Difference, 0) {
			t.Errorf("objective of the same response differs: %+v", obj)
		}
		s.wantError("GET", "/metrics/compare?a=v1", "", http.StatusBadRequest, "invalid", "b")
		s.wantError("GET", "/metrics/compare?a=v1&b=nosuch", "", http.StatusNotFound, "not_found", "")

		var reg scoring.RegressionReport
		s.json("GET", "/metrics/regressions", "", http.StatusOK, "RegressionReport", &reg)
		if len(reg.Steps) != 2 || reg.Steps[0].Previous != "v1" || reg.Steps[0].Version != "v2" || !reg.Steps[0].Regressed ||
			reg.Steps[1].Version != "v3" || reg.Steps[1].Regressed || len(reg.Regressions) != 1 || reg.Regressions[0].Version != "v2" {
			t.Errorf("regressions %+v", reg)
		}
	})
}
