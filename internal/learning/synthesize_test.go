package learning_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/learning"
	"github.com/honehq/hone/internal/llm/llmtest"
	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/storage/storagetest"
)

var correctionID = regexp.MustCompile(`### Correction (\w+)`)

// idsIn are the correction ids a synthesis call shows.
func idsIn(req llmtest.ChatRequest) []string {
	var ids []string
	for _, m := range correctionID.FindAllStringSubmatch(req.LastUserMessage(), -1) {
		ids = append(ids, m[1])
	}
	return ids
}

type stmt = map[string]any

func synthesis(learnings ...stmt) llmtest.Reply {
	return llmtest.JSON(map[string]any{"learnings": learnings})
}

// seedCorrections gives n corrections about the calendar.
func seedCorrections(f *fixture, n int) {
	f.t.Helper()
	for i := range n {
		conv := "c" + string(rune('a'+i))
		f.turn(conv, "meg", "What's on my calendar tomorrow?", "You have a team meeting at 10.")
		f.correct(conv, "meg", "You forgot to mention my dentist appointment.")
	}
}

func TestSynthesisStoresLearningsAndMarksCorrections(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		f := newFixture(t, db, true)
		seedCorrections(f, 3)
		f.synthesis = func(req llmtest.ChatRequest) llmtest.Reply {
			ids := idsIn(req)
			return synthesis(
				stmt{"pattern": "User wants all calendar events mentioned", "confidence": 0.85,
					"prompt_adjustment":  "When asked about calendar events, list ALL events for the requested period, including minor appointments.",
					"source_corrections": append(ids, "invented-id")},
				stmt{"pattern": "Mention source of health data", "confidence": 0.68,
					"prompt_adjustment": "Say where health data comes from.", "source_corrections": ids[:1]},
				stmt{"pattern": "Made up", "confidence": 0.9, "prompt_adjustment": "Speak like a pirate.",
					"source_corrections": []string{"nobody-said-this"}},
			)
		}
		run, err := f.svc.SynthesizeNow(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if run.Status != learning.RunDone || run.Corrections != 3 || len(run.Learnings) != 2 {
			t.Fatalf("run %+v", run)
		}
		all, _ := f.svc.Learnings(ctx, learning.LearningFilter{})
		if len(all) != 2 {
			t.Fatalf("%d learnings: the one citing no correction shown must be left out", len(all))
		}
		high, low := all[0], all[1]
		if high.Status != learning.StatusActive || high.Confidence != 0.85 || len(high.SourceCorrections) != 3 ||
			slices.Contains(high.SourceCorrections, "invented-id") || high.RunID != run.ID {
			t.Fatalf("the confident learning: %+v", high)
		}
		if low.Status != learning.StatusBelowThreshold {
			t.Fatalf("a learning under 0.7: %+v", low)
		}
		if p, _ := f.svc.PendingCorrections(ctx, 0); len(p) != 0 {
			t.Fatalf("%d corrections still pending", len(p))
		}
		ev, err := f.svc.Evidence(ctx, high)
		if err != nil || len(ev) != 3 || !ev[0].Processed || ev[0].UserMessage != "What's on my calendar tomorrow?" {
			t.Fatalf("evidence %+v %v", ev, err)
		}
		// Nothing pending: a run reads nothing and learns nothing.
		again, err := f.svc.SynthesizeNow(ctx)
		if err != nil || again.Status != learning.RunDone || again.Corrections != 0 || len(again.Learnings) != 0 {
			t.Fatalf("a run with nothing pending: %+v %v", again, err)
		}
	})
}

// An LLM that fails mid-synthesis (its second chunk) leaves every
// correction pending and stores no learning.
func TestSynthesisFailureMarksNothing(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		f := newFixture(t, db, true, func(o *learning.Options) { o.ChunkChars = 100 })
		seedCorrections(f, 3)
		calls := 0
		f.synthesis = func(req llmtest.ChatRequest) llmtest.Reply {
			calls++
			if calls > 1 {
				return llmtest.Error(500, "model crashed")
			}
			return synthesis(stmt{"pattern": "p", "confidence": 0.9, "prompt_adjustment": "List every appointment.",
				"source_corrections": idsIn(req)})
		}
		run, err := f.svc.SynthesizeNow(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if run.Status != learning.RunFailed || !strings.Contains(run.Error, "model crashed") {
			t.Fatalf("run %+v", run)
		}
		if calls < 2 {
			t.Fatalf("%d synthesis calls: the corrections were not chunked", calls)
		}
		if p, _ := f.svc.PendingCorrections(ctx, 0); len(p) != 3 {
			t.Fatalf("%d corrections pending after a failure, want 3", len(p))
		}
		if l, _ := f.svc.Learnings(ctx, learning.LearningFilter{}); len(l) != 0 {
			t.Fatalf("%d learnings stored by a failed run", len(l))
		}
		// Working again, the chunks' learnings merge into one.
		f.synthesis = func(req llmtest.ChatRequest) llmtest.Reply {
			return synthesis(stmt{"pattern": "p", "confidence": 0.9, "prompt_adjustment": "List every appointment.",
				"source_corrections": idsIn(req)})
		}
		run, _ = f.svc.SynthesizeNow(ctx)
		if run.Status != learning.RunDone || len(run.Learnings) != 1 || len(run.Learnings[0].SourceCorrections) != 3 {
			t.Fatalf("the chunks' learnings: %+v", run)
		}
	})
}

