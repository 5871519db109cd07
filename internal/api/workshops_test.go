package api_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/honehq/hone/internal/api"
	"github.com/honehq/hone/internal/config"
	"github.com/honehq/hone/internal/llm/llmtest"
	"github.com/honehq/hone/internal/server"
	"github.com/honehq/hone/internal/workshop"
)

// The workshop tests drive discovery workshops through the real HTTP server
// on both databases, each caller with its own Bearer token, and hold every
// answer to openapi.json: a status the operation lists, with the body and
// headers the document gives for it.

// templateOf is the documented path template of a concrete path (its query
// left out): the most specific one that matches it.
func templateOf(t testing.TB, doc map[string]any, path string) string {
	t.Helper()
	path, _, _ = strings.Cut(path, "?")
	best, params := "", -1
	for template := range doc["paths"].(map[string]any) {
		if !templateRegexp(template).MatchString(path) {
			continue
		}
		if n := strings.Count(template, "{"); best == "" || n < params || n == params && template < best {
			best, params = template, n
		}
	}
	if best == "" {
		t.Fatalf("openapi.json documents no path of %s", path)
	}
	return best
}

// wsCaller calls the API with a Bearer token of its own ("" for none).
type wsCaller struct {
	s     *apiServer
	doc   map[string]any
	token string
}

// as is a caller with token whose failures go to t.
func (s *apiServer) as(t *testing.T, doc map[string]any, token string) wsCaller {
	c := *s
	c.t = t
	return wsCaller{s: &c, doc: doc, token: token}
}

// send makes the request and requires an answer openapi.json documents.
func (c wsCaller) send(method, path, body string, header http.Header) (*http.Response, []byte) {
	c.s.t.Helper()
	h := http.Header{}
	if c.token != "" {
		h.Set("Authorization", "Bearer "+c.token)
	}
	maps.Copy(h, header)
	res, b := c.s.send(method, path, body, h)
	checkAnswer(c.s.t, c.doc, method, templateOf(c.s.t, c.doc, path), res, b)
	return res, b
}

// json requires the status and a body valid against the named schema, and
// decodes the body into v when v is not nil.
func (c wsCaller) json(method, path, body string, status int, schema string, v any) *http.Response {
	c.s.t.Helper()
	return c.jsonWith(method, path, body, nil, status, schema, v)
}

func (c wsCaller) jsonWith(method, path, body string, h http.Header, status int, schema string, v any) *http.Response {
	c.s.t.Helper()
	res, b := c.send(method, path, body, h)
	if res.StatusCode != status {
		c.s.t.Fatalf("%s %s: status %d, want %d; body: %s", method, path, res.StatusCode, status, b)
	}
	if ct := res.Header.Get("Content-Type"); ct != "application/json" {
		c.s.t.Errorf("%s %s: Content-Type %q, want application/json", method, path, ct)
	}
	validate(c.s.t, schema, b)
	if v != nil {
		if err := json.Unmarshal(b, v); err != nil {
			c.s.t.Fatalf("%s %s: decode %s: %v", method, path, b, err)
		}
	}
	return res
}

// wantError requires an error answer with the status, code and field.
func (c wsCaller) wantError(method, path, body string, status int, code, field string) server.ErrorDetail {
	c.s.t.Helper()
	return c.wantErrorWith(method, path, body, nil, status, code, field)
}

func (c wsCaller) wantErrorWith(method, path, body string, h http.Header, status int, code, field string) server.ErrorDetail {
	c.s.t.Helper()
	var e server.ErrorBody
	c.jsonWith(method, path, body, h, status, "ErrorBody", &e)
	if e.Error.Code != code || e.Error.Field != field {
		c.s.t.Errorf("%s %s: error code %q field %q, want %q and %q (message %q)",
			method, path, e.Error.Code, e.Error.Field, code, field, e.Error.Message)
	}
	if e.Error.Message == "" {
		c.s.t.Errorf("%s %s: error without a message", method, path)
	}
	return e.Error
}

// createWorkshop creates a workshop with a facilitator called Fay.
func (c wsCaller) createWorkshop(name string, extra ...any) workshop.Created {
	c.s.t.Helper()
	in := map[string]any{"name": name, "description": "HR policy answers", "facilitator": map[string]any{"name": "Fay", "email": "fay@example.com"}}
	for i := 0; i+1 < len(extra); i += 2 {
		in[extra[i].(string)] = extra[i+1]
	}
	var out workshop.Created
	c.json("POST", "/workshops", mustJSON(c.s.t, in), http.StatusCreated, "WorkshopCreated", &out)
	if out.Workshop == nil || out.ID == "" || out.Phase != workshop.PhaseIntake || out.Facilitator.Role != workshop.RoleFacilitator ||
		!workshop.LooksLikeToken(out.Facilitator.Token) {
		c.s.t.Fatalf("created %+v", out)
	}
	return out
}

// addMember adds a member as the caller (a facilitator).
func (c wsCaller) addMember(workshopID, name, role string) workshop.Access {
	c.s.t.Helper()
	var a workshop.Access
	c.json("POST", "/workshops/"+workshopID+"/members", mustJSON(c.s.t, map[string]any{"name": name, "email": strings.ToLower(name) + "@example.com", "role": role}),
		http.StatusCreated, "Access", &a)
	if a.Name != name || a.WorkshopID != workshopID || !workshop.LooksLikeToken(a.Token) || !strings.HasSuffix(a.JoinURL, workshop.JoinPath(workshopID, a.Token)) {
		c.s.t.Fatalf("added %+v", a)
	}
	return a
}

// importJSON imports traces given as a JSON array.
func (c wsCaller) importJSON(workshopID string, traces ...map[string]any) workshop.ImportResult {
	c.s.t.Helper()
	var res workshop.ImportResult
	c.json("POST", "/workshops/"+workshopID+"/traces", mustJSON(c.s.t, traces), http.StatusCreated, "ImportResult", &res)
	if res.Imported != len(traces) {
		c.s.t.Fatalf("imported %+v", res)
	}
	return res
}

func (c wsCaller) getWorkshop(id string) workshop.Workshop {
	c.s.t.Helper()
	var w workshop.Workshop
	c.json("GET", "/workshops/"+id, "", http.StatusOK, "Workshop", &w)
	return w
}

func (c wsCaller) traces(workshopID, query string) []workshop.TraceView {
	c.s.t.Helper()
	var out api.TraceList
	c.json("GET", "/workshops/"+workshopID+"/traces"+query, "", http.StatusOK, "TraceList", &out)
	return out.Traces
}

func (c wsCaller) draftItems(workshopID string) []*workshop.DraftItem {
	c.s.t.Helper()
	var out api.DraftItemList
	c.json("GET", "/workshops/"+workshopID+"/draft-rubric-items", "", http.StatusOK, "DraftItemList", &out)
	return out.Items
}

// feedback gives a label and comment of a trace.
func (c wsCaller) feedback(workshopID, traceID, label, comment string) workshop.Feedback {
	c.s.t.Helper()
	var f workshop.Feedback
	c.json("POST", "/workshops/"+workshopID+"/discovery-feedback", mustJSON(c.s.t, map[string]any{"trace_id": traceID, "feedback_label": label, "comment": comment}),
		http.StatusOK, "Feedback", &f)
	return f
}

// answerAll asks and answers the three follow-up questions of a trace.
func (c wsCaller) answerAll(workshopID, traceID string) workshop.Feedback {
	c.s.t.Helper()
	var f workshop.Feedback
	for n := 1; n <= workshop.Questions; n++ {
		var q workshop.Question
		c.json("POST", "/workshops/"+workshopID+"/generate-followup-question", fmt.Sprintf(`{"trace_id":%q,"question_number":%d}`, traceID, n),
			http.StatusOK, "Question", &q)
		c.json("POST", "/workshops/"+workshopID+"/submit-followup-answer", mustJSON(c.s.t, map[string]any{"trace_id": traceID, "question": q.Question,
			"answer": fmt.Sprintf("answer %d", n)}), http.StatusOK, "Feedback", &f)
	}
	if !f.Complete() {
		c.s.t.Fatalf("after three answers: %+v", f)
	}
	return f
}

