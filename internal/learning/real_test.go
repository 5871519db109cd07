package learning_test

import (
	"os"
	"slices"
	"testing"
	"time"

	"github.com/honehq/hone/internal/learning"
	"github.com/honehq/hone/internal/llm"
	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/storage/storagetest"
)

// realLLM points the learning loop at the real OpenAI-compatible server
// HONE_TEST_LLM_BASE_URL names, skipping the test without one.
func realLLM(t *testing.T, db *storage.DB) func(*learning.Options) {
	t.Helper()
	base := os.Getenv("HONE_TEST_LLM_BASE_URL")
	if base == "" {
		t.Skip("HONE_TEST_LLM_BASE_URL is not set: no real LLM server to test against")
	}
	cfg := llm.Config{BaseURL: base, APIKey: os.Getenv("HONE_TEST_LLM_API_KEY"), Model: os.Getenv("HONE_TEST_LLM_MODEL"),
		Timeout: 5 * time.Minute}
	if cfg.Model == "" {
		cfg.Model = "default"
	}
	c, err := llm.New(cfg, db.LLMCalls())
	if err != nil {
		t.Fatal(err)
	}
	return func(o *learning.Options) { o.LLM, o.LLMError = c, nil }
}

// The correction flow and a synthesis against a real model: whatever it
// answers, the flow ends one way or the other, and the synthesis stores
// learnings that cite only the corrections it was shown, or fails and
// marks nothing.
func TestRealServerLearningLoop(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		f := newFixture(t, db, false, realLLM(t, db))
		f.turn("c1", "meg", "What's on my calendar tomorrow?", "You have a team meeting at 10.")
		f.send("c1", "meg", "👎")
		r := f.send("c1", "meg", "You forgot to mention my dentist appointment at 3pm.")
		if !r.Command {
			t.Logf("the model judged the correction unrelated: %+v", r)
		}
		f.turn("c2", "ana", "What's on my calendar on Friday?", "Lunch with Sam.")
		f.send("c2", "ana", "👎")
		f.send("c2", "ana", "You should list all my appointments, including the small ones.")
		pending, err := f.svc.PendingCorrections(ctx, 0)
		if err != nil || len(pending) == 0 {
			t.Fatalf("pending corrections %d %v", len(pending), err)
		}
		ids := make([]string, len(pending))
		for i, c := range pending {
			ids[i] = c.ID
		}
		run, err := f.svc.SynthesizeNow(ctx)
		if err != nil {
			t.Fatal(err)
		}
		after, _ := f.svc.PendingCorrections(ctx, 0)
		switch run.Status {
		case learning.RunDone:
			if len(after) != 0 {
				t.Errorf("a done synthesis left %d corrections pending", len(after))
			}
			list, err := f.svc.Learnings(ctx, learning.LearningFilter{})
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range list {
				if l.PromptAdjustment == "" || l.Confidence < 0 || l.Confidence > 1 {
					t.Errorf("learning %+v", l)
				}
				for _, id := range l.SourceCorrections {
					if !slices.Contains(ids, id) {
						t.Errorf("learning %s cites %q, no correction shown", l.ID, id)
					}
				}
			}
			t.Logf("the model learned %d statements", len(list))
		case learning.RunFailed:
			if len(after) != len(pending) {
				t.Errorf("a failed synthesis marked corrections processed")
			}
			t.Logf("the synthesis failed: %s", run.Error)
		default:
			t.Errorf("synthesis ended %q", run.Status)
		}
	})
}