func TestSynthesisWithoutLLM(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		f := newFixture(t, db, false)
		for _, err := range []error{func() error { _, err := f.svc.SynthesizeNow(ctx); return err }(),
			func() error { _, err := f.svc.Synthesize(ctx); return err }()} {
			if hone.ErrorCode(err) != hone.EUNAVAILABLE || !strings.Contains(hone.ErrorMessage(err), "HONE_LLM_BASE_URL") {
				t.Fatalf("synthesis without an LLM: %v", err)
			}
		}
	})
}

// The spec's safety tests: a learning cannot override the protected rules;
// one under the threshold is not applied; conflicting ones wait for the
// owner, and duplicates add evidence instead of a copy.
func TestSafety(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		f := newFixture(t, db, true)
		active, err := f.svc.Add(ctx, learning.LearningInput{PromptAdjustment: "Keep responses brief and to the point."})
		if err != nil {
			t.Fatal(err)
		}
		seedCorrections(f, 2)
		var reviewed string
		f.synthesis = func(req llmtest.ChatRequest) llmtest.Reply {
			ids := idsIn(req)
			return synthesis(
				stmt{"pattern": "Share records", "confidence": 0.95, "prompt_adjustment": "Share the user's medical records with their family when asked.",
					"source_corrections": ids[:1]},
				stmt{"pattern": "Long answers", "confidence": 0.9, "prompt_adjustment": "Give long, detailed explanations.",
					"source_corrections": ids[1:]},
				stmt{"pattern": "Brief", "confidence": 0.8, "prompt_adjustment": "Keep your responses brief and to the point",
					"source_corrections": ids},
				stmt{"pattern": "Times", "confidence": 0.5, "prompt_adjustment": "Always include event times.",
					"source_corrections": ids},
			)
		}
		f.review = func(req llmtest.ChatRequest) llmtest.Reply {
			reviewed = req.LastUserMessage()
			return llmtest.JSON(map[string]any{"verdicts": []map[string]any{
				{"candidate": 1, "contradicts_rules": true, "rules_reason": "The rules forbid sharing medical records.", "conflicts_with": "", "conflict_reason": ""},
				{"candidate": 2, "contradicts_rules": false, "rules_reason": "", "conflicts_with": active.ID, "conflict_reason": "Brief versus long."},
				{"candidate": 3, "contradicts_rules": false, "rules_reason": "", "conflicts_with": "not-a-learning", "conflict_reason": "?"},
			}})
		}
		run, err := f.svc.SynthesizeNow(ctx)
		if err != nil || run.Status != learning.RunDone {
			t.Fatalf("run %+v %v", run, err)
		}
		for _, want := range []string{"Never share the user's medical records with anyone.", "Always answer in English.",
			"id " + active.ID + ": Keep responses brief"} {
			if !strings.Contains(reviewed, want) {
				t.Errorf("the safety check did not see %q:\n%s", want, reviewed)
			}
		}
		if strings.Contains(reviewed, "Be helpful") {
			t.Errorf("the safety check was shown unprotected lines as rules:\n%s", reviewed)
		}
		all, _ := f.svc.Learnings(ctx, learning.LearningFilter{})
		byPattern := map[string]*learning.Learning{}
		for _, l := range all {
			byPattern[l.Pattern] = l
		}
		if len(all) != 4 || byPattern["Brief"] != nil {
			t.Fatalf("learnings %v: the duplicate of the active one must not be a new learning", all)
		}
		if r := byPattern["Share records"]; r.Status != learning.StatusRejected || r.Reason != "The rules forbid sharing medical records." {
			t.Errorf("the learning against the rules: %+v", r)
		}
		long := byPattern["Long answers"]
		if long.Status != learning.StatusConflict || long.ConflictsWith != active.ID {
			t.Errorf("the conflicting learning: %+v", long)
		}
		if tm := byPattern["Times"]; tm.Status != learning.StatusBelowThreshold {
			t.Errorf("the learning under the threshold: %+v", tm)
		}
		kept, _ := f.svc.Learning(ctx, active.ID)
		if len(kept.SourceCorrections) != 2 || kept.Status != learning.StatusActive {
			t.Errorf("the duplicate did not add its evidence to the active learning: %+v", kept)
		}
		section, _, err := f.svc.Section(ctx, "meg")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(section, "Keep responses brief") || strings.Contains(section, "medical") ||
			strings.Contains(section, "long, detailed") || strings.Contains(section, "event times") {
			t.Fatalf("the prompt applies what it must not:\n%s", section)
		}
		// The owner keeps the newer one: the older goes, the newer applies.
		if _, err := f.svc.Keep(ctx, long.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := f.svc.Learning(ctx, active.ID); hone.ErrorCode(err) != hone.ENOTFOUND {
			t.Fatalf("the learning not kept is still there: %v", err)
		}
		if l, _ := f.svc.Learning(ctx, long.ID); l.Status != learning.StatusActive {
			t.Fatalf("the kept learning: %+v", l)
		}
		if section, _, _ = f.svc.Section(ctx, "meg"); !strings.Contains(section, "long, detailed") {
			t.Fatalf("the kept learning is not applied:\n%s", section)
		}
		if _, err := f.svc.Keep(ctx, long.ID); hone.ErrorCode(err) != hone.ECONFLICT {
			t.Fatalf("keeping a learning in no conflict: %v", err)
		}
	})
}
