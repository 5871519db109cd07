package workshop_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/ndjson"
	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/storage/storagetest"
	"github.com/honehq/hone/internal/workshop"
)

func TestImportWithJSONPathKeepsTheRawTrace(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		f := newFixture(t, db, false)
		in, out := "$.messages[-1].content", "$.choices[0].message.content"
		if _, err := f.svc.Update(admin, f.ws.ID, "", workshop.Settings{InputJSONPath: &in, OutputJSONPath: &out}); err != nil {
			t.Fatal(err)
		}
		bad := "$.[broken"
		if _, err := f.svc.Update(admin, f.ws.ID, "", workshop.Settings{InputJSONPath: &bad}); hone.ErrorField(err) != "input_jsonpath" {
			t.Fatalf("a broken JSONPath: %v", err)
		}
		body := `[{"id": "r1", "input": {"messages": [{"role": "system", "content": "be kind"}, {"role": "user", "content": "My employee quit"}]},
			"output": {"choices": [{"message": {"content": "Got it. Per our policy, ..."}}]}, "context": ["policy chunk"], "metadata": {"k": 1}},
			{"input": "plain question", "output": "plain answer"}]`
		res, err := f.svc.ImportTraces(admin, f.ws.ID, "", strings.NewReader(body), workshop.FormatJSON, false)
		if err != nil || res.Imported != 2 || res.IDs[0] != "r1" || res.IDs[1] == "" {
			t.Fatalf("import: %+v %v", res, err)
		}
		traces, _ := f.svc.Traces(admin, f.ws.ID, "")
		r1 := traces[0]
		if r1.InputText != "My employee quit" || r1.OutputText != "Got it. Per our policy, ..." || !strings.Contains(string(r1.Input), `"be kind"`) ||
			!sameJSON(r1.Context, `["policy chunk"]`) || traces[1].InputText != "plain question" || r1.Position != 0 || traces[1].Position != 1 {
			t.Fatalf("traces %+v %+v", r1, traces[1])
		}
		again := `{"id": "r1", "input": "x", "output": "y"}` + "\n" + `{"input": "", "output": "y"}` + "\n" + `{"id": "r3", "input": "a", "output": "b"}`
		_, err = f.svc.ImportTraces(admin, f.ws.ID, "", strings.NewReader(again), workshop.FormatJSONL, false)
		var ie *workshop.ImportError
		if !errors.As(err, &ie) || len(ie.Lines) != 2 || ie.Lines[0].Line != 1 || ie.Lines[0].Field != "id" || ie.Lines[1].Line != 2 ||
			hone.ErrorCode(err) != hone.EINVALID {
			t.Fatalf("invalid lines: %v", err)
		}
		if w, _ := f.svc.Get(admin, f.ws.ID); w.TraceCount != 2 {
			t.Fatalf("a refused import added traces: %d", w.TraceCount)
		}
		res, err = f.svc.ImportTraces(admin, f.ws.ID, "", strings.NewReader(again), workshop.FormatJSONL, true)
		if err != nil || res.Imported != 1 || res.IDs[0] != "r3" || len(res.Skipped) != 2 {
			t.Fatalf("skip invalid: %+v %v", res, err)
		}
		long, _ := json.Marshal(map[string]string{"input": strings.Repeat("é", workshop.MaxTextLength+1), "output": "y"})
		_, err = f.svc.ImportTraces(admin, f.ws.ID, "", strings.NewReader(string(long)), workshop.FormatJSONL, false)
		if !errors.As(err, &ie) || ie.Lines[0].Field != "input" || !strings.Contains(ie.Lines[0].Message, "characters") {
			t.Fatalf("an input over the limit: %v", err)
		}
		csvBody := "id,input,output,metadata\nc1,\"a, b\",\"line 1\nline 2\",\"{\"\"k\"\": 2}\"\nc2,,x,\n"
		_, err = f.svc.ImportTraces(admin, f.ws.ID, "", strings.NewReader(csvBody), workshop.FormatCSV, false)
		if !errors.As(err, &ie) || ie.Lines[0].Line != 4 || ie.Lines[0].Field != "input" {
			t.Fatalf("CSV error lines (the header is line 1, a quoted cell spans two): %v", err)
		}
	})
}

func TestImportTurnsOfTuningSessions(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		f := newFixture(t, db, false)
		rec := capture.NewRecorder(db.Capture(), nil)
		var session string
		for i, v := range []string{"v1", "v1", "v2"} {
			turn, _, err := rec.Record(context.Background(), capture.TurnInput{ConversationID: "c" + v, TesterID: "meg",
				UserMessage: "q" + itoa(i), Response: "a" + itoa(i), PromptVersion: v,
				SearchResults: json.RawMessage(`[{"chunk_text":"policy"}]`)}, "")
			if err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				session = turn.SessionID
			}
		}
		res, err := f.svc.ImportSessions(admin, f.ws.ID, "", workshop.SessionImport{SessionID: session})
		if err != nil || res.Imported != 2 {
			t.Fatalf("import a session: %+v %v", res, err)
		}
		traces, _ := f.svc.Traces(admin, f.ws.ID, "")
		var meta map[string]any
		json.Unmarshal(traces[0].Metadata, &meta)
		if traces[0].InputText != "q0" || traces[0].OutputText != "a0" || !sameJSON(traces[0].Context, `[{"chunk_text":"policy"}]`) ||
			meta["session_id"] != session || meta["prompt_version"] != "v1" {
			t.Fatalf("trace of a turn: %+v %v", traces[0], meta)
		}
		res, err = f.svc.ImportSessions(admin, f.ws.ID, "", workshop.SessionImport{PromptVersion: "v1"})
		if err != nil || res.Imported != 0 || len(res.Skipped) != 2 {
			t.Fatalf("importing the same turns again: %+v %v", res, err)
		}
		res, err = f.svc.ImportSessions(admin, f.ws.ID, "", workshop.SessionImport{PromptVersion: "v2"})
		if err != nil || res.Imported != 1 {
			t.Fatalf("import a version: %+v %v", res, err)
		}
		wantCode(t, "unknown version", must2(f.svc.ImportSessions(admin, f.ws.ID, "", workshop.SessionImport{PromptVersion: "v9"})), hone.ENOTFOUND)
		wantCode(t, "neither", must2(f.svc.ImportSessions(admin, f.ws.ID, "", workshop.SessionImport{})), hone.EINVALID)
	})
}

