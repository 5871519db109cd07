package workshop_test

import (
	"context"
	"slices"
	"testing"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/storage/storagetest"
	"github.com/honehq/hone/internal/workshop"
)

func TestViewerIsWhoLooks(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		f := newFixture(t, db, true)
		for _, c := range []struct {
			name        string
			ctx         context.Context
			member      string
			facilitator bool
		}{
			{"the facilitator", f.as(f.facilitator), f.facilitator.ID, true},
			{"a participant", f.as(f.alice), f.alice.ID, false},
			{"the admin", admin, "", true},
		} {
			v, err := f.svc.Viewer(c.ctx, f.ws.ID)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			got := ""
			if v.Member != nil {
				got = v.Member.ID
			}
			if v.Workshop.ID != f.ws.ID || got != c.member || v.Facilitator != c.facilitator {
				t.Errorf("%s: member %q facilitator %v, want %q %v", c.name, got, v.Facilitator, c.member, c.facilitator)
			}
		}
		other := newFixture(t, db, false)
		if _, err := f.svc.Viewer(other.as(other.alice), f.ws.ID); hone.ErrorCode(err) != hone.EFORBIDDEN {
			t.Errorf("a member of another workshop: %v", err)
		}
		if m := f.svc.DefaultModel(); m != "fake-model" {
			t.Errorf("default model with the fake LLM: %q", m)
		}
		if m := other.svc.DefaultModel(); m != "" {
			t.Errorf("default model without an LLM: %q", m)
		}
	})
}

func TestStepFollowsTheParticipant(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		f := newFixture(t, db, false)
		f.begin(4, 3, false)
		ctx := f.as(f.alice)
		step := func(trace string) *workshop.Step {
			t.Helper()
			st, err := f.svc.Step(ctx, f.ws.ID, trace)
			if err != nil {
				t.Fatalf("step on %s: %v", trace, err)
			}
			return st
		}
		st := step("t1")
		if st.State != workshop.StateFeedback || st.Index != 1 || st.Total != 3 || st.Completed != 0 || st.Next != "t2" ||
			st.Feedback != nil || st.Trace.ID != "t1" {
			t.Fatalf("before feedback: %+v", st)
		}
		if _, err := f.svc.SubmitFeedback(ctx, f.ws.ID, workshop.FeedbackInput{TraceID: "t1", Label: "bad", Comment: "vague"}); err != nil {
			t.Fatal(err)
		}
		if st = step("t1"); st.State != workshop.StateQuestion || st.QuestionNumber != 1 || st.Feedback == nil || st.Feedback.Comment != "vague" {
			t.Fatalf("after feedback: %+v", st)
		}
		// Without an LLM the question is a fallback one, which a
		// participant is not told and a facilitator is.
		if _, err := f.svc.GenerateQuestion(ctx, f.ws.ID, "t1", "", 1); err != nil {
			t.Fatal(err)
		}
		if st = step("t1"); st.State != workshop.StateAnswer || st.Feedback.Pending == nil || st.Feedback.Pending.Fallback {
			t.Fatalf("pending question as the participant sees it: %+v", st.Feedback.Pending)
		}
		f.complete(ctx, f.alice, "t2", "good")
		st = step("t3")
		if st.Completed != 1 || st.Index != 3 || st.Next != "t1" {
			t.Fatalf("the next trace after the last wraps to the first not complete: %+v", st)
		}
		if st = step("t2"); st.State != workshop.StateComplete || len(st.Feedback.FollowupQnA) != 3 || st.Feedback.FollowupQnA[0].Fallback {
			t.Fatalf("a complete trace: %+v", st)
		}
		if st.Previous != "t1" || st.Following != "t3" {
			t.Errorf("t2's neighbours: previous %q, following %q; want t1 and t3", st.Previous, st.Following)
		}
		wantTraces := []workshop.StepTrace{{ID: "t1", Index: 1, State: workshop.StateAnswer}, {ID: "t2", Index: 2, State: workshop.StateComplete},
			{ID: "t3", Index: 3, State: workshop.StateFeedback}}
		if !slices.Equal(st.Traces, wantTraces) {
			t.Errorf("the member's traces = %+v, want %+v", st.Traces, wantTraces)
		}
		if st = step("t1"); st.Previous != "" || st.Following != "t2" {
			t.Errorf("t1's neighbours: previous %q, following %q; want none and t2", st.Previous, st.Following)
		}
		if st = step("t3"); st.Previous != "t2" || st.Following != "" {
			t.Errorf("t3's neighbours: previous %q, following %q; want t2 and none", st.Previous, st.Following)
		}
		if _, err := f.svc.Step(ctx, f.ws.ID, "t4"); hone.ErrorCode(err) != hone.ENOTFOUND {
			t.Errorf("a trace discovery does not review: %v", err)
		}
		if _, err := f.svc.Step(admin, f.ws.ID, "t1"); hone.ErrorField(err) != "user_id" {
			t.Errorf("the admin, who is no member: %v", err)
		}

		tr, err := f.svc.TraceReviews(f.as(f.facilitator), f.ws.ID, "t2")
		if err != nil {
			t.Fatal(err)
		}
		if tr.Trace.ID != "t2" || len(tr.Feedback) != 1 || tr.Names[f.alice.ID] != "Alice" || !tr.Feedback[0].FollowupQnA[0].Fallback {
			t.Fatalf("trace reviews: %+v", tr)
		}
		if _, err := f.svc.TraceReviews(ctx, f.ws.ID, "t2"); hone.ErrorCode(err) != hone.EFORBIDDEN {
			t.Errorf("trace reviews for a participant: %v", err)
		}
		if _, err := f.svc.TraceReviews(admin, f.ws.ID, "nosuch"); hone.ErrorCode(err) != hone.ENOTFOUND {
			t.Errorf("trace reviews of no trace: %v", err)
		}
	})
}

func TestCanLeaveDiscoverySaysWhy(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		f := newFixture(t, db, false)
		f.begin(2, 2, false)
		fac := f.as(f.facilitator)
		ok, reason, err := f.svc.CanLeaveDiscovery(fac, f.ws.ID)
		if err != nil || ok || reason == "" {
			t.Fatalf("without feedback or draft items: %v %q %v", ok, reason, err)
		}
		if _, err := f.svc.SetPhase(fac, f.ws.ID, "", workshop.PhaseRubricCreation); hone.ErrorCode(err) != hone.ECONFLICT ||
			hone.ErrorMessage(err) != reason {
			t.Fatalf("SetPhase refuses with another reason: %v", err)
		}
		if _, _, err := f.svc.CanLeaveDiscovery(f.as(f.alice), f.ws.ID); hone.ErrorCode(err) != hone.EFORBIDDEN {
			t.Errorf("asked by a participant: %v", err)
		}
		if _, err := f.svc.Promote(fac, f.ws.ID, "", workshop.DraftItemInput{Text: "Cite the policy"}); err != nil {
			t.Fatal(err)
		}
		if ok, reason, err = f.svc.CanLeaveDiscovery(fac, f.ws.ID); !ok || reason != "" || err != nil {
			t.Fatalf("with a draft item: %v %q %v", ok, reason, err)
		}
	})
}
