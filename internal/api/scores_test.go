package api_test

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/honehq/hone/internal/api"
	"github.com/honehq/hone/internal/config"
	"github.com/honehq/hone/internal/ndjson"
	"github.com/honehq/hone/internal/score"
)

// scoreBatch posts a batch of scores and requires the status and the
// documented answer.
func (s *apiServer) scoreBatch(body, contentType string, status int) api.ScoreBatchAnswer {
	s.t.Helper()
	res, b := s.send("POST", "/scores", body, http.Header{"Content-Type": {contentType}})
	if res.StatusCode != status {
		s.t.Fatalf("POST /scores: %d, want %d: %.500s", res.StatusCode, status, b)
	}
	validate(s.t, "ScoreBatchAnswer", b)
	var out api.ScoreBatchAnswer
	if err := json.Unmarshal(b, &out); err != nil {
		s.t.Fatal(err)
	}
	return out
}

func TestScoreConfigsAPI(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		s := start(t, cfg)
		var list api.ScoreConfigList
		s.json("GET", "/score-configs", "", http.StatusOK, "ScoreConfigList", &list)
		var names []string
		for _, c := range list.Configs {
			names = append(names, c.Name)
		}
		if want := []string{"actionability", "clarity", "compliance", "empathy", "professionalism", "thumbs", "workshop_label"}; !slices.Equal(names, want) {
			t.Fatalf("built-ins %v, want %v", names, want)
		}
		var c score.Config
		s.json("POST", "/score-configs", `{"name":"Helpfulness","data_type":"numeric","min":1,"max":10,"step":1,"description":"Did it help?"}`,
			http.StatusCreated, "ScoreConfig", &c)
		if c.Name != "helpfulness" || c.Version != 1 || c.BuiltIn || *c.Max != 10 {
			t.Fatalf("added %+v", c)
		}
		s.wantError("POST", "/score-configs", `{"name":"helpfulness","data_type":"boolean"}`, http.StatusConflict, "conflict", "name")
		s.wantError("POST", "/score-configs", `{"name":"tone","data_type":"categorical"}`, http.StatusBadRequest, "invalid", "categories")
		s.wantError("POST", "/score-configs", `{"name":"tone","data_type":"boolean","categories":[{"label":"a"}]}`, http.StatusBadRequest, "invalid", "categories")
		var got score.Config
		s.json("GET", "/score-configs/HELPFULNESS", "", http.StatusOK, "ScoreConfig", &got)
		if got.ID != c.ID {
			t.Fatalf("by name: %+v", got)
		}
		s.json("PATCH", "/score-configs/"+c.ID, `{"archived":true,"description":null}`, http.StatusOK, "ScoreConfig", &got)
		if !got.Archived || got.Version != 2 || got.Description != "Did it help?" {
			t.Fatalf("archived: %+v", got)
		}
		s.wantError("GET", "/score-configs/helpfulness", "", http.StatusNotFound, "not_found", "")
		s.json("GET", "/score-configs?archived=true", "", http.StatusOK, "ScoreConfigList", &list)
		if len(list.Configs) != 8 {
			t.Fatalf("with the archived: %d", len(list.Configs))
		}
		s.wantError("GET", "/score-configs?archived=yes", "", http.StatusBadRequest, "invalid", "archived")
		s.wantError("PATCH", "/score-configs/empathy", `{"name":"kindness"}`, http.StatusBadRequest, "invalid", "name")
		s.wantError("PATCH", "/score-configs/thumbs", `{"archived":true}`, http.StatusBadRequest, "invalid", "archived")
		s.wantError("PATCH", "/score-configs/nosuch", `{"archived":true}`, http.StatusNotFound, "not_found", "")
		s.wantError("PATCH", "/score-configs/empathy", `{"colour":"blue"}`, http.StatusBadRequest, "invalid", "colour")
	})
}

