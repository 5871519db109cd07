package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/alerts"
	"github.com/honehq/hone/internal/api"
	"github.com/honehq/hone/internal/config"
)

func TestAlertBudgetEndpoints(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		cfg.Learn.AlertBudget, cfg.Learn.AlertBudgetMax = 2, 4
		s := start(t, cfg)
		var p alerts.Permit
		s.json("POST", "/alerts/permit", `{"conversation_id": "c1", "type": "Reminder"}`, http.StatusOK, "Permit", &p)
		if !p.Allowed || p.Type != "reminder" || p.Budget != 2 || p.Remaining != 2 || p.Sent != 0 || p.RetryAt != nil {
			t.Fatalf("the first permit: %+v", p)
		}
		var first, second alerts.Alert
		s.json("POST", "/alerts", `{"id": "a1", "conversation_id": "c1", "type": "reminder", "text": "Call mum"}`, http.StatusCreated, "Alert", &first)
		s.json("POST", "/alerts", `{"conversation_id": "c1", "type": "reminder"}`, http.StatusCreated, "Alert", &second)
		if first.ID != "a1" || first.Text != "Call mum" || !first.WithinBudget || second.ID == "" || !second.WithinBudget {
			t.Fatalf("recorded alerts: %+v %+v", first, second)
		}
		var again alerts.Alert
		s.json("POST", "/alerts", `{"id": "a1", "conversation_id": "c1", "type": "reminder", "text": "other"}`, http.StatusCreated, "Alert", &again)
		if again.Text != "Call mum" || !again.SentAt.Equal(first.SentAt) {
			t.Errorf("recording an id again: %+v", again)
		}
		s.json("POST", "/alerts/permit", `{"conversation_id": "c1", "type": "reminder"}`, http.StatusOK, "Permit", &p)
		if p.Allowed || p.Sent != 2 || p.Remaining != 0 || p.RetryAt == nil || !p.RetryAt.Equal(first.SentAt.Add(alerts.BudgetPeriod)) {
			t.Fatalf("the permit with the budget spent: %+v", p)
		}
		var over alerts.Alert
		s.json("POST", "/alerts", `{"conversation_id": "c1", "type": "reminder"}`, http.StatusCreated, "Alert", &over)
		if over.WithinBudget {
			t.Errorf("an alert over the budget: %+v", over)
		}

		// 👍 on every alert: the score rises to 1 and the budget to 3.
		for _, id := range []string{first.ID, second.ID, over.ID} {
			var r alerts.Reacted
			s.json("POST", "/alerts/"+id+"/feedback", `{"tester_id": "meg", "reaction": "👍"}`, http.StatusOK, "Reacted", &r)
			if r.Reaction.Reaction != "up" || r.Type != "reminder" || r.Paused {
				t.Fatalf("a 👍: %+v", r)
			}
		}
		s.json("POST", "/alerts/permit", `{"conversation_id": "c1", "type": "reminder"}`, http.StatusOK, "Permit", &p)
		if p.Score != 1 || p.Scored != 3 || p.Budget != 3 || p.Sent != 3 || p.Allowed {
			t.Fatalf("after three 👍: %+v", p)
		}
		var got alerts.Alert
		s.json("GET", "/alerts/a1", "", http.StatusOK, "Alert", &got)
		if len(got.Reactions) != 1 || got.Reactions[0].TesterID != "meg" || got.Reactions[0].Reaction != "up" {
			t.Errorf("GET /alerts/a1: %+v", got)
		}

		// Three 👎 on a type pause it until it is enabled.
		var paused alerts.Reacted
		for i, conv := range []string{"c2", "c3", "c4"} {
			var a alerts.Alert
			s.json("POST", "/alerts", `{"conversation_id": "`+conv+`", "type": "news"}`, http.StatusCreated, "Alert", &a)
			s.json("POST", "/alerts/"+a.ID+"/feedback", `{"tester_id": "ana", "reaction": "down"}`, http.StatusOK, "Reacted", &paused)
			if paused.Paused != (i == 2) {
				t.Fatalf("👎 %d: %+v", i+1, paused)
			}
		}
		if paused.PauseNote != "its 3 latest reactions were all 👎" || !paused.TypePaused {
			t.Errorf("the pausing 👎: %+v", paused)
		}
		s.json("POST", "/alerts/permit", `{"conversation_id": "c9", "type": "news"}`, http.StatusOK, "Permit", &p)
		if p.Allowed || !p.TypePaused || !strings.Contains(p.Reason, "paused") {
			t.Fatalf("the permit of a paused type: %+v", p)
		}
		var types api.AlertTypeList
		s.json("GET", "/alerts/types", "", http.StatusOK, "AlertTypeList", &types)
		if len(types.Types) != 2 || types.Types[0].Type != "news" || !types.Types[0].Paused || types.Types[0].Down != 3 ||
			types.Types[1].Type != "reminder" || types.Types[1].Up != 3 || types.Types[1].Sent != 3 ||
			types.Formula != "clamp(round(2 × (1 + 0.5 × alert_quality_score)), 1, 4)" {
			t.Fatalf("GET /alerts/types: %+v", types)
		}
		var enabled alerts.AlertType
		s.json("POST", "/alerts/types/news/enable", "", http.StatusOK, "AlertType", &enabled)
		if enabled.Paused || enabled.EnabledAt == nil {
			t.Errorf("enable: %+v", enabled)
		}
		s.wantError("POST", "/alerts/types/news/enable", "", http.StatusConflict, hone.ECONFLICT, "")
		s.json("POST", "/alerts/permit", `{"conversation_id": "c9", "type": "news"}`, http.StatusOK, "Permit", &p)
		if !p.Allowed {
			t.Errorf("the permit after enabling: %+v", p)
		}

		// The chat's !ack reacts to the conversation's latest alert.
		if r := s.say("c1", "!ack"); !r.Ack {
			t.Errorf("!ack: %+v", r)
		}
		s.json("GET", "/alerts/"+over.ID, "", http.StatusOK, "Alert", &got)
		if len(got.Reactions) != 1 || got.Reactions[0].Reaction != "ack" {
			t.Errorf("!ack did not react to the latest alert: %+v", got.Reactions)
		}

		s.wantError("POST", "/alerts/permit", `{"type": "news"}`, http.StatusBadRequest, hone.EINVALID, "conversation_id")
		s.wantError("POST", "/alerts", `{"conversation_id": "c1"}`, http.StatusBadRequest, hone.EINVALID, "type")
		s.wantError("POST", "/alerts/a1/feedback", `{"tester_id": "meg", "reaction": "love"}`, http.StatusBadRequest, hone.EINVALID, "reaction")
		s.wantError("POST", "/alerts/nope/feedback", `{"tester_id": "meg", "reaction": "up"}`, http.StatusNotFound, hone.ENOTFOUND, "")
		s.wantError("GET", "/alerts/nope", "", http.StatusNotFound, hone.ENOTFOUND, "")
		s.json("GET", "/alerts/a1", "", http.StatusOK, "Alert", &got)
		if len(got.Reactions) != 1 || got.Reactions[0].Reaction != "up" {
			t.Errorf("a bad reaction changed the alert: %+v", got.Reactions)
		}
	})
}