// waitAnalysis polls a run until it is done or failed.
func (c wsCaller) waitAnalysis(path string) workshop.Analysis {
	c.s.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var a workshop.Analysis
		c.json("GET", path, "", http.StatusOK, "Analysis", &a)
		if a.Status == workshop.StatusDone || a.Status == workshop.StatusFailed {
			return a
		}
		if time.Now().After(deadline) {
			c.s.t.Fatalf("analysis %s still %s", a.ID, a.Status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func traceIDs(list []workshop.TraceView) []string {
	var out []string
	for _, t := range list {
		out = append(out, t.ID)
	}
	return out
}

func itemByID(items []*workshop.DraftItem, id string) *workshop.DraftItem {
	for _, it := range items {
		if it.ID == id {
			return it
		}
	}
	return nil
}

func TestWorkshopDiscovery(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		fake := llmtest.New(t)
		cfg.LLM = fake.Config()
		cfg.APIToken = "s3cret"
		s := start(t, cfg)
		doc := confDoc(t)
		admin := s.as(t, doc, s.token)

		created := admin.createWorkshop("Support bot review", "input_jsonpath", " $.messages[-1].content ")
		id := created.ID
		if created.InputJSONPath != "$.messages[-1].content" || created.TraceLimit != workshop.DefaultTraceLimit ||
			created.Facilitator.JoinURL != s.app.URL()+workshop.JoinPath(id, created.Facilitator.Token) {
			t.Errorf("created %+v, facilitator %+v", created.Workshop, created.Facilitator)
		}
		fac := s.as(t, doc, created.Facilitator.Token)
		aliceAccess := fac.addMember(id, "Alice", "")
		bobAccess := fac.addMember(id, "Bob", " PARTICIPANT ")
		carolAccess := fac.addMember(id, "Carol", "Facilitator")
		if aliceAccess.Role != workshop.RoleParticipant || bobAccess.Role != workshop.RoleParticipant || carolAccess.Role != workshop.RoleFacilitator {
			t.Errorf("roles %s, %s, %s", aliceAccess.Role, bobAccess.Role, carolAccess.Role)
		}
		alice, bob := s.as(t, doc, aliceAccess.Token), s.as(t, doc, bobAccess.Token)
		var members api.MemberList
		fac.json("GET", "/workshops/"+id+"/members", "", http.StatusOK, "MemberList", &members)
		if len(members.Members) != 4 || members.Members[0].ID != created.Facilitator.ID || members.Members[1].ID != aliceAccess.ID {
			t.Errorf("members %+v", members.Members)
		}
		var list api.WorkshopList
		alice.json("GET", "/workshops", "", http.StatusOK, "WorkshopList", &list)
		if len(list.Workshops) != 1 || list.Workshops[0].ID != id {
			t.Errorf("alice's workshops %+v", list.Workshops)
		}

		t.Run("imports", func(t *testing.T) {
			fac := s.as(t, doc, fac.token)
			res := fac.importJSON(id,
				map[string]any{"id": "t1", "input": "How many vacation days do I get?", "output": "Full-time employees get 25 days a year."},
				map[string]any{"id": "t2", "input": map[string]any{"messages": []any{map[string]any{"role": "user", "content": "Can I work from home?"}}},
					"output": "Yes, two days a week.", "metadata": map[string]any{"source": "prod"}},
				map[string]any{"id": "t3", "input": "Who approves overtime?", "output": "Your manager.", "context": []any{"policy#7"}})
			if !slices.Equal(res.IDs, []string{"t1", "t2", "t3"}) || res.Skipped != nil {
				t.Errorf("JSON import %+v", res)
			}
			var nd workshop.ImportResult
			fac.jsonWith("POST", "/workshops/"+id+"/traces", `{"id":"t4","input":"Is parking free?","output":"Yes."}`+"\n\n"+`{"input":"Can I bring my dog?","output":"No.","id":"t5"}`+"\n",
				http.Header{"Content-Type": {"application/x-ndjson"}}, http.StatusCreated, "ImportResult", &nd)
			if nd.Imported != 2 || !slices.Equal(nd.IDs, []string{"t4", "t5"}) {
				t.Errorf("NDJSON import %+v", nd)
			}
			var csvRes workshop.ImportResult
			fac.jsonWith("POST", "/workshops/"+id+"/traces", "\ufeffID, Input ,output,metadata\nt6,Where is the canteen?,\"Floor 2, east wing.\",\"{\"\"source\"\": \"\"csv\"\"}\"\n t7 ,\"{\"\"messages\"\": [{\"\"content\"\": \"\"Dress code?\"\"}]}\",Smart casual.,\n",
				http.Header{"Content-Type": {"text/csv; charset=utf-8"}}, http.StatusCreated, "ImportResult", &csvRes)
			if csvRes.Imported != 2 || !slices.Equal(csvRes.IDs, []string{"t6", "t7"}) {
				t.Errorf("CSV import %+v", csvRes)
			}
			all := fac.traces(id, "")
			if got := traceIDs(all); !slices.Equal(got, []string{"t1", "t2", "t3", "t4", "t5", "t6", "t7"}) {
				t.Fatalf("traces %v", got)
			}
			if all[1].InputText != "Can I work from home?" || all[0].InputText != "How many vacation days do I get?" ||
				all[6].InputText != "Dress code?" || all[5].OutputText != "Floor 2, east wing." || string(all[5].Metadata) != `{"source":"csv"}` ||
				string(all[2].Context) != `["policy#7"]` || all[0].Assigned || all[0].State != "" {
				t.Errorf("traces as imported: %+v", all)
			}

			for _, c := range []struct {
				name, contentType, body string
				details                 []workshop.LineError
			}{
				{"JSON array", "application/json", "[\n" + `{"id":"x1","input":"q","output":"a"},` + "\n" + `{"id":"x2","input":"q"},` + "\n" + `{"id":"t1","input":"q","output":"a"},` + "\n" + `{"input":"q","output":"a","colour":"blue"}` + "\n]",
					[]workshop.LineError{{Line: 3, Field: "output"}, {Line: 4, Field: "id"}, {Line: 5, Field: "colour"}}},
				{"NDJSON", "application/x-ndjson", `{"input":"q","output":"a"}` + "\nnot JSON\n" + `{"input":" ","output":"a"}` + "\n",
					[]workshop.LineError{{Line: 2}, {Line: 3, Field: "input"}}},
				{"CSV", "text/csv", "id,input,output\nok1,q,a\nbad id,q,a\nok2,q,\n",
					[]workshop.LineError{{Line: 3, Field: "id"}, {Line: 4, Field: "output"}}},
			} {
				t.Run("invalid "+c.name, func(t *testing.T) {
					fac := s.as(t, doc, fac.token)
					h := http.Header{"Content-Type": {c.contentType}}
					e := fac.wantErrorWith("POST", "/workshops/"+id+"/traces", c.body, h, http.StatusBadRequest, "invalid", c.details[0].Field)
					b, _ := json.Marshal(e.Details)
					var details []workshop.LineError
					if err := json.Unmarshal(b, &details); err != nil || len(details) != len(c.details) {
						t.Fatalf("details %s, want %d lines", b, len(c.details))
					}
					for i, d := range details {
						if d.Line != c.details[i].Line || d.Field != c.details[i].Field || d.Message == "" {
							t.Errorf("detail %d: %+v, want line %d field %q", i, d, c.details[i].Line, c.details[i].Field)
						}
					}
					if got := fac.getWorkshop(id).TraceCount; got != 7 {
						t.Errorf("a refused import left %d traces, want 7", got)
					}
				})
			}
			var skipped workshop.ImportResult
			fac.json("POST", "/workshops/"+id+"/traces?skip_invalid=true", "[\n"+`{"id":"x1","input":"q","output":"a"},`+"\n"+`{"id":"x2","input":"q"}`+"\n]",
				http.StatusCreated, "ImportResult", &skipped)
			if skipped.Imported != 1 || !slices.Equal(skipped.IDs, []string{"x1"}) || len(skipped.Skipped) != 1 ||
				skipped.Skipped[0].Line != 3 || skipped.Skipped[0].Field != "output" {
				t.Errorf("skip_invalid: %+v", skipped)
			}
			fac.wantError("POST", "/workshops/"+id+"/traces?skip_invalid=maybe", `[{"input":"q","output":"a"}]`, http.StatusBadRequest, "invalid", "skip_invalid")
			fac.wantErrorWith("POST", "/workshops/"+id+"/traces", "input,output\nq,a\n", http.Header{"Content-Type": {"text/plain"}},
				http.StatusUnsupportedMediaType, "unsupported_media_type", "Content-Type")
			fac.wantError("POST", "/workshops/"+id+"/traces", `{"input":"q","output":"a"}`, http.StatusBadRequest, "invalid", "")
			if got := fac.getWorkshop(id).TraceCount; got != 8 {
				t.Errorf("%d traces, want 8", got)
			}
		})

		// No participant sees a trace before discovery begins, and nobody
		// may give feedback.
		if got := alice.traces(id, ""); len(got) != 0 {
			t.Errorf("alice sees %d traces before discovery", len(got))
		}
		alice.wantError("POST", "/workshops/"+id+"/discovery-feedback", `{"trace_id":"t1","feedback_label":"good","comment":"fine"}`,
			http.StatusConflict, "conflict", "")

		var begun workshop.Workshop
		fac.json("POST", "/workshops/"+id+"/begin-discovery?trace_limit=5&randomize=true", "", http.StatusOK, "Workshop", &begun)
		if !begun.DiscoveryStarted || !begun.DiscoveryRandomize || begun.Phase != workshop.PhaseDiscovery || begun.TraceLimit != 5 || begun.AssignedCount != 5 {
			t.Errorf("begun %+v", begun)
		}
		fac.wantError("POST", "/workshops/"+id+"/begin-discovery", "", http.StatusConflict, "conflict", "")
		assigned := []string{"t1", "t2", "t3", "t4", "t5"}
		aliceOrder := traceIDs(alice.traces(id, ""))
		if !slices.Equal(slices.Sorted(slices.Values(aliceOrder)), assigned) || !slices.Equal(traceIDs(alice.traces(id, "")), aliceOrder) {
			t.Errorf("alice's traces %v, want a stable order of %v", aliceOrder, assigned)
		}
		if got := bob.traces(id, ""); len(got) != 5 || got[0].State != workshop.StateFeedback || !got[0].Assigned {
			t.Errorf("bob's traces %+v", got)
		}
		if got := fac.traces(id, ""); len(got) != 8 || !got[4].Assigned || got[5].Assigned {
			t.Errorf("the facilitator's traces %+v", got)
		}

		t.Run("participant flow", func(t *testing.T) {
			alice, bob, fac, admin := s.as(t, doc, alice.token), s.as(t, doc, bob.token), s.as(t, doc, fac.token), s.as(t, doc, admin.token)
			f := alice.feedback(id, "t1", " GOOD ", "Clear and right.")
			if f.Label != workshop.LabelGood || f.UserID != aliceAccess.ID || len(f.FollowupQnA) != 0 || f.Pending != nil {
				t.Errorf("feedback %+v", f)
			}
			state := func(c wsCaller, traceID string) (string, int) {
				for _, v := range c.traces(id, "") {
					if v.ID == traceID {
						return v.State, v.QuestionNumber
					}
				}
				t.Fatalf("no trace %s", traceID)
				return "", 0
			}
			if st, n := state(alice, "t1"); st != workshop.StateQuestion || n != 1 {
				t.Errorf("after feedback: %s %d", st, n)
			}
			alice.wantError("POST", "/workshops/"+id+"/generate-followup-question", `{"trace_id":"t1","question_number":2}`, http.StatusConflict, "conflict", "")
			var q1 workshop.Question
			alice.json("POST", "/workshops/"+id+"/generate-followup-question", `{"trace_id":"t1","question_number":1}`, http.StatusOK, "Question", &q1)
			if q1.Number != 1 || q1.Question == "" || q1.Fallback {
				t.Errorf("question 1: %+v", q1)
			}
			var again workshop.Question
			alice.json("POST", "/workshops/"+id+"/generate-followup-question?trace_id=t1&question_number=1", "", http.StatusOK, "Question", &again)
			if again != q1 {
				t.Errorf("question 1 asked again: %+v, was %+v", again, q1)
			}
			if st, n := state(alice, "t1"); st != workshop.StateAnswer || n != 1 {
				t.Errorf("after question 1: %s %d", st, n)
			}
			alice.wantError("POST", "/workshops/"+id+"/submit-followup-answer", `{"trace_id":"t1","question":"Something else?","answer":"x"}`,
				http.StatusConflict, "conflict", "")
			alice.json("POST", "/workshops/"+id+"/submit-followup-answer", mustJSON(t, map[string]any{"trace_id": "t1", "question": q1.Question,
				"answer": "It cites the policy."}), http.StatusOK, "Feedback", &f)
			if len(f.FollowupQnA) != 1 || f.FollowupQnA[0].Answer != "It cites the policy." || f.Pending != nil {
				t.Errorf("after answer 1: %+v", f)
			}
			alice.wantError("POST", "/workshops/"+id+"/submit-followup-answer", `{"trace_id":"t1","answer":"x"}`, http.StatusConflict, "conflict", "")
			// The spec's query form, without a body.
			var q2 workshop.Question
			alice.json("POST", "/workshops/"+id+"/generate-followup-question?trace_id=t1&question_number=2&user_id="+aliceAccess.ID, "",
				http.StatusOK, "Question", &q2)
			if q2.Number != 2 || q2.Question == "" {
				t.Errorf("question 2: %+v", q2)
			}
			alice.json("POST", "/workshops/"+id+"/submit-followup-answer", `{"trace_id":"t1","answer":"Yes."}`, http.StatusOK, "Feedback", &f)
			var q3 workshop.Question
			alice.json("POST", "/workshops/"+id+"/generate-followup-question?question_number=3", `{"trace_id":"t1"}`, http.StatusOK, "Question", &q3)
			if q3.Number != 3 {
				t.Errorf("question 3: %+v", q3)
			}
			alice.json("POST", "/workshops/"+id+"/submit-followup-answer", `{"trace_id":"t1","answer":"Very."}`, http.StatusOK, "Feedback", &f)
			if !f.Complete() || f.FollowupQnA[2].Question != q3.Question {
				t.Errorf("after three answers: %+v", f)
			}
			if st, _ := state(alice, "t1"); st != workshop.StateComplete {
				t.Errorf("after three answers: %s", st)
			}
			alice.wantError("POST", "/workshops/"+id+"/generate-followup-question", `{"trace_id":"t1","question_number":3}`, http.StatusConflict, "conflict", "")
			alice.wantError("POST", "/workshops/"+id+"/submit-followup-answer", `{"trace_id":"t1","answer":"more"}`, http.StatusConflict, "conflict", "")
			// Feedback again replaces the label and keeps the answers.
			if again := alice.feedback(id, "t1", "good", "Clear, right and short."); len(again.FollowupQnA) != 3 || again.Comment != "Clear, right and short." {
				t.Errorf("feedback again: %+v", again)
			}
			alice.feedback(id, "t2", "bad", "Ignores the two-day limit.")
			alice.feedback(id, "t3", "good", "Short.")
			bob.feedback(id, "t1", "Bad", "Should name the HR contact.")
			bob.answerAll(id, "t1")
			bob.feedback(id, "t2", "BAD", "Too vague.")
			bob.feedback(id, "t3", "good", "Polite.")
			if st, n := state(bob, "t2"); st != workshop.StateQuestion || n != 1 {
				t.Errorf("bob on t2: %s %d", st, n)
			}
			alice.wantError("POST", "/workshops/"+id+"/discovery-feedback", `{"trace_id":"t6","feedback_label":"good","comment":"x"}`,
				http.StatusNotFound, "not_found", "")
			alice.wantError("POST", "/workshops/"+id+"/discovery-feedback", `{"trace_id":"t1","feedback_label":"fine","comment":"x"}`,
				http.StatusBadRequest, "invalid", "feedback_label")
			alice.wantError("POST", "/workshops/"+id+"/discovery-feedback", `{"trace_id":"t1","feedback_label":"good","comment":" "}`,
				http.StatusBadRequest, "invalid", "comment")

			var mine, everyone, bobs, bobsToFac api.FeedbackList
			alice.json("GET", "/workshops/"+id+"/discovery-feedback", "", http.StatusOK, "FeedbackList", &mine)
			fac.json("GET", "/workshops/"+id+"/discovery-feedback", "", http.StatusOK, "FeedbackList", &everyone)
			// A facilitator, with their own token as the admin does, picks
			// one member's feedback with user_id; a participant sees only
			// their own.
			fac.json("GET", "/workshops/"+id+"/discovery-feedback?user_id="+bobAccess.ID, "", http.StatusOK, "FeedbackList", &bobsToFac)
			admin.json("GET", "/workshops/"+id+"/discovery-feedback?user_id="+bobAccess.ID, "", http.StatusOK, "FeedbackList", &bobs)
			alice.wantError("GET", "/workshops/"+id+"/discovery-feedback?user_id="+bobAccess.ID, "", http.StatusForbidden, "forbidden", "user_id")
			fac.wantError("GET", "/workshops/"+id+"/discovery-feedback?user_id=nosuch", "", http.StatusNotFound, "not_found", "")
			if len(mine.Feedback) != 3 || len(everyone.Feedback) != 6 || len(bobs.Feedback) != 3 || len(bobsToFac.Feedback) != 3 {
				t.Errorf("feedback: alice's %d, everyone's %d, bob's %d, bob's to the facilitator %d",
					len(mine.Feedback), len(everyone.Feedback), len(bobs.Feedback), len(bobsToFac.Feedback))
			}
			for _, f := range bobsToFac.Feedback {
				if f.UserID != bobAccess.ID {
					t.Errorf("bob's feedback to the facilitator holds %s's", f.UserID)
				}
			}
			for _, f := range mine.Feedback {
				if f.UserID != aliceAccess.ID {
					t.Errorf("alice sees %+v", f)
				}
			}

			var st workshop.CompletionStatus
			fac.json("GET", "/workshops/"+id+"/discovery-completion-status", "", http.StatusOK, "CompletionStatus", &st)
			if st.TotalParticipants != 2 || st.FinishedParticipants != 0 || st.PercentFinished != 0 || len(st.Participants) != 2 ||
				st.Participants[0].UserID != aliceAccess.ID || st.Participants[0].Completed != 1 || st.Participants[0].Assigned != 5 ||
				st.Participants[1].Completed != 1 {
				t.Errorf("completion %+v", st)
			}
		})

		var analysis workshop.Analysis
		t.Run("analysis", func(t *testing.T) {
			fac := s.as(t, doc, fac.token)
			fake.Push(llmtest.JSON(workshop.DistillationOutput{
				Findings: []workshop.Finding{
					{Text: "Name the HR contact when a policy needs HR.", EvidenceTraceIDs: []string{"t1", "t1", "t99"}, Priority: "HIGH"},
					{Text: "  ", EvidenceTraceIDs: []string{"t2"}, Priority: "low"},
				},
				HighPriorityDisagreements: []workshop.DisagreementAnalysis{{TraceID: "t1", Summary: "Whether a contact belongs in the answer.",
					UnderlyingTheme: "Actionability", FollowupQuestions: []string{"Must every HR answer name a contact?"},
					FacilitatorSuggestions: []string{"Agree on when a contact is needed."}}},
				MediumPriorityDisagreements: []workshop.DisagreementAnalysis{},
				LowerPriorityDisagreements:  []workshop.DisagreementAnalysis{},
				Summary:                     "Reviewers want actionable answers.",
			}))
			var started workshop.Started
			res := fac.json("POST", "/workshops/"+id+"/analyze-discovery", `{"template":" evaluation_criteria "}`, http.StatusAccepted, "AnalysisStarted", &started)
			location := api.Prefix + "/workshops/" + id + "/discovery-analysis/" + started.ID
			if started.Status != workshop.StatusQueued || started.Message != "" || res.Header.Get("Location") != location {
				t.Errorf("started %+v, Location %q", started, res.Header.Get("Location"))
			}
			analysis = fac.waitAnalysis(strings.TrimPrefix(res.Header.Get("Location"), api.Prefix))
			if analysis.Status != workshop.StatusDone || analysis.ParticipantCount != 2 || analysis.Model != "fake-model" ||
				analysis.ChunksDone != 1 || analysis.ChunksTotal != 1 || analysis.DroppedEvidence != 1 || analysis.RequestedBy != created.Facilitator.ID ||
				analysis.Summary != "Reviewers want actionable answers." || !strings.Contains(analysis.AnalysisData, "Name the HR contact") {
				t.Errorf("analysis %+v", analysis)
			}
			if len(analysis.Findings) != 1 || !slices.Equal(analysis.Findings[0].EvidenceTraceIDs, []string{"t1"}) || analysis.Findings[0].Priority != workshop.PriorityHigh {
				t.Errorf("findings %+v", analysis.Findings)
			}
			d := analysis.Disagreements
			if len(d.High) != 1 || d.High[0].TraceID != "t1" || d.High[0].Analysis == nil || d.High[0].Analysis.UnderlyingTheme != "Actionability" ||
				len(d.High[0].Reviews) != 2 || len(d.Medium) != 1 || d.Medium[0].TraceID != "t2" || d.Medium[0].Analysis != nil ||
				len(d.Lower) != 1 || d.Lower[0].TraceID != "t3" {
				t.Errorf("disagreements %+v", d)
			}
			if fake.Pending() != 0 {
				t.Errorf("%d LLM replies unused", fake.Pending())
			}
			var list api.AnalysisList
			fac.json("GET", "/workshops/"+id+"/discovery-analysis?template=evaluation_criteria", "", http.StatusOK, "AnalysisList", &list)
			if len(list.Analyses) != 1 || list.Analyses[0].ID != analysis.ID {
				t.Errorf("analyses %+v", list.Analyses)
			}
			fac.json("GET", "/workshops/"+id+"/discovery-analysis?template=themes_patterns", "", http.StatusOK, "AnalysisList", &list)
			if len(list.Analyses) != 0 {
				t.Errorf("themes_patterns analyses %+v", list.Analyses)
			}
			fac.wantError("GET", "/workshops/"+id+"/discovery-analysis/nosuch", "", http.StatusNotFound, "not_found", "")
			fac.wantError("POST", "/workshops/"+id+"/analyze-discovery", `{"template":"nosuch"}`, http.StatusBadRequest, "invalid", "template")

			var templates api.TemplateList
			fac.json("GET", "/workshops/"+id+"/analysis-templates", "", http.StatusOK, "TemplateList", &templates)
			if len(templates.Templates) != 2 || templates.Templates[0].Name != workshop.TemplateEvaluationCriteria || !templates.Templates[1].Preset {
				t.Errorf("templates %+v", templates.Templates)
			}
			var own workshop.Template
			fac.json("POST", "/workshops/"+id+"/analysis-templates", `{"name":"tone","title":"Tone","instruction":"Find what reviewers say about the tone."}`,
				http.StatusCreated, "Template", &own)
			if own.Name != "tone" || own.Preset || own.CreatedBy != created.Facilitator.ID {
				t.Errorf("own template %+v", own)
			}
			fac.wantError("POST", "/workshops/"+id+"/analysis-templates", `{"name":"tone","title":"Tone","instruction":"again"}`, http.StatusConflict, "conflict", "name")
			fac.wantError("POST", "/workshops/"+id+"/analysis-templates", `{"name":"themes_patterns","title":"T","instruction":"i"}`, http.StatusBadRequest, "invalid", "name")
		})

		t.Run("draft rubric", func(t *testing.T) {
			fac := s.as(t, doc, fac.token)
			promote := func(body map[string]any) workshop.DraftItem {
				t.Helper()
				var it workshop.DraftItem
				fac.json("POST", "/workshops/"+id+"/draft-rubric-items", mustJSON(t, body), http.StatusCreated, "DraftItem", &it)
				return it
			}
			finding := promote(map[string]any{"text": analysis.Findings[0].Text, "source_type": "Finding", "source_analysis_id": analysis.ID,
				"source_trace_ids": []string{"t1", "t1"}})
			if finding.SourceType != workshop.SourceFinding || !slices.Equal(finding.SourceTraceIDs, []string{"t1"}) || finding.GroupID != "" ||
				finding.PromotedBy != created.Facilitator.ID {
				t.Errorf("finding item %+v", finding)
			}
			insight := promote(map[string]any{"text": "Decide when an answer names a contact.", "source_type": "disagreement",
				"source_analysis_id": analysis.ID, "source_trace_ids": []string{"t1"}, "group_name": "Actionability"})
			if insight.GroupID == "" || insight.GroupName != "Actionability" {
				t.Errorf("insight item %+v", insight)
			}
			manual := promote(map[string]any{"text": "Be warm."})
			fromFeedback := promote(map[string]any{"text": "Too vague.", "source_type": "feedback", "source_trace_ids": []string{"t2"}})
			if manual.SourceType != workshop.SourceManual || fromFeedback.SourceType != workshop.SourceFeedback {
				t.Errorf("items %+v %+v", manual, fromFeedback)
			}
			fac.wantError("POST", "/workshops/"+id+"/draft-rubric-items", `{"text":"x","source_trace_ids":["t99"]}`, http.StatusBadRequest, "invalid", "source_trace_ids")
			fac.wantError("POST", "/workshops/"+id+"/draft-rubric-items", `{"text":"x","source_analysis_id":"`+analysis.ID+`"}`, http.StatusBadRequest, "invalid", "source_analysis_id")

			var edited workshop.DraftItem
			fac.json("PUT", "/workshops/"+id+"/draft-rubric-items/"+manual.ID, `{"text":"Be warm and brief.","group_id":"`+insight.GroupID+`"}`,
				http.StatusOK, "DraftItem", &edited)
			if edited.Text != "Be warm and brief." || edited.GroupID != insight.GroupID || edited.GroupName != "Actionability" {
				t.Errorf("edited %+v", edited)
			}
			var renamed api.DraftItemList
			fac.json("PUT", "/workshops/"+id+"/draft-rubric-groups/"+insight.GroupID, `{"name":"Next steps"}`, http.StatusOK, "DraftItemList", &renamed)
			if it := itemByID(renamed.Items, manual.ID); it == nil || it.GroupName != "Next steps" || itemByID(renamed.Items, insight.ID).GroupName != "Next steps" {
				t.Errorf("renamed %+v", renamed.Items)
			}
			fac.wantError("PUT", "/workshops/"+id+"/draft-rubric-groups/nosuch", `{"name":"x"}`, http.StatusNotFound, "not_found", "")
			res, b := fac.send("DELETE", "/workshops/"+id+"/draft-rubric-items/"+fromFeedback.ID, "", nil)
			if res.StatusCode != http.StatusNoContent || len(b) != 0 {
				t.Errorf("DELETE: %d %q", res.StatusCode, b)
			}
			fac.wantError("DELETE", "/workshops/"+id+"/draft-rubric-items/"+fromFeedback.ID, "", http.StatusNotFound, "not_found", "")
			before := fac.draftItems(id)
			if len(before) != 3 {
				t.Fatalf("%d items", len(before))
			}

			// The LLM's proposal: an id it invented is dropped, and so is a
			// group left without items; nothing is saved.
			fake.Push(llmtest.JSON(workshop.Grouping{Groups: []workshop.ProposedGroup{
				{Name: "Actionability", ItemIDs: []string{finding.ID, "d-invented-1", insight.ID}, Rationale: "Both ask for next steps."},
				{Name: "Ghosts", ItemIDs: []string{"d-invented-2"}, Rationale: "None of these exist."},
			}}))
			var proposal workshop.Grouping
			fac.json("POST", "/workshops/"+id+"/draft-rubric-items/suggest-groups", "", http.StatusOK, "Grouping", &proposal)
			if len(proposal.Groups) != 1 || !slices.Equal(proposal.Groups[0].ItemIDs, []string{finding.ID, insight.ID}) || proposal.Groups[0].Name != "Actionability" {
				t.Errorf("proposal %+v", proposal)
			}
			if after := fac.draftItems(id); mustJSON(t, after) != mustJSON(t, before) {
				t.Errorf("suggest-groups changed the items: %s", mustJSON(t, after))
			}
			var applied api.DraftItemList
			fac.json("POST", "/workshops/"+id+"/draft-rubric-items/apply-groups", mustJSON(t, proposal), http.StatusOK, "DraftItemList", &applied)
			f, i, m := itemByID(applied.Items, finding.ID), itemByID(applied.Items, insight.ID), itemByID(applied.Items, manual.ID)
			if f.GroupID == "" || f.GroupID != i.GroupID || f.GroupName != "Actionability" || m.GroupID != "" || m.GroupName != "" {
				t.Errorf("applied %s", mustJSON(t, applied.Items))
			}
			fac.wantError("POST", "/workshops/"+id+"/draft-rubric-items/apply-groups", `{"groups":[{"name":"A","item_ids":["`+finding.ID+`"]},{"name":"B","item_ids":["`+finding.ID+`"]}]}`,
				http.StatusBadRequest, "invalid", "groups[1].item_ids")
		})

		t.Run("agreement and export", func(t *testing.T) {
			fac := s.as(t, doc, fac.token)
			var ag workshop.Agreement
			fac.json("GET", "/workshops/"+id+"/agreement", "", http.StatusOK, "Agreement", &ag)
			if len(ag.Traces) != 3 || len(ag.Pairs) != 1 || ag.Pairs[0].Traces != 3 || ag.Pairs[0].Observed == nil || *ag.Pairs[0].Observed != 2.0/3 ||
				ag.FleissTraces != 3 || ag.AlphaTraces != 3 {
				t.Errorf("agreement %s", mustJSON(t, ag))
			}
			for _, tr := range ag.Traces {
				want := 1.0
				if tr.TraceID == "t1" {
					want = 0
				}
				if tr.Reviewers != 2 || tr.Agreement == nil || *tr.Agreement != want {
					t.Errorf("trace agreement %s", mustJSON(t, tr))
				}
			}

			for _, c := range []struct{ query, format, contentType string }{
				{"", "jsonl", "application/x-ndjson"}, {"?format=CSV", "csv", "text/csv; charset=utf-8"}, {"?format=md", "md", "text/markdown; charset=utf-8"},
			} {
				res, b := fac.send("GET", "/workshops/"+id+"/export"+c.query, "", nil)
				if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != c.contentType ||
					res.Header.Get("Content-Disposition") != `attachment; filename="hone-workshop-`+id+`.`+c.format+`"` {
					t.Fatalf("export %s: %d %q %q: %.300s", c.format, res.StatusCode, res.Header.Get("Content-Type"), res.Header.Get("Content-Disposition"), b)
				}
				switch c.format {
				case "jsonl":
					sc := bufio.NewScanner(bytes.NewReader(b))
					sc.Buffer(nil, 1<<20)
					n := 0
					for sc.Scan() {
						validate(t, "FeedbackRecord", sc.Bytes())
						n++
					}
					if n != 6 {
						t.Errorf("JSONL export has %d records, want 6", n)
					}
				case "csv":
					rows := parseCSV(t, string(b))
					if len(rows) != 7 || !slices.Equal(rows[0], workshop.CSVHeader) {
						t.Errorf("CSV export %q", rows)
					}
				case "md":
					if !strings.Contains(string(b), "# Draft rubric (3 items)") || !strings.Contains(string(b), "## Actionability") {
						t.Errorf("Markdown export:\n%s", b)
					}
				}
			}
			fac.wantError("GET", "/workshops/"+id+"/export?format=xml", "", http.StatusBadRequest, "invalid", "format")
		})

		t.Run("phases", func(t *testing.T) {
			fac, alice := s.as(t, doc, fac.token), s.as(t, doc, alice.token)
			var w workshop.Workshop
			fac.json("POST", "/workshops/"+id+"/phase", `{"phase":"discovery"}`, http.StatusOK, "Workshop", &w)
			fac.json("POST", "/workshops/"+id+"/phase", `{"phase":" Rubric_Creation "}`, http.StatusOK, "Workshop", &w)
			if w.Phase != workshop.PhaseRubricCreation {
				t.Errorf("phase %s", w.Phase)
			}
			fac.wantError("POST", "/workshops/"+id+"/phase", `{"phase":"discovery"}`, http.StatusConflict, "conflict", "")
			fac.wantError("POST", "/workshops/"+id+"/phase", `{"phase":"review"}`, http.StatusBadRequest, "invalid", "phase")
			alice.wantError("POST", "/workshops/"+id+"/discovery-feedback", `{"trace_id":"t4","feedback_label":"good","comment":"late"}`,
				http.StatusConflict, "conflict", "")
			alice.wantError("POST", "/workshops/"+id+"/generate-followup-question", `{"trace_id":"t2","question_number":1}`, http.StatusConflict, "conflict", "")
			var it workshop.DraftItem
			fac.json("POST", "/workshops/"+id+"/draft-rubric-items", `{"text":"Still editable in rubric creation."}`, http.StatusCreated, "DraftItem", &it)
			fac.json("POST", "/workshops/"+id+"/phase", `{"phase":"annotation"}`, http.StatusOK, "Workshop", &w)
			fac.wantError("PUT", "/workshops/"+id+"/draft-rubric-items/"+it.ID, `{"text":"x"}`, http.StatusConflict, "conflict", "")
			fac.wantError("DELETE", "/workshops/"+id+"/draft-rubric-items/"+it.ID, "", http.StatusConflict, "conflict", "")
			fac.wantError("POST", "/workshops/"+id+"/draft-rubric-items/apply-groups", `{}`, http.StatusConflict, "conflict", "")
			fac.wantError("POST", "/workshops/"+id+"/begin-discovery", "", http.StatusConflict, "conflict", "")
		})
	})
}

// facilitatorRoutes are the routes a participant may not take, each with a
// body that is valid, so that the refusal is the role's.
func facilitatorRoutes(memberID string) []struct{ method, path, body string } {
	return []struct{ method, path, body string }{
		{"PATCH", "/workshops/{id}", `{"name":"x"}`},
		{"GET", "/workshops/{id}/members", ""},
		{"POST", "/workshops/{id}/members", `{"name":"Eve"}`},
		{"POST", "/workshops/{id}/members/" + memberID + "/token", ""},
		{"POST", "/workshops/{id}/traces", `[{"input":"q","output":"a"}]`},
		{"POST", "/workshops/{id}/traces/from-sessions", `{"prompt_version":"v1"}`},
		{"POST", "/workshops/{id}/phase", `{"phase":"discovery"}`},
		{"POST", "/workshops/{id}/begin-discovery", `{"trace_limit":3}`},
		{"GET", "/workshops/{id}/discovery-completion-status", ""},
		{"POST", "/workshops/{id}/analyze-discovery", `{}`},
		{"GET", "/workshops/{id}/discovery-analysis", ""},
		{"GET", "/workshops/{id}/discovery-analysis/a1", ""},
		{"GET", "/workshops/{id}/analysis-templates", ""},
		{"POST", "/workshops/{id}/analysis-templates", `{"name":"n","title":"t","instruction":"i"}`},
		{"GET", "/workshops/{id}/draft-rubric-items", ""},
		{"POST", "/workshops/{id}/draft-rubric-items", `{"text":"x"}`},
		{"PUT", "/workshops/{id}/draft-rubric-items/d1", `{"text":"x"}`},
		{"DELETE", "/workshops/{id}/draft-rubric-items/d1", ""},
		{"POST", "/workshops/{id}/draft-rubric-items/suggest-groups", ""},
		{"POST", "/workshops/{id}/draft-rubric-items/apply-groups", `{"groups":[]}`},
		{"PUT", "/workshops/{id}/draft-rubric-groups/g1", `{"name":"x"}`},
		{"GET", "/workshops/{id}/agreement", ""},
		{"GET", "/workshops/{id}/export", ""},
	}
}

func TestWorkshopAccess(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		cfg.APIToken = "s3cret"
		s := start(t, cfg)
		doc := confDoc(t)
		admin := s.as(t, doc, s.token)
		a := admin.createWorkshop("A")
		b := admin.createWorkshop("B")
		fa := s.as(t, doc, a.Facilitator.Token)
		pAccess := fa.addMember(a.ID, "Pat", "participant")
		qAccess := fa.addMember(a.ID, "Quinn", "participant")
		p := s.as(t, doc, pAccess.Token)
		fb := s.as(t, doc, b.Facilitator.Token)
		fb.addMember(b.ID, "Rory", "participant")
		fa.importJSON(a.ID, map[string]any{"id": "t1", "input": "q", "output": "a"}, map[string]any{"id": "t2", "input": "q", "output": "a"})
		fb.importJSON(b.ID, map[string]any{"id": "t1", "input": "q", "output": "a"})
		fa.json("POST", "/workshops/"+a.ID+"/begin-discovery", "", http.StatusOK, "Workshop", nil)
		fb.json("POST", "/workshops/"+b.ID+"/begin-discovery", "", http.StatusOK, "Workshop", nil)

		routes := facilitatorRoutes(pAccess.ID)
		t.Run("participant on facilitator routes", func(t *testing.T) {
			p := s.as(t, doc, p.token)
			documented := map[route]bool{}
			for _, r := range routes {
				template := templateOf(t, doc, strings.ReplaceAll(r.path, "{id}", a.ID))
				documented[route{r.method, template}] = true
				e := p.wantError(r.method, strings.ReplaceAll(r.path, "{id}", a.ID), r.body, http.StatusForbidden, "forbidden", "")
				if !strings.Contains(e.Message, "facilitator") {
					t.Errorf("%s %s: %q", r.method, r.path, e.Message)
				}
			}
			// Every workshop route is either here or one a participant takes.
			for _, r := range []route{{"GET", "/workshops"}, {"POST", "/workshops"}, {"GET", "/workshops/{id}"}, {"GET", "/workshops/{id}/traces"},
				{"POST", "/workshops/{id}/discovery-feedback"}, {"GET", "/workshops/{id}/discovery-feedback"},
				{"POST", "/workshops/{id}/generate-followup-question"}, {"POST", "/workshops/{id}/submit-followup-answer"}} {
				documented[r] = true
			}
			for _, r := range (&api.API{}).Routes() {
				if strings.HasPrefix(r.Path, "/workshops") && !documented[route{r.Method, r.Path}] {
					t.Errorf("%s %s is not in the table", r.Method, r.Path)
				}
			}
		})
		t.Run("participant's own routes", func(t *testing.T) {
			p := s.as(t, doc, p.token)
			p.getWorkshop(a.ID)
			p.feedback(a.ID, "t1", "good", "fine")
			if got := p.traces(a.ID, "?user_id="+pAccess.ID); len(got) != 2 {
				t.Errorf("own traces %+v", got)
			}
			var list api.WorkshopList
			p.json("GET", "/workshops", "", http.StatusOK, "WorkshopList", &list)
			if len(list.Workshops) != 1 || list.Workshops[0].ID != a.ID {
				t.Errorf("workshops %+v", list.Workshops)
			}
		})
		t.Run("participant naming another member", func(t *testing.T) {
			p := s.as(t, doc, p.token)
			for _, r := range []struct{ method, path, body string }{
				{"POST", "/workshops/" + a.ID + "/discovery-feedback", `{"trace_id":"t1","user_id":"` + qAccess.ID + `","feedback_label":"bad","comment":"x"}`},
				{"POST", "/workshops/" + a.ID + "/discovery-feedback?user_id=" + qAccess.ID, `{"trace_id":"t1","feedback_label":"bad","comment":"x"}`},
				{"GET", "/workshops/" + a.ID + "/traces?user_id=" + qAccess.ID, ""},
				{"GET", "/workshops/" + a.ID + "/discovery-feedback?user_id=" + a.Facilitator.ID, ""},
				{"POST", "/workshops/" + a.ID + "/generate-followup-question?trace_id=t1&question_number=1&user_id=nobody", ""},
				{"POST", "/workshops/" + a.ID + "/submit-followup-answer", `{"trace_id":"t1","user_id":"` + qAccess.ID + `","answer":"x"}`},
			} {
				p.wantError(r.method, r.path, r.body, http.StatusForbidden, "forbidden", "user_id")
			}
		})
		t.Run("token of another workshop", func(t *testing.T) {
			p := s.as(t, doc, p.token)
			for _, r := range []struct{ method, path, body string }{
				{"GET", "/workshops/" + b.ID, ""}, {"GET", "/workshops/" + b.ID + "/traces", ""},
				{"POST", "/workshops/" + b.ID + "/discovery-feedback", `{"trace_id":"t1","feedback_label":"good","comment":"x"}`},
				{"GET", "/workshops/" + b.ID + "/discovery-feedback", ""},
			} {
				p.wantError(r.method, r.path, r.body, http.StatusForbidden, "forbidden", "")
			}
			// A facilitator's token too: it is of workshop A only.
			fa := s.as(t, doc, fa.token)
			for _, r := range routes {
				fa.wantError(r.method, strings.ReplaceAll(r.path, "{id}", b.ID), r.body, http.StatusForbidden, "forbidden", "")
			}
		})
		t.Run("member token outside the workshop routes", func(t *testing.T) {
			for _, c := range []wsCaller{s.as(t, doc, p.token), s.as(t, doc, fa.token)} {
				for _, r := range []struct{ method, path, body string }{
					{"GET", "/sessions", ""}, {"GET", "/sessions/x", ""}, {"GET", "/llm-calls", ""},
					{"POST", "/turns", mustJSON(t, turn("c", "q"))}, {"POST", "/messages", `{"conversation_id":"c","tester_id":"meg","text":"hi"}`},
					{"GET", "/metrics/regressions", ""},
				} {
					c.wantError(r.method, r.path, r.body, http.StatusForbidden, "forbidden", "")
				}
				c.wantError("POST", "/workshops", `{"name":"mine","facilitator":{"name":"Me"}}`, http.StatusForbidden, "forbidden", "")
				res, body := c.send("GET", "/openapi.json", "", nil)
				if res.StatusCode != http.StatusOK || !json.Valid(body) {
					t.Errorf("GET /openapi.json with a member's token: %d", res.StatusCode)
				}
			}
		})
		t.Run("tokens that are not valid", func(t *testing.T) {
			fa := s.as(t, doc, fa.token)
			var renewed workshop.Access
			fa.json("POST", "/workshops/"+a.ID+"/members/"+pAccess.ID+"/token", "", http.StatusOK, "Access", &renewed)
			if renewed.ID != pAccess.ID || renewed.Token == pAccess.Token || !workshop.LooksLikeToken(renewed.Token) {
				t.Errorf("renewed %+v", renewed)
			}
			fa.wantError("POST", "/workshops/"+a.ID+"/members/nosuch/token", "", http.StatusNotFound, "not_found", "")
			for _, token := range []string{pAccess.Token, "hw_" + strings.Repeat("A", 32)} {
				c := s.as(t, doc, token)
				// Such a token is refused wherever it is needed; the open
				// document is served anyway, as to anyone.
				for _, path := range []string{"/workshops/" + a.ID, "/workshops", "/sessions"} {
					res, _ := c.send("GET", path, "", nil)
					if res.StatusCode != http.StatusUnauthorized || res.Header.Get("WWW-Authenticate") != `Bearer realm="hone", error="invalid_token"` {
						t.Errorf("GET %s with token %.8s…: %d %q", path, token, res.StatusCode, res.Header.Get("WWW-Authenticate"))
					}
				}
				if res, body := c.send("GET", "/openapi.json", "", nil); res.StatusCode != http.StatusOK || !json.Valid(body) {
					t.Errorf("GET /openapi.json with token %.8s…: %d", token, res.StatusCode)
				}
			}
			s.as(t, doc, renewed.Token).getWorkshop(a.ID)
			anonymous := s.as(t, doc, "")
			for _, r := range []struct{ method, path, body string }{
				{"GET", "/workshops", ""}, {"POST", "/workshops", `{"name":"w","facilitator":{"name":"F"}}`}, {"GET", "/workshops/" + a.ID, ""},
				{"POST", "/workshops/" + a.ID + "/discovery-feedback", `{"trace_id":"t1","feedback_label":"good","comment":"x"}`},
			} {
				res, _ := anonymous.send(r.method, r.path, r.body, nil)
				if res.StatusCode != http.StatusUnauthorized || res.Header.Get("WWW-Authenticate") != `Bearer realm="hone"` {
					t.Errorf("%s %s without a token: %d %q", r.method, r.path, res.StatusCode, res.Header.Get("WWW-Authenticate"))
				}
			}
		})
		t.Run("admin", func(t *testing.T) {
			admin := s.as(t, doc, admin.token)
			// The admin may do anything, also when acting for a participant.
			admin.json("GET", "/workshops/"+a.ID+"/members?user_id="+qAccess.ID, "", http.StatusOK, "MemberList", nil)
			admin.wantError("POST", "/workshops/"+a.ID+"/discovery-feedback", `{"trace_id":"t2","feedback_label":"bad","comment":"x"}`,
				http.StatusBadRequest, "invalid", "user_id")
			var f workshop.Feedback
			admin.json("POST", "/workshops/"+a.ID+"/discovery-feedback?user_id="+qAccess.ID, `{"trace_id":"t2","feedback_label":"bad","comment":"x"}`,
				http.StatusOK, "Feedback", &f)
			if f.UserID != qAccess.ID {
				t.Errorf("feedback %+v", f)
			}
			admin.wantError("GET", "/workshops/"+a.ID+"/members?user_id=nobody", "", http.StatusNotFound, "not_found", "")
			var list api.WorkshopList
			admin.json("GET", "/workshops", "", http.StatusOK, "WorkshopList", &list)
			if len(list.Workshops) != 2 || list.Workshops[0].ID != b.ID {
				t.Errorf("workshops %+v", list.Workshops)
			}
		})
		t.Run("phases", func(t *testing.T) {
			admin := s.as(t, doc, admin.token)
			c := admin.createWorkshop("C")
			fc := s.as(t, doc, c.Facilitator.Token)
			fc.importJSON(c.ID, map[string]any{"id": "t1", "input": "q", "output": "a"})
			sam := s.as(t, doc, fc.addMember(c.ID, "Sam", "participant").Token)
			fc.wantError("POST", "/workshops/"+c.ID+"/analyze-discovery", "", http.StatusConflict, "conflict", "")
			// Leaving intake or discovery needs feedback or a draft item.
			fc.wantError("POST", "/workshops/"+c.ID+"/phase", `{"phase":"rubric_creation"}`, http.StatusConflict, "conflict", "")
			var w workshop.Workshop
			fc.json("POST", "/workshops/"+c.ID+"/phase", `{"phase":"discovery"}`, http.StatusOK, "Workshop", &w)
			if w.Phase != workshop.PhaseDiscovery || w.DiscoveryStarted {
				t.Errorf("moved to discovery: %+v", w)
			}
			sam.wantError("POST", "/workshops/"+c.ID+"/discovery-feedback", `{"trace_id":"t1","feedback_label":"good","comment":"x"}`,
				http.StatusConflict, "conflict", "")
			fc.wantError("POST", "/workshops/"+c.ID+"/phase", `{"phase":"annotation"}`, http.StatusConflict, "conflict", "")
			fc.json("POST", "/workshops/"+c.ID+"/draft-rubric-items", `{"text":"Name the contact."}`, http.StatusCreated, "DraftItem", nil)
			fc.json("POST", "/workshops/"+c.ID+"/phase", `{"phase":"rubric_creation"}`, http.StatusOK, "Workshop", &w)
			fc.json("POST", "/workshops/"+c.ID+"/phase", `{"phase":"RUBRIC_CREATION"}`, http.StatusOK, "Workshop", &w)
			for _, back := range []string{"discovery", "intake"} {
				fc.wantError("POST", "/workshops/"+c.ID+"/phase", `{"phase":"`+back+`"}`, http.StatusConflict, "conflict", "")
			}
			sam.wantError("POST", "/workshops/"+c.ID+"/discovery-feedback", `{"trace_id":"t1","feedback_label":"good","comment":"x"}`,
				http.StatusConflict, "conflict", "")
			fc.wantError("POST", "/workshops/"+c.ID+"/begin-discovery", "", http.StatusConflict, "conflict", "")
		})
	})
}