func TestRecordScoresAPI(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		s := start(t, cfg)
		t1 := s.postTurn(turn("c1", "q1", "prompt_version", "fc26922"))
		one := fmt.Sprintf(`{"id":"app-1","turn_id":%q,"config":"empathy","value":4,"author":"meg","comment":"warm"}`, t1.ID)
		var sc score.Score
		res := s.json("POST", "/scores", one, http.StatusCreated, "Score", &sc)
		if sc.ID != "app-1" || sc.DataType != "numeric" || sc.Value != 4.0 || sc.PromptVersion != "fc26922" || sc.Source != "api" ||
			res.Header.Get(api.ReplayedHeader) != "" {
			t.Fatalf("recorded %+v", sc)
		}
		var again score.Score
		res = s.json("POST", "/scores", one, http.StatusOK, "Score", &again)
		if res.Header.Get(api.ReplayedHeader) != "true" || !again.CreatedAt.Equal(sc.CreatedAt) {
			t.Fatalf("replay: %+v %v", again, res.Header)
		}
		s.wantError("POST", "/scores", strings.Replace(one, `"value":4`, `"value":5`, 1), http.StatusConflict, "conflict", "id")
		s.wantError("POST", "/scores", `{"turn_id":"nosuch","config":"empathy","value":4}`, http.StatusNotFound, "not_found", "turn_id")
		s.wantError("POST", "/scores", fmt.Sprintf(`{"turn_id":%q,"config":"empathy","value":"4"}`, t1.ID), http.StatusBadRequest, "invalid", "value")
		s.wantError("POST", "/scores", fmt.Sprintf(`{"turn_id":%q,"config":"empathy"}`, t1.ID), http.StatusBadRequest, "invalid", "value")
		s.wantError("POST", "/scores", `{"config":"empathy","value":4}`, http.StatusBadRequest, "invalid", "turn_id")

		arr := fmt.Sprintf(`[{"turn_id":%[1]q,"config":"thumbs","value":true},{"turn_id":%[1]q,"config":"workshop_label","value":"bad"},
			{"turn_id":%[1]q,"config":"empathy","value":7},null,{"turn_id":%[1]q,"config":"empathy","value":3,"colour":1}]`, t1.ID)
		out := s.scoreBatch(arr, "application/json", http.StatusMultiStatus)
		if len(out.Results) != 5 || out.Results[0].DataType != "boolean" || out.Results[1].DataType != "categorical" ||
			out.Results[2].Error.Field != "value" || out.Results[3].Error == nil || out.Results[4].Error.Field != "colour" {
			t.Fatalf("array: %+v", out)
		}
		nd := fmt.Sprintf("{\"turn_id\":%[1]q,\"config\":\"clarity\",\"value\":5}\n\nnot json\n{\"id\":\"app-1\",\"turn_id\":%[1]q,\"config\":\"empathy\",\"value\":4,\"author\":\"meg\",\"comment\":\"warm\"}\n", t1.ID)
		out = s.scoreBatch(nd, "application/x-ndjson", http.StatusMultiStatus)
		if len(out.Results) != 3 || out.Results[0].ID == "" || out.Results[1].Error == nil || !strings.HasPrefix(out.Results[1].Error.Message, "line 3:") ||
			!out.Results[2].Replayed || out.Results[2].ID != "app-1" {
			t.Fatalf("ndjson: %+v", out)
		}
		out = s.scoreBatch(fmt.Sprintf(`{"turn_id":%q,"config":"thumbs","value":false}`, t1.ID), "application/x-ndjson", http.StatusOK)
		if len(out.Results) != 1 || out.Results[0].ID == "" {
			t.Fatalf("one NDJSON line is a batch: %+v", out)
		}
		s.wantError("POST", "/scores", "[]", http.StatusBadRequest, "invalid", "")
		s.wantError("POST", "/scores", "[{}", http.StatusBadRequest, "invalid", "")

		// The bounds every batch has: at most ndjson.MaxBatchItems items,
		// the first ndjson.ListedErrors errors listed.
		var b strings.Builder
		for i := range ndjson.MaxBatchItems + 1 {
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(`{"turn_id":"x","config":"x","value":1}`)
		}
		res2, body := s.send("POST", "/scores", b.String(), http.Header{"Content-Type": {"application/x-ndjson"}})
		if res2.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), "10000") {
			t.Fatalf("too many: %d %.300s", res2.StatusCode, body)
		}
		items := make([]string, 150)
		for i := range items {
			items[i] = fmt.Sprintf(`{"turn_id":%q,"config":"empathy","value":%d}`, t1.ID, 4+i%2*5)
		}
		out = s.scoreBatch("["+strings.Join(items, ",")+"]", "application/json", http.StatusMultiStatus)
		if len(out.Results) != 150 || out.ErrorsNotListed != 0 {
			t.Fatalf("75 errors are all listed: %d results, %d not listed", len(out.Results), out.ErrorsNotListed)
		}
		items = append(items, items...)
		out = s.scoreBatch("["+strings.Join(items, ",")+"]", "application/json", http.StatusMultiStatus)
		if len(out.Results) != 150+ndjson.ListedErrors || out.ErrorsNotListed != 50 {
			t.Fatalf("150 errors: %d results, %d not listed", len(out.Results), out.ErrorsNotListed)
		}
	})
}

