package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/learning"
	"github.com/honehq/hone/internal/llm/llmtest"
)

// learnLLM is the fake LLM of synthesis, telling its two calls apart by
// their system prompts.
type learnLLM struct {
	srv *llmtest.Server

	mu sync.Mutex
	// synthesis answers the synthesis call from the ids of the corrections
	// it shows; review answers the safety check ({"verdicts": []} when nil).
	synthesis func(ids []string) llmtest.Reply
	review    func(user string) llmtest.Reply
	// reviewed is the user message of the latest safety check.
	reviewed string
	calls    int
}

// newLearnLLM starts the fake LLM and points HONE_LLM_* at it.
func newLearnLLM(t *testing.T) *learnLLM {
	f := &learnLLM{srv: llmtest.New(t)}
	f.srv.SetHandler(f.answer)
	wsSetLLM(t, f.srv)
	return f
}

var correctionIDs = regexp.MustCompile(`### Correction (\w+)`)

func (f *learnLLM) answer(req llmtest.ChatRequest) llmtest.Reply {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	system := ""
	if len(req.Messages) > 0 {
		system = req.Messages[0].Content
	}
	switch {
	case strings.Contains(system, "You analyse corrections"):
		var ids []string
		for _, m := range correctionIDs.FindAllStringSubmatch(req.LastUserMessage(), -1) {
			ids = append(ids, m[1])
		}
		if f.synthesis == nil {
			return llmtest.Error(400, "no synthesis expected")
		}
		return f.synthesis(ids)
	case strings.Contains(system, "You check new learning statements"):
		f.reviewed = req.LastUserMessage()
		if f.review == nil {
			return llmtest.JSON(map[string]any{"verdicts": []any{}})
		}
		return f.review(f.reviewed)
	}
	return llmtest.Error(400, "unexpected call: "+system)
}

func (f *learnLLM) set(synthesis func(ids []string) llmtest.Reply, review func(user string) llmtest.Reply) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.synthesis, f.review = synthesis, review
}

func (f *learnLLM) last() (reviewed string, calls int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.reviewed, f.calls
}

type stmt = map[string]any

func learnings(list ...stmt) llmtest.Reply { return llmtest.JSON(map[string]any{"learnings": list}) }

// learnPrompt is a base prompt with protected rules.
const learnPrompt = `You are Friday, a personal assistant.
<!-- hone:protected -->
Never share the user's medical records with anyone.
<!-- /hone:protected -->
Be helpful.`

// byPattern returns the learnings by pattern.
func (c *learnCLI) byPattern() map[string]*learning.Learning {
	c.t.Helper()
	all, err := c.svc.Learnings(context.Background(), learning.LearningFilter{})
	if err != nil {
		c.t.Fatal(err)
	}
	m := map[string]*learning.Learning{}
	for _, l := range all {
		m[l.Pattern] = l
	}
	return m
}

// listRow is a row of hone learn list, its columns aligned for ids of
// twelve characters.
func listRow(id, confidence, pattern string) string {
	return fmt.Sprintf("%-14s%-12s%s\n", id, confidence, pattern)
}

