package learning_test

import (
	"strings"
	"testing"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/learning"
	"github.com/honehq/hone/internal/llm/llmtest"
	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/storage/storagetest"
)

func conf(c float64) *float64 { return &c }

func TestDynamicPrompt(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		f := newFixture(t, db, false)
		// An empty store leaves the base prompt as it is.
		system, version, err := f.svc.Augment(ctx, "meg", basePrompt, "v1")
		if err != nil || system != basePrompt || version != "v1" {
			t.Fatalf("with no learnings: %q %q %v", system, version, err)
		}
		brief, _ := f.svc.Add(ctx, learning.LearningInput{PromptAdjustment: "Keep responses brief."})
		f.advance(time.Second)
		if _, err := f.svc.Add(ctx, learning.LearningInput{PromptAdjustment: "Mention the source.", Confidence: conf(0.69)}); err != nil {
			t.Fatal(err)
		}
		f.advance(time.Second)
		if _, err := f.svc.Add(ctx, learning.LearningInput{PromptAdjustment: "Answer in Portuguese when I write Portuguese.",
			TesterID: "meg", Confidence: conf(0.7)}); err != nil {
			t.Fatal(err)
		}
		system, version, err = f.svc.Augment(ctx, "meg", basePrompt, "v1")
		if err != nil {
			t.Fatal(err)
		}
		want := basePrompt + "\n\n" + learning.SectionTitle + "\n" + learning.SectionPreamble +
			"\n- Keep responses brief.\n- Answer in Portuguese when I write Portuguese.\n"
		if system != want {
			t.Fatalf("meg's prompt:\n%s\nwant:\n%s", system, want)
		}
		if !strings.HasPrefix(version, "v1+") || len(version) != len("v1+")+8 {
			t.Fatalf("version %q", version)
		}
		// Another tester gets everyone's learnings, not meg's.
		other, otherVersion, _ := f.svc.Augment(ctx, "ann", basePrompt, "v1")
		if strings.Contains(other, "Portuguese") || !strings.Contains(other, "Keep responses brief.") || otherVersion == version {
			t.Fatalf("ann's prompt (%s):\n%s", otherVersion, other)
		}
		// The same learnings, the same version; a change, a new one.
		if _, again, _ := f.svc.Augment(ctx, "meg", basePrompt, "v1"); again != version {
			t.Fatalf("the version moved without a change: %s then %s", version, again)
		}
		text := "Keep responses short."
		if _, err := f.svc.Update(ctx, brief.ID, learning.LearningUpdate{PromptAdjustment: &text}); err != nil {
			t.Fatal(err)
		}
		changed, changedVersion, _ := f.svc.Augment(ctx, "meg", basePrompt, "v1")
		if !strings.Contains(changed, "Keep responses short.") || changedVersion == version {
			t.Fatalf("after an edit (%s):\n%s", changedVersion, changed)
		}
		// Disabled: the base prompt alone, nothing deleted.
		if err := f.svc.SetEnabled(ctx, false); err != nil {
			t.Fatal(err)
		}
		if off, v, _ := f.svc.Augment(ctx, "meg", basePrompt, "v1"); off != basePrompt || v != "v1" {
			t.Fatalf("disabled: %q %q", off, v)
		}
		if all, _ := f.svc.Learnings(ctx, learning.LearningFilter{}); len(all) != 3 {
			t.Fatalf("disabling deleted learnings: %d left", len(all))
		}
		if err := f.svc.SetEnabled(ctx, true); err != nil {
			t.Fatal(err)
		}
		if on, _, _ := f.svc.Augment(ctx, "meg", basePrompt, "v1"); on != changed {
			t.Fatalf("enabled again:\n%s", on)
		}
	})
}

