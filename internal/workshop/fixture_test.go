package workshop_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/llm"
	"github.com/honehq/hone/internal/llm/llmtest"
	"github.com/honehq/hone/internal/score"
	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/workshop"
)

// fixture is a workshop service over a real database and, unless noLLM,
// the in-process fake LLM.
type fixture struct {
	t   *testing.T
	db  *storage.DB
	svc *workshop.Service
	llm *llmtest.Server
	// ws is a workshop with a facilitator and two participants.
	ws          *workshop.Created
	facilitator workshop.Access
	alice, bob  workshop.Access
}

// scores is the score capability over db, as hone wires it for the
// workshops: labels are scores of config workshop_label.
func scores(db *storage.DB) *score.Service {
	return score.NewService(db.Scores(), score.Options{Turns: db.Capture(), Traces: db.Workshops()})
}

var admin = hone.WithIdentity(context.Background(), hone.Admin)

func newFixture(t *testing.T, db *storage.DB, withLLM bool) *fixture {
	t.Helper()
	f := &fixture{t: t, db: db}
	opts := workshop.Options{JoinURL: func(_ context.Context, p string) string { return "https://hone.example.com" + p }, Scores: scores(db)}
	if withLLM {
		f.llm = llmtest.New(t)
		opts.LLM = f.llm.Client(db.LLMCalls())
	} else {
		opts.LLMError = llm.Config{}.Validate()
	}
	f.svc = workshop.NewService(db.Workshops(), db.Capture(), opts)
	opts.Scores.Follow(f.svc)
	var err error
	f.ws, err = f.svc.Create(admin, workshop.Create{Name: "Support bot review", Description: "HR answers",
		Facilitator: workshop.Person{Name: "Fay", Email: "fay@example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	f.facilitator = f.ws.Facilitator
	f.alice = f.member("Alice", workshop.RoleParticipant)
	f.bob = f.member("Bob", workshop.RoleParticipant)
	return f
}

func (f *fixture) member(name, role string) workshop.Access {
	f.t.Helper()
	a, err := f.svc.AddMember(admin, f.ws.ID, "", workshop.Person{Name: name, Email: strings.ToLower(name) + "@example.com", Role: role})
	if err != nil {
		f.t.Fatal(err)
	}
	return *a
}

// as is the context of a member's own token.
func (f *fixture) as(a workshop.Access) context.Context {
	f.t.Helper()
	id, ok, err := f.svc.Authenticate(context.Background(), a.Token)
	if err != nil || !ok {
		f.t.Fatalf("token of %s: %v %v", a.Name, ok, err)
	}
	return hone.WithIdentity(context.Background(), id)
}

// importTraces imports n traces t1…tn as JSON.
func (f *fixture) importTraces(n int) {
	f.t.Helper()
	var items []map[string]any
	for i := 1; i <= n; i++ {
		id := "t" + itoa(i)
		items = append(items, map[string]any{"id": id, "input": "question " + id, "output": "answer " + id})
	}
	b, _ := json.Marshal(items)
	if _, err := f.svc.ImportTraces(admin, f.ws.ID, "", strings.NewReader(string(b)), workshop.FormatJSON, false); err != nil {
		f.t.Fatal(err)
	}
}

func itoa(i int) string { return jsonNumber(i) }

func jsonNumber(i int) string { b, _ := json.Marshal(i); return string(b) }

// begin imports n traces and starts discovery over the first limit.
func (f *fixture) begin(n, limit int, randomize bool) {
	f.t.Helper()
	f.importTraces(n)
	if _, err := f.svc.Begin(admin, f.ws.ID, "", limit, randomize); err != nil {
		f.t.Fatal(err)
	}
}

// complete gives a member's full feedback on a trace: label, comment and three answers.
func (f *fixture) complete(ctx context.Context, a workshop.Access, traceID, label string) {
	f.t.Helper()
	if _, err := f.svc.SubmitFeedback(ctx, f.ws.ID, workshop.FeedbackInput{TraceID: traceID, UserID: a.ID, Label: label,
		Comment: a.Name + " thinks " + label + " about " + traceID}); err != nil {
		f.t.Fatal(err)
	}
	for n := 1; n <= workshop.Questions; n++ {
		q, err := f.svc.GenerateQuestion(ctx, f.ws.ID, traceID, a.ID, n)
		if err != nil {
			f.t.Fatalf("question %d: %v", n, err)
		}
		if _, err := f.svc.SubmitAnswer(ctx, f.ws.ID, workshop.AnswerInput{TraceID: traceID, UserID: a.ID, Question: q.Question,
			Answer: "answer " + jsonNumber(n)}); err != nil {
			f.t.Fatalf("answer %d: %v", n, err)
		}
	}
}

// waitAnalysis polls an analysis until it is done or failed.
func (f *fixture) waitAnalysis(id string) *workshop.Analysis {
	f.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		a, err := f.svc.Analysis(admin, f.ws.ID, "", id)
		if err != nil {
			f.t.Fatal(err)
		}
		if a.Status == workshop.StatusDone || a.Status == workshop.StatusFailed {
			return a
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("analysis %s still %s", id, a.Status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func wantCode(t *testing.T, what string, err error, code string) {
	t.Helper()
	if hone.ErrorCode(err) != code {
		t.Errorf("%s: err = %v, want %s", what, err, code)
	}
}