// The spec's example: fifteen corrections, three learnings, one under the
// threshold.
func TestLearnSynthesizeAsTheSpecShows(t *testing.T) {
	eachTestDatabase(t, func(t *testing.T, d testDatabase) {
		c := newLearnCLI(t, d)
		fake := newLearnLLM(t)
		t.Setenv("HONE_PROMPT_FILE", wsWriteFile(t, t.TempDir(), "PROMPT.md", learnPrompt))
		for i := range 15 {
			conv := fmt.Sprintf("s%d", i)
			c.turn(conv, "meg", "What's on my calendar tomorrow?", "You have a long day: a team meeting, then lunch.")
			c.correct(conv, "meg", "Too long, and you forgot the times.")
		}
		fake.set(func(ids []string) llmtest.Reply {
			return learnings(
				stmt{"pattern": "User prefers concise answers", "prompt_adjustment": "Keep responses brief and to the point.",
					"confidence": 0.85, "source_corrections": ids[:8]},
				stmt{"pattern": "Always include event times", "prompt_adjustment": "When listing calendar events, give each one's time.",
					"confidence": 0.72, "source_corrections": ids[8:14]},
				stmt{"pattern": "Mention source of health data", "prompt_adjustment": "Say which device health data comes from.",
					"confidence": 0.68, "source_corrections": ids[14:]},
			)
		}, nil)
		want := `Analyzing 15 unprocessed corrections...
Generated 3 new learnings:
- [0.85] User prefers concise answers
- [0.72] Always include event times
- [0.68] Mention source of health data (below threshold, not applied)
`
		if out := c.ok("learn", "synthesize"); out != want {
			t.Errorf("learn synthesize:\n%s\nwant:\n%s", out, want)
		}
		reviewed, calls := fake.last()
		if !strings.Contains(reviewed, "Never share the user's medical records with anyone.") || strings.Contains(reviewed, "Be helpful") {
			t.Errorf("the safety check did not get the protected rules of the prompt file:\n%s", reviewed)
		}
		if len(c.pending()) != 0 {
			t.Errorf("corrections still pending after the synthesis")
		}
		m := c.byPattern()
		want = listRow("ID", "Confidence", "Pattern") +
			listRow(m["User prefers concise answers"].ID, "0.85", "User prefers concise answers") +
			listRow(m["Always include event times"].ID, "0.72", "Always include event times") +
			listRow(m["Mention source of health data"].ID, "0.68", "Mention source of health data (below threshold, not applied)")
		for _, args := range [][]string{{"learn", "list"}, {"learn"}} {
			if out := c.ok(args...); out != want {
				t.Errorf("hone %s:\n%s\nwant:\n%s", strings.Join(args, " "), out, want)
			}
		}
		out := c.ok("learn", "synthesize")
		if _, after := fake.last(); out != "No corrections await synthesis: testers give them after a 👎 in the chat.\n" || after != calls {
			t.Errorf("a synthesis with nothing pending: %q, %d LLM calls", out, after-calls)
		}
	})
}