// A change made by another process (the CLI, another server) reaches the
// cached prompt within a second.
func TestPromptCacheSeesOtherProcesses(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		f := newFixture(t, db, false)
		cli := learning.NewService(db.Learning(), learning.Options{})
		if s, _, _ := f.svc.Section(ctx, "meg"); s != "" {
			t.Fatalf("section before: %q", s)
		}
		if _, err := cli.Add(ctx, learning.LearningInput{PromptAdjustment: "Use metric units."}); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(5 * time.Second)
		for {
			s, _, err := f.svc.Section(ctx, "meg")
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(s, "Use metric units.") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the server's prompt never saw the learning another process added")
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
}

func TestManageLearnings(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		f := newFixture(t, db, false)
		l, err := f.svc.Add(ctx, learning.LearningInput{PromptAdjustment: "  Always respond in Portuguese when I write in Portuguese  "})
		if err != nil {
			t.Fatal(err)
		}
		if l.Confidence != 1 || !l.Manual || l.Status != learning.StatusActive || l.PromptAdjustment != "Always respond in Portuguese when I write in Portuguese" ||
			l.Pattern == "" || len(l.SourceCorrections) != 0 {
			t.Fatalf("manual learning %+v", l)
		}
		if _, err := f.svc.Add(ctx, learning.LearningInput{PromptAdjustment: "always respond in portuguese, when I write in Portuguese!"}); hone.ErrorCode(err) != hone.ECONFLICT ||
			!strings.Contains(hone.ErrorMessage(err), l.ID) {
			t.Fatalf("a duplicate added by hand: %v", err)
		}
		for field, in := range map[string]learning.LearningInput{
			"prompt_adjustment": {PromptAdjustment: " "},
			"confidence":        {PromptAdjustment: "x", Confidence: conf(1.5)},
			"pattern":           {PromptAdjustment: "y", Pattern: strings.Repeat("p", learning.MaxPatternLength+1)},
			"tester_id":         {PromptAdjustment: "z", TesterID: strings.Repeat("t", 201)},
		} {
			if _, err := f.svc.Add(ctx, in); hone.ErrorField(err) != field {
				t.Errorf("bad %s: %v", field, err)
			}
		}
		low := 0.2
		if u, err := f.svc.Update(ctx, l.ID, learning.LearningUpdate{Confidence: &low}); err != nil || u.Status != learning.StatusBelowThreshold {
			t.Fatalf("lowered: %+v %v", u, err)
		}
		if _, err := f.svc.Update(ctx, "nosuch", learning.LearningUpdate{Confidence: &low}); hone.ErrorCode(err) != hone.ENOTFOUND {
			t.Fatalf("update of no learning: %v", err)
		}
		if err := f.svc.Remove(ctx, l.ID); err != nil {
			t.Fatal(err)
		}
		if err := f.svc.Remove(ctx, l.ID); hone.ErrorCode(err) != hone.ENOTFOUND {
			t.Fatalf("removed twice: %v", err)
		}
		if r := f.send("c1", "meg", "!learnings"); !strings.Contains(r.Text, "Nothing learned yet") {
			t.Fatalf("!learnings with none: %q", r.Text)
		}
		if _, err := f.svc.Add(ctx, learning.LearningInput{PromptAdjustment: "Mention the source of health data.", Pattern: "Mention source of health data", Confidence: conf(0.68)}); err != nil {
			t.Fatal(err)
		}
		if r := f.send("c1", "meg", "!learnings"); !strings.Contains(r.Text, "- [0.68] Mention source of health data (below threshold, not applied)") {
			t.Fatalf("!learnings: %q", r.Text)
		}
	})
}

// With learnings scoped to testers, each tester's corrections make their own.
func TestPerTesterLearnings(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		f := newFixture(t, db, true, func(o *learning.Options) { o.PerTester = true })
		f.turn("c1", "meg", "Summarise the report", "It is about sales.")
		f.correct("c1", "meg", "Too short, give more detail")
		f.turn("c2", "ann", "Summarise the report", "It is about sales, costs and the outlook for next year, in detail.")
		f.correct("c2", "ann", "Too long, keep it shorter")
		f.synthesis = func(req llmtest.ChatRequest) llmtest.Reply {
			adj := "Give detailed summaries."
			if strings.Contains(req.LastUserMessage(), "shorter") {
				adj = "Keep summaries short."
			}
			return synthesis(stmt{"pattern": adj, "confidence": 0.9, "prompt_adjustment": adj, "source_corrections": idsIn(req)})
		}
		run, err := f.svc.SynthesizeNow(ctx)
		if err != nil || run.Status != learning.RunDone || len(run.Learnings) != 2 {
			t.Fatalf("run %+v %v", run, err)
		}
		meg, _, _ := f.svc.Section(ctx, "meg")
		ann, _, _ := f.svc.Section(ctx, "ann")
		if !strings.Contains(meg, "detailed") || strings.Contains(meg, "short") || !strings.Contains(ann, "short") || strings.Contains(ann, "detailed") {
			t.Fatalf("meg's section:\n%s\nann's:\n%s", meg, ann)
		}
	})
}

func TestProtectedRules(t *testing.T) {
	for _, c := range []struct{ base, want string }{
		{"no markers", ""},
		{basePrompt, "Never share the user's medical records with anyone.\nAlways answer in English."},
		{"a\n<!-- hone:protected -->one<!-- /hone:protected -->b<!-- hone:protected -->two<!-- /hone:protected -->", "one\ntwo"},
		{"a\n<!-- hone:protected -->\nthe rest is protected", "the rest is protected"},
	} {
		if got := learning.ProtectedRules(c.base); got != c.want {
			t.Errorf("ProtectedRules(%q) = %q, want %q", c.base, got, c.want)
		}
	}
}

func TestBuildSection(t *testing.T) {
	mk := func(adj string, c float64, state string) *learning.Learning {
		return &learning.Learning{PromptAdjustment: adj, Confidence: c, State: state}
	}
	section, version := learning.BuildSection([]*learning.Learning{
		mk("Be brief.", 0.9, learning.StateOK), mk("Too unsure.", 0.69, learning.StateOK),
		mk("Exactly at the threshold.", 0.7, learning.StateOK), mk("Rejected.", 1, learning.StateRejected),
		mk("In conflict.", 1, learning.StateConflict), mk("Two\nlines.", 0.8, learning.StateOK),
	}, 0.7)
	want := learning.SectionTitle + "\n" + learning.SectionPreamble + "\n- Be brief.\n- Exactly at the threshold.\n- Two lines."
	if section != want || len(version) != 12 {
		t.Fatalf("section %q (%s), want %q", section, version, want)
	}
	if s, v := learning.BuildSection(nil, 0.7); s != "" || v != "" {
		t.Fatalf("no learnings: %q %q", s, v)
	}
	if learning.PromptVersion("abc", "") != "abc" || learning.PromptVersion("abc", "0123456789ab") != "abc+01234567" {
		t.Fatal("prompt versions")
	}
}
