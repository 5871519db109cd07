package workshop_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/llm/llmtest"
	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/storage/storagetest"
	"github.com/honehq/hone/internal/workshop"
)

func traceIDs(views []workshop.TraceView) []string {
	var out []string
	for _, v := range views {
		out = append(out, v.ID)
	}
	return out
}

func TestBeginDiscoveryAssignsTracesInAStableOrder(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		f := newFixture(t, db, true)
		if _, err := f.svc.Begin(admin, f.ws.ID, "", 0, false); hone.ErrorCode(err) != hone.ECONFLICT {
			t.Fatalf("begin without traces: %v", err)
		}
		f.begin(30, 20, true)
		w, _ := f.svc.Get(admin, f.ws.ID)
		if w.Phase != workshop.PhaseDiscovery || !w.DiscoveryStarted || w.AssignedCount != 20 || !w.DiscoveryRandomize {
			t.Fatalf("after begin: %+v", w)
		}
		if _, err := f.svc.Begin(admin, f.ws.ID, "", 5, false); hone.ErrorCode(err) != hone.ECONFLICT {
			t.Fatalf("second begin: %v", err)
		}
		alice, err := f.svc.Traces(f.as(f.alice), f.ws.ID, "")
		if err != nil {
			t.Fatal(err)
		}
		bob, _ := f.svc.Traces(f.as(f.bob), f.ws.ID, "")
		a, b := traceIDs(alice), traceIDs(bob)
		if len(a) != 20 || len(b) != 20 || slices.Equal(a, b) {
			t.Fatalf("orders: alice %v, bob %v", a, b)
		}
		sorted := slices.Clone(a)
		slices.Sort(sorted)
		want := []string{}
		for i := 1; i <= 20; i++ {
			want = append(want, "t"+itoa(i))
		}
		slices.Sort(want)
		if !slices.Equal(sorted, want) {
			t.Fatalf("alice's traces %v are not the first 20", sorted)
		}
		again := workshop.NewService(db.Workshops(), nil, workshop.Options{})
		ctx := hone.WithIdentity(context.Background(), hone.Identity{Kind: hone.IdentityMember, WorkshopID: f.ws.ID, MemberID: f.alice.ID})
		reloaded, err := again.Traces(ctx, f.ws.ID, "")
		if err != nil || !slices.Equal(traceIDs(reloaded), a) {
			t.Fatalf("the order changed after a restart: %v vs %v (%v)", traceIDs(reloaded), a, err)
		}
		all, _ := f.svc.Traces(f.as(f.facilitator), f.ws.ID, "")
		if len(all) != 30 || !all[19].Assigned || all[20].Assigned {
			t.Fatalf("facilitator's traces: %d, assigned flags wrong", len(all))
		}
		if alice[0].State != workshop.StateFeedback {
			t.Errorf("state before feedback: %+v", alice[0])
		}
	})
}