// The notes of learnings that are not applied, evidence added to an
// existing learning, show, keep and remove.
func TestLearnSafetyShowKeepRemove(t *testing.T) {
	eachTestDatabase(t, func(t *testing.T, d testDatabase) {
		c := newLearnCLI(t, d)
		fake := newLearnLLM(t)
		t.Setenv("HONE_LEARN_PROTECTED", wsWriteFile(t, t.TempDir(), "rules.txt", "Never share medical records."))
		brief := strings.TrimSpace(c.ok("learn", "add", "Keep responses brief and to the point."))
		c.turn("c1", "meg", "Who can see my lab results?", "Only you.")
		c.correct("c1", "meg", "You should offer to send them to my wife.")
		c.turn("c2", "ana", "Explain my schedule", "Busy.")
		c.correct("c2", "ana", "Too short: I want more detail, and the times.")
		fake.set(func(ids []string) llmtest.Reply {
			return learnings(
				stmt{"pattern": "Share records", "prompt_adjustment": "Share the user's medical records with their family.",
					"confidence": 0.95, "source_corrections": ids[:1]},
				stmt{"pattern": "Long answers", "prompt_adjustment": "Give long, detailed explanations.",
					"confidence": 0.9, "source_corrections": ids[1:]},
				stmt{"pattern": "Brief", "prompt_adjustment": "Keep your responses brief and to the point",
					"confidence": 0.8, "source_corrections": ids},
				stmt{"pattern": "Always include event times", "prompt_adjustment": "Always include event times.",
					"confidence": 0.72, "source_corrections": ids[1:]},
			)
		}, func(string) llmtest.Reply {
			return llmtest.JSON(map[string]any{"verdicts": []stmt{
				{"candidate": 1, "contradicts_rules": true, "rules_reason": "The rules forbid sharing medical records.", "conflicts_with": "", "conflict_reason": ""},
				{"candidate": 2, "contradicts_rules": false, "rules_reason": "", "conflicts_with": brief, "conflict_reason": "Brief versus long."},
			}})
		})
		want := `Analyzing 2 unprocessed corrections...
Generated 3 new learnings:
- [0.95] Share records (contradicts the protected rules, not applied)
- [0.90] Long answers (conflicts with another learning, not applied)
- [0.72] Always include event times
Added evidence to 1 existing learning:
- [1.00] Keep responses brief and to the point.
hone learn list shows the ids; hone learn keep ID settles a conflict in that learning's favour.
`
		if out := c.ok("learn", "synthesize"); out != want {
			t.Errorf("learn synthesize:\n%s\nwant:\n%s", out, want)
		}
		if reviewed, _ := fake.last(); !strings.Contains(reviewed, "Never share medical records.") {
			t.Errorf("the safety check did not get HONE_LEARN_PROTECTED:\n%s", reviewed)
		}
		m := c.byPattern()
		share, long, times := m["Share records"], m["Long answers"], m["Always include event times"]
		want = listRow("ID", "Confidence", "Pattern") +
			listRow(brief, "1.00", "Keep responses brief and to the point.") +
			listRow(share.ID, "0.95", "Share records (contradicts the protected rules, not applied)") +
			listRow(long.ID, "0.90", "Long answers (conflicts with another learning, not applied)") +
			listRow(times.ID, "0.72", "Always include event times")
		if out := c.ok("learn", "list"); out != want {
			t.Errorf("learn list:\n%s\nwant:\n%s", out, want)
		}

		ev, err := c.svc.Evidence(context.Background(), long)
		if err != nil || len(ev) != 1 {
			t.Fatalf("evidence %v %v", ev, err)
		}
		want = fmt.Sprintf(`ID:                %[1]s
Pattern:           Long answers
Prompt adjustment: Give long, detailed explanations.
Confidence:        0.90
Status:            in conflict with another learning: not applied until one of the two is kept (hone learn keep %[1]s)
Reason:            Brief versus long.
Conflicts with:    %[2]s
Applies to:        everyone
Source:            synthesis %[3]s
Created:           %[4]s
Updated:           %[4]s

Evidence: 1 correction

Correction %[5]s · %[6]s · ana · turn %[7]s
  User:       Explain my schedule
  Response:   Busy.
  Correction: Too short: I want more detail, and the times.
`, long.ID, brief, long.RunID, stamp(long.CreatedAt), ev[0].ID, stamp(ev[0].CreatedAt), ev[0].TurnID)
		if out := c.ok("learn", "show", long.ID); out != want {
			t.Errorf("learn show:\n%s\nwant:\n%s", out, want)
		}
		out := c.ok("learn", "show", share.ID)
		for _, line := range []string{"Status:            rejected: it contradicts the protected rules, and is never applied\n",
			"Reason:            The rules forbid sharing medical records.\n", "Evidence: 1 correction\n"} {
			if !strings.Contains(out, line) {
				t.Errorf("learn show of the rejected learning lacks %q:\n%s", line, out)
			}
		}
		out = c.ok("learn", "show", brief)
		for _, line := range []string{"Status:            active: applied to the prompt\n", "Source:            added by hand\n",
			"Evidence: 2 corrections\n", "  Correction: You should offer to send them to my wife.\n"} {
			if !strings.Contains(out, line) {
				t.Errorf("learn show of the learning with added evidence lacks %q:\n%s", line, out)
			}
		}
		var shown struct {
			Learning learning.Learning     `json:"learning"`
			Evidence []learning.Correction `json:"evidence"`
		}
		if err := json.Unmarshal([]byte(c.ok("learn", "show", brief, "--json")), &shown); err != nil || shown.Learning.ID != brief ||
			len(shown.Evidence) != 2 || shown.Evidence[1].UserMessage != "Explain my schedule" {
			t.Errorf("learn show --json: %+v %v", shown, err)
		}
		var listed learningList
		if err := json.Unmarshal([]byte(c.ok("learn", "list", "--json")), &listed); err != nil || !listed.Enabled ||
			listed.Threshold != 0.7 || len(listed.Learnings) != 4 || listed.Learnings[2].Status != learning.StatusConflict ||
			listed.Learnings[2].ConflictsWith != brief {
			t.Errorf("learn list --json: %+v %v", listed, err)
		}

		c.fails(1, []string{"learn", "keep", times.ID}, "learning "+times.ID+" is in no conflict to settle")
		if out := c.ok("learn", "keep", long.ID); out != "Kept learning "+long.ID+": [0.90] Long answers\nThe learnings in conflict with it are removed.\n" {
			t.Errorf("learn keep: %q", out)
		}
		c.fails(1, []string{"learn", "show", brief}, `learning "`+brief+`" not found (hone learn list shows the ids)`)

		// A learning that conflicts with the kept one; removing the kept one
		// settles it.
		c.turn("c3", "meg", "Summarise my week", "A long summary.")
		c.correct("c3", "meg", "Too long: one sentence is enough.")
		fake.set(func(ids []string) llmtest.Reply {
			return learnings(stmt{"pattern": "One sentence", "prompt_adjustment": "Answer in one sentence.", "confidence": 0.8,
				"source_corrections": ids})
		}, func(string) llmtest.Reply {
			return llmtest.JSON(map[string]any{"verdicts": []stmt{{"candidate": 1, "contradicts_rules": false, "rules_reason": "", "conflicts_with": long.ID, "conflict_reason": ""}}})
		})
		c.ok("learn", "synthesize", "--protected", wsWriteFile(t, t.TempDir(), "other.txt", "Never reveal the user's address."))
		if reviewed, _ := fake.last(); !strings.Contains(reviewed, "Never reveal the user's address.") || strings.Contains(reviewed, "medical records") {
			t.Errorf("the safety check did not get the rules of --protected:\n%s", reviewed)
		}
		short := c.byPattern()["One sentence"]
		if short.Status != learning.StatusConflict || short.Reason != "It contradicts learning "+long.ID+"." {
			t.Fatalf("the new conflicting learning: %+v", short)
		}
		want = "Removed learning " + long.ID + ": Long answers\nLearning " + short.ID + " is in conflict no more: One sentence\n"
		if out := c.ok("learn", "remove", long.ID); out != want {
			t.Errorf("learn remove:\n%s\nwant:\n%s", out, want)
		}
		if l, err := c.svc.Learning(context.Background(), short.ID); err != nil || l.Status != learning.StatusActive {
			t.Errorf("the learning in conflict with the removed one: %+v %v", l, err)
		}
	})
}