func TestAgreementOfAWorkshop(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		f := reviewed(t, db, false)
		ag, err := f.svc.Agreement(admin, f.ws.ID, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(ag.Traces) != 4 || len(ag.Pairs) != 1 || ag.Pairs[0].Traces != 3 || *ag.Pairs[0].Observed != 2.0/3 ||
			ag.FleissTraces != 3 || ag.AlphaTraces != 3 || ag.Traces[3].TraceID != "t4" || ag.Traces[3].Agreement != nil {
			t.Fatalf("agreement %+v", ag)
		}
	})
}

// sameJSON reports whether got holds the JSON value want (PostgreSQL's
// jsonb spaces JSON its own way).
func sameJSON(got json.RawMessage, want string) bool {
	var a, b any
	return json.Unmarshal(got, &a) == nil && json.Unmarshal([]byte(want), &b) == nil && jsonString(a) == jsonString(b)
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestImportListsTheFirstErrors imports a file of many invalid traces: the
// error lists the first ndjson.ListedErrors in full and counts the others.
func TestImportListsTheFirstErrors(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		f := newFixture(t, db, false)
		const invalid = ndjson.ListedErrors + 150
		var b strings.Builder
		for range invalid {
			b.WriteString(`{"input":"q"}` + "\n")
		}
		b.WriteString(`{"id":"good","input":"q","output":"a"}` + "\n")
		_, err := f.svc.ImportTraces(admin, f.ws.ID, "", strings.NewReader(b.String()), workshop.FormatJSONL, false)
		var ie *workshop.ImportError
		if !errors.As(err, &ie) || len(ie.Lines) != ndjson.ListedErrors || ie.NotListed != 150 ||
			ie.Lines[ndjson.ListedErrors-1].Line != ndjson.ListedErrors || !strings.HasPrefix(hone.ErrorMessage(err), "250 trace(s)") {
			t.Fatalf("%d invalid traces: %v", invalid, err)
		}
		res, err := f.svc.ImportTraces(admin, f.ws.ID, "", strings.NewReader(b.String()), workshop.FormatJSONL, true)
		if err != nil || res.Imported != 1 || len(res.Skipped) != ndjson.ListedErrors || res.ErrorsNotListed != 150 {
			t.Fatalf("skip_invalid: %d imported, %d listed, %d not listed, %v", res.Imported, len(res.Skipped), res.ErrorsNotListed, err)
		}
		// A few invalid traces are all listed.
		res, err = f.svc.ImportTraces(admin, f.ws.ID, "", strings.NewReader(`{"input":"q"}`+"\n"), workshop.FormatJSONL, true)
		if err != nil || len(res.Skipped) != 1 || res.ErrorsNotListed != 0 {
			t.Fatalf("one invalid trace: %+v %v", res, err)
		}
	})
}

// TestImportSessionsIsTheAdmins imports tuning sessions as each identity:
// a workshop member's own token, even a facilitator's, is refused and
// imports nothing; the admin and the local user import.
func TestImportSessionsIsTheAdmins(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		f := newFixture(t, db, false)
		rec := capture.NewRecorder(db.Capture(), nil)
		turn, _, err := rec.Record(context.Background(), capture.TurnInput{ConversationID: "private", TesterID: "meg",
			UserMessage: "my salary?", Response: "secret", PromptVersion: "v1"}, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range []workshop.SessionImport{{SessionID: turn.SessionID}, {PromptVersion: "v1"}} {
			for name, ctx := range map[string]context.Context{"facilitator": f.as(f.facilitator), "participant": f.as(f.alice)} {
				_, err := f.svc.ImportSessions(ctx, f.ws.ID, "", in)
				if hone.ErrorCode(err) != hone.EFORBIDDEN {
					t.Errorf("the %s's token importing %+v: %v, want forbidden", name, in, err)
				}
			}
		}
		if traces, _ := f.svc.Traces(admin, f.ws.ID, ""); len(traces) != 0 {
			t.Fatalf("refused imports added %d traces", len(traces))
		}
		local := hone.WithIdentity(context.Background(), hone.Local)
		_, err = f.svc.ImportSessions(local, f.ws.ID, f.alice.ID, workshop.SessionImport{SessionID: turn.SessionID})
		wantCode(t, "the local user acting as a participant", err, hone.EFORBIDDEN)
		for name, ctx := range map[string]context.Context{"admin": admin, "local": local} {
			res, err := f.svc.ImportSessions(ctx, f.ws.ID, "", workshop.SessionImport{SessionID: turn.SessionID})
			if err != nil || res.Imported+len(res.Skipped) != 1 {
				t.Errorf("the %s importing: %+v %v", name, res, err)
			}
		}
	})
}