func TestReadAndDeleteScoresAPI(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		s := start(t, cfg)
		t1 := s.postTurn(turn("c1", "q1", "prompt_version", "v1"))
		t2 := s.postTurn(turn("c2", "q2", "prompt_version", "v2"))
		body := fmt.Sprintf(`[{"turn_id":%[1]q,"config":"empathy","value":4,"author":"meg"},{"turn_id":%[1]q,"config":"thumbs","value":true,"source":"chat"},
			{"turn_id":%[2]q,"config":"empathy","value":2,"source":"llm","author":"gpt-4o","comment":"=cold"}]`, t1.ID, t2.ID)
		out := s.scoreBatch(body, "application/json", http.StatusOK)
		ids := []string{out.Results[0].ID, out.Results[1].ID, out.Results[2].ID}
		var page score.Page
		s.json("GET", "/scores?turn_id="+t1.ID, "", http.StatusOK, "ScorePage", &page)
		if len(page.Scores) != 2 || page.Scores[0].ID != ids[1] || page.NextOffset != nil {
			t.Fatalf("one turn's scores, newest first: %+v", page)
		}
		for query, want := range map[string][]string{
			"config=empathy&prompt_version=v2": {ids[2]}, "source=chat": {ids[1]}, "author=meg": {ids[0]},
			"limit=2": {ids[2], ids[1]}, "limit=2&offset=2": {ids[0]}, "since=1h&until=2999-01-01": {ids[2], ids[1], ids[0]},
		} {
			s.json("GET", "/scores?"+query, "", http.StatusOK, "ScorePage", &page)
			var got []string
			for _, sc := range page.Scores {
				got = append(got, sc.ID)
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s: %v, want %v", query, got, want)
			}
		}
		for query, field := range map[string]string{"config=nosuch": "config", "source=slack": "source", "since=x": "since",
			"limit=0": "limit", "offset=-1": "offset", "since=1h&until=2h": "until"} {
			s.wantError("GET", "/scores?"+query, "", http.StatusBadRequest, "invalid", field)
		}

		res, b := s.call("GET", "/scores/export?format=jsonl", "")
		if res.StatusCode != http.StatusOK || res.Header.Get("Content-Disposition") != `attachment; filename="scores.jsonl"` {
			t.Fatalf("jsonl: %d %v", res.StatusCode, res.Header)
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		lines := 0
		for sc.Scan() {
			lines++
			validateAt(t, "/components/schemas/ScoreExportRow", sc.Bytes())
			var row map[string]any
			if err := json.Unmarshal(sc.Bytes(), &row); err != nil || len(row) != len(score.ExportColumns) {
				t.Fatalf("every column on every line: %s", sc.Bytes())
			}
		}
		if lines != 3 {
			t.Fatalf("%d lines", lines)
		}
		res, b = s.call("GET", "/scores/export?format=csv&prompt_version=v2", "")
		if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/csv") {
			t.Fatalf("csv: %d %v", res.StatusCode, res.Header)
		}
		rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
		if err != nil || len(rows) != 2 || !slices.Equal(rows[0], score.ExportColumns) {
			t.Fatalf("csv: %q %v", rows, err)
		}
		row := map[string]string{}
		for i, col := range rows[0] {
			row[col] = rows[1][i]
		}
		if row["config"] != "empathy" || row["data_type"] != "numeric" || row["value"] != "2" || row["prompt_version"] != "v2" ||
			row["comment"] != "'=cold" || row["target"] != "turn" {
			t.Fatalf("csv row %v", row)
		}
		s.wantError("GET", "/scores/export?format=xml", "", http.StatusBadRequest, "invalid", "format")

		var got score.Score
		s.json("GET", "/scores/"+ids[0], "", http.StatusOK, "Score", &got)
		if res, b := s.call("DELETE", "/scores/"+ids[0], ""); res.StatusCode != http.StatusNoContent {
			t.Fatalf("delete: %d %s", res.StatusCode, b)
		}
		s.wantError("GET", "/scores/"+ids[0], "", http.StatusNotFound, "not_found", "")
		s.wantError("DELETE", "/scores/"+ids[0], "", http.StatusNotFound, "not_found", "")
	})
}

// A score may judge a workshop's trace; one the workshop does not have is a
// 404 naming trace_id.
func TestTraceScoresAPI(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		s := start(t, cfg)
		var ws struct {
			ID string `json:"id"`
		}
		s.json("POST", "/workshops", `{"name":"w","facilitator":{"name":"Fay"}}`, http.StatusCreated, "WorkshopCreated", &ws)
		s.json("POST", "/workshops/"+ws.ID+"/traces", `[{"id":"t1","input":"q","output":"a"}]`, http.StatusCreated, "ImportResult", nil)
		var sc score.Score
		s.json("POST", "/scores", fmt.Sprintf(`{"workshop_id":%q,"trace_id":"t1","config":"workshop_label","value":"GOOD","source":"llm","author":"judge-1"}`, ws.ID),
			http.StatusCreated, "Score", &sc)
		if sc.WorkshopID != ws.ID || sc.TraceID != "t1" || sc.TurnID != "" || sc.Value != "GOOD" {
			t.Fatalf("%+v", sc)
		}
		s.wantError("POST", "/scores", fmt.Sprintf(`{"workshop_id":%q,"trace_id":"t9","config":"workshop_label","value":"GOOD"}`, ws.ID),
			http.StatusNotFound, "not_found", "trace_id")
		s.wantError("POST", "/scores", `{"workshop_id":"nosuch","trace_id":"t1","config":"workshop_label","value":"GOOD"}`,
			http.StatusNotFound, "not_found", "trace_id")
		var page score.Page
		s.json("GET", "/scores?workshop_id="+ws.ID+"&trace_id=t1", "", http.StatusOK, "ScorePage", &page)
		if len(page.Scores) != 1 {
			t.Fatalf("%+v", page)
		}
	})
}