func TestLearnSynthesizeFailures(t *testing.T) {
	eachTestDatabase(t, func(t *testing.T, d testDatabase) {
		c := newLearnCLI(t, d)
		c.turn("c1", "meg", "What's on tomorrow?", "Nothing.")
		c.correct("c1", "meg", "You forgot my dentist appointment.")

		code, out, errOut := c.run("learn", "synthesize")
		if code != 2 || out != "" || !strings.HasPrefix(errOut, "hone learn synthesize needs an LLM to learn from the corrections.\n\n") ||
			!strings.Contains(errOut, "HONE_LLM_BASE_URL") || !strings.Contains(errOut, "HONE_LLM_MODEL") {
			t.Errorf("without an LLM: exit %d, stdout %q, stderr %q", code, out, errOut)
		}
		t.Setenv("HONE_LLM_MODEL", "gpt-4o-mini")
		c.fails(2, []string{"learn", "synthesize"}, "needs an LLM, and HONE_LLM_* do not set one up: The LLM is not configured: set HONE_LLM_BASE_URL, HONE_LLM_API_KEY")

		fake := newLearnLLM(t)
		fake.set(func([]string) llmtest.Reply { return llmtest.Error(400, "the model refuses") }, nil)
		code, out, errOut = c.run("learn", "synthesize")
		if code != 1 || out != "Analyzing 1 unprocessed correction...\n" || !regexp.MustCompile(`^Synthesis \w+ failed: .*the model refuses`).MatchString(errOut) ||
			!strings.HasSuffix(errOut, "\nNo correction is marked processed; run hone learn synthesize again.\n") {
			t.Errorf("a failed synthesis: exit %d, stdout %q, stderr %q", code, out, errOut)
		}
		if len(c.pending()) != 1 {
			t.Errorf("a failed synthesis marked corrections processed")
		}
	})
}

