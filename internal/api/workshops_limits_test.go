package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/honehq/hone/internal/config"
	"github.com/honehq/hone/internal/ndjson"
	"github.com/honehq/hone/internal/workshop"
)

// TestWorkshopSessionImportIsTheAdmins: importing tuning sessions reads any
// session hone captured, which a workshop member's token may not (GET
// /sessions is 403 to it), so a member's token, a facilitator's too, is
// refused there and imports nothing; the admin's token imports.
func TestWorkshopSessionImportIsTheAdmins(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		cfg.APIToken = "s3cret"
		s := start(t, cfg)
		doc := confDoc(t)
		admin := s.as(t, doc, s.token)
		private := s.postTurn(turn("conv-hr", "What is my salary?", "prompt_version", "v1"))
		s.postTurn(turn("conv-hr", "And my manager's?", "prompt_version", "v1"))
		created := admin.createWorkshop("Sessions")
		fac := s.as(t, doc, created.Facilitator.Token)
		part := s.as(t, doc, fac.addMember(created.ID, "Pat", "participant").Token)
		path := "/workshops/" + created.ID + "/traces/from-sessions"

		fac.wantError("GET", "/sessions", "", http.StatusForbidden, "forbidden", "")
		for _, c := range []wsCaller{fac, part} {
			for _, body := range []string{`{"session_id":"` + private.SessionID + `"}`, `{"prompt_version":"v1"}`} {
				c.wantError("POST", path, body, http.StatusForbidden, "forbidden", "")
			}
		}
		if traces := fac.traces(created.ID, ""); len(traces) != 0 {
			t.Fatalf("a member's refused session import shows %d traces: %s", len(traces), mustJSON(t, traces))
		}

		var res workshop.ImportResult
		admin.json("POST", path, `{"session_id":"`+private.SessionID+`"}`, http.StatusCreated, "ImportResult", &res)
		if res.Imported != 2 {
			t.Errorf("the admin's import: %+v", res)
		}
		// What the admin imported, the facilitator reviews.
		if traces := fac.traces(created.ID, ""); len(traces) != 2 || traces[0].InputText != "What is my salary?" {
			t.Errorf("the facilitator's traces after the admin's import: %s", mustJSON(t, traces))
		}
	})
}

// TestWorkshopImportBounds: an output JSONPath that multiplies a small
// trace is refused per trace naming its bound; an import lists its first
// ndjson.ListedErrors invalid traces and counts the others; a JSONL line
// over the line bound is one invalid trace, skipped whole.
func TestWorkshopImportBounds(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		cfg.MaxBodyBytes = 3 * workshop.MaxImportLineBytes
		s := start(t, cfg)
		doc := confDoc(t)
		anyone := s.as(t, doc, "")
		created := anyone.createWorkshop("Bounds")
		base := "/workshops/" + created.ID
		ndjsonBody := http.Header{"Content-Type": {"application/x-ndjson"}}

		eight := "$" + strings.Repeat("[*,*,*,*,*,*,*,*]", 8)
		anyone.json("PATCH", base, mustJSON(t, map[string]any{"output_jsonpath": eight}), http.StatusOK, "Workshop", nil)
		e := anyone.wantError("POST", base+"/traces", `[{"input":"q","output":[[[[[[[["x"]]]]]]]]}]`, http.StatusBadRequest, "invalid", "output_jsonpath")
		lines, _ := e.Details.([]any)
		if len(lines) != 1 || !strings.Contains(mustJSON(t, lines), "the bound for a value of 19 bytes") {
			t.Errorf("the trace's error does not name the bound: %s", mustJSON(t, e))
		}
		if traces := anyone.traces(created.ID, ""); len(traces) != 0 {
			t.Fatalf("a refused import added traces: %s", mustJSON(t, traces))
		}
		anyone.wantError("PATCH", base, `{"output_jsonpath":"$[?count(@.*) > 0]"}`, http.StatusBadRequest, "invalid", "output_jsonpath")
		anyone.json("PATCH", base, `{"output_jsonpath":""}`, http.StatusOK, "Workshop", nil)

		const invalid = ndjson.ListedErrors + 150
		body := strings.Repeat(`{"input":"q"}`+"\n", invalid) + `{"id":"good","input":"q","output":"a"}` + "\n"
		var refused struct {
			Error map[string]any `json:"error"`
		}
		anyone.jsonWith("POST", base+"/traces", body, ndjsonBody, http.StatusBadRequest, "ErrorBody", &refused)
		if details, _ := refused.Error["details"].([]any); len(details) != ndjson.ListedErrors || refused.Error["errors_not_listed"] != float64(150) ||
			!strings.HasPrefix(refused.Error["message"].(string), "250 trace(s)") {
			t.Errorf("%d invalid traces: %d listed, %v not listed, %q", invalid, len(details), refused.Error["errors_not_listed"], refused.Error["message"])
		}
		var skipped map[string]any
		anyone.jsonWith("POST", base+"/traces?skip_invalid=true", body, ndjsonBody, http.StatusCreated, "ImportResult", &skipped)
		if list, _ := skipped["skipped"].([]any); len(list) != ndjson.ListedErrors || skipped["errors_not_listed"] != float64(150) || skipped["imported"] != float64(1) {
			t.Errorf("skip_invalid: %d listed, %v not listed, %v imported", len(list), skipped["errors_not_listed"], skipped["imported"])
		}

		// A line over the bound whose end is a trace of its own.
		long := strings.Repeat(" ", workshop.MaxImportLineBytes) + `{"id":"ghost","input":"q","output":"a"}`
		body = `{"id":"first","input":"q","output":"a"}` + "\n" + long + "\n" + `{"id":"after","input":"q","output":"a"}` + "\n"
		var res map[string]any
		anyone.jsonWith("POST", base+"/traces?skip_invalid=true", body, ndjsonBody, http.StatusCreated, "ImportResult", &res)
		list, _ := res["skipped"].([]any)
		if res["imported"] != float64(2) || mustJSON(t, res["ids"]) != `["first","after"]` || len(list) != 1 ||
			list[0].(map[string]any)["line"] != float64(2) || !strings.Contains(list[0].(map[string]any)["message"].(string), "4194304 bytes") {
			t.Errorf("a line over the bound: %s", mustJSON(t, res))
		}
	})
}
