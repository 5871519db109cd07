package web_test

import (
	"context"
	"fmt"
	"github.com/honehq/hone/internal/capture"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/honehq/hone/internal/browsertest"
	"github.com/honehq/hone/internal/quality"
	"github.com/honehq/hone/internal/scoring"
)

const scoredResponse = "Got it — that's a difficult situation. Per our No Call No Show policy, employees who miss three consecutive shifts are considered to have resigned. Here's what I recommend: 1. Document each absence. 2. Try to reach the employee by phone today."

// seedScored records measured turns of v1 (scored 5 and 4) and v2 (one
// turn scored 2, one unscored) and returns v1's session and first turn.
func (a *testApp) seedScored() (string, *capture.Turn, float64) {
	a.t.Helper()
	ctx := context.Background()
	ms := 900.0
	var first *capture.Turn
	for i, v := range []struct {
		version, at string
		scores      []map[string]int
	}{
		{"v1", "09:00:00", []map[string]int{{"professionalism": 5, "clarity": 4}, {"clarity": 4}}},
		{"v2", "10:00:00", []map[string]int{{"clarity": 2}, nil}},
	} {
		a.at(v.at)
		for j, sc := range v.scores {
			tr, _, err := a.Turns.Record(ctx, capture.TurnInput{ConversationID: fmt.Sprintf("m%d", i), TesterID: "meg",
				UserMessage: fmt.Sprintf("What is the attendance policy? %d", j), Response: scoredResponse,
				PromptVersion: v.version, ProcessingTimeMS: &ms}, "")
			if err != nil {
				a.t.Fatal(err)
			}
			if first == nil {
				first = tr
			}
			if sc != nil {
				if _, err := a.Scoring.ScoreTurn(ctx, scoring.TurnRef{TurnID: tr.ID}, sc, scoring.Judge{}); err != nil {
					a.t.Fatal(err)
				}
			}
		}
	}
	return first.SessionID, first, *first.ObjectiveScore
}

func TestBrowserSessionScores(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		a := openApp(t, databaseURL)
		session, first, obj := a.seedScored()
		a.listen()
		b := browsertest.New(t)
		if status := b.NavigateStatus(a.base + "/sessions/" + session); status != http.StatusOK {
			t.Fatalf("session page = %d", status)
		}
		type scores struct {
			Composites map[string]string
			Human      []string
			Metrics    [][]string
			NA         []string
		}
		got := browsertest.Eval[[]scores](b, `Array.from(document.querySelectorAll("ol.turns li.turn"), li => ({
			Composites: Object.fromEntries(Array.from(li.querySelectorAll(".scores dl.composites dt"), dt => [dt.innerText.trim(), dt.nextElementSibling.innerText.trim()])),
			Human: Array.from(li.querySelectorAll(".scores li.human-score"), x => x.innerText.trim()),
			Metrics: Array.from(li.querySelectorAll(".scores li.metric"), x => [x.dataset.name, x.querySelector(".v").innerText.trim(), x.title]),
			NA: Array.from(li.querySelectorAll(".scores li.metric.na"), x => x.dataset.name),
		}))`)
		if len(got) != 2 {
			t.Fatalf("%d turns shown, want 2", len(got))
		}
		subj := (5 + 4) / 10.0
		want := map[string]string{"Objective": fmt.Sprintf("%.2f", obj), "Subjective": fmt.Sprintf("%.2f", subj),
			"Overall": fmt.Sprintf("%.2f", 0.4*obj+0.6*subj)}
		for k, v := range want {
			if got[0].Composites[k] != v {
				t.Errorf("turn 1 %s = %q, want %q", k, got[0].Composites[k], v)
			}
		}
		if !slices.Equal(got[0].Human, []string{"clarity 4/5", "professionalism 5/5"}) {
			t.Errorf("turn 1 human scores %q", got[0].Human)
		}
		metrics := quality.Default().Metrics()
		if len(got[0].Metrics) != len(metrics) {
			t.Fatalf("turn 1 metrics %q", got[0].Metrics)
		}
		for i, m := range got[0].Metrics {
			if m[0] != metrics[i].Name {
				t.Errorf("metric %d = %q, want %q", i, m[0], metrics[i].Name)
			}
			if want := metrics[i].Name + ": " + metrics[i].Description; m[2] != want {
				t.Errorf("metric %s explains itself as %q, want %q", m[0], m[2], want)
			}
		}
		if !slices.Contains(got[0].NA, "cites_context") || !slices.Contains(got[0].NA, "asks_clarifying_question") {
			t.Errorf("N/A metrics %q", got[0].NA)
		}
		for _, m := range got[0].Metrics {
			if na := slices.Contains(got[0].NA, m[0]); na != (m[1] == "N/A") {
				t.Errorf("metric %s shows %q", m[0], m[1])
			}
		}
		if first.Number != 1 || got[1].Composites["Subjective"] != "0.80" || len(got[1].Human) != 1 {
			t.Errorf("turn 2 %+v", got[1])
		}
		if logs := b.Logs(); len(logs) != 0 {
			t.Errorf("console: %q", logs)
		}
	})
}