func TestFeedbackQuestionsAndAnswers(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		f := newFixture(t, db, true)
		f.begin(3, 3, false)
		ctx := f.as(f.alice)
		in := workshop.FeedbackInput{TraceID: "t1", UserID: f.alice.ID, Label: "GOOD", Comment: "clear and kind"}
		for field, bad := range map[string]workshop.FeedbackInput{
			"feedback_label": {TraceID: "t1", Label: "meh", Comment: "x"},
			"comment":        {TraceID: "t1", Label: "bad", Comment: "  "},
			"trace_id":       {Label: "bad", Comment: "x"},
		} {
			if _, err := f.svc.SubmitFeedback(ctx, f.ws.ID, bad); hone.ErrorField(err) != field {
				t.Errorf("%s: %v", field, err)
			}
		}
		if _, err := f.svc.GenerateQuestion(ctx, f.ws.ID, "t1", "", 1); hone.ErrorCode(err) != hone.ECONFLICT {
			t.Fatalf("a question before the feedback: %v", err)
		}
		fb, err := f.svc.SubmitFeedback(ctx, f.ws.ID, in)
		if err != nil || fb.Label != "good" || fb.UserID != f.alice.ID {
			t.Fatalf("feedback: %+v %v", fb, err)
		}
		wantCode(t, "question 2 first", must2(f.svc.GenerateQuestion(ctx, f.ws.ID, "t1", "", 2)), hone.ECONFLICT)
		wantCode(t, "question 4", must2(f.svc.GenerateQuestion(ctx, f.ws.ID, "t1", "", 4)), hone.EINVALID)
		wantCode(t, "an answer before a question", must2(f.svc.SubmitAnswer(ctx, f.ws.ID,
			workshop.AnswerInput{TraceID: "t1", Answer: "x"})), hone.ECONFLICT)
		f.llm.Push(llmtest.Text("What made it clear?"))
		q1, err := f.svc.GenerateQuestion(ctx, f.ws.ID, "t1", "", 1)
		if err != nil || q1.Question != "What made it clear?" || q1.Number != 1 || q1.Fallback {
			t.Fatalf("q1: %+v %v", q1, err)
		}
		again, _ := f.svc.GenerateQuestion(ctx, f.ws.ID, "t1", "", 1)
		if again.Question != q1.Question || len(f.llm.Requests()) != 1 {
			t.Fatalf("asking question 1 again asked the LLM again: %+v, %d calls", again, len(f.llm.Requests()))
		}
		req := f.llm.Requests()[0]
		if req.Messages[0].Content != workshop.DefaultFollowupSystemPrompt ||
			!strings.Contains(req.Messages[1].Content, "Input: question t1\nOutput: answer t1\n\nREVIEWER'S FEEDBACK:\nLabel: GOOD\nComment: clear and kind\nPrior Q/A with reviewer:\n(none yet)") {
			t.Fatalf("prompts: %+v", req.Messages)
		}
		if _, err := f.svc.SubmitFeedback(ctx, f.ws.ID, workshop.FeedbackInput{TraceID: "t1", Label: "bad", Comment: "changed my mind"}); err != nil {
			t.Fatal(err)
		}
		wantCode(t, "the answer to another question", must2(f.svc.SubmitAnswer(ctx, f.ws.ID,
			workshop.AnswerInput{TraceID: "t1", Question: "Something else?", Answer: "x"})), hone.ECONFLICT)
		wantCode(t, "a blank answer", must2(f.svc.SubmitAnswer(ctx, f.ws.ID,
			workshop.AnswerInput{TraceID: "t1", Question: q1.Question, Answer: " "})), hone.EINVALID)
		got, err := f.svc.SubmitAnswer(ctx, f.ws.ID, workshop.AnswerInput{TraceID: "t1", Question: q1.Question, Answer: "the steps"})
		if err != nil || len(got.FollowupQnA) != 1 || got.Label != "bad" || got.Pending != nil {
			t.Fatalf("answer 1: %+v %v", got, err)
		}
		f.llm.Push(llmtest.Text("Question: \"Which step?\""))
		q2, err := f.svc.GenerateQuestion(ctx, f.ws.ID, "t1", "", 2)
		if err != nil || q2.Question != "Which step?" {
			t.Fatalf("q2: %+v %v", q2, err)
		}
		if prompt := f.llm.Requests()[1].Messages[1].Content; !strings.Contains(prompt, "Label: BAD\nComment: changed my mind\nPrior Q/A with reviewer:\nQ1: What made it clear?\nA1: the steps") {
			t.Fatalf("question 2 does not build on the first answer:\n%s", prompt)
		}
		views, _ := f.svc.Traces(ctx, f.ws.ID, "")
		if v := views[0]; v.State != workshop.StateAnswer || v.QuestionNumber != 2 {
			t.Fatalf("state while question 2 waits: %+v", v)
		}
		if _, err := f.svc.SubmitAnswer(ctx, f.ws.ID, workshop.AnswerInput{TraceID: "t1", Answer: "step 2"}); err != nil {
			t.Fatal(err)
		}
		f.llm.Push(llmtest.Text("How urgent?"))
		if _, err := f.svc.GenerateQuestion(ctx, f.ws.ID, "t1", "", 3); err != nil {
			t.Fatal(err)
		}
		done, err := f.svc.SubmitAnswer(ctx, f.ws.ID, workshop.AnswerInput{TraceID: "t1", Answer: "very"})
		if err != nil || !done.Complete() {
			t.Fatalf("answer 3: %+v %v", done, err)
		}
		want := []string{"What made it clear?/the steps", "Which step?/step 2", "How urgent?/very"}
		for i, qa := range done.FollowupQnA {
			if qa.Question+"/"+qa.Answer != want[i] {
				t.Errorf("Q&A %d = %+v, want %s", i, qa, want[i])
			}
		}
		wantCode(t, "a fourth question", must2(f.svc.GenerateQuestion(ctx, f.ws.ID, "t1", "", 3)), hone.ECONFLICT)
		wantCode(t, "a fourth answer", must2(f.svc.SubmitAnswer(ctx, f.ws.ID, workshop.AnswerInput{TraceID: "t1", Answer: "more"})), hone.ECONFLICT)
		st, err := f.svc.Completion(admin, f.ws.ID, "")
		if err != nil || st.TotalParticipants != 2 || st.FinishedParticipants != 0 || st.Participants[0].Completed != 1 || st.Participants[0].Assigned != 3 {
			t.Fatalf("completion: %+v %v", st, err)
		}
		f.complete(ctx, f.alice, "t2", "good")
		f.complete(ctx, f.alice, "t3", "bad")
		st, _ = f.svc.Completion(admin, f.ws.ID, "")
		if st.FinishedParticipants != 1 || st.PercentFinished != 50 {
			t.Fatalf("completion after alice finished: %+v", st)
		}
	})
}