func TestLearnAddDisableEnable(t *testing.T) {
	eachTestDatabase(t, func(t *testing.T, d testDatabase) {
		c := newLearnCLI(t, d)
		if out := c.ok("learn", "list"); !strings.HasPrefix(out, "Nothing learned yet") {
			t.Errorf("learn list with no learning: %q", out)
		}
		code, out, errOut := c.run("learn", "add", "Always respond in Portuguese", "when I write in Portuguese")
		id := strings.TrimSpace(out)
		if code != 0 || len(id) != 12 || errOut != "Added learning "+id+": [1.00] Always respond in Portuguese when I write in Portuguese\n" {
			t.Fatalf("learn add: exit %d, stdout %q, stderr %q", code, out, errOut)
		}
		c.fails(1, []string{"learn", "add", "always respond in portuguese when I write in Portuguese!"}, "learning "+id+" says this already")
		code, out, _ = c.run("learn", "add", "Use formal language.", "--pattern", "User prefers formal language", "--tester", "meg",
			"--confidence", "0.5")
		formal := strings.TrimSpace(out)
		if code != 0 {
			t.Fatalf("learn add with flags: exit %d", code)
		}
		want := listRow("ID", "Confidence", "Pattern") +
			listRow(id, "1.00", "Always respond in Portuguese when I write in Portuguese") +
			listRow(formal, "0.50", "User prefers formal language (tester meg) (below threshold, not applied)")
		if out := c.ok("learn", "list"); out != want {
			t.Errorf("learn list:\n%s\nwant:\n%s", out, want)
		}
		if out := c.ok("learn", "show", formal); !strings.Contains(out, "Applies to:        tester meg\n") ||
			!strings.Contains(out, "Status:            below threshold: not applied (the threshold is 0.70)\n") ||
			!strings.HasSuffix(out, "\nEvidence: none (no correction).\n") {
			t.Errorf("learn show of a manual learning:\n%s", out)
		}
		c.fails(1, []string{"learn", "add"}, `give the learning's text`)
		c.fails(1, []string{"learn", "add", "x", "--confidence", "2"}, "--confidence: confidence must be from 0 to 1, not 2")
		c.fails(1, []string{"learn", "add", "x", "--tester", strings.Repeat("m", 201)}, "--tester: tester_id is longer than 200 characters")
		for _, cmd := range []string{"show", "remove", "keep"} {
			c.fails(1, []string{"learn", cmd, "nope"}, `learning "nope" not found (hone learn list shows the ids)`)
			c.fails(1, []string{"learn", cmd}, "give the learning's id (hone learn list shows them)")
			c.fails(1, []string{"learn", cmd, id, formal}, "too many arguments")
		}

		section := func() string {
			s, _, err := learning.NewService(c.db.Learning(), learning.Options{}).Section(context.Background(), "meg")
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		if out := c.ok("learn", "disable"); out != "Learnings are disabled: none is applied to the prompt. They stay stored; hone learn enable applies them again.\n" {
			t.Errorf("learn disable: %q", out)
		}
		if on, err := c.svc.Enabled(context.Background()); on || err != nil || section() != "" {
			t.Errorf("disabled learnings: enabled %v %v, section %q", on, err, section())
		}
		if out := c.ok("learn", "list"); !strings.HasPrefix(out, disabledNote+"\n\nID  ") || !strings.Contains(out, id) {
			t.Errorf("learn list when disabled:\n%s", out)
		}
		if out := c.ok("learn", "show", id); !strings.Contains(out, "Status:            active, but learnings are disabled: not applied (hone learn enable)\n") {
			t.Errorf("learn show when disabled:\n%s", out)
		}
		if out := c.ok("learn", "enable"); out != "Learnings are enabled: the active ones are applied to the prompt (hone learn list shows them).\n" {
			t.Errorf("learn enable: %q", out)
		}
		if s := section(); !strings.Contains(s, "- Always respond in Portuguese when I write in Portuguese") || strings.Contains(s, "formal") {
			t.Errorf("the prompt section once enabled:\n%s", s)
		}
		if out := c.ok("learn", "remove", formal); out != "Removed learning "+formal+": User prefers formal language\n" {
			t.Errorf("learn remove: %q", out)
		}
		if _, err := c.svc.Learning(context.Background(), formal); hone.ErrorCode(err) != hone.ENOTFOUND {
			t.Errorf("the removed learning: %v", err)
		}
	})
}

// What testers and the LLM wrote reaches a terminal escaped, and a file
// exactly.
func TestFeedbackAndLearnEscapeOnATerminal(t *testing.T) {
	dir := t.TempDir()
	c := newLearnCLI(t, testDatabase{flags: []string{"--data-dir", dir}, dsn: filepath.Join(dir, "hone.db")})
	fake := newLearnLLM(t)
	const evilCorrection = "You should\x1b[2J mention it\u202e"
	const evilPattern = "Be \x1b]0;pwned\x07brief"
	turn := c.turn("c1", "meg", evilMessage, evilResponse)
	c.rate(turn, "meg", "down", "calendar\x1b[31m", "")
	c.send("c1", "meg", evilCorrection)
	fake.set(func(ids []string) llmtest.Reply {
		return learnings(stmt{"pattern": evilPattern, "prompt_adjustment": "Be brief.", "confidence": 0.9, "source_corrections": ids})
	}, nil)
	base := []string{"--data-dir", dir, "--log-level", "error"}
	code, out, errOut := runFile(t, append(base, "learn", "synthesize")...)
	if code != 0 || !strings.Contains(out, "- [0.90] "+evilPattern+"\n") {
		t.Fatalf("learn synthesize to a file: exit %d, stderr %q, stdout %q", code, errOut, out)
	}
	id := c.byPattern()[evilPattern].ID
	for _, tt := range []struct {
		args       []string
		raw, shown []string
	}{
		{[]string{"feedback", "stats"}, []string{"- calendar\x1b[31m: 0% approval"}, []string{`- calendar\u001b[31m: 0% approval`}},
		{[]string{"feedback", "negative"}, []string{evilMessage, evilResponse}, []string{`hi\u001b]52;c;cHduZWQ=\u0007`, `ok\u001b[2J\u000d\u202egnp.exe`}},
		{[]string{"learn", "list"}, []string{evilPattern}, []string{`Be \u001b]0;pwned\u0007brief`}},
		{[]string{"learn", "show", id}, []string{evilPattern, evilCorrection, evilResponse},
			[]string{`Be \u001b]0;pwned\u0007brief`, `You should\u001b[2J mention it\u202e`, `ok\u001b[2J\u000d\u202egnp.exe`}},
		{[]string{"learn", "list", "--json"}, []string{`"Be \u001b]0;pwned\u0007brief"`}, []string{`"Be \u001b]0;pwned\u0007brief"`}},
	} {
		name := strings.Join(tt.args, " ")
		code, out, errOut := runFile(t, append(base, tt.args...)...)
		if code != 0 {
			t.Fatalf("%s to a file: exit %d, stderr %q", name, code, errOut)
		}
		for _, raw := range tt.raw {
			if !strings.Contains(out, raw) {
				t.Errorf("%s to a file is not exact: no %q in\n%q", name, raw, out)
			}
		}
		if _, err := os.Stat("/dev/ptmx"); err != nil {
			continue
		}
		code, out, errOut = runPTY(t, append(base, tt.args...)...)
		if code != 0 {
			t.Fatalf("%s to a terminal: exit %d, stderr %q", name, code, errOut)
		}
		assertTerminalSafe(t, name+" on a terminal", out)
		for _, shown := range tt.shown {
			if !strings.Contains(out, shown) {
				t.Errorf("%s on a terminal shows no %q:\n%s", name, shown, out)
			}
		}
	}
	c.turn("c2", "meg", "Again?", "Yes.")
	c.correct("c2", "meg", "You forgot the times.")
	fake.set(func(ids []string) llmtest.Reply {
		return learnings(stmt{"pattern": "Times \x1b[2Jnow", "prompt_adjustment": "Give times.", "confidence": 0.9, "source_corrections": ids})
	}, nil)
	if _, err := os.Stat("/dev/ptmx"); err == nil {
		code, out, errOut = runPTY(t, append(base, "learn", "synthesize")...)
		if code != 0 || !strings.Contains(out, `- [0.90] Times \u001b[2Jnow`) {
			t.Errorf("learn synthesize to a terminal: exit %d, stderr %q, terminal %q", code, errOut, out)
		}
		assertTerminalSafe(t, "learn synthesize on a terminal", out)
	}
}