func TestWorkshopLocalMode(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		s := start(t, cfg)
		doc := confDoc(t)
		anyone := s.as(t, doc, "")
		created := anyone.createWorkshop("Local")
		id := created.ID
		p := anyone.addMember(id, "Pat", "")
		base := "/workshops/" + id

		// Without user_id anyone has a facilitator's rights; with it, the
		// role of the member named counts.
		anyone.json("GET", base+"/members", "", http.StatusOK, "MemberList", nil)
		anyone.json("GET", base+"/members?user_id="+created.Facilitator.ID, "", http.StatusOK, "MemberList", nil)
		anyone.wantError("GET", base+"/members?user_id="+p.ID, "", http.StatusForbidden, "forbidden", "")
		anyone.wantError("GET", base+"/members?user_id=nobody", "", http.StatusNotFound, "not_found", "")
		anyone.wantError("POST", base+"/phase", `{"phase":"discovery","user_id":"`+p.ID+`"}`, http.StatusForbidden, "forbidden", "")
		for _, r := range facilitatorRoutes(p.ID) {
			path := strings.ReplaceAll(r.path, "{id}", id)
			sep := "?"
			if strings.Contains(path, "?") {
				sep = "&"
			}
			anyone.wantError(r.method, path+sep+"user_id="+p.ID, r.body, http.StatusForbidden, "forbidden", "")
		}

		anyone.importJSON(id, map[string]any{"id": "t1", "input": "q1", "output": "a1"}, map[string]any{"id": "t2", "input": "q2", "output": "a2"})
		anyone.json("POST", base+"/begin-discovery", `{"trace_limit":2,"randomize":false}`, http.StatusOK, "Workshop", nil)
		anyone.wantError("POST", base+"/discovery-feedback", `{"trace_id":"t1","feedback_label":"good","comment":"x"}`, http.StatusBadRequest, "invalid", "user_id")
		anyone.wantError("POST", base+"/discovery-feedback?user_id=nobody", `{"trace_id":"t1","feedback_label":"good","comment":"x"}`, http.StatusNotFound, "not_found", "")
		anyone.json("POST", base+"/discovery-feedback?user_id="+p.ID, `{"trace_id":"t1","feedback_label":"good","comment":"x"}`, http.StatusOK, "Feedback", nil)
		anyone.json("POST", base+"/discovery-feedback", `{"trace_id":"t2","user_id":"`+p.ID+`","feedback_label":"bad","comment":"y"}`, http.StatusOK, "Feedback", nil)

		// Without an LLM the fallback question comes at once, flagged for
		// facilitators only.
		var q workshop.Question
		anyone.json("POST", base+"/generate-followup-question?trace_id=t1&question_number=1&user_id="+p.ID, "", http.StatusOK, "Question", &q)
		if q.Question != workshop.FallbackQuestions[0] || q.Fallback {
			t.Errorf("question without an LLM: %+v", q)
		}
		var all api.FeedbackList
		anyone.json("GET", base+"/discovery-feedback", "", http.StatusOK, "FeedbackList", &all)
		if len(all.Feedback) != 2 || all.Feedback[0].Pending == nil || !all.Feedback[0].Pending.Fallback {
			t.Errorf("the facilitator's feedback %s", mustJSON(t, all.Feedback))
		}
		var own api.FeedbackList
		anyone.json("GET", base+"/discovery-feedback?user_id="+p.ID, "", http.StatusOK, "FeedbackList", &own)
		if len(own.Feedback) != 2 || own.Feedback[0].Pending == nil || own.Feedback[0].Pending.Fallback {
			t.Errorf("the participant's feedback %s", mustJSON(t, own.Feedback))
		}

		var started workshop.Started
		res := anyone.json("POST", base+"/analyze-discovery", "", http.StatusAccepted, "AnalysisStarted", &started)
		if started.Message == "" {
			t.Errorf("started without an LLM: %+v", started)
		}
		an := anyone.waitAnalysis(strings.TrimPrefix(res.Header.Get("Location"), api.Prefix))
		if an.Status != workshop.StatusDone || an.Model != "" || an.ChunksTotal != 0 || an.ParticipantCount != 1 || len(an.Warnings) != 2 || an.RequestedBy != "local" {
			t.Errorf("analysis without an LLM: %s", mustJSON(t, an))
		}

		var none workshop.Grouping
		anyone.json("POST", base+"/draft-rubric-items/suggest-groups", "", http.StatusOK, "Grouping", &none)
		if len(none.Groups) != 0 {
			t.Errorf("groups of no items: %+v", none)
		}
		anyone.json("POST", base+"/draft-rubric-items", `{"text":"Name the contact."}`, http.StatusCreated, "DraftItem", nil)
		res = anyone.json("POST", base+"/draft-rubric-items/suggest-groups", "", http.StatusServiceUnavailable, "ErrorBody", nil)
		if res.Header.Get("Retry-After") != strconv.Itoa(server.RetryAfter) {
			t.Errorf("suggest-groups without an LLM: Retry-After %q", res.Header.Get("Retry-After"))
		}
	})
}

