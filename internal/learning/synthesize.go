package learning

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/llm"
)

// maxPending bounds the corrections one run reads; the rest wait for the
// next run.
const maxPending = 10_000

// fieldChars bounds each text of a correction in a synthesis call.
const fieldChars = 4000

// Synthesis is the typed answer of the synthesis call, with the spec's field
// names.
type Synthesis struct {
	Learnings []Statement `json:"learnings"`
}

// Statement is one learning statement as the LLM gives it.
type Statement struct {
	// Pattern is what the corrections show about the user's preferences.
	Pattern string `json:"pattern"`
	// PromptAdjustment is the instruction to add to the system prompt.
	PromptAdjustment string `json:"prompt_adjustment"`
	// Confidence is how sure the pattern is, from 0 to 1: how often and how
	// clearly the corrections show it.
	Confidence float64 `json:"confidence"`
	// SourceCorrections are the ids of the corrections that show it.
	SourceCorrections []string `json:"source_corrections"`
}

const synthesisSystem = `You analyse corrections users gave to an assistant's answers ("what should you have done differently?") and turn the patterns you find into learning statements for the assistant's system prompt.
For each pattern give:
- pattern: what the users want, in one short sentence ("User prefers concise answers");
- prompt_adjustment: the instruction to add to the system prompt, general enough to apply to future answers, specific enough to act on;
- confidence: 0 to 1, how clearly and how often the corrections show it (one vague correction: low; several clear ones: high);
- source_corrections: the ids of the corrections that show it, as given.
Only state patterns the corrections support. Reply with JSON: {"learnings": [{"pattern": "...", "prompt_adjustment": "...", "confidence": 0.0, "source_corrections": ["..."]}]}.`

// Synthesize queues a synthesis of the pending corrections; it runs in the
// background. It needs an LLM.
func (s *Service) Synthesize(ctx context.Context) (*Run, error) {
	if s.opts.LLM == nil {
		return nil, s.errNoLLM()
	}
	now := s.now()
	r := &Run{ID: hone.NewID(idLength), Status: RunQueued, Learnings: []*Learning{}, CreatedAt: now, UpdatedAt: now}
	if err := s.store.CreateRun(ctx, r); err != nil {
		return nil, err
	}
	s.jobs.Notify()
	return r, nil
}

// SynthesizeNow runs a synthesis here and now (the CLI's way) and returns it
// finished: done, or failed with the reason.
func (s *Service) SynthesizeNow(ctx context.Context) (*Run, error) {
	if s.opts.LLM == nil {
		return nil, s.errNoLLM()
	}
	now := s.now()
	r := &Run{ID: hone.NewID(idLength), Status: RunQueued, Learnings: []*Learning{}, CreatedAt: now, UpdatedAt: now}
	if err := s.store.CreateRun(ctx, r); err != nil {
		return nil, err
	}
	claimed, err := s.store.ClaimRun(ctx, r.ID)
	if err != nil {
		if ferr := s.store.FailRun(context.WithoutCancel(ctx), r.ID, hone.ErrorMessage(err)); ferr != nil {
			s.log.Warn("fail a synthesis that could not start", "run_id", r.ID, "err", ferr)
		}
		return nil, err
	}
	s.execute(ctx, claimed)
	return s.Run(ctx, r.ID)
}

// Run returns a synthesis run with its learnings and their status.
func (s *Service) Run(ctx context.Context, id string) (*Run, error) {
	r, err := s.store.Run(ctx, strings.TrimSpace(id))
	if err != nil {
		return nil, err
	}
	r.Learnings = []*Learning{}
	for _, lid := range r.LearningIDs {
		l, err := s.store.Learning(ctx, lid)
		if hone.ErrorCode(err) == hone.ENOTFOUND {
			continue
		} else if err != nil {
			return nil, err
		}
		r.Learnings = append(r.Learnings, s.withStatus(l))
	}
	return r, nil
}

// Runs lists the latest synthesis runs, newest first, without their
// learnings.
func (s *Service) Runs(ctx context.Context, limit int) ([]*Run, error) {
	return s.store.Runs(ctx, clampLimit(limit))
}

// synthesize reads the pending corrections and stores what the LLM learns
// from them, all in one transaction that also marks them processed.
func (s *Service) synthesize(ctx context.Context, r *Run) error {
	pending, err := s.store.Corrections(ctx, true, maxPending)
	if err != nil {
		return err
	}
	o := Outcome{RunID: r.ID}
	rules, err := s.protected()
	if err != nil {
		return fmt.Errorf("read the protected rules: %w", err)
	}
	groups := map[string][]*Correction{}
	var order []string
	for _, c := range pending {
		key := ""
		if s.opts.PerTester {
			key = c.TesterID
		}
		if _, ok := groups[key]; !ok {
			order = append(order, key)
		}
		groups[key] = append(groups[key], c)
		o.Processed = append(o.Processed, c.ID)
	}
	for _, tester := range order {
		if err := s.synthesizeGroup(ctx, r, tester, groups[tester], rules, &o); err != nil {
			return err
		}
	}
	return s.store.FinishRun(ctx, o)
}

