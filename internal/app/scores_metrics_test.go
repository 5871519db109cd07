package app_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/honehq/hone/internal/config"
)

// TestScoresRecordedMetric: every score recorded, by any path (POST
// /scores, one or a batch; a 👍 through POST /turns/{id}/feedback; !score
// in a chat), moves hone_scores_recorded_total of its source and data type
// once; a score sent again under its id, and one refused, do not.
func TestScoresRecordedMetric(t *testing.T) {
	eachDatabaseConfig(t, func(t *testing.T, cfg config.Config) {
		a := startWith(t, cfg)
		base, api := a.URL(), a.URL()+"/api/v1"
		post := func(path, body string, want int) string {
			t.Helper()
			got := send(t, nil, "POST", api+path, body, nil)
			if got.status != want {
				t.Fatalf("POST %s = %d %s, want %d", path, got.status, got.body, want)
			}
			return got.body
		}
		var turn struct{ ID string }
		_ = json.Unmarshal([]byte(post("/turns", `{"conversation_id":"c1","tester_id":"meg","user_message":"q","response":"a"}`,
			http.StatusCreated)), &turn)

		one := fmt.Sprintf(`{"id":"s-1","turn_id":%q,"config":"empathy","value":4}`, turn.ID)
		post("/scores", one, http.StatusCreated)
		post("/scores", one, http.StatusOK)
		batch := fmt.Sprintf(`[{"turn_id":%[1]q,"config":"thumbs","value":true,"source":"web"},
			{"turn_id":%[1]q,"config":"empathy","value":9},
			{"turn_id":%[1]q,"config":"clarity","value":3},
			{"id":"s-1","turn_id":%[1]q,"config":"empathy","value":4}]`, turn.ID)
		if body := post("/scores", batch, http.StatusMultiStatus); !strings.Contains(body, `"replayed":true`) {
			t.Fatalf("the batch: %s", body)
		}
		post("/turns/"+turn.ID+"/feedback", `{"tester_id":"meg","rating":"up"}`, http.StatusOK)
		post("/messages", `{"conversation_id":"c1","tester_id":"meg","text":"!score empathy:5"}`, http.StatusOK)

		series, _ := scrape(t, base, "")
		want := map[string]float64{
			`hone_scores_recorded_total{data_type="numeric",source="api"}`:  2,
			`hone_scores_recorded_total{data_type="boolean",source="web"}`:  1,
			`hone_scores_recorded_total{data_type="boolean",source="api"}`:  1,
			`hone_scores_recorded_total{data_type="numeric",source="chat"}`: 1,
		}
		total := 0.0
		for k, v := range series {
			if strings.HasPrefix(k, "hone_scores_recorded_total{") {
				total += v
			}
		}
		for k, v := range want {
			if got, ok := series[k]; !ok || got != v {
				t.Errorf("%s = %v (present: %v), want %v", k, got, ok, v)
			}
		}
		if total != 5 {
			t.Errorf("hone_scores_recorded_total sums to %v over every series, want 5", total)
		}
	})
}