func TestWorkshopLLMFailure(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		fake := llmtest.New(t)
		cfg.LLM = fake.Config()
		s := start(t, cfg)
		doc := confDoc(t)
		anyone := s.as(t, doc, "")
		created := anyone.createWorkshop("Failing LLM")
		p := anyone.addMember(created.ID, "Pat", "")
		pat := s.as(t, doc, p.Token)
		anyone.importJSON(created.ID, map[string]any{"id": "t1", "input": "q1", "output": "a1"})
		anyone.json("POST", "/workshops/"+created.ID+"/begin-discovery", "", http.StatusOK, "Workshop", nil)
		pat.feedback(created.ID, "t1", "bad", "Wrong.")

		fake.SetHandler(func(llmtest.ChatRequest) llmtest.Reply {
			return llmtest.Error(http.StatusInternalServerError, "upstream exploded")
		})
		body := `{"trace_id":"t1","question_number":1}`
		for attempt := 1; attempt < workshop.FailedAttempts; attempt++ {
			res := pat.json("POST", "/workshops/"+created.ID+"/generate-followup-question", body, http.StatusServiceUnavailable, "ErrorBody", nil)
			if res.Header.Get("Retry-After") != strconv.Itoa(server.RetryAfter) {
				t.Errorf("attempt %d: Retry-After %q", attempt, res.Header.Get("Retry-After"))
			}
		}
		var q workshop.Question
		pat.json("POST", "/workshops/"+created.ID+"/generate-followup-question", body, http.StatusOK, "Question", &q)
		if q.Question != workshop.FallbackQuestions[0] || q.Fallback {
			t.Errorf("the third attempt: %+v", q)
		}
		fake.SetHandler(llmtest.Echo)
		var f workshop.Feedback
		pat.json("POST", "/workshops/"+created.ID+"/submit-followup-answer", `{"trace_id":"t1","answer":"It is wrong."}`, http.StatusOK, "Feedback", &f)
		if len(f.FollowupQnA) != 1 || f.FollowupQnA[0].Fallback {
			t.Errorf("the participant's record %s", mustJSON(t, f))
		}
		var all api.FeedbackList
		anyone.json("GET", "/workshops/"+created.ID+"/discovery-feedback", "", http.StatusOK, "FeedbackList", &all)
		if len(all.Feedback) != 1 || !all.Feedback[0].FollowupQnA[0].Fallback {
			t.Errorf("the facilitator's view %s", mustJSON(t, all.Feedback))
		}
		pat.json("POST", "/workshops/"+created.ID+"/generate-followup-question", `{"trace_id":"t1","question_number":2}`, http.StatusOK, "Question", &q)
		if q.Question == workshop.FallbackQuestions[1] {
			t.Errorf("question 2 with the LLM back: %+v", q)
		}
	})
}