func TestBrowserMetricsPage(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		a := openApp(t, databaseURL)
		_, _, obj := a.seedScored()
		a.listen()
		b := browsertest.New(t)
		b.Navigate(a.base + "/")
		if status := b.ClickNavigate(`header nav a[href="/quality"]`); status != http.StatusOK {
			t.Fatalf("metrics page = %d", status)
		}
		if got := b.Title(); got != "Metrics · hone" {
			t.Errorf("title %q", got)
		}
		rows := browsertest.Eval[[][]string](b, `Array.from(document.querySelectorAll("table.versions tbody tr"),
			tr => Array.from(tr.cells, td => td.innerText.trim()))`)
		o := fmt.Sprintf("%.2f", obj)
		want := [][]string{
			{"v1", "2025-03-01 09:00:00 UTC", "1", "2", o + " (2)", "0.85 (2)", fmt.Sprintf("%.2f (2)", 0.4*obj+0.6*0.85)},
			{"v2", "2025-03-01 10:00:00 UTC", "1", "2", o + " (2)", "0.40 (1)", fmt.Sprintf("%.2f (1)", 0.4*obj+0.6*0.4)},
		}
		if !slices.EqualFunc(rows, want, slices.Equal) {
			t.Errorf("versions table\n got %q\nwant %q", rows, want)
		}
		series := browsertest.Eval[map[string]int](b, `Object.fromEntries(Array.from(document.querySelectorAll("#metrics-chart g.series"),
			g => [g.dataset.series, g.querySelectorAll("circle").length]))`)
		if series["overall"] != 2 || series["objective"] != 2 || series["subjective"] != 2 {
			t.Errorf("chart dots per series %v", series)
		}
		// The overall line falls from v1 to v2: in SVG, y grows downwards.
		ys := browsertest.Eval[[]float64](b, `Array.from(document.querySelectorAll("#metrics-chart g.overall circle"), c => c.cy.baseVal.value)`)
		if len(ys) != 2 || ys[1] <= ys[0] {
			t.Errorf("overall dots at y %v, want the second lower", ys)
		}
		titles := browsertest.Eval[[]string](b, `Array.from(document.querySelectorAll("#metrics-chart g.subjective title"), t => t.textContent)`)
		if !slices.Equal(titles, []string{"v1 Subjective: 0.85", "v2 Subjective: 0.40"}) {
			t.Errorf("subjective dot titles %q", titles)
		}
		labels := browsertest.Eval[[]string](b, `Array.from(document.querySelectorAll("#metrics-chart text.xtick"), t => t.textContent)`)
		if !slices.Equal(labels, []string{"v1", "v2"}) {
			t.Errorf("x labels %q", labels)
		}
		if legend := b.Text("figcaption.legend"); !strings.Contains(legend, "Overall") || !strings.Contains(legend, "Subjective") {
			t.Errorf("legend %q", legend)
		}
		if logs := b.Logs(); len(logs) != 0 {
			t.Errorf("console: %q", logs)
		}
	})
}

// TestQualityPageMoved: the quality page's old address sends a browser to
// its new one, query and all (Prometheus gets its metrics there).
func TestQualityPageMoved(t *testing.T) {
	a := openApp(t, "")
	a.listen()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, _ := http.NewRequest(http.MethodGet, a.base+"/metrics?version=v1", nil)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusMovedPermanently || res.Header.Get("Location") != "/quality?version=v1" {
		t.Errorf("GET /metrics = %d to %q, want 301 to /quality?version=v1", res.StatusCode, res.Header.Get("Location"))
	}
}