// must2 returns the error of a call's two results.
func must2[T any](_ T, err error) error { return err }

func TestFallbackQuestionAfterThreeFailedAttempts(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		f := newFixture(t, db, true)
		f.begin(2, 2, false)
		ctx := f.as(f.alice)
		if _, err := f.svc.SubmitFeedback(ctx, f.ws.ID, workshop.FeedbackInput{TraceID: "t1", Label: "bad", Comment: "vague"}); err != nil {
			t.Fatal(err)
		}
		f.llm.SetHandler(func(llmtest.ChatRequest) llmtest.Reply { return llmtest.Error(500, "model crashed") })
		// The participant is told to retry; the admin (acting for them)
		// also reads why.
		adminFor := hone.WithIdentity(context.Background(), hone.Admin)
		for attempt := 1; attempt < workshop.FailedAttempts; attempt++ {
			as, user, detail := ctx, "", false
			if attempt == 2 {
				as, user, detail = adminFor, f.alice.ID, true
			}
			_, err := f.svc.GenerateQuestion(as, f.ws.ID, "t1", user, 1)
			msg := hone.ErrorMessage(err)
			if hone.ErrorCode(err) != hone.EUNAVAILABLE || !strings.Contains(msg, "attempt "+itoa(attempt)+" of 3") ||
				!strings.HasSuffix(msg, ". Try again.") || strings.Contains(msg, "model crashed") != detail {
				t.Fatalf("attempt %d: %v", attempt, err)
			}
		}
		q, err := f.svc.GenerateQuestion(ctx, f.ws.ID, "t1", "", 1)
		if err != nil || q.Question != workshop.FallbackQuestions[0] || q.Fallback {
			t.Fatalf("third attempt, as the participant sees it: %+v %v", q, err)
		}
		fq, _ := f.svc.GenerateQuestion(hone.WithIdentity(context.Background(), hone.Admin), f.ws.ID, "t1", f.alice.ID, 1)
		if !fq.Fallback {
			t.Fatalf("the admin does not see the fallback flag: %+v", fq)
		}
		if _, err := f.svc.SubmitAnswer(ctx, f.ws.ID, workshop.AnswerInput{TraceID: "t1", Question: q.Question, Answer: "the date"}); err != nil {
			t.Fatal(err)
		}
		own, _ := f.svc.ListFeedback(ctx, f.ws.ID, "")
		all, _ := f.svc.ListFeedback(f.as(f.facilitator), f.ws.ID, "")
		if len(own) != 1 || own[0].FollowupQnA[0].Fallback || len(all) != 1 || !all[0].FollowupQnA[0].Fallback {
			t.Fatalf("fallback flag: participant %+v, facilitator %+v", own[0].FollowupQnA, all[0].FollowupQnA)
		}
		f.llm.SetHandler(llmtest.Echo)
		q2, err := f.svc.GenerateQuestion(ctx, f.ws.ID, "t1", "", 2)
		if err != nil || q2.Question == workshop.FallbackQuestions[1] {
			t.Fatalf("the LLM is back, yet: %+v %v", q2, err)
		}
	})
}

func TestWithoutLLMTheFallbackComesAtOnce(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		f := newFixture(t, db, false)
		f.begin(1, 1, false)
		ctx := f.as(f.bob)
		if _, err := f.svc.SubmitFeedback(ctx, f.ws.ID, workshop.FeedbackInput{TraceID: "t1", Label: "good", Comment: "ok"}); err != nil {
			t.Fatal(err)
		}
		for n := 1; n <= 3; n++ {
			q, err := f.svc.GenerateQuestion(ctx, f.ws.ID, "t1", "", n)
			if err != nil || q.Question != workshop.FallbackQuestions[n-1] {
				t.Fatalf("question %d: %+v %v", n, q, err)
			}
			if _, err := f.svc.SubmitAnswer(ctx, f.ws.ID, workshop.AnswerInput{TraceID: "t1", Answer: "a"}); err != nil {
				t.Fatal(err)
			}
		}
	})
}