func TestWorkshopImportSessions(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		s := start(t, cfg)
		doc := confDoc(t)
		anyone := s.as(t, doc, "")
		first := s.postTurn(turn("conv-1", "How many vacation days?", "prompt_version", "v1"))
		second := s.postTurn(turn("conv-1", "And sick days?", "prompt_version", "v1"))
		other := s.postTurn(turn("conv-2", "Parking?", "prompt_version", "v2"))
		created := anyone.createWorkshop("From sessions")
		path := "/workshops/" + created.ID + "/traces/from-sessions"

		var res workshop.ImportResult
		anyone.json("POST", path, `{"session_id":"`+first.SessionID+`"}`, http.StatusCreated, "ImportResult", &res)
		if res.Imported != 2 || !slices.Equal(res.IDs, []string{first.ID, second.ID}) || res.Skipped != nil {
			t.Errorf("session import %+v", res)
		}
		anyone.json("POST", path, `{"prompt_version":"v1"}`, http.StatusCreated, "ImportResult", &res)
		if res.Imported != 0 || len(res.IDs) != 0 || len(res.Skipped) != 2 || res.Skipped[0].Line != 0 || res.Skipped[0].Field != "id" {
			t.Errorf("the same turns again %+v", res)
		}
		anyone.json("POST", path, `{"prompt_version":"v2","user_id":"`+created.Facilitator.ID+`"}`, http.StatusCreated, "ImportResult", &res)
		if res.Imported != 1 || res.IDs[0] != other.ID {
			t.Errorf("prompt version import %+v", res)
		}
		traces := anyone.traces(created.ID, "")
		if len(traces) != 3 || traces[0].InputText != "How many vacation days?" || traces[0].OutputText != "Answer to: How many vacation days?" ||
			!strings.Contains(string(traces[0].Metadata), `"source":"hone-session"`) {
			t.Errorf("traces %s", mustJSON(t, traces))
		}
		anyone.wantError("POST", path, `{"session_id":"`+first.SessionID+`","prompt_version":"v1"}`, http.StatusBadRequest, "invalid", "session_id")
		anyone.wantError("POST", path, `{}`, http.StatusBadRequest, "invalid", "session_id")
		anyone.wantError("POST", path, `{"session_id":"nosuch"}`, http.StatusNotFound, "not_found", "")
		anyone.wantError("POST", path, `{"prompt_version":"v9"}`, http.StatusNotFound, "not_found", "")
	})
}