// synthesizeGroup learns from the corrections of one scope: everyone's, or
// one tester's.
func (s *Service) synthesizeGroup(ctx context.Context, r *Run, tester string, corrections []*Correction, rules string, o *Outcome) error {
	var candidates []*Learning
	for _, chunk := range s.chunks(corrections) {
		got, err := s.distill(ctx, r, chunk, tester)
		if err != nil {
			return err
		}
		for _, c := range got {
			if i := slices.IndexFunc(candidates, func(x *Learning) bool { return nearDuplicate(x.PromptAdjustment, c.PromptAdjustment) }); i >= 0 {
				mergeInto(candidates[i], c)
				continue
			}
			candidates = append(candidates, c)
		}
	}
	filter := LearningFilter{TesterID: tester}
	if tester == "" {
		filter = LearningFilter{Everyone: true}
	}
	existing, err := s.store.Learnings(ctx, filter)
	if err != nil {
		return err
	}
	var fresh []*Learning
	for _, c := range candidates {
		if i := slices.IndexFunc(existing, func(e *Learning) bool { return nearDuplicate(e.PromptAdjustment, c.PromptAdjustment) }); i >= 0 {
			e := existing[i]
			o.Merges = append(o.Merges, Merge{LearningID: e.ID, Corrections: c.SourceCorrections,
				Confidence: math.Max(e.Confidence, c.Confidence)})
			continue
		}
		fresh = append(fresh, c)
	}
	var active []*Learning
	for _, e := range existing {
		if e.State == StateOK {
			active = append(active, e)
		}
	}
	verdicts, err := s.check(ctx, r.ID, rules, active, fresh)
	if err != nil {
		return err
	}
	for i, c := range fresh {
		v := verdicts[i]
		switch {
		case v.ContradictsRules:
			c.State, c.Reason = StateRejected, cmpOr(v.RulesReason, "It contradicts the protected rules of the base prompt.")
		case v.ConflictsWith != "":
			c.State, c.ConflictsWith, c.Reason = StateConflict, v.ConflictsWith, cmpOr(v.ConflictReason, "It contradicts learning "+v.ConflictsWith+".")
		}
		// Learnings of one run keep the order the LLM gave them in, a
		// microsecond apart: the prompt lists them oldest first.
		c.CreatedAt = c.CreatedAt.Add(time.Duration(len(o.Learnings)) * time.Microsecond)
		c.UpdatedAt = c.CreatedAt
		o.Learnings = append(o.Learnings, c)
	}
	return nil
}

func cmpOr(a, b string) string {
	if strings.TrimSpace(a) != "" {
		return strings.TrimSpace(a)
	}
	return b
}

// mergeInto adds the evidence of a duplicate to l.
func mergeInto(l, dup *Learning) {
	for _, id := range dup.SourceCorrections {
		if !slices.Contains(l.SourceCorrections, id) {
			l.SourceCorrections = append(l.SourceCorrections, id)
		}
	}
	l.Confidence = math.Max(l.Confidence, dup.Confidence)
}

// chunks splits corrections so that each synthesis call holds at most
// ChunkChars characters of them (one correction at least).
func (s *Service) chunks(list []*Correction) [][]*Correction {
	var out [][]*Correction
	var cur []*Correction
	size := 0
	for _, c := range list {
		n := len([]rune(formatCorrection(c)))
		if len(cur) > 0 && size+n > s.opts.ChunkChars {
			out = append(out, cur)
			cur, size = nil, 0
		}
		cur = append(cur, c)
		size += n
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// formatCorrection is a correction as the synthesis call reads it.
func formatCorrection(c *Correction) string {
	return fmt.Sprintf("### Correction %s\nUser asked: %s\nAssistant answered: %s\nUser said it should have: %s\n",
		c.ID, bound(c.UserMessage), bound(c.Response), bound(c.Text))
}

// bound cuts a text of a synthesis call to fieldChars, saying so.
func bound(s string) string {
	r := []rune(strings.TrimSpace(s))
	if len(r) <= fieldChars {
		return string(r)
	}
	return string(r[:fieldChars]) + " […cut]"
}

// distill runs the synthesis call on one chunk and returns its learnings,
// citing only corrections of the chunk.
func (s *Service) distill(ctx context.Context, r *Run, chunk []*Correction, tester string) ([]*Learning, error) {
	var b strings.Builder
	ids := map[string]bool{}
	for _, c := range chunk {
		b.WriteString(formatCorrection(c))
		b.WriteString("\n")
		ids[c.ID] = true
	}
	out, _, err := llm.Generate[Synthesis](ctx, s.opts.LLM, llm.Request{Purpose: llm.PurposeLearning, CauseType: "learning_run",
		CauseID: r.ID, Messages: []llm.Message{{Role: llm.RoleSystem, Content: synthesisSystem}, {Role: llm.RoleUser, Content: b.String()}}})
	if err != nil {
		return nil, err
	}
	now := s.now()
	var list []*Learning
	for _, st := range out.Learnings {
		adj := summaryKeep(st.PromptAdjustment, MaxAdjustmentLength)
		if adj == "" {
			continue
		}
		var sources []string
		for _, id := range st.SourceCorrections {
			if id = strings.TrimSpace(id); ids[id] && !slices.Contains(sources, id) {
				sources = append(sources, id)
			}
		}
		if len(sources) == 0 {
			s.log.Warn("a learning cites no correction of its call; it is left out", "run_id", r.ID, "pattern", st.Pattern)
			continue
		}
		pattern := summaryKeep(st.Pattern, MaxPatternLength)
		if pattern == "" {
			pattern = summary(adj, 120)
		}
		conf := st.Confidence
		if math.IsNaN(conf) {
			conf = 0
		}
		list = append(list, &Learning{ID: hone.NewID(idLength), Pattern: pattern, PromptAdjustment: adj,
			Confidence: math.Min(math.Max(conf, 0), 1), SourceCorrections: sources, TesterID: tester, RunID: r.ID,
			CreatedAt: now, UpdatedAt: now, State: StateOK})
	}
	return list, nil
}

// summaryKeep cleans a text of the LLM and cuts it to max characters.
func summaryKeep(s string, max int) string {
	s = strings.TrimSpace(hone.CleanText(s))
	if r := []rune(s); len(r) > max {
		return string(r[:max])
	}
	return s
}