// workshopRequests are valid requests of every workshop route, on workshop
// id (whose member member is), for the tests that need an answer to each.
func workshopRequests(id, member string) []struct{ method, path, body string } {
	out := []struct{ method, path, body string }{
		{"GET", "/workshops", ""},
		{"POST", "/workshops", `{"name":"w","facilitator":{"name":"Fay"}}`},
		{"GET", "/workshops/{id}", ""},
		{"GET", "/workshops/{id}/traces", ""},
		{"POST", "/workshops/{id}/discovery-feedback", `{"trace_id":"t1","user_id":"` + member + `","feedback_label":"good","comment":"x"}`},
		{"GET", "/workshops/{id}/discovery-feedback", ""},
		{"POST", "/workshops/{id}/generate-followup-question", `{"trace_id":"t1","user_id":"` + member + `","question_number":1}`},
		{"POST", "/workshops/{id}/submit-followup-answer", `{"trace_id":"t1","user_id":"` + member + `","answer":"x"}`},
	}
	out = append(out, facilitatorRoutes(member)...)
	for i := range out {
		out[i].path = strings.ReplaceAll(out[i].path, "{id}", id)
	}
	return out
}

// TestWorkshopUnavailable runs hone with a database that never answers in
// time: every workshop route answers the documented 503 with Retry-After.
func TestWorkshopUnavailable(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		cfg.DBTimeout = time.Nanosecond
		s := start(t, cfg)
		doc := confDoc(t)
		seen := map[route]bool{}
		for _, r := range workshopRequests("w1", "m1") {
			t.Run(r.method+" "+r.path, func(t *testing.T) {
				c := s.as(t, doc, "")
				seen[route{r.method, templateOf(t, doc, r.path)}] = true
				res := c.json(r.method, r.path, r.body, http.StatusServiceUnavailable, "ErrorBody", nil)
				if got := res.Header.Get("Retry-After"); got != strconv.Itoa(server.RetryAfter) {
					t.Errorf("Retry-After %q", got)
				}
			})
		}
		for _, r := range routes() {
			if strings.HasPrefix(r.path, "/workshops") && !seen[r] {
				t.Errorf("%s %s was not asked", r.method, r.path)
			}
		}
	})
}
